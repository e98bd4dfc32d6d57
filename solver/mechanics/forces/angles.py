"""The relative angle of a joint for force elements: Hessian and continuity over turns.

The angle is that of the constraint primitives (``angle_parts``): with directions
``u1``, ``w1 = a × u1`` fixed in body 1 and ``u2`` fixed in body 2 (equal to ``u1`` at
t = 0), ``θ = atan2(w1·u2, u1·u2)``. A generalised torque ``τ ∂θ/∂q`` needs, for its
Jacobian, the second derivatives of θ with respect to the three directions, which
:func:`angle_hessian` gives as one ``(m, 9, 9)`` matrix over ``(u1, w1, u2)``.

``atan2`` only knows θ modulo 2π, while a torsion spring wound three turns must feel
three turns. :class:`AngleTracker` keeps, per element, the last angle it returned and
picks the branch nearest to it: ``θ = θ_last + wrap(θ_raw − θ_last)``. This needs no
help from the time loop, follows Newton iterations as well as accepted steps (a static
equilibrium beyond ±π is reachable) and stays right as long as two successive evaluations
differ by less than π in relative rotation — far more than any time step or Newton
correction. ``reset()`` returns to the initial configuration (θ = 0) before a run is
restarted from t = 0 with the same system.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.constraints.primitives import angle_parts, wrap_angle
from solver.mechanics.markers import MarkerState


def _dot(a, b):
    return np.sum(a * b, axis=-1)


def angle_hessian(ms: MarkerState, u1, w1, u2) -> np.ndarray:
    """``∂²θ/∂(u1, w1, u2)²``, ``(m, 9, 9)``, for the angle of ``angle_parts``."""
    a, w, b = ms.u[u1], ms.u[w1], ms.u[u2]
    x, y = _dot(a, b), _dot(w, b)
    r2 = x * x + y * y
    tx, ty = -y / r2, x / r2
    txx = 2.0 * x * y / r2**2
    txy = (y * y - x * x) / r2**2
    zero = np.zeros_like(a)
    gx = np.concatenate([b, zero, a], axis=1)  # ∂x/∂(u1, w1, u2)
    gy = np.concatenate([zero, b, w], axis=1)  # ∂y/∂(u1, w1, u2)
    xx = gx[:, :, None] * gx[:, None, :]
    yy = gy[:, :, None] * gy[:, None, :]
    xy = gx[:, :, None] * gy[:, None, :]
    h = txx[:, None, None] * (xx - yy) + txy[:, None, None] * (xy + np.swapaxes(xy, 1, 2))
    eye = np.eye(3)
    h[:, 0:3, 6:9] += tx[:, None, None] * eye  # x = u1·u2
    h[:, 6:9, 0:3] += tx[:, None, None] * eye
    h[:, 3:6, 6:9] += ty[:, None, None] * eye  # y = w1·u2
    h[:, 6:9, 3:6] += ty[:, None, None] * eye
    return h


class AngleTracker:
    """Continuous relative angles of m elements (see the module docstring)."""

    def __init__(self, m: int) -> None:
        self.last = np.zeros(m)

    def reset(self) -> None:
        self.last[:] = 0.0

    def unwrap(self, raw: np.ndarray) -> np.ndarray:
        """The angle on the branch of ``raw`` nearest to the previous one; remembered."""
        theta = self.last + wrap_angle(raw - self.last)
        self.last = theta
        return theta.copy()


def joint_angle(ms: MarkerState, u1, w1, u2):
    """``(θ_raw ∈ (−π, π], gradient blocks (m, 9), θ̇)`` from ``angle_parts``."""
    theta, blocks, rate, _ = angle_parts(ms, u1, w1, u2)
    return theta, np.concatenate(blocks, axis=1), rate
