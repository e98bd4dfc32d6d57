"""DIMCD steps compiled: ``solver.analysis.formulations.central_differences`` on the
kernels of ``solver.kernels.system`` (every model whose parts they evaluate).

The applied force ``Q̃(q, q̇ₜ, t)`` of a step is the force elements' and gravity at the
step's positions q(t) (``dense_forces`` without the rigid bodies' quadratic-velocity
terms) plus Euler's gyroscopic force in the Euler-parameter rows; with velocity-dependent
forces its exact derivative with respect to q̇ₜ enters each Newton iteration.

:func:`cd_steps` runs ``n_steps`` steps of ``CentralDifferences.step`` in one call and
writes, per step, the state the time loop reports (t, q, q̇, q̈, Newton iterations) and
its bookkeeping (energies, the work of forces and drivers, ``max |Φ|``,
``max |Φ_q q̇ + Φ_t|``). The
look-ahead (q(tₖ₊₁), q(tₖ), the SVD of Φ_q at q(tₖ₊₁) when its last correction was at
rounding level) is carried in :class:`CDLookahead` from call to call. Equations,
conventions and the meaning of each quantity: see the NumPy module.

Where ``Φ_q(q)`` has full row rank far from any rank threshold (complete-pivoting
elimination, smallest/largest pivot > ``PIVOT_RATIO``), the step's null spaces come from
elimination on m independent columns instead of full SVDs: ``N = [−H_B⁻¹ H_N; I]`` and
the particular solution with ``δ_N = 0``. The reduced system's solution depends only on
the subspaces, so the step is the SVD path's to rounding (redundant joints and positions
near a singular one keep the SVDs).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled.dense import lu_factor, lu_solve
from solver.kernels import system as ks
from solver.kernels.contact_record import step_contacts
from solver.kernels.jit import NO, YES, kernel
from solver.kernels.rotations import cross, g_matrix, gjg
from solver.kernels.scratch import local
from solver.kernels.small import dot, mat_mat, mat_t_vec, mat_vec, max_abs

#: status codes of :func:`cd_steps` (0: all steps taken; ``CONTACT``: the last step ends
#: with a contact penetrating, whose state the time loop commits or, committing
#: (``CDSettings.commit``), whose commit logged what the time loop must read)
OK, NOT_CONVERGED, NON_FINITE, SINGULAR, CONTACT = 0, 1, 2, 3, 4
#: a final Newton correction this small (relative) changes nothing but rounding
ROUNDING = 1e-13
#: smallest/largest pivot of Φ_q(q)'s complete-pivoting elimination above which the step's
#: null spaces come from elimination instead of SVDs (the SVD path's rank threshold is 1e-8)
PIVOT_RATIO = 1e-5


@kernel
def _skew(v):
    out = np.zeros((3, 3))
    out[0, 1], out[0, 2] = -v[2], v[1]
    out[1, 0], out[1, 2] = v[2], -v[0]
    out[2, 0], out[2, 1] = -v[1], v[0]
    return out


@kernel(inline="always")
def _forces(P, pt, q, v, t, elements, need_jacobian):
    """``Q̃(q, v)`` = gravity and (``elements``) the force elements at ``(q, v, t)`` +
    ``−2Gᵀ(ω̄ × Jω̄)`` (ω̄ = 2 G(p) ṗ), and ``∂Q̃/∂v``."""
    n = P.n
    if elements:
        mk = ks.markers(P, q, v, YES)
        out, _, kqd = ks.dense_forces(P, pt, mk, q, v, t, NO, need_jacobian)
        jac = kqd if need_jacobian else np.zeros((n, n))
    else:
        out = P.gravity_q.copy()
        jac = np.zeros((n, n))
    for b in range(len(P.rig_off)):
        o = P.rig_off[b] + 3
        inertia = P.rig_inertia[b]
        g = g_matrix(q[o : o + 4])
        w = 2.0 * mat_vec(g, v[o : o + 4])
        jw = mat_vec(inertia, w)
        c = cross(w, jw)
        f = -2.0 * mat_t_vec(g, c)
        for i in range(4):
            out[o + i] += f[i]
        if need_jacobian:
            sw, sj = _skew(w), _skew(jw)
            x = local((3, 3))
            for i in range(3):
                for j in range(3):
                    acc = -sj[i, j]
                    for k in range(3):
                        acc += sw[i, k] * inertia[k, j]
                    x[i, j] = acc
            blk = -4.0 * gjg(g, x, g)
            for i in range(4):
                for j in range(4):
                    jac[o + i, o + j] += blk[i, j]
    return out, jac


class CDResidual(NamedTuple):
    """A step's residual ``R(x) = M/h² (x − target) − Q̃(q, (x − qm)/2h, t)``, positions
    fixed at ``q = q(t)`` (:func:`_residual`): ``qm`` q(t − h), ``target`` 2q − qm, ``mh``
    M(q)/h², ``inv2h`` 1/2h (1/s), ``t`` (s), ``elements`` (the model has force elements)
    and ``f0`` the constant Q̃ of a model without rigid bodies and force elements."""

    qm: np.ndarray
    target: np.ndarray
    mh: np.ndarray
    inv2h: float
    q: np.ndarray
    t: float
    elements: bool
    f0: np.ndarray


@kernel
def _residual(P, pt, x, res):
    """``R`` and ``A = ∂R/∂x`` of the residual ``res`` (:class:`CDResidual`) at ``x``."""
    qm, target, mh, inv2h, q, t, elements, f0 = res
    if len(P.rig_off) == 0 and not elements:
        return mat_vec(mh, x - target) - f0, mh.copy()
    v = (x - qm) * inv2h
    f, kqd = _forces(P, pt, q, v, t, elements, YES)
    return mat_vec(mh, x - target) - f, mh - inv2h * kqd


@kernel(inline="always")
def _position_constraints(P, pt, x, t):
    """``(Φ, Φ_q)`` at ``(x, t)``, Φ_q dense."""
    mk = ks.markers(P, x, x, NO)
    phi, vals = ks.position_constraints(P, mk, x, t, pt.phi_r.shape[0])
    return phi, ks.scatter(pt.phi_r, pt.phi_c, vals, P.m, P.n)


@kernel
def _pivot_columns(h):
    """Gaussian elimination of ``H`` (m × n, m ≤ n) with complete pivoting: the column
    order it picks (the first m columns ``B`` independent) and the ratio of its smallest
    to its largest pivot (0 when H is rank deficient). A full-row-rank H far from any
    rank threshold (ratio > ``PIVOT_RATIO``) then has the null-space basis
    ``[−H_B⁻¹ H_N; I]``: any basis serves, the reduced DIMCD system's solution depends only
    on the subspace."""
    m, n = h.shape
    a = h.copy()
    perm = np.arange(n)
    first = 0.0
    small = np.inf
    for k in range(m):
        bi, bj, big = k, k, -1.0
        for i in range(k, m):
            for j in range(k, n):
                v = abs(a[i, j])
                if v > big:
                    bi, bj, big = i, j, v
        if k == 0:
            first = big
        small = min(small, big)
        if big == 0.0:
            return perm, 0.0
        if bi != k:
            for j in range(k, n):
                a[k, j], a[bi, j] = a[bi, j], a[k, j]
        if bj != k:
            for i in range(m):
                a[i, k], a[i, bj] = a[i, bj], a[i, k]
            perm[k], perm[bj] = perm[bj], perm[k]
        for i in range(k + 1, m):
            f = a[i, k] / a[k, k]
            if f != 0.0:
                for j in range(k + 1, n):
                    a[i, j] -= f * a[k, j]
    return perm, (small / first if m and first > 0.0 else 0.0)


@kernel
def _basis_solve(h, perm, phi):
    """With the columns ``B = perm[:m]`` of ``H`` nonsingular: ``(ok, N, δ_p)``, the
    null-space basis ``N`` (n × (n − m), ``N_B = −H_B⁻¹ H_N``, ``N_N = I``) and the
    particular solution of ``H δ = −Φ`` with ``δ_N = 0``. ``ok`` is false when the LU of
    ``H_B`` (partial pivoting) meets a pivot below 1e-10 of the largest entry."""
    m, n = h.shape
    d = n - m
    a = np.empty((m, m))
    scale = 0.0
    for i in range(m):
        for k in range(m):
            a[i, k] = h[i, perm[k]]
            scale = max(scale, abs(a[i, k]))
    null = np.zeros((n, d))
    dp = np.zeros(n)
    piv, ok = lu_factor(a)
    if not ok:
        return False, null, dp
    for k in range(m):
        if not abs(a[k, k]) > 1e-10 * scale:
            return False, null, dp
    col = np.empty(m)
    for c in range(d + 1):
        for i in range(m):
            col[i] = -h[i, perm[m + c]] if c < d else -phi[i]
        x = lu_solve(a, piv, col)
        for k in range(m):
            if c < d:
                null[perm[k], c] = x[k]
            else:
                dp[perm[k]] = x[k]
    for c in range(d):
        null[perm[m + c], c] = 1.0
    return True, null, dp


@kernel(inline="always")
def _solve(P, pt, h, x0, basis, res, newton, linear):
    """Newton with the double null space from ``x0`` for ``res`` (:class:`CDResidual`, at
    ``t = res.t``; the constraints at ``t + h``): ``basis = (N_Gᵀ contiguous, s, the column
    order of Φ_q(q)'s elimination, whether its columns serve H)``, ``newton = (tolerance,
    iterations)``; the rows ``linear = (B, c)``, ``B x = c`` (the no-slip rows, none without
    rolling discs), stacked under the linearised position constraints. Returns ``(status,
    x, its, reuse, u, σ, Vᵀ, last correction, max|Φ|)``; ``reuse``: the SVD is Φ_q's at x
    (rounding-level last correction, no stacked rows)."""
    n, m = P.n, P.m
    ngt, dof, perm, fast_step = basis
    tol, max_it = newton
    lin_b, lin_c = linear
    t = res.t
    extra = lin_c.shape[0]
    mt = m + extra
    x = x0.copy()
    ks.normalise_parameters(P, x)
    step_size = np.inf
    worst = 0.0
    u = np.zeros((mt, mt))
    sv = np.zeros(min(mt, n))
    vt = np.eye(n)
    for it in range(1, max_it + 1):
        r, a = _residual(P, pt, x, res)
        dp = np.zeros(n)
        if mt:
            phi, phiq = _position_constraints(P, pt, x, t + h)
            if extra:
                phi = np.concatenate((phi, mat_vec(lin_b, x) - lin_c))
                phiq = np.vstack((phiq, lin_b))
            worst = max_abs(phi)
            if not np.isfinite(dot(phi, phi) + dot(r, r)):
                return NON_FINITE, x, it, False, u, sv, vt, step_size, worst
            fast = False
            if fast_step:  # Φ_q(q) had full row rank: the same columns of H at x
                fast, nh, dp = _basis_solve(phiq, perm, phi)
            if fast:
                sv = np.zeros(0)  # no SVD to hand on
            else:
                dp = np.zeros(n)
                u, sv, vt = np.linalg.svd(phiq, full_matrices=True)
                rank = n - dof
                k = min(rank, len(sv))
                proj = mat_t_vec(u[:, :k], phi)
                for i in range(k):
                    if sv[i] > 1e-14 * sv[0]:
                        c = proj[i] / sv[i]
                        for j in range(n):
                            dp[j] -= vt[i, j] * c
                nh = vt[n - dof :].T.copy()
        else:
            nh = np.eye(n)
        delta = dp
        if dof:
            red = mat_mat(ngt, mat_mat(a, nh))
            rhs = -mat_vec(ngt, r + mat_vec(a, dp))
            piv, ok = lu_factor(red)  # in place: red is not used again
            if ok:
                alpha = lu_solve(red, piv, rhs)
            else:
                return SINGULAR, x, it, False, u, sv, vt, step_size, worst
            delta = dp + mat_vec(nh, alpha)
        xn = x + delta
        ks.normalise_parameters(P, xn)
        step_size = max_abs(xn - x)
        x = xn
        if not np.isfinite(step_size):
            return NON_FINITE, x, it, False, u, sv, vt, step_size, worst
        if step_size <= tol:
            rounding = step_size <= ROUNDING * max(1.0, max_abs(x))
            reuse = m > 0 and extra == 0 and rounding and len(sv) > 0
            return OK, x, it, reuse, u, sv, vt, step_size, worst
    if not (np.isfinite(step_size) and np.isfinite(worst)):
        return NON_FINITE, x, max_it, False, u, sv, vt, step_size, worst
    return NOT_CONVERGED, x, max_it, False, u, sv, vt, step_size, worst


#: columns of the per-step scalars ``cd_steps`` writes
OUT_T, OUT_ITS, OUT_PHI, OUT_PHIV, OUT_KIN, OUT_POT, OUT_ELA, OUT_WORK, OUT_POWER = range(9)
OUT_CONTACT = 9  # the contacts' work at the step (committing)
N_OUT = 10


@kernel
def _multipliers(phiq, r, rtol):
    """Minimum-norm λ with ``Φ_qᵀ λ = −R`` (the rank by ``rtol`` of the largest σ)."""
    u, sv, vt = np.linalg.svd(phiq, full_matrices=False)
    lam = np.zeros(phiq.shape[0])
    if len(sv) == 0 or sv[0] <= 0.0:
        return lam
    proj = mat_vec(vt, r)
    for i in range(len(sv)):
        if sv[i] > rtol * sv[0]:
            c = -proj[i] / sv[i]
            for j in range(phiq.shape[0]):
                lam[j] += u[j, i] * c
    return lam


class CDSettings(NamedTuple):
    """What :func:`cd_steps` keeps over a run: the step ``h`` (s), ``rtol`` the rank
    tolerance of Φ_q, ``quadratic`` the predictor, the Newton tolerance and iterations,
    ``elements`` (the model has force elements), ``drivers`` (driven constraints: their
    power needs the multipliers), ``secant`` (the force elements do non-conservative
    work, ``MultibodySystem.nonconservative``: add their power and ``secant_work_at``)
    and ``commit`` (the contacts' state committed at each step, as
    ``augmented_lagrangian.al_steps`` does)."""

    h: float
    rtol: float
    quadratic: bool
    tol: float
    max_it: int
    elements: bool
    drivers: bool
    secant: bool
    commit: bool


@kernel
def cd_steps(P, pt, settings, t, look, qd0, work, power, n_steps, record):
    """``n_steps`` DIMCD steps (``settings``: :class:`CDSettings`) from the look-ahead
    ``look = (qm = q(t), q = q(t+h), qp = q(t−h), have_qp, su, ss, svt, have_svd)``
    (``have_qp``: qp is known, for the quadratic predictor; when ``have_svd``, ``(su, ss,
    svt)`` is the SVD of Φ_q at q); ``qd0``, ``work`` and ``power``: the velocity, the
    work done so far and the power at t.

    Row k of ``record.out`` (``step_record.StepRecord``; its ``lam`` and ``want``
    not read) gets step k's scalars (``OUT_*``), its ``q``, ``qd``, ``qdd`` its state.
    Returns ``(status, steps done, t, qm, q, qp, have_qp, su, ss, svt, have_svd, last
    correction, max|Φ|, work, power)`` — the look-ahead after the steps taken. The
    no-slip rows of rolling discs, ``B(q) (q⁺ − q⁻)/2h = 0``, are stacked under the
    position constraints, and the reactions removed with the null space of ``[Φ_q; B]``
    (never a look-ahead SVD then: ``have_svd`` stays false). With
    contacts the steps stop after one that ends with a contact penetrating (``CONTACT``,
    its look-ahead computed with the contacts' state committed before it, as the
    formulation's step computes it).
    """
    h, rtol, quadratic, tol, max_it, elements, drivers, secant, _ = settings
    qm, q, qp, have_qp, su, ss, svt, have_svd = look
    out, o_q, o_qd, o_qdd, _, _ = record
    n, m = P.n, P.m
    nh = P.rl_mk.shape[0]
    mt = m + nh
    still = np.zeros(n)  # (B depends on q only: markers at rest)
    inv2h = 0.5 / h
    # the force elements' power at t (the power record of each step's end after)
    # and the markers at the start of each step (the last step's at its end)
    mk0 = ks.markers(P, qm, qd0, YES)
    p_start = ks.nonconservative_power(P, mk0, qm, qd0, t) if secant else 0.0
    read = ks.power_markers(P)  # the markers the secant work's powers read
    for k in range(n_steps):
        guess = 3.0 * q - 3.0 * qm + qp if quadratic and have_qp else 2.0 * q - qm
        t1 = t + h
        mass = ks.dense_mass(P, pt, q)
        phi_q, phiq_q = _position_constraints(P, pt, q, t1)
        rows_q = phiq_q  # the reactions' directions: Φ_q(q) and the no-slip rows B(q)
        lin_b = np.zeros((nh, n))
        lin_c = np.zeros(nh)
        if nh:  # B(q) q⁺ = B(q) q⁻
            lin_b = ks.no_slip_matrix(P, ks.markers(P, q, still, YES), q, still)[0]
            lin_c = mat_vec(lin_b, qm)
            rows_q = np.vstack((phiq_q, lin_b))
        fast = False
        perm = np.arange(n)
        if mt == 0:
            ng = np.eye(n)
            dof = n
        else:
            if not have_svd and mt < n:
                perm, ratio = _pivot_columns(rows_q)
                fast = ratio > PIVOT_RATIO
                if fast:  # full row rank, far from any rank threshold: any basis will do
                    fast, ng, _ = _basis_solve(rows_q, perm, np.zeros(mt))
            if fast:
                dof = n - mt
            else:
                if not have_svd:
                    su, ss, svt = np.linalg.svd(rows_q, full_matrices=True)
                rank = 0
                if len(ss) and ss[0] > 0:
                    for i in range(len(ss)):
                        if ss[i] > rtol * ss[0]:
                            rank += 1
                ng = svt[rank:].T.copy()
                dof = n - rank
        target = 2.0 * q - qm
        mh = mass / (h * h)
        f0 = P.gravity_q.copy()
        res = CDResidual(qm, target, mh, inv2h, q, t1, elements, f0)
        basis = (np.ascontiguousarray(ng.T), dof, perm, fast)
        status, x2, its, reuse, u2, s2, vt2, corr, worst = _solve(
            P, pt, h, guess, basis, res, (tol, max_it), (lin_b, lin_c)
        )
        if status != OK:
            return (status, k, t, qm, q, qp, have_qp, su, ss, svt, have_svd, corr, worst, work,
                    power)  # fmt: skip
        qd = (x2 - qm) * inv2h
        qdd = (x2 - target) / (h * h)
        mk = ks.markers(P, q, qd, YES)
        phi, phit, gamma, vals = ks.constraints(P, mk, q, qd, t1, pt.phi_r.shape[0])
        lam = np.zeros(m)
        if drivers and m:  # (those of the no-slip rows do no work)
            r, _ = _residual(P, pt, x2, res)
            lam = _multipliers(rows_q, r, rtol)[:m]
        p_end = ks.nonconservative_power(P, mk, q, qd, t1) if secant else 0.0
        power1 = p_end + ks.driver_power(P, lam, phit)
        work += 0.5 * (power + power1) * h
        if secant:
            work += ks.secant_work_at(P, read, mk0, qm, qd0, t, mk, q, qd, t1, h, p_start, p_end)
        power = power1
        p_start = p_end
        qd0 = qd
        mk0 = mk
        o_q[k] = q
        o_qd[k] = qd
        o_qdd[k] = qdd
        out[k, OUT_T] = t1
        out[k, OUT_ITS] = its
        out[k, OUT_PHI] = max_abs(phi_q) if m else 0.0
        phiv = max_abs(mat_vec(phiq_q, qd) + phit) if m else 0.0
        if nh:  # and the no-slip rows' B q̇
            phiv = max(phiv, max_abs(mat_vec(lin_b, qd)))
        out[k, OUT_PHIV] = phiv
        out[k, OUT_KIN] = ks.kinetic_energy(P, q, qd)
        out[k, OUT_POT] = ks.potential_energy(P, q)
        out[k, OUT_ELA] = ks.elastic_energy(P, mk, q)
        out[k, OUT_WORK] = work
        out[k, OUT_POWER] = power
        qp, have_qp = qm, True
        qm, q, t = q, x2, t1
        su, ss, svt, have_svd = u2, s2, vt2, reuse
        if P.cn_kind.shape[0] and step_contacts(
            P, mk.u, mk.ud, t, settings.commit, out[k], OUT_CONTACT
        ):
            return (CONTACT, k + 1, t, qm, q, qp, have_qp, su, ss, svt, have_svd, 0.0, 0.0,
                    work, power)  # fmt: skip
    return (OK, n_steps, t, qm, q, qp, have_qp, su, ss, svt, have_svd, 0.0, 0.0, work,
            power)  # fmt: skip
