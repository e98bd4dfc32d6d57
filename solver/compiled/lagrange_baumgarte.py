"""Compiled accelerations of the index-1 Lagrange multipliers with Baumgarte stabilisation.

The right-hand side of :class:`solver.analysis.formulations.lagrange_baumgarte.
LagrangeBaumgarte` (its Runge–Kutta integrator calls it a dozen times per step): with
``Φ̇ = Φ_q q̇ + Φ_t`` and the no-slip rows of rolling discs ``B`` (``B q̈ = γ_nh``,
``solver.kernels.rolling``),

    [[M, Φ_qᵀ, Bᵀ], [Φ_q, −μ I, 0], [B, 0, −μ I]] [q̈; λ; λ_nh]
        = [Q; γ − 2α Φ̇ − β² Φ; γ_nh − α B q̇],

μ being the Tikhonov regularisation (1/kg). The saddle-point matrix is assembled from the
entries of M, Φ_q and B straight into band storage under a reverse Cuthill–McKee
renumbering chosen once per run (``solver.analysis.compiled_steps.saddle_layout``;
``solver.compiled.band``): ``slots`` gives the storage index of every entry, in the order
M, Φ_q (its place ``(c, n + r)``, then ``(n + r, c)``), B (likewise, rows from ``n + m``),
the multipliers' diagonal. Its band LU with partial pivoting
(:func:`solver.compiled.band.lu_factor_band`) is faster than the dense LU of the same
matrix for every example, the small full ones included, where the band is the whole
matrix. When its pivots say it is (numerically) singular,
``|U_ii|`` below ``rcond`` times the largest, the kernel declines and the formulation's
least-squares solve takes over (``solver.analysis.linalg.saddle_solve`` makes the same
test on its own LU). SI units; ``M q̈ = Q − Φ_qᵀ λ − Bᵀ λ_nh``.
"""

from __future__ import annotations

import numpy as np

from solver.compiled import band
from solver.kernels.jit import YES, kernel
from solver.kernels.system import constraints, forces, markers, mass, no_slip_rows, state_power


@kernel
def lb_accelerations(P, pt, layout, q, qd, t, alpha, beta, mu, rcond):
    """``(ok, q̈, λ, P)`` at ``(q, q̇, t)``: the accelerations, multipliers (holonomic rows,
    then no-slip rows) and the power of the force elements and drivers (``state_power``;
    W); the saddle-point matrix stored as ``layout`` says: ``[b, perm (k), slots]``, the
    half-bandwidth, the renumbering and the storage index of every entry (see the module
    docstring; one array, so that a call from Python checks one argument). ``ok`` false
    when the matrix is singular to ``rcond`` (the other values are then zeros)."""
    n, m = P.n, P.m
    nh = P.rl_mk.shape[0]
    k = n + m + nh
    b = layout[0]
    perm = layout[1 : 1 + k]
    slots = layout[1 + k :]
    none = np.int64(0)
    mk = markers(P, q, qd, YES)
    phi, phit, gamma, jvals = constraints(P, mk, q, qd, t, pt.phi_r.shape[0])
    f, _, _ = forces(P, mk, q, qd, t, YES, none, none)
    mvals = mass(P, q, pt.mass_r.shape[0])
    nm = mvals.shape[0]
    nj = jvals.shape[0]
    nb = (slots.shape[0] - nm - 2 * nj - m - nh) // 2
    if nh:
        bvals, gamma_nh, speed = no_slip_rows(P, mk, q, qd, nb)
    else:  # (the call alone costs a fifth of a small model's right-hand side)
        bvals = np.zeros(0)
        gamma_nh = bvals
        speed = bvals
    a = np.zeros(k * (3 * b + 1))
    rhs = np.empty(k)
    for e in range(nm):
        a[slots[e]] += mvals[e]
    s0 = nm
    phid = phit.copy()
    for e in range(nj):
        v = jvals[e]
        a[slots[s0 + e]] += v
        a[slots[s0 + nj + e]] += v
        phid[pt.phi_r[e]] += v * qd[pt.phi_c[e]]
    s0 += 2 * nj
    for e in range(nb):
        a[slots[s0 + e]] += bvals[e]
        a[slots[s0 + nb + e]] += bvals[e]
    s0 += 2 * nb
    for i in range(n):
        rhs[i] = f[i]
    for i in range(m + nh):
        if mu > 0.0:
            a[slots[s0 + i]] = -mu
        if i < m:
            rhs[n + i] = gamma[i] - 2.0 * alpha * phid[i] - beta * beta * phi[i]
        else:
            rhs[n + i] = gamma_nh[i - m] - alpha * speed[i - m]
    piv, ok = band.lu_factor_band(a, np.int64(k), b)
    big = 0.0
    small = np.inf
    ldab = 3 * b + 1
    for i in range(k):
        d = abs(a[i * ldab + 2 * b])  # U[i, i]
        big = max(big, d)
        small = min(small, d)
    if not ok or not small > rcond * big:
        return False, np.zeros(n), np.zeros(m + nh), 0.0
    sol = np.empty(k)
    band.lu_solve_into(a, piv, perm, b, rhs, np.empty(k), sol)
    qdd = sol[:n].copy()
    lam = sol[n:].copy()
    return True, qdd, lam, state_power(P, mk, q, qd, t, lam, phit)
