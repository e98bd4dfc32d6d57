"""Translational spring-damper-actuators between two points (``spring_damper``).

With ``d = P2 − P1``, ``l = |d|``, ``e = d/l`` and ``l̇ = e·(Ṗ2 − Ṗ1)``, the scalar force
along e acting on point 2 is (the MUBODYNA convention, Villar Alegría (2018) §2.2)

    f = −k (l − l0) − c l̇ + a(t),

so a positive actuator force ``a`` pushes the points apart; point 2 receives ``f e`` and
point 1 ``−f e``. The spring part is evaluated in the vector form

    F2 = −k d + (k l0 − c l̇ + a) e,

which for ``l0 = 0`` is the linear zero-length spring ``−k d``, smooth through ``l = 0``.
Below ``l = TINY`` the direction e is undefined: it is taken as zero, so the damper, the
actuator and the ``k l0`` term vanish there and only ``−k d`` remains.

Elastic energy ``½ k (l − l0)²``; non-conservative power ``(a − c l̇) l̇``. The equations
are the compiled kernel ``solver.kernels.loads.spring``; this group holds the elements.
"""

from __future__ import annotations


class SpringDampers:
    """All spring-damper-actuators of a system: markers, ``k``, ``c``, ``l0``, actuator."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, float, float, float]] = []
        self._funcs: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, point1: int, point2: int, stiffness, damping, free_length, actuator=None) -> None:
        self._rows.append((point1, point2, float(stiffness), float(damping), float(free_length)))
        self._funcs.append(actuator)
