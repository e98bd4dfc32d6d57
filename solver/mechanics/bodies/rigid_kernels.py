"""Compiled (Numba, cached on disk) per-body blocks of ``RigidBodies`` for many bodies: one
loop instead of a dozen batched NumPy products of 3×4 and 4×4 matrices per call.

Conventions of :mod:`solver.mechanics.bodies.rigid`: ``p = [e0, e1, e2, e3]``,
``G(p) = [−e, e0 I − ẽ]`` (3×4), ``H(c) = [[0, −cᵀ], [c, −c̃]]`` (``G(x)ᵀ c = H(c) x``),
body inertia ``J`` (3×3); blocks are 7×7 over ``[r, p]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.compiled.dense import mat_t_vec, mat_vec
from solver.compiled.evaluate import g_matrix, gjg, h_matrix

_OPTS = {"cache": True, "nogil": True}


@njit(**_OPTS)
def mass_blocks(p, mass, inertia):  # pragma: no cover - compiled
    """``(n, 7, 7)``: ``m I₃`` and ``4 Gᵀ J G``."""
    n = p.shape[0]
    out = np.zeros((n, 7, 7))
    for k in range(n):
        for i in range(3):
            out[k, i, i] = mass[k]
        g = g_matrix(p[k])
        out[k, 3:, 3:] = 4.0 * gjg(g, inertia[k], g)
    return out


@njit(**_OPTS)
def mass_times_jacobian(p, ap, inertia):  # pragma: no cover - compiled
    """``∂(M a)/∂q`` per body: ``4 (H(J G(p) a_p) − G(p)ᵀ J G(a_p))`` in the p-block."""
    n = p.shape[0]
    out = np.zeros((n, 7, 7))
    for k in range(n):
        g = g_matrix(p[k])
        c = mat_vec(inertia[k], mat_vec(g, ap[k]))
        out[k, 3:, 3:] = 4.0 * (h_matrix(c) - gjg(g, inertia[k], g_matrix(ap[k])))
    return out


@njit(**_OPTS)
def quadratic_forces(p, pd, inertia):  # pragma: no cover - compiled
    """``Q_v = 8 G(ṗ)ᵀ J G(ṗ) p`` per body, ``(n, 7)``."""
    n = p.shape[0]
    out = np.zeros((n, 7))
    for k in range(n):
        gd = g_matrix(pd[k])
        out[k, 3:] = 8.0 * mat_t_vec(gd, mat_vec(inertia[k], mat_vec(gd, p[k])))
    return out


@njit(**_OPTS)
def quadratic_forces_jacobians(p, pd, inertia):  # pragma: no cover - compiled
    """``(∂Q_v/∂q, ∂Q_v/∂q̇)``: ``8 G(ṗ)ᵀ J G(ṗ)`` and ``8 (H(J G(ṗ) p) − G(ṗ)ᵀ J G(p))``."""
    n = p.shape[0]
    dq = np.zeros((n, 7, 7))
    dqd = np.zeros((n, 7, 7))
    for k in range(n):
        g = g_matrix(p[k])
        gd = g_matrix(pd[k])
        dq[k, 3:, 3:] = 8.0 * gjg(gd, inertia[k], gd)
        c = mat_vec(inertia[k], mat_vec(gd, p[k]))
        dqd[k, 3:, 3:] = 8.0 * (h_matrix(c) - gjg(gd, inertia[k], g))
    return dq, dqd
