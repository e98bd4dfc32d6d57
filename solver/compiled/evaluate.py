"""Compiled (Numba) evaluation of a packed system: the same values as
``solver.mechanics.system.MultibodySystem`` for the models :mod:`solver.compiled.packing`
accepts, as dense arrays, without per-call NumPy overhead.

Conventions are the system's: ``q`` per rigid body ``[x, y, z, e0, e1, e2, e3]`` (centre of
mass, Euler parameters), per point mass ``[x, y, z]``; ``Φ_q q̈ = γ``; SI units.
Rigid marker with body vector ``s̄``: ``u = r + ½ S(p, s̄) p`` (``A(p) s̄`` in the homogeneous
quadratic form), ``J = [I₃ | S(p, s̄)]`` (directions: ``[0 | S]``), ``J̇q̇ = S(ṗ, s̄) ṗ``;
``G(p) = [−e, e0 I − ẽ]``, ``ω̄ = 2 G ṗ``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.compiled.dense import mat_t_vec, mat_vec
from solver.compiled.packing import COINCIDENT, DISTANCE, DOT, POINT_PLANE
from solver.mechanics.markers import POINT_MASS, RIGID

_OPTS = {"cache": True, "nogil": True, "fastmath": False}


@njit(**_OPTS)
def s_matrix(p, v):
    """``S(p, v) = ∂(A(p) v)/∂p``, 3×4 (bilinear in p and v)."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    x, y, z = v[0], v[1], v[2]
    a = 2.0 * (e0 * x - e3 * y + e2 * z)
    b = 2.0 * (e1 * x + e2 * y + e3 * z)
    c = 2.0 * (-e2 * x + e1 * y + e0 * z)
    d = 2.0 * (-e3 * x - e0 * y + e1 * z)
    out = np.empty((3, 4))
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = a, b, c, d
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = -d, -c, b, a
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = c, -d, -a, b
    return out


@njit(**_OPTS)
def g_matrix(p):
    """``G(p) = [−e, e0 I − ẽ]``, 3×4."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    out = np.empty((3, 4))
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = -e1, e0, e3, -e2
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = -e2, -e3, e0, e1
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = -e3, e2, -e1, e0
    return out


@njit(**_OPTS)
def h_matrix(c):
    """``H(c)`` with ``G(x)ᵀ c = H(c) x``: ``[[0, −cᵀ], [c, −c̃]]``, 4×4."""
    out = np.zeros((4, 4))
    out[0, 1], out[0, 2], out[0, 3] = -c[0], -c[1], -c[2]
    out[1, 0], out[2, 0], out[3, 0] = c[0], c[1], c[2]
    out[1, 2], out[1, 3] = c[2], -c[1]
    out[2, 1], out[2, 3] = -c[2], c[0]
    out[3, 1], out[3, 2] = c[1], -c[0]
    return out


@njit(**_OPTS)
def markers(P, q, qd, velocity):
    """Every marker's ``u (nk, 3)``, ``u̇``, ``J̇q̇`` and ``J (nk, 3, 7)`` over its body's
    columns from ``mk_off`` (ground: J = 0); ``u̇`` and ``J̇q̇`` only when ``velocity``."""
    nk = len(P.mk_kind)
    u = np.zeros((nk, 3))
    ud = np.zeros((nk, 3))
    jdq = np.zeros((nk, 3))
    jac = np.zeros((nk, 3, 7))
    for k in range(nk):
        kind = P.mk_kind[k]
        o = P.mk_off[k]
        if kind == RIGID:
            p = q[o + 3 : o + 7]
            s = s_matrix(p, P.mk_local[k])
            pt = P.mk_point[k]
            for i in range(3):
                acc = 0.0
                for j in range(4):
                    jac[k, i, 3 + j] = s[i, j]
                    acc += s[i, j] * p[j]
                u[k, i] = 0.5 * acc + (q[o + i] if pt else 0.0)
                if pt:
                    jac[k, i, i] = 1.0
            if velocity:
                pd = qd[o + 3 : o + 7]
                sd = s_matrix(pd, P.mk_local[k])
                for i in range(3):
                    a1 = 0.0
                    a2 = 0.0
                    for j in range(4):
                        a1 += s[i, j] * pd[j]
                        a2 += sd[i, j] * pd[j]
                    ud[k, i] = a1 + (qd[o + i] if pt else 0.0)
                    jdq[k, i] = a2
        elif kind == POINT_MASS:
            for i in range(3):
                u[k, i] = q[o + i]
                ud[k, i] = qd[o + i]
                jac[k, i, i] = 1.0
        else:
            for i in range(3):
                u[k, i] = P.mk_local[k, i]
    return u, ud, jdq, jac


@njit(**_OPTS)
def _ncols(P, k):
    """Columns of marker k's body (7 rigid, 3 point mass, 0 ground)."""
    kind = P.mk_kind[k]
    if kind == RIGID:
        return 7
    if kind == POINT_MASS:
        return 3
    return 0


@njit(**_OPTS)
def _blocks(P, i, u, ud):
    """Primitive instance i: ``(rows, Φ (3,), blocks (3 slots, 3 rows, 3), quad (3,))``."""
    typ = P.pr_type[i]
    mk = P.pr_mk[i]
    blk = np.zeros((3, 3, 3))
    phi = np.zeros(3)
    quad = np.zeros(3)
    if typ == COINCIDENT:
        a, b = mk[0], mk[1]
        for r in range(3):
            phi[r] = u[b, r] - u[a, r]
            blk[0, r, r] = -1.0
            blk[1, r, r] = 1.0
        return 3, phi, blk, quad
    if typ == DOT:
        a, b = mk[0], mk[1]
        acc = 0.0
        qq = 0.0
        for j in range(3):
            acc += u[a, j] * u[b, j]
            qq += ud[a, j] * ud[b, j]
            blk[0, 0, j] = u[b, j]
            blk[1, 0, j] = u[a, j]
        phi[0] = acc - P.pr_const[i]
        quad[0] = 2.0 * qq
        return 1, phi, blk, quad
    if typ == POINT_PLANE:
        a, b, nn = mk[0], mk[1], mk[2]
        acc = 0.0
        qq = 0.0
        for j in range(3):
            d = u[b, j] - u[a, j]
            acc += d * u[nn, j]
            qq += (ud[b, j] - ud[a, j]) * ud[nn, j]
            blk[0, 0, j] = -u[nn, j]
            blk[1, 0, j] = u[nn, j]
            blk[2, 0, j] = d
        phi[0] = acc - P.pr_const[i]
        quad[0] = 2.0 * qq
        return 1, phi, blk, quad
    # DISTANCE
    a, b = mk[0], mk[1]
    length = P.pr_const[i]
    dd = 0.0
    vv = 0.0
    for j in range(3):
        d = u[b, j] - u[a, j]
        v = ud[b, j] - ud[a, j]
        dd += d * d
        vv += v * v
        blk[0, 0, j] = -d / length
        blk[1, 0, j] = d / length
    phi[0] = (dd - length * length) / (2.0 * length)
    quad[0] = vv / length
    return 1, phi, blk, quad


@njit(**_OPTS)
def _nslots(typ):
    return 3 if typ == POINT_PLANE else 2


@njit(**_OPTS)
def _constraints(P, q, qd, velocity):
    n, m = P.n, P.m
    u, ud, jdq, jac = markers(P, q, qd, velocity)
    phi = np.zeros(m)
    phiq = np.zeros((m, n))
    gamma = np.zeros(m)
    for i in range(len(P.pr_type)):
        rows, ph, blk, quad = _blocks(P, i, u, ud)
        r0 = P.pr_row[i]
        for r in range(rows):
            phi[r0 + r] = ph[r]
            gamma[r0 + r] = -quad[r]
        for s in range(_nslots(P.pr_type[i])):
            k = P.pr_mk[i, s]
            nc = _ncols(P, k)
            if nc == 0:
                continue
            o = P.mk_off[k]
            for r in range(rows):
                g = 0.0
                for j in range(3):
                    g += blk[s, r, j] * jdq[k, j]
                gamma[r0 + r] -= g
                for c in range(nc):
                    acc = 0.0
                    for j in range(3):
                        acc += blk[s, r, j] * jac[k, j, c]
                    phiq[r0 + r, o + c] += acc
    for b in range(len(P.rig_off)):
        o = P.rig_off[b]
        row = P.norm_row0 + b
        pp = 0.0
        vv = 0.0
        for j in range(4):
            pp += q[o + 3 + j] * q[o + 3 + j]
            vv += qd[o + 3 + j] * qd[o + 3 + j]
            phiq[row, o + 3 + j] = 2.0 * q[o + 3 + j]
        phi[row] = pp - 1.0
        gamma[row] = -2.0 * vv
    return phi, phiq, gamma


@njit(**_OPTS)
def constraints(P, q, qd):
    """``(Φ, Φ_q, Φ_t, γ)`` at ``(q, q̇)`` (constant targets: Φ_t = 0)."""
    phi, phiq, gamma = _constraints(P, q, qd, True)
    return phi, phiq, np.zeros(P.m), gamma


@njit(**_OPTS)
def position_constraints(P, q):
    """``(Φ, Φ_q)`` at q."""
    phi, phiq, _ = _constraints(P, q, q, False)
    return phi, phiq


@njit(**_OPTS)
def _force_hessian(s, f):
    """``∂(S(p, s̄)ᵀ f)/∂p`` (constant in p): ``2 [[f·s̄, (s̄×f)ᵀ], [s̄×f, f s̄ᵀ + s̄ fᵀ − (f·s̄) I]]``."""
    out = np.empty((4, 4))
    fs = f[0] * s[0] + f[1] * s[1] + f[2] * s[2]
    x = s[1] * f[2] - s[2] * f[1]
    y = s[2] * f[0] - s[0] * f[2]
    z = s[0] * f[1] - s[1] * f[0]
    out[0, 0] = 2.0 * fs
    out[0, 1], out[0, 2], out[0, 3] = 2.0 * x, 2.0 * y, 2.0 * z
    out[1, 0], out[2, 0], out[3, 0] = 2.0 * x, 2.0 * y, 2.0 * z
    for i in range(3):
        for j in range(3):
            v = f[i] * s[j] + s[i] * f[j]
            if i == j:
                v -= fs
            out[1 + i, 1 + j] = 2.0 * v
    return out


@njit(**_OPTS)
def _hessian_pairs(typ, length):
    """Slot pairs with a non-zero ``∂²f/∂u_i∂u_j = c I₃``: ``((i, j, c) rows, scale)``, c
    to be multiplied by the scale (constant tables: nothing allocated per instance)."""
    if typ == DOT:
        return _PAIRS_DOT, 1.0
    if typ == POINT_PLANE:
        return _PAIRS_POINT_PLANE, 1.0
    if typ == DISTANCE:
        return _PAIRS_DISTANCE, 1.0 / length
    return _PAIRS_NONE, 0.0


_PAIRS_DOT = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
_PAIRS_POINT_PLANE = np.array(
    [[0.0, 2.0, -1.0], [2.0, 0.0, -1.0], [1.0, 2.0, 1.0], [2.0, 1.0, 1.0]]
)
_PAIRS_DISTANCE = np.array([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 1.0, -1.0], [1.0, 0.0, -1.0]])
_PAIRS_NONE = np.zeros((0, 3))


@njit(**_OPTS)
def constraint_hessian(P, q, lam):
    """``∂(Φ_qᵀ λ)/∂q`` (n×n), exact: ``Σ J_iᵀ (λ f_ij) J_j`` over slot pairs plus, per
    rigid marker, ``∂(J_iᵀ f_i)/∂q`` with ``f_i = Σ_r λ_r ∂f_r/∂u_i``, plus ``2 λ_n I₄`` of
    the norm rows."""
    n = P.n
    u, ud, jdq, jac = markers(P, q, q, False)
    out = np.zeros((n, n))
    for i in range(len(P.pr_type)):
        typ = P.pr_type[i]
        rows, ph, blk, quad = _blocks(P, i, u, ud)
        r0 = P.pr_row[i]
        if typ != COINCIDENT:  # one row: λ f_ij = λ c I₃
            lr = lam[r0]
            pairs, scale = _hessian_pairs(typ, P.pr_const[i])
            for h in range(pairs.shape[0]):
                si, sj, c = int(pairs[h, 0]), int(pairs[h, 1]), pairs[h, 2] * scale * lr
                ki, kj = P.pr_mk[i, si], P.pr_mk[i, sj]
                ni, nj = _ncols(P, ki), _ncols(P, kj)
                if ni == 0 or nj == 0:
                    continue
                oi, oj = P.mk_off[ki], P.mk_off[kj]
                for a in range(ni):
                    for b in range(nj):
                        acc = 0.0
                        for j in range(3):
                            acc += jac[ki, j, a] * jac[kj, j, b]
                        out[oi + a, oj + b] += c * acc
        for s in range(_nslots(typ)):
            k = P.pr_mk[i, s]
            if P.mk_kind[k] != RIGID:
                continue
            f = np.zeros(3)
            for r in range(rows):
                for j in range(3):
                    f[j] += lam[r0 + r] * blk[s, r, j]
            hf = _force_hessian(P.mk_local[k], f)
            o = P.mk_off[k] + 3
            for a in range(4):
                for b in range(4):
                    out[o + a, o + b] += hf[a, b]
    for b in range(len(P.rig_off)):
        o = P.rig_off[b] + 3
        ln = lam[P.norm_row0 + b]
        for j in range(4):
            out[o + j, o + j] += 2.0 * ln
    return out


@njit(**_OPTS)
def gjg(ga, inertia, gb):
    """``G_aᵀ J G_b`` (4×4), written out (a BLAS call costs more than these products)."""
    jg = np.zeros((3, 4))
    for i in range(3):
        for k in range(3):
            c = inertia[i, k]
            for j in range(4):
                jg[i, j] += c * gb[k, j]
    out = np.zeros((4, 4))
    for k in range(3):
        for i in range(4):
            c = ga[k, i]
            for j in range(4):
                out[i, j] += c * jg[k, j]
    return out


@njit(**_OPTS)
def dot(x, y):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * y[i]
    return acc


@njit(**_OPTS)
def mass_matrix(P, q):
    """``M(q)``: ``diag(m I₃, 4 GᵀJG)`` per rigid body, ``m I₃`` per point mass."""
    n = P.n
    out = np.zeros((n, n))
    for b in range(len(P.rig_off)):
        o = P.rig_off[b]
        g = g_matrix(q[o + 3 : o + 7])
        blk = gjg(g, P.rig_inertia[b], g)
        for i in range(3):
            out[o + i, o + i] = P.rig_mass[b]
        for i in range(4):
            for j in range(4):
                out[o + 3 + i, o + 3 + j] = 4.0 * blk[i, j]
    for b in range(len(P.pm_off)):
        o = P.pm_off[b]
        for i in range(3):
            out[o + i, o + i] = P.pm_mass[b]
    return out


@njit(**_OPTS)
def forces(P, q, qd):
    """``Q``: the weights and the quadratic-velocity forces ``8 G(ṗ)ᵀ J G(ṗ) p``."""
    out = P.gravity_q.copy()
    for b in range(len(P.rig_off)):
        o = P.rig_off[b]
        gd = g_matrix(qd[o + 3 : o + 7])
        w = mat_vec(gd, q[o + 3 : o + 7])
        f = mat_t_vec(gd, mat_vec(P.rig_inertia[b], w))
        for i in range(4):
            out[o + 3 + i] += 8.0 * f[i]
    return out


@njit(**_OPTS)
def force_jacobians(P, q, qd):
    """``(∂Q/∂q, ∂Q/∂q̇)`` of the quadratic-velocity forces (gravity is constant)."""
    n = P.n
    kq = np.zeros((n, n))
    kqd = np.zeros((n, n))
    for b in range(len(P.rig_off)):
        o = P.rig_off[b]
        p = q[o + 3 : o + 7]
        inertia = P.rig_inertia[b]
        gd = g_matrix(qd[o + 3 : o + 7])
        dq = gjg(gd, inertia, gd)
        jw = mat_vec(inertia, mat_vec(gd, p))
        dqd = h_matrix(jw) - gjg(gd, inertia, g_matrix(p))
        for i in range(4):
            for j in range(4):
                kq[o + 3 + i, o + 3 + j] = 8.0 * dq[i, j]
                kqd[o + 3 + i, o + 3 + j] = 8.0 * dqd[i, j]
    return kq, kqd


@njit(**_OPTS)
def mass_times_jacobian(P, q, a):
    """``∂(M(q) a)/∂q`` with a fixed: ``4 (H(J G(p) a_p) − G(p)ᵀ J G(a_p))`` per body."""
    n = P.n
    out = np.zeros((n, n))
    for b in range(len(P.rig_off)):
        o = P.rig_off[b]
        p = q[o + 3 : o + 7]
        ap = a[o + 3 : o + 7]
        inertia = P.rig_inertia[b]
        g = g_matrix(p)
        blk = h_matrix(mat_vec(inertia, mat_vec(g, ap))) - gjg(g, inertia, g_matrix(ap))
        for i in range(4):
            for j in range(4):
                out[o + 3 + i, o + 3 + j] = 4.0 * blk[i, j]
    return out


@njit(**_OPTS)
def kinetic_energy(P, q, qd):
    """``T = ½ Σ m ṙ·ṙ + ½ Σ ω̄ᵀ J ω̄`` (J)."""
    t = 0.0
    for b in range(len(P.rig_off)):
        o = P.rig_off[b]
        v = qd[o : o + 3]
        w = 2.0 * mat_vec(g_matrix(q[o + 3 : o + 7]), qd[o + 3 : o + 7])
        t += 0.5 * P.rig_mass[b] * dot(v, v) + 0.5 * dot(w, mat_vec(P.rig_inertia[b], w))
    for b in range(len(P.pm_off)):
        o = P.pm_off[b]
        v = qd[o : o + 3]
        t += 0.5 * P.pm_mass[b] * dot(v, v)
    return t


@njit(**_OPTS)
def potential_energy(P, q):
    """Gravitational energy ``−Σ m g·r`` (J; the weights act on translations only)."""
    return -dot(P.gravity_q, q)
