"""One rigid body's rotation and angular velocity at a state, in plain floats.

The requested quantities (joint coordinates, reactions, efforts, accelerations) need a few
3-vectors per body at every output row. On 3-vectors NumPy's per-call overhead dominates:
measured on a busy machine, ``np.cross`` 25 µs and a 3×3 rotation matrix from the
vectorised ``solver.mechanics.rotations`` 117 µs, against 0.3 µs, 0.6 µs (a rotated vector)
and 4 µs (the matrix) for the same formulas on Python floats here
(``benchmarks/joint_outputs.py`` times whole rows). Vectors are tuples ``(x, y, z)``; Euler
parameters ``p = (e0, e1, e2, e3)`` body→global.

The formulas are those of ``solver.mechanics.rotations``: the homogeneous quadratic form
``A(p) v = (e0² − e·e) v + 2 e (e·v) + 2 e0 (e × v)`` (the rotation matrix for a unit p),
``ω = 2 E(p) ṗ`` with ``E(p) = [−e, e0 I + ẽ]``.
"""

from __future__ import annotations

import math

import numpy as np

Vec = tuple[float, float, float]
ZERO: Vec = (0.0, 0.0, 0.0)


def cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def add(a: Vec, b: Vec) -> Vec:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Vec, b: Vec) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def parameters(q: np.ndarray, offset: int, unit: bool = False) -> tuple[float, ...]:
    """The Euler parameters at ``q[offset : offset + 4]`` (divided by their norm if
    ``unit``)."""
    e0, e1, e2, e3 = q[offset : offset + 4].tolist()
    if unit:
        norm = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)
        e0, e1, e2, e3 = e0 / norm, e1 / norm, e2 / norm, e3 / norm
    return e0, e1, e2, e3


def rotate(p, v: Vec) -> Vec:
    """``A(p) v`` (homogeneous form)."""
    e0, e1, e2, e3 = p
    x, y, z = v
    s = e0 * e0 - (e1 * e1 + e2 * e2 + e3 * e3)
    ev2 = 2.0 * (e1 * x + e2 * y + e3 * z)
    c0 = 2.0 * e0
    return (
        s * x + e1 * ev2 + c0 * (e2 * z - e3 * y),
        s * y + e2 * ev2 + c0 * (e3 * x - e1 * z),
        s * z + e3 * ev2 + c0 * (e1 * y - e2 * x),
    )


def rotate_back(p, v: Vec) -> Vec:
    """``A(p)ᵀ v`` (homogeneous form; the inverse rotation, global → body axes, for a
    unit p)."""
    e0, e1, e2, e3 = p
    return rotate((e0, -e1, -e2, -e3), v)


def rotation_matrix(p) -> np.ndarray:
    """``A(p)`` as a 3×3 array (homogeneous form)."""
    cols = [rotate(p, v) for v in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))]
    return np.array(cols).T


def e_times(p, g) -> Vec:
    """``E(p) g`` for a 4-vector g: ``−g0 e + e0 g_v + e × g_v``."""
    e0, e1, e2, e3 = p
    g0, gx, gy, gz = g
    return (
        -g0 * e1 + e0 * gx + (e2 * gz - e3 * gy),
        -g0 * e2 + e0 * gy + (e3 * gx - e1 * gz),
        -g0 * e3 + e0 * gz + (e1 * gy - e2 * gx),
    )


def angular_velocity(p, pdot) -> Vec:
    """Global ``ω = 2 E(p) ṗ`` (unit p)."""
    wx, wy, wz = e_times(p, pdot)
    return (2.0 * wx, 2.0 * wy, 2.0 * wz)
