"""Compiled (Numba) steps of the null-space Newmark method for packed systems.

The steps of :class:`solver.analysis.formulations.null_space_newmark.NewmarkNullSpace`
(the null-space Newmark thesis, ch. 5–7; a run starts with the formulation's own
``start``) for dense models: every Newton iteration
linearising the constraints at position, velocity and acceleration level at the iterate,
the orthonormal null space ``N`` of ``Φ_q`` and the minimum-norm particular solutions (in
the metric of the Euler-parameter ``weights``) where ``Φ_q`` has full row rank by the
SVD's own rank rules from the LU with partial pivoting of its sparse entries
(:func:`lu_spaces`), else from a
Householder QR (:func:`qr_spaces`), else from the SVD as the NumPy step (the same subspace
and solutions either way), the d×d reduced equations of motion, the Euler-parameter
renormalisation and the same convergence test; with rolling discs, the multipliers
``[λ; μ]`` of ``[Φ_q; B]`` by least squares and the reduced equations along the
directions of N that keep the no-slip rows ``B ẋ = 0``, with ``B ẋ = 0`` on the
integrator's velocity (:func:`_correction`); the rank rules of ``SVDSpaces`` (the rank
on the manifold at the start of the step as a cap, singular values below
``CONDITION_FLOOR`` of the largest left out of the step's solves). Not computed here: the
reduced system's highest frequency (the NumPy step's ``NewmarkReport.omega_max``).

What differs from the NumPy step is the iteration, not the state it converges to: the
predictor (the constant acceleration, or an extrapolation when that predicted the last
step better: :func:`ns_steps`), and the derivative matrices ``K``, ``C``, ``Ḣ``, ``Ḧ``,
kept over several steps (:func:`ns_step`; the NumPy step keeps them within a step,
``refresh_needed``). At the converged state the corrections vanish whatever those
matrices are: Φ, Φ̇, Φ̈, the Newmark relations of α and ``Nᵀ(M q̈ − Q) = 0`` hold.

Failures are status codes; the caller lets the NumPy formulation retake that step (its
message, or its result). Conventions are the system's (SI, ``M q̈ = Q − Φ_qᵀ λ``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled.band import entries_mat_t_vec, entries_mat_vec
from solver.compiled.compressed import compress, entries_mat, rows_mat, rows_vec, zeros
from solver.compiled.dense import lu_factor, lu_solve, min_norm_lstsq
from solver.compiled.householder import apply_q, apply_qt, lower_inverse, qr_rows, sigma_bounds
from solver.compiled.pivoted_lu import (
    entry_patterns,
    lu_columns,
    lu_lists,
    null_basis,
    particular_into,
    pivot_solve_t,
    sigma_min_bound,
    sort_patterns,
)
from solver.kernels.contact_record import quiet, step_contacts
from solver.kernels.jit import NO, YES, kernel
from solver.kernels.small import all_finite, mat_mat, mat_t_mat, mat_t_vec, mat_vec, max_abs
from solver.kernels.system import (
    FRAME,
    constraints,
    dense_forces,
    dense_mass_times_jacobian,
    driver_power,
    markers,
    mass,
    no_slip_matrix,
    no_slip_second_matrices,
    nonconservative_power,
    power_markers,
    renormalise_parameters,
    scatter,
    secant_work_at,
    second_order,
    slider_off_beam,
    state_evaluation,
)

#: status codes of :func:`ns_steps`
STATUS_OK = 0
STATUS_NEWTON = 1  # no convergence in max_iterations, or a non-finite correction
STATUS_SINGULAR = 2  # the reduced Newton matrix is singular
STATUS_NONFINITE = 3  # the step's q or q̇ is non-finite
STATUS_OFF_BEAM = 4  # an iterate put a sliding joint's point off its beam
#: the last step ends with a contact penetrating: its state is committed by the time loop
#: or, committing (``NSSettings.commit``), the time loop reads what that step's commit logged
STATUS_CONTACT = 5

#: columns of the per-step scalars ``ns_steps`` writes (as ``augmented_lagrangian.OUT_*``)
OUT_T, OUT_ITS, OUT_PHI, OUT_PHIV, OUT_KIN, OUT_POT, OUT_ELA, OUT_WORK, OUT_POWER = range(9)
OUT_CONTACT = 9
N_OUT = 10
EPS = np.finfo(np.float64).eps
#: singular values of ``B N`` below this fraction of the largest count as zero
#: (``no_slip.RANK_TOLERANCE``)
NO_SLIP_RANK = 1e-10
#: ``keep`` of :func:`spaces` for no limit (a NumPy integer: a literal ``-1`` would make Numba
#: compile the solves once more for that value)
KEEP_ALL = np.int64(-1)


@kernel
def rank_tolerance(m, n, smax, phi):
    """``null_space_common.rank_tolerance``: ``10³ ε max(m, n) σ_max``, raised to ``10‖Φ‖``."""
    floor = 1e3 * EPS * max(m, n) * smax
    if phi.shape[0] == 0:
        return floor
    return max(floor, 10.0 * max_abs(phi))


@kernel
def _count_above(s, tol):
    c = 0
    for v in s:
        if v > tol:
            c += 1
    return c


@kernel
def spaces(h, phi, cap, floor, keep, w):
    """``SVDSpaces(h, phi, cap, floor, keep, weights=w)`` (``keep < 0``: none; ``w`` all
    ones: the plain metric). Returns ``(N, Pm, U, S, V, rank, rank_here)``: the null space
    ``N`` (n × d) and its left inverse ``Pm``; ``U``, ``S``, ``V`` the ``rank`` singular
    triplets the solves use (``V`` back in the original coordinates)."""
    m, n = h.shape
    if m == 0:
        null = np.zeros((n, n))
        pm = np.zeros((n, n))
        for i in range(n):
            null[i, i] = 1.0 / w[i]
            pm[i, i] = w[i]
        return null, pm, np.zeros((0, 0)), np.zeros(0), np.zeros((n, 0)), 0, 0
    hw = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            hw[i, j] = h[i, j] / w[j]
    u, s, vt = np.linalg.svd(hw, full_matrices=True)
    s0 = s[0] if s.shape[0] else 0.0
    rank_here = _count_above(s, rank_tolerance(m, n, s0, phi))
    r = min(cap, _count_above(s, rank_tolerance(m, n, s0, np.zeros(0))))
    d = n - r
    null = np.empty((n, d))
    pm = np.empty((d, n))
    for i in range(n):
        for k in range(d):
            null[i, k] = vt[r + k, i] / w[i]
            pm[k, i] = vt[r + k, i] * w[i]
    if floor > 0.0:
        r = min(r, _count_above(s, floor * s0))
    if keep >= 0:
        r = min(r, keep)
    uu = np.ascontiguousarray(u[:, :r])
    v = np.empty((n, r))
    for i in range(n):
        for k in range(r):
            v[i, k] = vt[k, i] / w[i]
    return null, pm, uu, s[:r].copy(), v, r, rank_here


@kernel
def _solve_mat(u, s, v, b):
    """Minimum-norm least-squares ``Y`` with ``H Y = b`` from the SVD factors of
    :func:`spaces`."""
    t = mat_t_mat(u, b)
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            t[i, j] /= s[i]
    return mat_mat(v, t)


@kernel
def qr_spaces(h, phi, cap, floor, keep, w):
    """:func:`spaces` from a Householder QR of ``(H W⁻¹)ᵀ`` when ``H`` has full row rank
    by every rule of ``SVDSpaces`` (``cap`` and ``keep`` at least m, and the smallest
    singular value, bounded from below, above twice the rank tolerances and ``floor``
    times the largest, bounded from above): the same null space (another orthonormal basis
    of it, which the reduced equations do not depend on) and the same minimum-norm
    solutions as the SVD. Returns ``(ok, N, Pm, B, τ, L⁻¹)``, ``ok`` false where the SVD
    must decide (m = 0, m > n, a possibly smaller rank, non-finite entries)."""
    m, n = h.shape
    d = n - m
    none = np.zeros((0, 0))
    if m == 0 or d < 0 or cap < m or 0 <= keep < m:
        return False, none, none, none, np.zeros(0), none
    b = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            b[i, j] = h[i, j] / w[j]
    tau = qr_rows(b)
    inv, ok = lower_inverse(b)
    if not ok:
        return False, none, none, none, np.zeros(0), none
    smax, smin = sigma_bounds(b, inv)
    need = max(rank_tolerance(m, n, smax, phi), floor * smax)
    if not smin > 2.0 * need:
        return False, none, none, none, np.zeros(0), none
    null = np.empty((n, d))
    pm = np.empty((d, n))
    e = np.empty(n)
    for k in range(d):
        e[:] = 0.0
        e[m + k] = 1.0
        apply_q(b, tau, e)
        for i in range(n):
            null[i, k] = e[i] / w[i]
            pm[k, i] = e[i] * w[i]
    return True, null, pm, b, tau, inv


@kernel
def lu_spaces(pr, pc, vals, pat, m, n, phi, cap, floor, keep, w):
    """:func:`spaces` from the LU with partial pivoting of ``(H W⁻¹)ᵀ``
    (``solver.compiled.pivoted_lu``; ``H`` from its entries ``(pr, pc, vals)``, m × n, ``pat``
    the rows' columns of those entries, :func:`pivoted_lu.entry_patterns`, to which the LU
    adds its fill: kept from one call to the next, they grow to the union of the fills, and
    their columns that hold zeros change nothing) when
    ``H`` has full row rank by every rule of ``SVDSpaces``, as :func:`qr_spaces` checks it
    (the smallest singular value bounded from below by :func:`pivoted_lu.sigma_min_bound`,
    the largest from above by the Frobenius norm): the same null space and minimum-norm
    solutions. Returns ``(ok, N, Pm, B, f, Y)``: ``f`` the compressed factors, ``Y`` the
    orthonormal null basis of ``B = H W⁻¹``; ``ok`` false where the QR or the SVD must
    decide."""
    d = n - m
    none = np.zeros((0, 0))
    if m == 0 or d < 0 or cap < m or 0 <= keep < m:
        return False, none, none, none, _no_lu(), none
    b = np.zeros((m, n))
    for e in range(vals.shape[0]):
        b[pr[e], pc[e]] += vals[e] / w[pc[e]]
    cols, cnt, seen = pat
    fro = 0.0  # (by rows, in increasing columns: the other entries are zero)
    for i in range(m):
        for e in range(cnt[i]):
            v = b[i, cols[i, e]]
            fro += v * v
    smax = np.sqrt(fro)
    ok, step, order = lu_columns(b, cols, cnt, seen)
    if not ok:
        sort_patterns(cols, cnt)  # (the fill found so far, in order for the next call)
        return False, none, none, none, _no_lu(), none
    f = (step, order) + lu_lists(b, step, cols, cnt)
    need = max(rank_tolerance(m, n, smax, phi), floor * smax)
    if not sigma_min_bound(f) > 2.0 * need:
        return False, none, none, none, _no_lu(), none
    y = null_basis(f, n)
    null = np.empty((n, d))
    pm = np.empty((d, n))
    for i in range(n):
        for k in range(d):
            null[i, k] = y[i, k] / w[i]
            pm[k, i] = y[i, k] * w[i]
    return True, null, pm, b, f, y


@kernel(inline="always")
def _no_lu():
    """Empty factors of :func:`lu_spaces` (the other paths' ``f``)."""
    i0 = np.zeros(0, np.int64)
    p0 = np.zeros(1, np.int64)
    return (i0, i0, np.zeros(0), p0, i0, np.zeros(0), p0, i0, np.zeros(0))


#: the factors a step's solves take (``sp[0]`` of :func:`step_spaces`)
SVD, QR, LU = np.int64(0), np.int64(1), np.int64(2)


@kernel(inline="always")
def step_spaces(pr, pc, vals, pat, m, n, phi, cap, floor, keep, w, try_lu):
    """``(N, Pm, sp, rank, rank_here)`` of :func:`lu_spaces` (if ``try_lu``), else of
    :func:`qr_spaces`, else of :func:`spaces` (``H`` from its entries ``(pr, pc, vals)``,
    ``pat`` their rows' columns);
    ``sp`` the factors the solves (:func:`_pinv_vec`, :func:`_pinv_mat`, :func:`_lsq_t`)
    take: ``(kind, B, τ, L⁻¹, U, S, V, f, Y)``, the unused ones empty."""
    none = np.zeros((0, 0))
    if try_lu:
        ok, null, pm, b, f, y = lu_spaces(pr, pc, vals, pat, m, n, phi, cap, floor, keep, w)
        if ok:
            return null, pm, (LU, b, np.zeros(0), none, none, np.zeros(0), none, f, y), m, m
    h = scatter(pr, pc, vals, m, n)
    ok, null, pm, b, tau, inv = qr_spaces(h, phi, cap, floor, keep, w)
    if ok:
        return null, pm, (QR, b, tau, inv, none, np.zeros(0), none, _no_lu(), none), m, m
    null, pm, u, s, v, r, here = spaces(h, phi, cap, floor, keep, w)
    return null, pm, (SVD, b, tau, inv, u, s, v, _no_lu(), none), r, here


@kernel(inline="always")
def _project_out(y, v):
    """``v − Y (Yᵀ v)`` in place (``Y`` orthonormal columns)."""
    for k in range(y.shape[1]):
        s = 0.0
        for i in range(v.shape[0]):
            s += y[i, k] * v[i]
        for i in range(v.shape[0]):
            v[i] -= s * y[i, k]


@kernel
def _pinv_vec(sp, w, y):
    """Minimum-norm least-squares ``x`` with ``H x = y`` (``sp`` of :func:`step_spaces`;
    its factors taken one by one, as each path needs them: a tuple's unpacking counts a
    reference to each of its arrays)."""
    kind = sp[0]
    if kind == SVD:
        return mat_vec(sp[6], mat_t_vec(sp[4], y) / sp[5])
    if kind == LU:
        return _lu_pinv(sp[7], sp[8], w, y)
    b, tau, inv = sp[1], sp[2], sp[3]
    m, n = b.shape
    z = np.zeros(n)
    for i in range(m):  # L⁻¹ y
        acc = 0.0
        for k in range(i + 1):
            acc += inv[i, k] * y[k]
        z[i] = acc
    apply_q(b, tau, z)
    for i in range(n):
        z[i] /= w[i]
    return z


@kernel
def _pinv_mat(sp, w, y):
    """:func:`_pinv_vec` for the columns of ``y``."""
    if sp[0] == SVD:
        return _solve_mat(sp[4], sp[5], sp[6], y)
    if sp[0] == LU:
        return _lu_pinv_mat(sp[7], sp[8], w, y)
    n = w.shape[0]
    out = np.empty((n, y.shape[1]))
    for j in range(y.shape[1]):
        col = _pinv_vec(sp, w, np.ascontiguousarray(y[:, j]))
        for i in range(n):
            out[i, j] = col[i]
    return out


@kernel(inline="always")
def _lu_pinv(f, ny, w, y):
    """:func:`_pinv_vec` on the LU path (``f``, ``ny``: the LU factors and the orthonormal
    null basis of ``B = H W⁻¹``, ``sp[7]`` and ``sp[8]``): a solution of ``B z = y``, its
    part in the null space of ``B`` taken out, in the original coordinates ``W⁻¹ z``."""
    out = np.empty(w.shape[0])
    _lu_pinv_into(f, ny, w, y, np.empty(y.shape[0]), out)
    return out


@kernel(full_optimisation=True, refcounted=False)
def _lu_pinv_into(f, ny, w, y, z, out):
    """:func:`_lu_pinv` into ``out`` (n) with ``z`` (m) as scratch. No array is made, so
    that a call does not count the factors' arrays in and out (the steps solve five times
    per iteration)."""
    particular_into(f, y, z, out)
    _project_out(ny, out)
    for i in range(out.shape[0]):
        out[i] /= w[i]


@kernel
def _lu_pinv_mat(f, ny, w, y):
    """:func:`_lu_pinv` for the columns of ``y``."""
    m, d = y.shape
    n = w.shape[0]
    out = np.empty((n, d))
    col, z, x = np.empty(m), np.empty(m), np.empty(n)
    for j in range(d):
        for i in range(m):
            col[i] = y[i, j]
        _lu_pinv_into(f, ny, w, col, z, x)
        for i in range(n):
            out[i, j] = x[i]
    return out


@kernel
def _lsq_t(sp, w, g):
    """Least-squares ``λ`` with ``Hᵀ λ = g`` (as ``SVDSpaces.solve_transposed``)."""
    kind = sp[0]
    if kind == SVD:
        return mat_vec(sp[4], mat_t_vec(sp[6], g) / sp[5])
    z = g / w
    if kind == LU:  # the residual of Bᵀλ = W⁻¹g lies in the null space of B
        _project_out(sp[8], z)
        return pivot_solve_t(sp[7], z)
    b = sp[1]
    apply_qt(b, sp[2], z)
    return mat_t_vec(sp[3], z[: b.shape[0]])


@kernel
def _stacked_lsq_t(pr, pc, hv, m, bmat, g):
    """Minimum-norm least-squares ``(λ, μ)`` with ``Φ_qᵀλ + Bᵀμ = g`` (``Φ_q`` from its
    entries, m rows; ``B`` the no-slip rows, dense), as ``no_slip.multipliers``."""
    nh, n = bmat.shape
    a = np.zeros((n, m + nh))
    for e in range(hv.shape[0]):
        a[pc[e], pr[e]] += hv[e]
    for i in range(nh):
        for j in range(n):
            a[j, m + i] = bmat[i, j]
    nu = min_norm_lstsq(a, g, EPS * max(n, m + nh))
    return nu[:m].copy(), nu[m:].copy()


@kernel
def _null_columns(a):
    """An orthonormal basis (columns) of the null space of ``a`` by SVD, singular values
    below ``NO_SLIP_RANK`` of the largest counting as zero (``no_slip.null_space``)."""
    if a.shape[0] == 0:
        return np.eye(a.shape[1])
    _, sv, vt = np.linalg.svd(a)
    rank = 0
    if sv.shape[0] and sv[0] > 0.0:
        for i in range(sv.shape[0]):
            if sv[i] > NO_SLIP_RANK * sv[0]:
                rank += 1
    return np.ascontiguousarray(vt[rank:].T)


@kernel(inline="always")
def _derivatives(P, pt, mk, q, qd, qdd, t, lam, mu):
    """``(K, C, Ḣ, Ḧ, D)`` of ``Linearisation.derivatives``, compressed
    (``solver.compiled.compressed``): ``K = ∂(M q̈)/∂q − ∂Q/∂q + ∂(Φ_qᵀλ)/∂q (+
    ∂(Bᵀμ)/∂q)``, ``C = −∂Q/∂q̇``, ``Ḣ = ∂(Φ_q q̇)/∂q``, ``Ḧ = ∂(Φ_q q̈)/∂q`` and the
    no-slip rows' ``D = ∂(B q̇)/∂q`` at fixed q̇ (m_nh rows: none without rolling discs)."""
    n, m = P.n, P.m
    nk, nd = pt.hk_r.shape[0], pt.hd_r.shape[0]
    kv, dv = second_order(P, mk, q, qd, t, lam, YES, nk, nd)
    k_lam = scatter(pt.hk_r, pt.hk_c, kv, n, n)
    hd = scatter(pt.hd_r, pt.hd_c, dv, m, n)
    mk2 = markers(P, q, qdd, YES)
    _, dv2 = second_order(P, mk2, q, qdd, t, np.zeros(m), YES, nk, nd)
    hdd = scatter(pt.hd_r, pt.hd_c, dv2, m, n)
    _, kq, kqd = dense_forces(P, pt, mk, q, qd, t, YES, YES)
    k = dense_mass_times_jacobian(P, pt, q, qdd) - kq + k_lam
    if P.rl_mk.shape[0]:
        k_b, d_b = no_slip_second_matrices(P, mk, q, qd, mu)
        k += k_b
        return compress(k), compress(-kqd), compress(hd), compress(hdd), compress(d_b)
    return compress(k), compress(-kqd), compress(hd), compress(hdd), zeros(0, n)


@kernel
def _correction(coef, iterate, start, ev, der, space, nos):
    """``NewmarkNullSpace._correction``: ``(ok, δx, δẋ, δẍ)`` at ``iterate = (x, ẋ, ẍ)``
    from ``start = (x_n, ẋ_n, ẍ_n)`` (``coef``: the scheme's ``(a₀, a₁, a₂, a₅, a₆, a₇)``).
    ``ev = (Φ, Φ_q, Φ_t, γ, M, Q, λ)`` at the iterate, ``Φ_q`` and ``M`` as their entries
    ``(rows, cols, values)``; ``der``: ``(K, C, Ḣ, Ḧ, D)`` of :func:`_derivatives`;
    ``space = (N, Pm, sp, w)`` of :func:`step_spaces` and the metric's weights; ``nos``:
    the no-slip rows ``(B, μ)`` (B dense, none without rolling discs): the dynamics along
    the directions Z of N that keep ``B ẋ = 0``, and ``B ẋ = 0`` on the integrator's
    velocity. (Sums are formed in loops into few arrays: the step's time is in its small
    arrays.)"""
    a0, a1, a2, a5, a6, a7 = coef
    q, qd, qdd = iterate
    xn, vn, an = start
    phi, hq, phit, gamma, mass, f, lam = ev
    null, pm, sp, w = space
    k, c, hd, hdd, dnh = der
    bmat, mu = nos
    hr, hc, hv = hq
    mr, mc, mv = mass
    n, d = null.shape
    m = phi.shape[0]
    # the constrained directions: Φ_q p = −Φ, Φ_q v_p = −(Φ_q q̇ + Φ_t) − Ḣ p, Φ_q V = −Ḣ N,
    # Φ_q W₁ = −(Ḧ N + 2 Ḣ V), Φ_q w_p = −(Φ_q q̈ − γ) − Ḧ p − 2 Ḣ v_p (W₂ = 2V)
    # (the LU path's factors taken out of sp once, its solves into arrays made here: a
    # call that passes a tuple counts a reference to each of its arrays)
    lu, f_lu, ny = sp[0] == LU, sp[7], sp[8]
    zm = np.empty(m)
    if lu:
        p = np.empty(n)
        _lu_pinv_into(f_lu, ny, w, -phi, zm, p)
    else:
        p = _pinv_vec(sp, w, -phi)
    y = entries_mat_vec(hr, hc, hv, qd, m)
    hp = rows_vec(hd, p)
    for i in range(m):
        y[i] = -(y[i] + phit[i] + hp[i])
    if lu:
        vp = np.empty(n)
        _lu_pinv_into(f_lu, ny, w, y, zm, vp)
    else:
        vp = _pinv_vec(sp, w, y)
    y2 = rows_mat(hd, null)
    vv = _lu_pinv_mat(f_lu, ny, w, y2) if lu else _pinv_mat(sp, w, y2)
    vv *= -1.0
    ym = rows_mat(hdd, null)
    hvv = rows_mat(hd, vv)
    for i in range(m):
        for j in range(d):
            ym[i, j] += 2.0 * hvv[i, j]
    w1 = _lu_pinv_mat(f_lu, ny, w, ym) if lu else _pinv_mat(sp, w, ym)
    w1 *= -1.0
    y = entries_mat_vec(hr, hc, hv, qdd, m)
    hp = rows_vec(hdd, p)
    hvp = rows_vec(hd, vp)
    for i in range(m):
        y[i] = -(y[i] - gamma[i] + hp[i] + 2.0 * hvp[i])
    if lu:
        wp = np.empty(n)
        _lu_pinv_into(f_lu, ny, w, y, zm, wp)
    else:
        wp = _pinv_vec(sp, w, y)
    # the start-of-step state and the iterate projected on α (rows of Pm); Newmark on α
    b0 = np.empty(d)
    c0 = np.empty(d)
    for i in range(d):
        e0 = pv = pa = pd = pdd = 0.0
        for j in range(n):
            pij = pm[i, j]
            e0 += pij * (q[j] - xn[j])
            pv += pij * vn[j]
            pa += pij * an[j]
            pd += pij * qd[j]
            pdd += pij * qdd[j]
        b0[i] = a5 * e0 - a6 * pv - a7 * pa - pd
        c0[i] = a0 * e0 - a1 * pv - a2 * pa - pdd
    # Nᵀ[a₀ M N + a₅ (M W₂ + C N) + M W₁ + C V + K N] with each of M, C, K applied once:
    # Nᵀ[M (a₀ N + a₅ W₂ + W₁) + C (a₅ N + V) + K N]; likewise the right-hand side
    # −Nᵀ[r⁰ + M (w + N c₀ + W₂ b₀) + C (v + N b₀) + K p], r⁰ = M ẍ⁰ − Q + Φ_qᵀλ
    xm = np.empty((n, d))
    xc = np.empty((n, d))
    um = np.empty(n)
    uc = np.empty(n)
    for i in range(n):
        su = qdd[i] + wp[i]
        sc = vp[i]
        for j in range(d):
            xm[i, j] = a0 * null[i, j] + 2.0 * a5 * vv[i, j] + w1[i, j]
            xc[i, j] = a5 * null[i, j] + vv[i, j]
            su += null[i, j] * c0[j] + 2.0 * vv[i, j] * b0[j]
            sc += null[i, j] * b0[j]
        um[i] = su
        uc[i] = sc
    red = entries_mat(mr, mc, mv, xm, n)
    rc = rows_mat(c, xc)
    rk = rows_mat(k, null)
    for i in range(n):
        for j in range(d):
            red[i, j] += rc[i, j] + rk[i, j]
    a = mat_t_mat(null, red)
    g = entries_mat_vec(mr, mc, mv, um, n)
    gc = rows_vec(c, uc)
    gk = rows_vec(k, p)
    gl = entries_mat_t_vec(hr, hc, hv, lam, n)
    if mu.shape[0]:
        gl += mat_t_vec(bmat, mu)
    for i in range(n):
        g[i] += gc[i] + gk[i] - f[i] + gl[i]
    rhs = np.zeros(d)
    for j in range(d):
        acc = 0.0
        for i in range(n):
            acc += null[i, j] * g[i]
        rhs[j] = -acc
    if mu.shape[0]:  # [Zᵀ A; B(a₅ N + V) + D N] α = [Zᵀ rhs; −(B(ẋ + v + N b₀) + D p)]
        z = _null_columns(mat_mat(bmat, null))
        nz, nh = z.shape[1], mu.shape[0]
        if nz + nh != d:  # the rows do not fix the velocities: no square system
            return False, p, p, p
        stacked = np.empty((d, d))
        rhs2 = np.empty(d)
        za = mat_t_mat(z, a)
        zr = mat_t_vec(z, rhs)
        rows_v = mat_mat(bmat, a5 * null + vv) + rows_mat(dnh, null)
        u = qd + vp
        for i in range(n):
            for j in range(d):
                u[i] += null[i, j] * b0[j]
        rv = mat_vec(bmat, u) + rows_vec(dnh, p)
        for i in range(nz):
            rhs2[i] = zr[i]
            for j in range(d):
                stacked[i, j] = za[i, j]
        for i in range(nh):
            rhs2[nz + i] = -rv[i]
            for j in range(d):
                stacked[nz + i, j] = rows_v[i, j]
        a, rhs = stacked, rhs2
    alpha = np.zeros(d)
    if d:
        piv, ok = lu_factor(a)
        if not ok:
            return False, p, p, p
        alpha = lu_solve(a, piv, rhs)
    b = a5 * alpha + b0
    cc = a0 * alpha + c0
    dx = p.copy()
    dv = vp.copy()
    da = wp.copy()
    for i in range(n):
        for j in range(d):
            dx[i] += null[i, j] * alpha[j]
            dv[i] += null[i, j] * b[j] + vv[i, j] * alpha[j]
            da[i] += null[i, j] * cc[j] + w1[i, j] * alpha[j] + 2.0 * vv[i, j] * b[j]
    return True, dx, dv, da


#: steps over which the null-space steps keep their derivative matrices (``K``, ``C``,
#: ``Ḣ``, ``Ḧ``: the iteration's, not the equations'), while that costs no iterations
DERIVATIVE_AGE = 32
#: steps the LU path rests after its rank check failed (the QR or the SVD then decides)
LU_REST = 32


@kernel
def predictors(q, qd, qdd, past, h, beta, gamma):
    """``(x, ẋ)`` of the constant acceleration ``q̈`` and ``(x, ẋ, ẍ)`` of the extrapolated
    one with the last residuals (``past`` of :func:`ns_steps`, with two accelerations)."""
    n = q.shape[0]
    xc = np.empty(n)
    vc = np.empty(n)
    xe = np.empty(n)
    ve = np.empty(n)
    ae = np.empty(n)
    hh = h * h
    for i in range(n):
        xc[i] = q[i] + h * qd[i] + 0.5 * hh * qdd[i]
        vc[i] = qd[i] + h * qdd[i]
        ae[i] = 3.0 * (qdd[i] - past[0, i]) + past[1, i]
        xe[i] = q[i] + h * qd[i] + hh * ((0.5 - beta) * qdd[i] + beta * ae[i]) + past[2, i]
        ve[i] = qd[i] + h * ((1.0 - gamma) * qdd[i] + gamma * ae[i]) + past[3, i]
    return xc, vc, xe, ve, ae


@kernel
def _distance(x, v, a, x1, v1, a1, h):
    """``max|x − x₁| + h max|ẋ − ẋ₁| + h² max|ẍ − ẍ₁|`` (the iteration's measure)."""
    dx = dv = da = 0.0
    for i in range(x.shape[0]):  # as max_abs of each difference: NaN propagates
        e = abs(x[i] - x1[i])
        if e > dx or e != e:
            dx = e
        e = abs(v[i] - v1[i])
        if e > dv or e != e:
            dv = e
        e = abs(a[i] - a1[i])
        if e > da or e != e:
            da = e
    return dx + h * dv + h * h * da


@kernel(inline="always")
def _stopped(status, it, err, x, v, a, m, rank, der, first, fresh, lu_failed):
    """What :func:`ns_step` returns when it stops before converging (no multipliers)."""
    return status, it, err, x, v, a, np.zeros(m), rank, der, first, fresh, lu_failed


@kernel(inline="always")
def ns_step(P, pt, pat, settings, t, start, rank, der, reuse, try_lu, guess):
    """One step of ``settings.h`` from ``start = (q, q̇, q̈)`` at ``t`` (``settings``:
    :class:`NSSettings`; ``pat`` the rows' columns of Φ_q's entries,
    :func:`pivoted_lu.entry_patterns`) with ``rank`` the rank of ``Φ_q`` on the manifold at
    q; ``der`` the derivative matrices of an earlier iterate, taken for the first iteration
    if ``reuse``; ``try_lu``: whether to try the LU path; ``guess = (x, ẋ, ẍ)`` the
    predictor (renormalised here). Returns ``(status, iterations, error, q, q̇, q̈, λ, rank
    there, der, refreshed first, refreshed, LU failed)``.

    The derivative matrices are refreshed in every iteration until the corrections fall
    below ``√tol`` (``refresh_needed``), and in the third iteration if the step has not
    refreshed them yet: they shape the iteration, not the solution it converges to."""
    coef, w, floor, h = settings.coef, settings.w, settings.floor, settings.h
    tol, max_it = settings.tol, settings.max_it
    t1 = t + h
    n, m = P.n, P.m
    nh = P.rl_mk.shape[0]
    x, v, a = guess[0].copy(), guess[1].copy(), guess[2].copy()
    renormalise_parameters(P, x, v, a)
    err = np.inf
    working = KEEP_ALL
    first = False
    fresh = False
    lu_failed = False
    pr, pc = pt.phi_r, pt.phi_c
    for it in range(1, max_it + 1):
        if slider_off_beam(P, x) >= 0:
            return _stopped(
                STATUS_OFF_BEAM, it, err, x, v, a, m, rank, der, first, fresh, lu_failed
            )
        scale = max(1.0, max_abs(x))
        mk = markers(P, x, v, YES)
        phi, phit, gamma, hv = constraints(P, mk, x, v, t1, pr.shape[0])
        mv = mass(P, x, pt.mass_r.shape[0])
        f, _, _ = dense_forces(P, pt, mk, x, v, t1, YES, NO)
        if not (all_finite(phi) and all_finite(hv) and all_finite(f)):
            return _stopped(
                STATUS_NEWTON, it, np.inf, x, v, a, m, rank, der, first, fresh, lu_failed
            )
        if it == 1:
            null, pm, sp, r, here = step_spaces(
                pr, pc, hv, pat, m, n, phi, rank, floor, KEEP_ALL, w, try_lu
            )
            working = r
        else:
            null, pm, sp, r, here = step_spaces(
                pr, pc, hv, pat, m, n, phi, rank, 0.0, working, w, try_lu
            )
        if try_lu and sp[0] != LU:
            try_lu = False
            lu_failed = True
        ma = entries_mat_vec(pt.mass_r, pt.mass_c, mv, a, n)
        bmat = np.zeros((nh, n))
        mu = np.zeros(nh)
        if nh:  # rolling without slip: [λ; μ] of [Φ_q; B]
            bmat = no_slip_matrix(P, mk, x, v)[0]
            lam, mu = _stacked_lsq_t(pr, pc, hv, m, bmat, f - ma)
        else:
            lam = _lsq_t(sp, w, f - ma) if m else np.zeros(0)
        # refresh_needed, or a third iteration on earlier steps' matrices
        slow = not err <= np.sqrt(tol) * scale or (it > 2 and not fresh)
        if (it == 1 and not reuse) or (it > 1 and slow):
            der = _derivatives(P, pt, mk, x, v, a, t1, lam, mu)
            fresh = True
            first = first or it == 1
        ev = (phi, (pr, pc, hv), phit, gamma, (pt.mass_r, pt.mass_c, mv), f, lam)
        ok, dx, dv, da = _correction(coef, (x, v, a), start, ev, der, (null, pm, sp, w), (bmat, mu))
        if not ok:
            return STATUS_SINGULAR, it, err, x, v, a, lam, here, der, first, fresh, lu_failed
        x1, v1, a1 = dx, dv, da  # the corrections' own arrays: the new iterate in place
        x1 += x
        v1 += v
        a1 += a
        renormalise_parameters(P, x1, v1, a1)
        err = _distance(x1, v1, a1, x, v, a, h)
        x, v, a = x1, v1, a1
        if not np.isfinite(err):
            return STATUS_NEWTON, it, err, x, v, a, lam, here, der, first, fresh, lu_failed
        if err <= tol * scale:
            if slider_off_beam(P, x) >= 0:
                return STATUS_OFF_BEAM, it, err, x, v, a, lam, here, der, first, fresh, lu_failed
            return STATUS_OK, it, err, x, v, a, lam, here, der, first, fresh, lu_failed
    return _stopped(STATUS_NEWTON, max_it, err, x, v, a, m, rank, der, first, fresh, lu_failed)


class NSSettings(NamedTuple):
    """What :func:`ns_steps` keeps over a run: ``coef`` the scheme's ``(a₀, a₁, a₂, a₅, a₆,
    a₇)``, ``w`` the metric's weights, ``floor`` the singular values' floor
    (``CONDITION_FLOOR``), the Newton tolerance and iterations, the step ``h`` (s),
    ``secant`` (the force elements do non-conservative work), ``drivers`` and ``commit``
    (the contacts' state committed at each step, as ``augmented_lagrangian.al_steps``
    does)."""

    coef: tuple
    w: np.ndarray
    floor: float
    tol: float
    max_it: int
    h: float
    secant: bool
    drivers: bool
    commit: bool


class NSArrays(NamedTuple):
    """The state :func:`ns_steps` overwrites with each accepted step's: ``q, q̇, q̈, λ``,
    and the predictor's ``past`` and ``memo`` (see :func:`ns_steps`)."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    past: np.ndarray
    memo: np.ndarray


@kernel
def ns_steps(P, pt, settings, t0, n_steps, work0, power0, rank, state, record):
    """Advance ``n_steps`` steps of size ``h`` from ``t0`` (``settings``: :class:`NSSettings`;
    ``rank``: of Φ_q at ``q``). The state arrays (:class:`NSArrays`) are overwritten with
    each accepted step's; ``record`` (``step_record.StepRecord``, its ``lam`` not
    written): row ``k`` of ``out`` gets step ``k``'s scalars (``OUT_*``; the work as in
    ``augmented_lagrangian.al_steps``, with the force elements' power if ``secant`` and the
    drivers' if ``drivers``), ``q``, ``qd``, ``qdd`` its state; the energies and constraint
    errors only where ``want[k]`` (else NaN), and for the last step accepted before a
    failure. Returns ``(status, done, t, iterations, error, rank)``: ``t`` the time
    reached, or of the failed step. With contacts the steps stop after one that ends with
    a contact penetrating (``STATUS_CONTACT``, ``done`` counting it): the time loop commits
    their state there.

    ``past`` (4 × n) holds the accelerations of the two steps before ``q̈`` and the last
    step's residuals of the scheme's formulas for ``q`` and ``q̇`` over all coordinates
    (which the constrained directions leave, Newmark holding for α only); ``memo`` how
    many steps are known and whether the next step extrapolates (both carried over to
    the next call; forgotten at each step while a contact is not ``quiet``, as the
    derivative matrices are). A step starts from the constant acceleration
    (:func:`predictors`), or
    from the quadratic extrapolation ``3q̈ₙ − 3q̈ₙ₋₁ + q̈ₙ₋₂`` with the scheme's position
    and velocity for it plus the last residuals, when that was the closer prediction of
    the last step. A predictor only shortens the iteration: the converged state is the
    same.

    The derivative matrices of a step's first iteration are those of an earlier step (at
    most ``DERIVATIVE_AGE`` steps old) after a step that converged in at most two
    iterations (where the iteration is all but linear), until a step on them takes more
    iterations than the last step that refreshed them there; then every step refreshes
    them."""
    coef, max_it, h, secant, drivers = (
        settings.coef,
        settings.max_it,
        settings.h,
        settings.secant,
        settings.drivers,
    )
    q, qd, qdd, lam, past, memo = state
    out, out_q, out_qd, out_qdd, _, want = record
    t = t0
    work = work0
    power = power0
    n, m = P.n, P.m
    pr = pt.phi_r
    pat = entry_patterns(pr, pt.phi_c, m, n)  # the same entries at every step
    # the force elements' power at the start (the power record of each step's end after)
    mk0 = markers(P, q, qd, YES)  # at the start of each step: its power and secant work
    p_start = nonconservative_power(P, mk0, q, qd, t) if secant else 0.0
    read = power_markers(P)  # the markers the secant work's powers read
    der = (zeros(n, n), zeros(n, n), zeros(m, n), zeros(m, n), zeros(P.rl_mk.shape[0], n))
    have = False
    age = 0
    reuse_ok = True
    fresh_its = max_it
    lu_rest = 0
    last_its = max_it
    beta = 1.0 / (coef[0] * h * h)  # the scheme's β and γ: a₀ = 1/(βh²), a₅ = γ/(βh)
    gamma = coef[3] * beta * h
    for k in range(n_steps):
        t1 = t + h
        if settings.commit and not quiet(P.cn_active, P.cn_onset, P.cn_history):
            memo[0] = 0  # in touch: from the constant acceleration and fresh derivatives
            have = False  # (an impact's extrapolation and old derivatives fail Newton)
        reuse = have and reuse_ok and age < DERIVATIVE_AGE and last_its <= 2
        xc, vc, xe, ve, ae = predictors(q, qd, qdd, past, h, beta, gamma)
        use = memo[0] >= 2 and memo[1] == 1
        guess = (xe, ve, ae) if use else (xc, vc, qdd)
        status, it, err, q1, qd1, qdd1, lam1, rank1, der, first, fresh, lu_failed = ns_step(
            P, pt, pat, settings, t, (q, qd, qdd), rank, der, reuse, lu_rest == 0, guess
        )
        if status == STATUS_OK and not (all_finite(q1) and all_finite(qd1)):
            status = STATUS_NONFINITE
        if status != STATUS_OK:
            if k and not want[k - 1]:
                _outputs(P, pt, mk0, q, qd, t, out[k - 1])
            return status, k, t1, it, err, rank
        have = have or fresh
        last_its = it
        age = 0 if fresh else age + 1
        if first:
            fresh_its = it
        elif it > fresh_its:
            reuse_ok = False
        if lu_failed:
            lu_rest = LU_REST
        elif lu_rest:
            lu_rest -= 1
        mk1 = markers(P, q1, qd1, YES)
        p_end = nonconservative_power(P, mk1, q1, qd1, t1) if secant else 0.0
        power1 = p_end
        if drivers:
            phit = constraints(P, mk1, q1, qd1, t1, pr.shape[0])[1]
            power1 += driver_power(P, lam1, phit)
        work += 0.5 * (power + power1) * h
        if secant:
            work += secant_work_at(P, read, mk0, q, qd, t, mk1, q1, qd1, t1, h, p_start, p_end)
        power = power1
        p_start = p_end
        mk0 = mk1
        t = t1
        rank = rank1
        if memo[0] >= 2:  # which predictor was the closer one
            e_const = _distance(xc, vc, qdd, q1, qd1, qdd1, h)
            memo[1] = 1 if _distance(xe, ve, ae, q1, qd1, qdd1, h) < e_const else 0
        hh = h * h
        for i in range(n):
            past[1, i] = past[0, i]
            past[0, i] = qdd[i]
            past[2, i] = q1[i] - q[i] - h * qd[i] - hh * ((0.5 - beta) * qdd[i] + beta * qdd1[i])
            past[3, i] = qd1[i] - qd[i] - h * ((1.0 - gamma) * qdd[i] + gamma * qdd1[i])
        memo[0] = min(memo[0] + 1, 2)
        for i in range(n):
            q[i] = q1[i]
            qd[i] = qd1[i]
            qdd[i] = qdd1[i]
        lam[:] = lam1
        out_q[k] = q1
        out_qd[k] = qd1
        out_qdd[k] = qdd1
        out[k, OUT_T] = t
        out[k, OUT_ITS] = it
        out[k, OUT_WORK] = work
        out[k, OUT_POWER] = power1
        contact = P.cn_kind.shape[0] > 0 and step_contacts(
            P, mk1.u, mk1.ud, t, settings.commit, out[k], OUT_CONTACT
        )
        if want[k] or contact:  # (the step a contact stops at is handed on: its frame is read)
            _outputs(P, pt, mk1, q1, qd1, t, out[k])
        else:
            for c in (OUT_PHI, OUT_PHIV, OUT_KIN, OUT_POT, OUT_ELA):
                out[k, c] = np.nan
        if contact:
            return STATUS_CONTACT, k + 1, t, 0, 0.0, rank
    return STATUS_OK, n_steps, t, 0, 0.0, rank


@kernel
def _outputs(P, pt, mk, q, qd, t, row):
    """The energies and constraint errors of the state ``(t, q, q̇)`` (markers ``mk``
    there) into ``row`` (``OUT_*``; ``state_evaluation``'s ``FRAME``)."""
    kin, pot, ela, err, verr = state_evaluation(P, pt, mk, q, qd, t, FRAME)
    row[OUT_KIN] = kin
    row[OUT_POT] = pot
    row[OUT_ELA] = ela
    row[OUT_PHI] = err
    row[OUT_PHIV] = verr
