"""Applied loads on bodies: ``force`` at a point and ``torque`` on a rigid body.

Components are numbers or time functions, in the global frame or in body axes (``frame``
``"body"``: the components follow the body, ``f = A(p) f̄``).

* Force at a point marker P: ``Q = J_Pᵀ f``. In body axes f depends on p, and ``∂f/∂p =
  S(p, f̄)`` enters the Jacobian.
* Torque on a rigid body (Euler parameters p): the virtual rotation is ``δπ = 2 E(p) δp``
  (global) or ``δπ̄ = 2 G(p) δp`` (body axes), so ``Q_p = 2 E(p)ᵀ n`` for a global torque n
  and ``Q_p = 2 G(p)ᵀ n̄`` for a body-axes torque n̄. Both are linear in p:
  ``E(p)ᵀ n = [[0, −nᵀ], [n, ñ]] p`` and ``G(p)ᵀ n̄ = H(n̄) p`` (``solver.kernels.rotations.h_matrix``).

All of them are non-conservative: their power is ``Q·q̇`` (``f·Ṗ``, ``n·ω``). The equations
are compiled kernels (``solver.kernels.system``); these groups hold the elements.
"""

from __future__ import annotations


class PointForces:
    """Forces at points of bodies, global or in body axes."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, bool]] = []
        self._vectors: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, point: int, vector, body_frame: bool) -> None:
        """``point`` a marker; ``vector`` three time functions; body-axes components if
        ``body_frame`` (the marker must then be on a rigid body)."""
        self._rows.append((point, bool(body_frame)))
        self._vectors.append(tuple(vector))


class BodyTorques:
    """Torques on rigid bodies, global or in body axes."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, bool]] = []
        self._vectors: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, offset: int, vector, body_frame: bool) -> None:
        """``offset`` the first coordinate of the rigid body (``[r, p]``)."""
        self._rows.append((offset, bool(body_frame)))
        self._vectors.append(tuple(vector))
