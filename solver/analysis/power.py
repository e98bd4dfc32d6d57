"""Power of non-conservative forces and drivers, and the work they do over a step.

``PowerMeter(state, ms, c)`` is the power (W) at an accepted state: force elements
(damped flexible elements included) and drivers (``λ·Φ_t`` on the driver rows). Over a
fixed step the time loop books the forces' work as the trapezoidal rule does it, ``½ (Q_n
+ Q_n+1)·Δq`` (``PowerMeter.secant_correction``), with rigid bodies' rotations measured
along their arc (``rotation_arc_increment``).
"""

from __future__ import annotations

import numpy as np

from solver.analysis.kinematic import driver_rows
from solver.analysis.linalg import min_norm_solve
from solver.mechanics.system import MultibodySystem


def rotation_arc_increment(system: MultibodySystem, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    """``q1 − q0`` with each rigid body's Euler-parameter part scaled by ``θ / sin θ``, θ
    half the angle turned (``|p1 − p0| = 2 sin(θ/2)``). For a rotation Δβ about a fixed
    axis u, ``2 E(p0)(s Δp) = 2 E(p1)(s Δp) = u Δβ``: the generalized forces of a torque
    τ (``Q_p = 2 Eᵀτ``) then do the work τ·u Δβ over the increment."""
    dq = q1 - q0
    if len(system.rigid):
        cols = system.rigid.cols[:, 3:]
        chord = np.sqrt(np.einsum("ij,ij->i", dq[cols], dq[cols]))
        theta = 2.0 * np.arcsin(np.minimum(0.5 * chord, 1.0))
        scale = np.ones_like(theta)
        big = theta > 1e-6  # below: θ/sin θ − 1 < 2e-13
        scale[big] = theta[big] / np.sin(theta[big])
        dq[cols] *= scale[:, None]
    return dq


class PowerMeter:
    """Power of non-conservative forces and drivers at a state (W)."""

    def __init__(self, system: MultibodySystem) -> None:
        self.system = system
        self.drows = driver_rows(system)
        # whether force elements do non-conservative work (not contacts, which keep their
        # own work), the kernels' damped flexible elements included
        self.forces = self.elements = system.nonconservative

    def _element_power(self, q: np.ndarray, v: np.ndarray, t: float) -> float:
        """Power of the non-conservative force elements (not contacts) at ``(q, v)``."""
        return self.system.element_power(q, v, t, contacts=False)

    def state(self, q: np.ndarray, qd: np.ndarray, t: float):
        """What ``secant_correction`` needs of an accepted state: ``(q, q̇, t, P)``, P the
        force elements' power."""
        power = self._element_power(q, qd, t) if self.elements else 0.0
        return q.copy(), qd.copy(), t, power

    def secant_correction(self, prev, cur, dt: float) -> float:
        """``½ (Q_n + Q_n+1)·Δq − ½ Δt (Q_n·q̇_n + Q_n+1·q̇_n+1)``: turns the trapezoidal
        rule on the forces' power into their work along the step (``prev``/``cur`` from
        ``state``). ``Q·w`` of the force elements comes from their power P(v) = Q(q, v)·v by
        polarisation, ``½ [P(q̇ + w) − P(q̇) − P(−w)]``: exact for forces affine in the
        velocities with a symmetric velocity part (applied loads, actuators, viscous
        dampers: every force element but contact friction).

        A rigid body's Euler-parameter increment is lengthened to the arc it turned
        through (``rotation_arc_increment``): a torque then does τ·Δβ over a rotation Δβ
        about a fixed axis, not the chord's 2τ sin(Δβ/2)."""
        v = rotation_arc_increment(self.system, prev[0], cur[0]) / dt
        out = 0.0
        for q, qd, t, power in (prev, cur):
            w = v - qd
            if self.elements:
                p = self._element_power
                out += 0.5 * (p(q, v, t) - power - p(q, -w, t))
        return 0.5 * dt * out

    def __call__(self, state, ms, c) -> float:
        """Power at a ``DynamicState`` (its ``lam`` if the formulation gave them, else
        the multipliers by least squares from its accelerations)."""
        return self.power(state.q, state.qd, state.t, ms, c, state.lam, state.qdd)

    def power(self, q, qd, t: float, ms, c, lam=None, qdd=None) -> float:
        """Power of forces and drivers at ``(q, q̇, t)`` with marker state ``ms``,
        constraints ``c`` (read with drivers only: ``None`` without) and multipliers
        ``lam`` (``M q̈ = Q − Φ_qᵀ λ``); contacts are left out (they integrate their own
        work over the states they are handed)."""
        s = self.system
        power = s.nonconservative_power(q, qd, t, ms, contacts=False)
        if len(self.drows):
            if lam is not None and len(lam) == s.m + s.m_nh:  # [holonomic; no-slip rows]
                lam = lam[: s.m]
            if lam is None or len(lam) != s.m:
                rhs = s.forces(q, qd, t, ms) - s.mass(q) @ qdd
                lam = min_norm_solve(c.phi_q.T, rhs)
            power += float(lam[self.drows] @ c.phi_t[self.drows])
        return power
