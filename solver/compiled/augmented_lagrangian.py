"""Compiled (Numba) steps of the index-3 augmented Lagrangian for packed systems.

A port of :class:`solver.analysis.formulations.augmented_lagrangian.AugmentedLagrangian`'s
``step`` (a run starts with its NumPy ``start``, once) for the models
:func:`solver.mechanics.packing.pack` accepts: the same Newmark/generalized-α update, the
same starting point (the Newmark
predictor or the last positions, whichever came closer to the previous step's solution),
the same Newton iteration on positions with the exact tangent (and the same line search
along the corrections once one does not contract)

    f_q = M + (γ'/β') C + (K + α Φ_qᵀ Φ_q) / β',

the same penalty (a fixed α, or the growing ratio schedule ``PENALTY_RATIO_FIRST``,
``…_GROWTH``, ``…_MAX`` times ``β' m_ref``), the same convergence test and multiplier
updates (λ* ← λ* + α Φ with Φ at the new positions) and the same mass-orthogonal
projections of velocities and accelerations (``trapezoidal.constrained_solve``: ``M + α_p
Φ_qᵀΦ_q`` factorised once, σ iterated on increments to rounding level), and the same
index-1 multipliers ``λ = λ* + σ + ρ`` (ρ from the remainder ``Q − M q̈ − Φ_qᵀ (λ* + σ)``,
projected with the same factorisation). Each step returns the same state: ``q, q̇, q̈, λ``
and what the formulation carries to its next step, ``a`` and ``λ*`` (its ``ALCarry``).

The no-slip rows ``B q̇ = 0`` of rolling discs are rows of ``J = [Φ_q; B]`` (``band.Rows``,
passed beside the ``band.Band``: :func:`al_steps` takes the pair): their residual is ``B q̇`` (the Newmark velocity of the iterate), penalised with
``α_v = α/γ'`` so that their term in the tangent, ``α_v (γ'/β') BᵀB``, is Φ_q's
``α BᵀB/β'``; their multipliers μ* are updated as λ* (``μ* ← μ* + α_v B q̇``), their
``∂(Bᵀμ)/∂q + α_v Bᵀ ∂(B q̇)/∂q`` enter the tangent, and the projections and the
multipliers are those of J, ``λ`` being ``[λ; μ]``.

Linear algebra in band storage (:mod:`solver.compiled.band`): the iteration and projection
matrices are assembled from the entry values of ``M``, ``∂Q/∂q``, ``∂Q/∂q̇``, ``∂(Φ_qᵀλ)/∂q``,
``∂(M a)/∂q`` and ``Φ_q`` straight into the band of a renumbering chosen once per run, and
factorised by a band LU with partial pivoting (LAPACK's ``gbtf2`` order), whose factors
serve several right-hand sides; chains cost about ``3 n b²`` per factorisation, small
models keep their whole band. A matrix is singular when a pivot column is exactly zero
(LAPACK's ``info > 0``). The products with ``M`` and ``Φ_q`` loop over their entries.

Failures are returned as status codes (``STATUS_*``), turned into the Python path's
``SimulationError`` by ``solver.analysis.compiled_steps.al_failure``. This package imports
only the kernels: the formulation's parameters come in as plain tuples
(``compiled_steps.al_parameters``). Sign conventions and units are the system's (SI,
``M q̈ = Q − Φ_qᵀ λ``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled import band
from solver.compiled.band import entries_mat_t_vec, entries_mat_vec
from solver.kernels.contact_record import step_contacts
from solver.kernels.jit import NO, YES, kernel
from solver.kernels.markers import MarkerValues
from solver.kernels.small import all_finite, max_abs
from solver.kernels.system import (
    constraints,
    driver_power,
    elastic_energy,
    forces,
    kinetic_energy,
    markers,
    mass,
    mass_times_jacobian,
    no_slip_rows,
    no_slip_second_values,
    nonconservative_power,
    potential_energy,
    power_markers,
    secant_work_at,
    second_order,
    slider_off_beam,
)

#: status codes of :func:`al_steps`
STATUS_OK = 0
STATUS_TANGENT = 1  # the Newton iteration matrix is singular or the correction non-finite
STATUS_NEWTON = 2  # the Newton iteration did not converge in max_iterations
STATUS_PROJECTOR = 3  # M + α_p Φ_qᵀ Φ_q is singular
STATUS_PROJECTION = 4  # a projection gave non-finite values
STATUS_NONFINITE = 5  # the step's q or q̇ is non-finite (the time loop's check)
STATUS_OFF_BEAM = 6  # an iterate put a sliding joint's point off its beam
#: the last step ends with a contact penetrating: its state is committed by the time loop
#: or, committing (``ALSettings.commit``), the time loop reads what that step's commit logged
STATUS_CONTACT = 7
#: constrained_solve's iteration limit (trapezoidal.constrained_solve's default)
PROJECTION_ITERATIONS = 20
HINT = "a smaller dt, or another formulation (null_space, central_differences)"


# ---- the Newmark / generalized-α update (trapezoidal.Newmark) ------------------------------
@kernel(inline="always")
def slopes(sch, h):
    """``(γ', β')`` = ``(∂q̇/∂q, ∂q̈/∂q)`` at the end of a step; ``sch = (α_m, α_f, β, γ)``."""
    am, af, beta, gamma = sch
    return gamma / (beta * h), (1.0 - am) / ((1.0 - af) * beta * h * h)


@kernel(inline="always")
def newmark_update(sch, q1, q, qd, qdd, a, h):
    """``(q̇, q̈, a)`` at ``t + h`` from the positions ``q1`` there (``Newmark.update``)."""
    n = q1.shape[0]
    qd1, qdd1, a1 = np.empty(n), np.empty(n), np.empty(n)
    newmark_update_into(sch, q1, q, qd, qdd, a, h, qd1, qdd1, a1)
    return qd1, qdd1, a1


@kernel(inline="always")
def newmark_update_into(sch, q1, q, qd, qdd, a, h, qd1, qdd1, a1):
    """:func:`newmark_update` into ``qd1``, ``qdd1`` and ``a1``."""
    am, af, beta, gamma = sch
    c0, c1 = h * h * (0.5 - beta), beta * h * h
    plain = am == 0.0 and af == 0.0
    for i in range(q1.shape[0]):
        ai = (q1[i] - q[i] - h * qd[i] - c0 * a[i]) / c1
        a1[i] = ai
        qd1[i] = qd[i] + h * ((1.0 - gamma) * a[i] + gamma * ai)
        qdd1[i] = ai if plain else ((1.0 - am) * ai + am * a[i] - af * qdd[i]) / (1.0 - af)


@kernel(inline="always")
def acceleration_variable(sch, qdd1, qdd, a):
    """``a_{n+1}`` consistent with the (projected) ``q̈_{n+1}``."""
    am, af, beta, gamma = sch
    return ((1.0 - af) * qdd1 + af * qdd - am * a) / (1.0 - am)


# ---- the constrained solve / projections (trapezoidal.constrained_solve) ------------------
@kernel
def constrained_solve(
    fac, last, lay, pt, jr, jc, mvals, jvals, f, g, alpha, tol, x0, max_iterations
):
    """``(x, σ, iterations)`` with ``M x + Jᵀ σ = f``, ``J x = g`` (``M`` as entry values of
    the pattern ``pt``, ``J = [Φ_q; B]`` of the entries ``(jr, jc, jvals)``); ``fac`` and
    ``last`` are the Cholesky factor of ``M + α JᵀJ`` in the band layout ``lay``
    (:func:`projector`). Iterated on increments
    from ``x0`` and ``σ = 0``; stops when
    ``|Φ_q x − g|∞ ≤ tol`` or when that residual stops decreasing."""
    m, n = g.shape[0], x0.shape[0]
    scratch = (np.empty(m), np.empty(m), np.empty(n), np.empty(n))
    return constrained_solve_into(
        fac, last, lay, pt, jr, jc, mvals, jvals, f, g, alpha, tol, x0, max_iterations, scratch
    )


@kernel
def constrained_solve_into(
    fac, last, lay, pt, jr, jc, mvals, jvals, f, g, alpha, tol, x0, max_iterations, scratch
):
    """:func:`constrained_solve` with its work arrays ``scratch`` (m, m, n and n values). In
    place on a few vectors: the iteration runs several times per step."""
    m = g.shape[0]
    n = x0.shape[0]
    x = x0.copy()
    sigma = np.zeros(m)
    res, s, r, work = scratch  # Φ_q x − g; σ + α res; the right-hand side; the solve's
    prev = np.inf
    _residual(jr, jc, jvals, x, g, res)
    for it in range(1, max_iterations + 1):
        for i in range(m):
            s[i] = sigma[i] + alpha * res[i]
        r[:] = f
        band.add_mat_vec(pt.mass_r, pt.mass_c, mvals, x, -1.0, r)
        band.add_mat_t_vec(jr, jc, jvals, s, -1.0, r)
        band.cholesky_solve_into(fac, last, lay.perm, lay.b, r, work, r)
        for i in range(n):
            x[i] += r[i]
        if m == 0:
            return x, sigma, it
        _residual(jr, jc, jvals, x, g, res)
        err = 0.0
        for i in range(m):
            sigma[i] += alpha * res[i]
            a = abs(res[i])
            if a > err or a != a:  # NaN propagates
                err = a
        if err <= tol or err >= prev:
            return x, sigma, it
        prev = err
    return x, sigma, max_iterations


@kernel(inline="always")
def _project(proj, jvals, f, g, x0):
    """``(x, σ)`` of :func:`constrained_solve` with the step's projector ``proj = (factor,
    its columns' last non-zeros, layout, patterns, J's rows and columns, M's values,
    α_p, tolerance, work arrays)`` and J's values ``jvals``, from ``x0``."""
    fac, last, lay, pt, jr, jc, mvals, alpha_p, ptol, scratch = proj
    x, sigma, _ = constrained_solve_into(
        fac, last, lay, pt, jr, jc, mvals, jvals, f, g, alpha_p, ptol, x0,
        PROJECTION_ITERATIONS, scratch,
    )  # fmt: skip
    return x, sigma


@kernel
def _residual(jr, jc, jvals, x, g, out):
    """``out = J x − g`` (``J``'s entries ``(jr, jc, jvals)``)."""
    for i in range(g.shape[0]):
        out[i] = -g[i]
    band.add_mat_vec(jr, jc, jvals, x, 1.0, out)


@kernel
def projector(lay, pt, mvals, jvals, alpha_p):
    """Cholesky factor of ``M + α_p JᵀJ`` (symmetric, positive definite unless a
    direction has neither mass nor a constraint) in the band layout: ``(factor, its columns'
    last non-zeros, ok)`` (``band.cholesky_factor``)."""
    n = lay.perm.shape[0]
    ab = np.zeros(n * lay.ldab)
    last = np.zeros(band.last_size(n, lay.b), np.int64)
    ok = projector_into(ab, last, lay, pt, mvals, jvals, alpha_p)
    return ab, last, ok


@kernel
def projector_into(ab, last, lay, pt, mvals, jvals, alpha_p):
    """:func:`projector` into the band ``ab`` and ``last`` of the one before (of
    ``band.no_factors`` at first: ``band.clear_cholesky`` zeroes the old factor), its lower
    band only (the factorisation reads no other): ``ok``."""
    n, b = lay.perm.shape[0], lay.b
    band.clear_cholesky(ab, last, n, b)
    band.add_lower_entries(ab, lay.mass_s, mvals, 1.0, b)
    band.add_gram(ab, lay, jvals, alpha_p, YES)
    return band.cholesky_factor_into(ab, n, b, last)


@kernel
def tangent(ab, piv, lay, pt, mvals, kv, cv, rbv, hv, jvals, alpha, gp, bp):
    """``M − (γ'/β') ∂Q/∂q̇ + (∂(Ma)/∂q − ∂Q/∂q + ∂(Φ_qᵀλ)/∂q + α Φ_qᵀΦ_q) / β'`` in the
    band ``ab`` of the layout, from the entry values of its terms; ``ab`` held the factors
    of the pivots ``piv`` (or ``band.no_factors``' zeros: ``band.clear_lu`` zeroes them)."""
    band.clear_lu(ab, piv, lay.perm.shape[0], lay.b)
    c2 = 1.0 / bp
    band.add_entries(ab, lay.mass_s, mvals, 1.0)
    band.add_entries(ab, lay.fc_s, cv, -gp / bp)
    band.add_entries(ab, lay.rb_s, rbv, c2)
    band.add_entries(ab, lay.fk_s, kv, -c2)
    band.add_entries(ab, lay.hk_s, hv, c2)
    band.add_gram(ab, lay, jvals, alpha * c2, NO)


#: the line search's sufficient decrease: a trial step ``s Δq`` is taken when
#: ``‖R(q + s Δq)‖₂ ≤ (1 − LINE_SEARCH_DECREASE s) ‖R(q)‖₂`` (Armijo's test on ``½‖R‖²``
#: with the Newton direction)
LINE_SEARCH_DECREASE = 1e-4
#: the trial steps of the line search: ``s = 1, ρ, ρ², …``, at most this many (ρ: the last
#: of ``pen``, ``NEWTON_DAMPING``)
LINE_SEARCH_TRIALS = 10


@kernel(inline="always")
def sufficient_decrease(norm, norm0, s):
    """Whether a trial step ``s`` whose residual has the 2-norm ``norm`` (``norm0`` at the
    iterate) is taken (``LINE_SEARCH_DECREASE``); a non-finite ``norm`` never is."""
    return norm <= (1.0 - LINE_SEARCH_DECREASE * s) * norm0


@kernel
def norm2(x):
    """``‖x‖₂``."""
    acc = 0.0
    for v in x:
        acc += v * v
    return np.sqrt(acc)


@kernel(inline="always")
def _no_markers():
    """An empty marker table."""
    empty = np.zeros((0, 3))
    return MarkerValues(empty, empty, np.zeros((0, 3, 1)), empty, np.zeros((0, 3, 4)))


@kernel(inline="always")
def _constraints(P, pt, rows, q, qd, t):
    """``(markers, Φ, J's entry values, [Φ; B q̇], Φ_t, [γ; γ_B])`` at ``(q, q̇, t)``: the
    no-slip rows B of rolling discs stacked under the constraints (``rows``: ``band.Rows``; without
    them J is Φ_q, and the stacked arrays are Φ's and γ's)."""
    mk = markers(P, q, qd, YES)
    phi, phit, gamma, jvals = constraints(P, mk, q, qd, t, pt.phi_r.shape[0])
    if P.rl_mk.shape[0] == 0:
        return mk, phi, jvals, phi, phit, gamma
    bvals, gamma_b, speed = no_slip_rows(P, mk, q, qd, rows.j_r.shape[0] - jvals.shape[0])
    return (
        mk, phi, np.concatenate((jvals, bvals)), np.concatenate((phi, speed)), phit,
        np.concatenate((gamma, gamma_b)),
    )  # fmt: skip


@kernel(inline="always")
def _weighted(lam_star, alpha, gp, pa, m):
    """``Λ* + w Φ_all``: the multipliers of J's rows with the weights α on Φ's and
    ``α_v = α/γ'`` on the no-slip rows' ``B q̇`` (whose ``α_v BᵀB q̇`` adds ``α BᵀB/β'``
    to the tangent, as Φ's rows do)."""
    out = np.empty(pa.shape[0])
    _weighted_into(lam_star, alpha, gp, pa, m, out)
    return out


@kernel(inline="always")
def _weighted_into(lam_star, alpha, gp, pa, m, out):
    """:func:`_weighted` into ``out``."""
    for i in range(m):
        out[i] = lam_star[i] + alpha * pa[i]
    if pa.shape[0] > m:
        alpha_v = alpha / gp if gp != 0.0 else 0.0
        for i in range(m, pa.shape[0]):
            out[i] = lam_star[i] + alpha_v * pa[i]


@kernel(inline="always")
def _violation(pa, m, h):
    """``max(|Φ|, h |B q̇|)`` (the convergence test's constraint error)."""
    err = max_abs(pa[:m])
    for i in range(m, pa.shape[0]):
        e = h * abs(pa[i])
        if e > err or e != e:
            err = e
    return err


#: a correction computed with the last tangent is applied as an iteration only if it and
#: ``|Φ|∞`` are at most this fraction of the pass before's (:func:`modified_newton`)
MODIFIED_NEWTON_CONTRACTION = 0.5
#: after a modified Newton correction, the errors expected after the convergence test's
#: correction, as a fraction of the tolerances (:func:`converged_after_modified`)
MODIFIED_NEWTON_REMAINDER = 0.01


@kernel(inline="always")
def _next_below(error, last, tol):
    """Whether ``error`` is at most ``MODIFIED_NEWTON_CONTRACTION`` of ``last`` and, shrinking
    at the same rate, the next one should be at most ``tol`` (``error² ≤ tol · last``)."""
    return error <= MODIFIED_NEWTON_CONTRACTION * last and error * error <= tol * last


@kernel(inline="always")
def modified_newton(err_q, last_q, tol_q, err_phi, last_phi, tol):
    """Whether a Newton correction computed with the last tangent (``err_q = |Δq|∞``, the
    previous one ``last_q``) at a state where ``|Φ|∞ = err_phi`` (``last_phi`` at the pass
    before) is applied as a modified Newton correction: both should be below their
    tolerances at the next pass (:func:`_next_below`), so that forming the tangent again
    would gain nothing (``AugmentedLagrangian``'s convergence paragraph)."""
    return _next_below(err_q, last_q, tol_q) and _next_below(err_phi, last_phi, tol)


@kernel(inline="always")
def converged_after_modified(err_q, last_q, tol_q, err_phi, last_phi, tol):
    """The convergence test at the pass after a modified Newton correction (``last_q`` and
    ``last_phi`` its correction and ``|Φ|∞``): besides ``|Φ|∞ ≤ tol`` and ``|Δq|∞ ≤ tol_q``,
    the errors left after applying ``Δq``, estimated at the rate just seen, are at most
    ``MODIFIED_NEWTON_REMAINDER`` of the tolerances (the linear rate of a modified
    correction is no reason to stop earlier than Newton's quadratic one would)."""
    r = MODIFIED_NEWTON_REMAINDER
    return (
        err_phi <= tol
        and err_q <= tol_q
        and _next_below(err_q, last_q, r * tol_q)
        and _next_below(err_phi, last_phi, r * tol)
    )


@kernel
def _residual_norm(P, pt, rows, trial, q):
    """``‖R(q)‖₂``, ``R = (M q̈ − Q + Jᵀ(Λ* + w [Φ; B q̇])) / β'`` at the positions ``q``, for
    the step's iteration ``trial = (sch, (q, q̇, q̈, a) at the step's start, h, t1, Λ*, α,
    γ', β')`` (q̇, q̈ of the Newmark update; the weights ``w`` of :func:`_weighted`);
    infinite where a sliding joint's point is off its beam (``AugmentedLagrangian.
    _residual_norm``)."""
    if slider_off_beam(P, q) >= 0:
        return np.inf
    sch, (q0, qd0, qdd0, a0), h, t1, lam_star, alpha, gp, bp = trial
    n, m = P.n, P.m
    none = np.int64(0)
    qd, qdd, _ = newmark_update(sch, q, q0, qd0, qdd0, a0, h)
    mk, _, jvals, pa, _, _ = _constraints(P, pt, rows, q, qd, t1)
    mvals = mass(P, q, pt.mass_r.shape[0])
    f, _, _ = forces(P, mk, q, qd, t1, YES, none, none)
    lam = _weighted(lam_star, alpha, gp, pa, m)
    res = entries_mat_vec(pt.mass_r, pt.mass_c, mvals, qdd, n) - f
    res += entries_mat_t_vec(rows.j_r, rows.j_c, jvals, lam, n)
    return norm2(res) / bp


@kernel(inline="always")
def _line_search(P, pt, rows, trial, q, dq, norm0, rho):
    """The step length ``s`` along the Newton correction ``dq`` from ``q`` (residual 2-norm
    ``norm0`` there; ``trial``: :func:`_residual_norm`'s): the first of ``1, ρ, ρ², …``
    (``LINE_SEARCH_TRIALS`` of them) that passes :func:`sufficient_decrease`, else the one
    with the smallest residual (``AugmentedLagrangian._line_search``)."""
    s = 1.0
    best, best_s = np.inf, 1.0
    at = np.empty(q.shape[0])
    for _ in range(LINE_SEARCH_TRIALS):
        for i in range(q.shape[0]):
            at[i] = q[i] + s * dq[i]
        norm = _residual_norm(P, pt, rows, trial, at)
        if sufficient_decrease(norm, norm0, s):
            return s
        if norm < best:
            best, best_s = norm, s
        s *= rho
    return best_s


@kernel(inline="always")
def _residual_into(base, jr, jc, jvals, lam, scale, jt, out):
    """``out = (base + Jᵀλ) / scale`` (``jt``: n values of scratch, ``Jᵀλ``)."""
    jt[:] = 0.0
    band.add_mat_t_vec(jr, jc, jvals, lam, 1.0, jt)
    for i in range(out.shape[0]):
        out[i] = (base[i] + jt[i]) / scale


@kernel(inline="always")
def _newton_correction(lu, piv, lay, res, scale, work, dq):
    """``Δq = −T⁻¹ (res / scale)`` into ``dq`` from the tangent's factors (``work``: n
    values)."""
    for i in range(dq.shape[0]):
        dq[i] = res[i] / scale
    band.lu_solve_into(lu, piv, lay.perm, lay.b, dq, work, dq)
    for i in range(dq.shape[0]):
        dq[i] = -dq[i]


@kernel(inline="always")
def al_step(P, pt, layout, settings, t1, start, extrap, index1, jac_every, ws):
    """One step from ``start = (q, q̇, q̈, a, λ*)`` to the time ``t1`` (``settings``:
    :class:`ALSettings`, its step ``h``): ``AugmentedLagrangian.step`` (Newton from the
    Newmark predictor when ``extrap``, else from ``q``), its matrices in the band layout
    of ``layout = (Band, Rows)`` (:mod:`solver.compiled.band`).

    Returns ``(status, iterations, error, q, q̇, q̈, a, λ*, λ, Φ, Φ_q q̇ + Φ_t, Φ_t, markers)``
    (the last four at the new state; ``error`` is the Newton failure's ``max(|Δq|, |Φ|)``); λ
    is the index-1 ``λ* + σ + ρ`` with ``index1``, else ``λ* + σ`` (the state needs
    neither: only the drivers' power and the reported multipliers read it). With
    ``jac_every`` every pass evaluates the force Jacobians with Q (where the last step
    formed more than one tangent), else only the first (later passes first try the last
    tangent, and evaluate Q again with its Jacobians where they form a new one). ``ws``: the
    step's work arrays, ``(tangent band, its pivots, projector band, its last non-zeros,
    Δq, n values of scratch, the projections' work arrays, the passes' vectors: q̇, q̈,
    a, M q̈ − Q, Jᵀλ, the residual (n each) and λ (J's rows))`` (``band.no_factors`` at
    first: each step clears the factors the one before left). The q̇ and q̈ it returns
    after a failure are the passes' (read before the next step).
    After a failure only the first three count (every failure returns the same types: one
    compilation)."""
    n, m = P.n, P.m
    lay, rows = layout
    jr, jc = rows.j_r, rows.j_c
    sch, pen, m_ref, h = settings.sch, settings.pen, settings.m_ref, settings.h
    tol, max_it = settings.tol, settings.max_it
    q0, qd0, qdd0, a0, lam_star0 = start
    nm, nk, nc = pt.mass_r.shape[0], pt.fk_r.shape[0], pt.fc_r.shape[0]
    none = np.int64(0)  # not a literal: one compiled signature for every callee
    fixed, ratio_first, ratio_growth, ratio_max, ratio_p, contraction, backtrack = pen
    gp, bp = slopes(sch, h)
    # Newmark.predict (a_{n+1} = a_n) or the last positions
    q = q0 + h * qd0 + (0.5 * h * h) * a0 if extrap else q0.copy()
    lam_star = lam_star0.copy()
    tol_q = tol * max(1.0, max_abs(q)) if n else tol
    alpha = 0.0
    have_fac = False
    reused = False  # the last correction was a modified Newton one
    lu, piv, pfac, plast, dq, work, scratch, vecs = ws
    qd_w, qdd_w, a_w, base, jt, res, lam = vecs  # the passes' vectors
    err_q = np.inf
    err_phi = np.inf
    last_q = np.inf  # the last correction's max norm
    searching = False  # a correction has not contracted: line searches from then on
    converged = False
    it = 0
    qd = qd0
    qdd = qdd0
    phi = np.zeros(m)
    phit = np.zeros(m)
    nj = lam_star0.shape[0]  # J's rows: Φ_q's and the no-slip rows'
    mk = _no_markers()  # (what a failure before the first evaluation returns)
    while True:
        if slider_off_beam(P, q) >= 0:
            return STATUS_OFF_BEAM, it, 0.0, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
        newmark_update_into(sch, q, q0, qd0, qdd0, a0, h, qd_w, qdd_w, a_w)
        qd, qdd = qd_w, qdd_w
        mk, phi, jvals, pa, phit, gamma = _constraints(P, pt, rows, q, qd, t1)
        if have_fac:  # multiplier update with Φ at the new positions
            lam_star = _weighted(lam_star, alpha, gp, pa, m)
        mvals = mass(P, q, nm)
        last_phi = err_phi
        err_phi = _violation(pa, m, h)
        # Q, and its Jacobians in the same pass where a tangent is sure or likely to be
        # formed (``jac_every``)
        jac_now = (jac_every or not have_fac) and it < max_it
        f, kv, cv = forces(P, mk, q, qd, t1, YES, nk if jac_now else none, nc if jac_now else none)
        base[:] = 0.0  # M q̈ − Q
        band.add_mat_vec(pt.mass_r, pt.mass_c, mvals, qdd, 1.0, base)
        for i in range(n):
            base[i] -= f[i]
        if have_fac:
            # the next correction with the last tangent and its α: below the tolerance,
            # apply it and stop; if the one after it should be below (the same rate of
            # shrinking), apply it as a modified Newton iteration (``modified_newton``)
            # (the residual is divided by β' in the solve here, and before it is kept below,
            # where the line search reads it: each path keeps its order of operations, and so
            # its results to the last bit)
            _weighted_into(lam_star, alpha, gp, pa, m, lam)
            _residual_into(base, jr, jc, jvals, lam, 1.0, jt, res)
            _newton_correction(lu, piv, lay, res, bp, work, dq)
            last = err_q
            err_q = max_abs(dq)
            if reused:
                done = converged_after_modified(err_q, last, tol_q, err_phi, last_phi, tol)
            else:
                done = err_phi <= tol and err_q <= tol_q
            if done:
                for i in range(n):
                    q[i] += dq[i]
                newmark_update_into(sch, q, q0, qd0, qdd0, a0, h, qd_w, qdd_w, a_w)
                mk, phi, jvals, pa, phit, gamma = _constraints(P, pt, rows, q, qd, t1)
                lam_star = _weighted(lam_star, alpha, gp, pa, m)
                converged = True
                break
            if not reused and it < max_it:
                reused = modified_newton(err_q, last, tol_q, err_phi, last_phi, tol)
                if reused:
                    for i in range(n):
                        q[i] += dq[i]
                    continue
        if it == max_it:
            break
        it += 1
        if fixed != 0.0:
            alpha = fixed
        else:
            alpha = min(ratio_first * ratio_growth ** (it - 1), ratio_max) * m_ref * bp
        _weighted_into(lam_star, alpha, gp, pa, m, lam)
        _residual_into(base, jr, jc, jvals, lam, bp, jt, res)
        if not jac_now:  # the Jacobians at this state, not computed above
            f, kv, cv = forces(P, mk, q, qd, t1, YES, nk, nc)
        rbv = mass_times_jacobian(P, q, qdd)
        hv, _ = second_order(P, mk, q, qd, t1, lam[:m], NO, pt.hk_r.shape[0], none)
        tangent(lu, piv, lay, pt, mvals, kv, cv, rbv, hv, jvals, alpha, gp, bp)
        if nj > m:  # ∂(Bᵀμ)/∂q + α_v Bᵀ ∂(B q̇)/∂q, μ = μ* + α_v B q̇ (over β')
            kb, db = no_slip_second_values(
                P, mk, q, qd, lam[m:], rows.nk_s.shape[0], rows.d_ptr[-1]
            )
            band.add_entries(lu, rows.nk_s, kb, 1.0 / bp)
            bvals = jvals[jvals.shape[0] - rows.b_ptr[-1] :]
            band.add_row_products(lu, rows, bvals, db, alpha / (gp * bp))
        if not band.lu_factor_band_into(lu, n, lay.b, piv):
            return STATUS_TANGENT, it, 0.0, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
        _newton_correction(lu, piv, lay, res, 1.0, work, dq)
        if not all_finite(dq):
            return STATUS_TANGENT, it, 0.0, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
        have_fac = True
        reused = False
        err_q = max_abs(dq)
        if not searching and it >= 2:  # a correction that does not contract
            searching = err_q >= contraction * last_q
        if searching:
            trial = (sch, (q0, qd0, qdd0, a0), h, t1, lam_star, alpha, gp, bp)
            step = _line_search(P, pt, rows, trial, q, dq, norm2(res), backtrack)
            for i in range(n):
                q[i] += step * dq[i]
        else:
            for i in range(n):
                q[i] += dq[i]
        last_q = err_q
    if not converged:
        err = max(err_q, err_phi)
        return STATUS_NEWTON, it, err, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
    if slider_off_beam(P, q) >= 0:  # after the last correction
        return STATUS_OFF_BEAM, it, 0.0, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
    # velocities and accelerations of the integrator, then their mass-orthogonal projections
    mvals = mass(P, q, nm)
    alpha_p = ratio_p * m_ref
    if not projector_into(pfac, plast, lay, pt, mvals, jvals, alpha_p):
        return STATUS_PROJECTOR, it, 0.0, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
    ptol = 1e-4 * tol
    mqd = entries_mat_vec(pt.mass_r, pt.mass_c, mvals, qd, n)
    gv = np.zeros(nj)  # J q̇ = [−Φ_t; 0]
    for i in range(m):
        gv[i] = -phit[i]
    proj = (pfac, plast, lay, pt, jr, jc, mvals, alpha_p, ptol, scratch)
    qd, _ = _project(proj, jvals, mqd, gv, qd)
    if not all_finite(qd):
        return STATUS_PROJECTION, it, 0.0, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
    mk, phi, jvals, pa, phit, gamma = _constraints(P, pt, rows, q, qd, t1)
    mqdd = entries_mat_vec(pt.mass_r, pt.mass_c, mvals, qdd, n)
    qdd, sigma = _project(proj, jvals, mqdd, gamma, qdd)
    if not all_finite(qdd):
        return STATUS_PROJECTION, it, 0.0, q, qd, qdd, a0, lam_star, lam_star, phi, phi, phi, mk
    a1 = acceleration_variable(sch, qdd, qdd0, a0)
    # the index-1 multipliers λ* + σ + ρ: M x + Φ_qᵀ ρ = Q − M q̈ − Φ_qᵀ (λ* + σ), Φ_q x = 0
    lam = lam_star + sigma
    if index1:
        f, _, _ = forces(P, mk, q, qd, t1, YES, none, none)
        rest = (
            f
            - entries_mat_vec(pt.mass_r, pt.mass_c, mvals, qdd, n)
            - entries_mat_t_vec(jr, jc, jvals, lam, n)
        )
        _, rho = _project(proj, jvals, rest, np.zeros(nj), np.zeros(n))
        lam = lam + rho
    phiv = entries_mat_vec(jr, jc, jvals, qd, nj)  # [Φ_q q̇ + Φ_t; B q̇]
    for i in range(m):
        phiv[i] += phit[i]
    return STATUS_OK, it, 0.0, q, qd, qdd, a1, lam_star, lam, phi, phiv, phit, mk


#: columns of the per-step scalars ``al_steps`` writes
OUT_T, OUT_ITS, OUT_PHI, OUT_PHIV, OUT_KIN, OUT_POT, OUT_ELA, OUT_WORK, OUT_POWER = range(9)
OUT_CONTACT = 9  # the contacts' work since the start, committed at the step (committing)
N_OUT = 10


@kernel(inline="always")
def _energies(P, mk, q, qd, row):
    """The kinetic, gravitational and elastic energies (J) of ``(q, q̇)`` (markers ``mk``
    there) into ``row`` (``OUT_*``)."""
    row[OUT_KIN] = kinetic_energy(P, q, qd)
    row[OUT_POT] = potential_energy(P, q)
    row[OUT_ELA] = elastic_energy(P, mk, q)


@kernel
def closer_to_extrapolation(q1, q, qd, a, h):
    """Whether the Newmark predictor of the step ``(q, q̇, a) → q1`` was at least as close
    to ``q1`` (max norm) as ``q``: ``augmented_lagrangian.closer_to_extrapolation``."""
    e_ext = 0.0
    e_last = 0.0
    for i in range(len(q1)):
        e_ext = max(e_ext, abs(q1[i] - (q[i] + h * qd[i] + (0.5 * h * h) * a[i])))
        e_last = max(e_last, abs(q1[i] - q[i]))
    return e_ext <= e_last


class ALSettings(NamedTuple):
    """What :func:`al_steps` keeps over a run: ``sch = (α_m, α_f, β, γ)`` (``Newmark``),
    ``pen = (α_fixed or 0 for the schedule, PENALTY_RATIO_FIRST, PENALTY_RATIO_GROWTH,
    PENALTY_RATIO_MAX, PROJECTION_PENALTY_RATIO, NEWTON_CONTRACTION, NEWTON_DAMPING)``
    (``al_parameters``), ``m_ref`` the mass scale at the start, the Newton tolerance and
    iterations, the step ``h`` (s), ``secant`` and ``multipliers`` (see :func:`al_steps`),
    ``commit``: the contacts' state committed at each step
    (``solver.kernels.contact_record.commit``)."""

    sch: tuple
    pen: tuple
    m_ref: float
    tol: float
    max_it: int
    h: float
    secant: bool
    multipliers: bool
    commit: bool


class ALArrays(NamedTuple):
    """The state :func:`al_steps` overwrites with each accepted step's: ``q, q̇, q̈, a, λ*,
    λ`` and ``extrap`` (one boolean: the next step starts from the Newmark predictor, else
    from the last positions)."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    a: np.ndarray
    lam_star: np.ndarray
    lam: np.ndarray
    extrap: np.ndarray


@kernel
def al_steps(P, pt, layout, settings, t0, k0, n_steps, work0, power0, state, record):
    """Advance ``n_steps`` steps of size ``h`` from step ``k0`` of a run that started at
    ``t0``: step ``k`` ends at ``t0 + (k0 + k + 1) h`` (times on the run's grid, no rounding
    carried from step to step or from a retried step's substeps; ``k0 = 0`` from ``t0``).

    ``layout``: ``(band.Band, band.Rows)`` (``compiled_steps.band_layout``); ``settings``:
    :class:`ALSettings`; ``state``: :class:`ALArrays`, overwritten with each
    accepted step's; ``record``: ``step_record.StepRecord``. Row
    ``k`` of ``out`` gets step ``k``'s scalars (columns ``OUT_*``: time, iterations,
    ``max |Φ|``, ``max |Φ_q q̇ + Φ_t|``, kinetic, gravitational and elastic energies, the
    work of forces and drivers since the start (``work0`` at ``t0``, where their power was
    ``power0``: trapezoidal rule on the power plus, with ``secant``, the force elements'
    :func:`solver.kernels.system.secant_work_at`) and the power), the ``out_*`` arrays its state.
    ``secant`` false says the force elements do no non-conservative work
    (``MultibodySystem.nonconservative``): their power is not evaluated. The energies only
    where ``want[k]`` (else NaN), and for the last step accepted before a failure.
    The multipliers ``λ`` are the index-1 ones at every step with ``multipliers``, else only
    where they count: at every step with drivers (their power), at the last step (the state
    handed on).

    Returns ``(status, done, t, iterations, error)``: ``done`` steps were accepted (all of
    them when ``status`` is ``STATUS_OK``), ``t`` is the time reached or, on failure, the
    time of the failed step, whose Newton iterations and error follow (see :func:`failure`).
    With contacts the steps stop after one that ends with a contact penetrating
    (``STATUS_CONTACT``, ``done`` counting it): the time loop commits their state there.
    With ``settings.commit`` every step commits it (``OUT_CONTACT``: the contacts' work at
    the step), and the steps stop after one whose commit logged an onset or a growth (the
    time loop's step check reads it) or left no room for another's events.
    """
    h, secant, multipliers = settings.h, settings.secant, settings.multipliers
    q, qd, qdd, a, lam_star, lam, extrap = state
    out, out_q, out_qd, out_qdd, out_lam, want = record
    t = t0 + k0 * h
    work = work0
    power = power0
    drivers = False
    for i in range(P.pr_func.shape[0]):
        drivers = drivers or P.pr_func[i] >= 0
    # the force elements' power at the start (the power record of each step's end after);
    # the markers at the start of each step (the last step's at its end)
    mk0 = markers(P, q, qd, YES)
    p_start = nonconservative_power(P, mk0, q, qd, t) if secant else 0.0
    read = power_markers(P)  # the markers the secant work's powers read
    jac_every = False  # the last step formed more than one tangent
    # the steps' band matrices and Newton corrections, cleared by each step as it reuses them
    lu, piv, pfac, plast = band.no_factors(P.n, layout[0].b)
    nj, n = lam_star.shape[0], P.n
    scratch = (np.empty(nj), np.empty(nj), np.empty(n), np.empty(n))  # the projections'
    vecs = (np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n))
    ws = (lu, piv, pfac, plast, np.empty(n), np.empty(n), scratch, vecs + (np.empty(nj),))
    for k in range(n_steps):
        t1 = t0 + (k0 + k + 1) * h
        index1 = multipliers or drivers or k == n_steps - 1
        status, it, err, q1, qd1, qdd1, a1, ls1, lam1, phi, phiv, phit, mk1 = al_step(
            P,
            pt,
            layout,
            settings,
            t1,
            (q, qd, qdd, a, lam_star),
            extrap[0],
            index1,
            jac_every,
            ws,
        )
        if status == STATUS_OK and not (all_finite(q1) and all_finite(qd1)):
            status = STATUS_NONFINITE
        if status != STATUS_OK:
            if k and not want[k - 1]:  # the state arrays hold that step's
                _energies(P, markers(P, q, qd, YES), q, qd, out[k - 1])
            return status, k, t1, it, err
        p_end = nonconservative_power(P, mk1, q1, qd1, t1) if secant else 0.0
        power1 = p_end + driver_power(P, lam1, phit)
        work += 0.5 * (power + power1) * h
        if secant:
            work += secant_work_at(P, read, mk0, q, qd, t, mk1, q1, qd1, t1, h, p_start, p_end)
        power = power1
        p_start = p_end
        mk0 = mk1
        t = t1
        extrap[0] = closer_to_extrapolation(q1, q, qd, a, h)
        jac_every = it > 1
        q[:] = q1
        qd[:] = qd1
        qdd[:] = qdd1
        a[:] = a1
        lam_star[:] = ls1
        lam[:] = lam1
        out_q[k] = q1
        out_qd[k] = qd1
        out_qdd[k] = qdd1
        out_lam[k] = lam1
        out[k, OUT_T] = t
        out[k, OUT_ITS] = it
        out[k, OUT_PHI] = max_abs(phi)
        out[k, OUT_PHIV] = max_abs(phiv)
        if want[k]:
            _energies(P, mk1, q1, qd1, out[k])
        else:
            out[k, OUT_KIN] = out[k, OUT_POT] = out[k, OUT_ELA] = np.nan
        out[k, OUT_WORK] = work
        out[k, OUT_POWER] = power1
        if P.cn_kind.shape[0] and step_contacts(
            P, mk1.u, mk1.ud, t, settings.commit, out[k], OUT_CONTACT
        ):
            if not want[k]:  # the step handed on: its frame is read
                _energies(P, mk1, q1, qd1, out[k])
            return STATUS_CONTACT, k + 1, t, 0, 0.0
    return STATUS_OK, n_steps, t, 0, 0.0


# ---- Python side ------------------------------------------------------------------------
