"""A rigid disc rolling on a plane: the holonomic contact and the no-slip conditions.

Disc (body 2): centre C, unit axle a, radius R. Plane (body 1): a point O and unit
normal n. The contact point is ``Q = C − R w`` with ``w = (n − c a)/s``, ``c = a·n``,
``s = √(1 − c²)`` (the disc radius pointing at the plane).

* Contact (holonomic, ``DiscOnPlane``): ``Φ = (C − O)·n − R s = 0``.
* No slip (velocity level, ``RollingNoSlip``): the disc's material point at Q has no
  velocity along ``t = (a × n)/s`` (longitudinal, the rolling direction) and/or along
  ``l = n × t`` (lateral): ``e·v_Q = 0`` with ``v_Q = Ċ − R ω × w``. These rows are not
  integrable; they enter the velocity and acceleration problems as ``B q̇ = 0`` and
  ``B q̈ = γ`` with ``γ = −Ḃ q̇`` (``solver.kernels.rolling``). MUBODYNA's slip options
  choose the rows:
  ``none`` both, ``lateral`` (lateral slip allowed) the longitudinal row, ``longitudinal``
  the lateral row, ``free`` none. The plane must belong to ground for the no-slip rows.
"""

from __future__ import annotations

import numpy as np

from solver.kernels import primitives as kp
from solver.mechanics.constraints.primitives import Primitive

#: rows per slip option: (longitudinal, lateral)
SLIP_ROWS = {
    "none": (True, True),
    "lateral": (True, False),
    "longitudinal": (False, True),
    "free": (False, False),
}
#: MUBODYNA's disk joint types (Villar Alegría (2018) §2.2) as slip options. 'z': contact only.
#: 'nz': no
#: slip along n, the disc's normal (the axle): no lateral slip, the wheel may slip along
#: its rolling direction. 'tz': no slip along the tangent t (the rolling direction),
#: lateral slip allowed. 'xyz': no slip at all. (The thesis's rule for the tricycle, one
#: rear wheel 'nz' and the other 'z', holds only with 'nz' refusing lateral slip: two
#: wheels on one axle that both refuse it are redundant, see
#: ``analysis.rolling_consistency``.)
MUBODYNA_DISK = {"z": "free", "nz": "longitudinal", "tz": "lateral", "xyz": "none"}


class DiscOnPlane(Primitive):
    """``Φ = (C − O)·n − R √(1 − (a·n)²)``; ``const`` holds R (``solver.kernels.primitives``)."""

    code = kp.DISC_ON_PLANE
    slots = ("plane_point", "centre", "normal", "axle")
    pairs = ((0, 2), (2, 0), (1, 2), (2, 1), (2, 2), (3, 3), (2, 3), (3, 2))


class RollingNoSlip:
    """The no-slip rows of rolling discs on ground planes, in order: their markers and
    discs (evaluated by the kernels, ``solver.kernels.rolling``)."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, int, int, float, int]] = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(
        self, centre: int, normal: int, axle: int, pcol0: int, radius: float, lateral: bool
    ) -> int:
        """One row: markers of the centre, the (ground) normal and the axle; the first
        Euler-parameter column of the disc; 0 = longitudinal, 1 = lateral direction."""
        self._rows.append((centre, normal, axle, pcol0, float(radius), int(lateral)))
        return len(self._rows) - 1

    def freeze(self) -> None:
        r = np.array(self._rows, dtype=float).reshape(-1, 6)
        self.centre, self.normal, self.axle = (r[:, k].astype(np.int64) for k in range(3))
        self.pcol = r[:, 3].astype(np.int64)
        self.radius = r[:, 4]
        self.lateral = r[:, 5].astype(bool)
