"""Compiled (Numba, cached on disk) per-body blocks of ``RigidBodies`` for many bodies: one
loop instead of a dozen batched NumPy products of 3×4 and 4×4 matrices per call.

Conventions of :mod:`solver.mechanics.bodies.rigid`: ``p = [e0, e1, e2, e3]``,
``G(p) = [−e, e0 I − ẽ]`` (3×4), ``H(c) = [[0, −cᵀ], [c, −c̃]]`` (``G(x)ᵀ c = H(c) x``),
body inertia ``J`` (3×3); blocks are 7×7 over ``[r, p]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_OPTS = {"cache": True, "nogil": True}


@njit(**_OPTS)
def _g(p, out):  # pragma: no cover - compiled
    """``G(p)`` into ``out`` (3×4)."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = -e1, e0, e3, -e2
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = -e2, -e3, e0, e1
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = -e3, e2, -e1, e0


@njit(**_OPTS)
def _h_add(c, scale, out):  # pragma: no cover - compiled
    """``out += scale · H(c)`` (4×4 block ``out``)."""
    c1, c2, c3 = scale * c[0], scale * c[1], scale * c[2]
    out[0, 1] -= c1
    out[0, 2] -= c2
    out[0, 3] -= c3
    out[1, 0] += c1
    out[2, 0] += c2
    out[3, 0] += c3
    out[1, 2] += c3
    out[1, 3] -= c2
    out[2, 1] -= c3
    out[2, 3] += c1
    out[3, 1] += c2
    out[3, 2] -= c1


@njit(**_OPTS)
def _gtjg_add(ga, inertia, gb, scale, out):  # pragma: no cover - compiled
    """``out += scale · G_aᵀ J G_b`` (4×4)."""
    jg = np.zeros((3, 4))
    for i in range(3):
        for k in range(4):
            s = 0.0
            for m in range(3):
                s += inertia[i, m] * gb[m, k]
            jg[i, k] = s
    for a in range(4):
        for b in range(4):
            s = 0.0
            for i in range(3):
                s += ga[i, a] * jg[i, b]
            out[a, b] += scale * s


@njit(**_OPTS)
def _jg_times(inertia, g, x, out):  # pragma: no cover - compiled
    """``out = J G x`` (3) for ``G`` 3×4 and ``x`` (4)."""
    w = np.zeros(3)
    for i in range(3):
        for k in range(4):
            w[i] += g[i, k] * x[k]
    for i in range(3):
        s = 0.0
        for m in range(3):
            s += inertia[i, m] * w[m]
        out[i] = s


@njit(**_OPTS)
def mass_blocks(p, mass, inertia):  # pragma: no cover - compiled
    """``(n, 7, 7)``: ``m I₃`` and ``4 Gᵀ J G``."""
    n = p.shape[0]
    out = np.zeros((n, 7, 7))
    g = np.empty((3, 4))
    blk = np.zeros((4, 4))
    for k in range(n):
        for i in range(3):
            out[k, i, i] = mass[k]
        _g(p[k], g)
        blk[:] = 0.0
        _gtjg_add(g, inertia[k], g, 4.0, blk)
        out[k, 3:, 3:] = blk
    return out


@njit(**_OPTS)
def mass_times_jacobian(p, ap, inertia):  # pragma: no cover - compiled
    """``∂(M a)/∂q`` per body: ``4 (H(J G(p) a_p) − G(p)ᵀ J G(a_p))`` in the p-block."""
    n = p.shape[0]
    out = np.zeros((n, 7, 7))
    g = np.empty((3, 4))
    ga = np.empty((3, 4))
    c = np.empty(3)
    blk = np.zeros((4, 4))
    for k in range(n):
        _g(p[k], g)
        _g(ap[k], ga)
        _jg_times(inertia[k], g, ap[k], c)
        blk[:] = 0.0
        _h_add(c, 4.0, blk)
        _gtjg_add(g, inertia[k], ga, -4.0, blk)
        out[k, 3:, 3:] = blk
    return out


@njit(**_OPTS)
def quadratic_forces(p, pd, inertia):  # pragma: no cover - compiled
    """``Q_v = 8 G(ṗ)ᵀ J G(ṗ) p`` per body, ``(n, 7)``."""
    n = p.shape[0]
    out = np.zeros((n, 7))
    gd = np.empty((3, 4))
    c = np.empty(3)
    for k in range(n):
        _g(pd[k], gd)
        _jg_times(inertia[k], gd, p[k], c)
        for a in range(4):
            s = 0.0
            for i in range(3):
                s += gd[i, a] * c[i]
            out[k, 3 + a] = 8.0 * s
    return out


@njit(**_OPTS)
def quadratic_forces_jacobians(p, pd, inertia):  # pragma: no cover - compiled
    """``(∂Q_v/∂q, ∂Q_v/∂q̇)``: ``8 G(ṗ)ᵀ J G(ṗ)`` and ``8 (H(J G(ṗ) p) − G(ṗ)ᵀ J G(p))``."""
    n = p.shape[0]
    dq = np.zeros((n, 7, 7))
    dqd = np.zeros((n, 7, 7))
    g = np.empty((3, 4))
    gd = np.empty((3, 4))
    c = np.empty(3)
    blk = np.zeros((4, 4))
    for k in range(n):
        _g(p[k], g)
        _g(pd[k], gd)
        blk[:] = 0.0
        _gtjg_add(gd, inertia[k], gd, 8.0, blk)
        dq[k, 3:, 3:] = blk
        _jg_times(inertia[k], gd, p[k], c)
        blk[:] = 0.0
        _h_add(c, 8.0, blk)
        _gtjg_add(gd, inertia[k], g, -8.0, blk)
        dqd[k, 3:, 3:] = blk
    return dq, dqd
