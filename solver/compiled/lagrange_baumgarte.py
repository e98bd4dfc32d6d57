"""Compiled accelerations of the index-1 Lagrange multipliers with Baumgarte stabilisation.

The right-hand side of :class:`solver.analysis.formulations.lagrange_baumgarte.
LagrangeBaumgarte` (its Runge–Kutta integrator calls it a dozen times per step): with
``Φ̇ = Φ_q q̇ + Φ_t``,

    [[M, Φ_qᵀ], [Φ_q, −μ I]] [q̈; λ] = [Q; γ − 2α Φ̇ − β² Φ],

μ being the Tikhonov
regularisation (1/kg). The saddle-point matrix is solved by LU with partial pivoting
(:func:`solver.compiled.dense.lu_factor`); when its pivots say it is (numerically)
singular, ``|U_ii|`` below ``rcond`` times the largest, the kernel declines and the
formulation's least-squares solve takes over (``solver.analysis.linalg.solve_or_lstsq``
makes the same test). SI units; ``M q̈ = Q − Φ_qᵀ λ``.
"""

from __future__ import annotations

import numpy as np

from solver.compiled.dense import lu_factor, lu_solve
from solver.kernels.jit import YES, kernel
from solver.kernels.system import constraints, forces, markers, mass, state_power


@kernel
def lb_accelerations(P, pt, q, qd, t, alpha, beta, mu, rcond):
    """``(ok, q̈, λ, P)`` at ``(q, q̇, t)``: the accelerations, multipliers and the power of
    the force elements and drivers (``state_power``; W); ``ok`` false when the
    saddle-point matrix is singular to ``rcond`` (the other values are then zeros)."""
    n, m = P.n, P.m
    none = np.int64(0)
    mk = markers(P, q, qd, YES)
    phi, phit, gamma, jvals = constraints(P, mk, q, qd, t, pt.phi_r.shape[0])
    f, _, _ = forces(P, mk, q, qd, t, YES, none, none)
    mvals = mass(P, q, pt.mass_r.shape[0])
    k = n + m
    kkt = np.zeros((k, k))
    rhs = np.empty(k)
    for e in range(mvals.shape[0]):
        kkt[pt.mass_r[e], pt.mass_c[e]] += mvals[e]
    phid = phit.copy()
    for e in range(jvals.shape[0]):
        r = pt.phi_r[e]
        c = pt.phi_c[e]
        kkt[c, n + r] += jvals[e]
        kkt[n + r, c] += jvals[e]
        phid[r] += jvals[e] * qd[c]
    for i in range(n):
        rhs[i] = f[i]
    for i in range(m):
        if mu > 0.0:
            kkt[n + i, n + i] = -mu
        rhs[n + i] = gamma[i] - 2.0 * alpha * phid[i] - beta * beta * phi[i]
    piv, ok = lu_factor(kkt)
    big = 0.0
    small = np.inf
    for i in range(k):
        d = abs(kkt[i, i])
        big = max(big, d)
        small = min(small, d)
    if not ok or not small > rcond * big:
        return False, np.zeros(n), np.zeros(m), 0.0
    sol = lu_solve(kkt, piv, rhs)
    qdd = sol[:n].copy()
    lam = sol[n:].copy()
    return True, qdd, lam, state_power(P, mk, q, qd, t, lam, phit)
