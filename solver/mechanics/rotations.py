"""Euler-parameter kinematics, vectorised over many bodies.

Euler parameters ``p = [e0, e1, e2, e3]`` (scalar first) give the rotation body→global.
The rotation of a vector is written in its *homogeneous quadratic* form

    A(p) v = (e0² − e·e) v + 2 e (e·v) + 2 e0 (e × v),

which equals the usual rotation matrix on the unit sphere and is quadratic in p off it.
All Jacobians below are exact derivatives of this form, so ``S(p, v) p = 2 A(p) v`` and
the second time derivative of ``A(p) v`` is ``S(p, v) p̈ + 2 A(ṗ) v``.

Arrays: ``p`` has shape ``(n, 4)``, vectors ``(n, 3)``; results keep the leading ``n``.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.shepperd import quaternion_into


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise ``a × b`` for ``(..., 3)`` arrays (cheaper than ``np.cross`` on small arrays)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def skew(v: np.ndarray) -> np.ndarray:
    """Skew-symmetric matrices ``ṽ`` with ``ṽ w = v × w``; ``(..., 3) → (..., 3, 3)``."""
    v = np.asarray(v, float)
    out = np.zeros(v.shape + (3,))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def rotate(p: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``A(p) v`` in the homogeneous quadratic form (see module docstring)."""
    e0, e = p[..., :1], p[..., 1:]
    ev = np.sum(e * v, axis=-1, keepdims=True)
    return (
        (e0 * e0 - np.sum(e * e, axis=-1, keepdims=True)) * v
        + 2.0 * e * ev
        + 2.0 * e0 * cross(e, v)
    )


def rotation_matrix(p: np.ndarray) -> np.ndarray:
    """``A(p)`` as matrices, ``(..., 4) → (..., 3, 3)`` (homogeneous form)."""
    p = np.asarray(p, float)
    eye = np.broadcast_to(np.eye(3), p.shape[:-1] + (3, 3))
    cols = [rotate(p, eye[..., :, i]) for i in range(3)]
    return np.stack(cols, axis=-1)


def rotate_jacobian(p: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``S(p, v) = ∂(A(p) v)/∂p``, shape ``(n, 3, 4)``; linear in p and in v.

    With ``a = e0x − e3y + e2z``, ``b = e1x + e2y + e3z``, ``c = −e2x + e1y + e0z``,
    ``d = −e3x − e0y + e1z``: ``S = 2 [[a, b, c, d], [−d, −c, b, a], [c, −d, −a, b]]``.
    Being bilinear, S is evaluated as ``(p ⊗ v) T`` with the constant 12×12 matrix T of
    :func:`_rotate_jacobian_formula` (one product instead of some forty array operations).
    """
    p, v = np.asarray(p, float), np.asarray(v, float)
    pv = p[..., :, None] * v[..., None, :]
    lead = pv.shape[:-2]
    return (pv.reshape(lead + (12,)) @ _S_TENSOR).reshape(lead + (3, 4))


def _rotate_jacobian_formula(p: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``S(p, v)`` written out (see :func:`rotate_jacobian`)."""
    e0, e1, e2, e3 = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    a = 2.0 * (e0 * x - e3 * y + e2 * z)
    b = 2.0 * (e1 * x + e2 * y + e3 * z)
    c = 2.0 * (-e2 * x + e1 * y + e0 * z)
    d = 2.0 * (-e3 * x - e0 * y + e1 * z)
    out = np.empty(a.shape + (3, 4))
    out[..., 0, 0], out[..., 0, 1], out[..., 0, 2], out[..., 0, 3] = a, b, c, d
    out[..., 1, 0], out[..., 1, 1], out[..., 1, 2], out[..., 1, 3] = -d, -c, b, a
    out[..., 2, 0], out[..., 2, 1], out[..., 2, 2], out[..., 2, 3] = c, -d, -a, b
    return out


#: ``S(p, v).ravel() = (p ⊗ v).ravel() @ _S_TENSOR`` (rows: p_k v_l, k-major)
_S_TENSOR = np.array(
    [
        _rotate_jacobian_formula(np.eye(4)[k], np.eye(3)[m]).ravel()
        for k in range(4)
        for m in range(3)
    ]
)


def angular_velocity(p: np.ndarray, pdot: np.ndarray) -> np.ndarray:
    """Global angular velocity ``ω = 2 E(p) ṗ`` with ``E = [−e, e0 I + ẽ]`` (unit p), for
    any leading shape (:func:`solver.kernels.rotations.omega_into`)."""
    from solver.kernels.rotations import angular_velocities  # compiled: loaded on first use

    p, pdot = np.asarray(p, float), np.asarray(pdot, float)
    lead = p.shape[:-1]
    flat = angular_velocities(
        np.ascontiguousarray(p.reshape(-1, 4)), np.ascontiguousarray(pdot.reshape(-1, 4))
    )
    return flat.reshape(lead + (3,))


def body_angular_velocity(p: np.ndarray, pdot: np.ndarray) -> np.ndarray:
    """Body-frame angular velocity ``ω̄ = 2 G(p) ṗ`` with ``G = [−e, e0 I − ẽ]`` (unit p)."""
    e0, e = p[..., :1], p[..., 1:]
    d0, d = pdot[..., :1], pdot[..., 1:]
    return 2.0 * (-d0 * e + e0 * d - cross(e, d))


def g_matrix(p: np.ndarray) -> np.ndarray:
    """``G(p) = [−e, e0 I − ẽ]``, shape ``(n, 3, 4)``; ``ω̄ = 2 G ṗ``.

    Linear in p: one product with the constant matrix of :func:`_g_matrix_formula`.
    """
    p = np.asarray(p, float)
    return (p @ _G_TENSOR).reshape(p.shape[:-1] + (3, 4))


def _g_matrix_formula(p: np.ndarray) -> np.ndarray:
    """``G(p)`` written out (see :func:`g_matrix`)."""
    e0, e = p[..., 0], p[..., 1:]
    out = np.empty(p.shape[:-1] + (3, 4))
    out[..., :, 0] = -e
    out[..., :, 1:] = e0[..., None, None] * np.eye(3) - skew(e)
    return out


#: ``G(p).ravel() = p @ _G_TENSOR``
_G_TENSOR = np.array([_g_matrix_formula(row).ravel() for row in np.eye(4)])


def e_matrix(p: np.ndarray) -> np.ndarray:
    """``E(p) = [−e, e0 I + ẽ]``, shape ``(n, 3, 4)``; ``ω = 2 E ṗ``."""
    e0, e = p[..., 0], p[..., 1:]
    out = np.empty(p.shape[:-1] + (3, 4))
    out[..., :, 0] = -e
    out[..., :, 1:] = e0[..., None, None] * np.eye(3) + skew(e)
    return out


def pdot_from_omega(p: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``ṗ = ½ E(p)ᵀ ω`` for a global angular velocity ω (unit p)."""
    return 0.5 * np.einsum("...ij,...i->...j", e_matrix(p), omega)


def quaternion_from_matrix(a: np.ndarray) -> np.ndarray:
    """Euler parameters of a rotation matrix (Shepperd's method, e0 ≥ 0), by the compiled
    kernel's source run as plain Python (:mod:`solver.kernels.shepperd`: building a model
    needs no Numba)."""
    out = np.empty(4)
    quaternion_into(np.asarray(a, dtype=float), out, 0)
    return out
