"""Compiled Lagrange multipliers with Baumgarte stabilisation: accelerations and integrator.

The right-hand side of :class:`solver.analysis.formulations.lagrange_baumgarte.
LagrangeBaumgarte` (:func:`lb_accelerations`): with ``Φ̇ = Φ_q q̇ + Φ_t`` and the no-slip
rows of rolling discs ``B`` (``B q̈ = γ_nh``, ``solver.kernels.rolling``),

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
matrix. When its pivots say it is (numerically) singular, ``|U_ii|`` below ``rcond``
times the largest (redundant constraints, a singular position), the least-squares solve
of the dense matrix (LAPACK's ``gelsd``, singular values below ``rcond`` times the
largest dropped) gives the accelerations and the minimum-norm multipliers, as
``solver.analysis.linalg.saddle_solve`` does; without regularisation (μ = 0) the kernel
declines there and the formulation's solve takes over. SI units;
``M q̈ = Q − Φ_qᵀ λ − Bᵀ λ_nh``.

The explicit embedded Runge–Kutta pairs integrate ``y = [q, q̇(, W)]`` on it
(:func:`rk_start`, :func:`rk_advance`), with the work W of forces and drivers as one more
state, step after step in one call until the output times are passed, a contact
penetrates or Φ_q loses rank.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled import band
from solver.kernels.contact import any_penetration
from solver.kernels.jit import YES, kernel
from solver.kernels.system import constraints, forces, markers, mass, no_slip_rows, state_power


@kernel
def _dense_saddle(layout, k, ns, mvals, jvals, bvals, mu):
    """The saddle-point matrix dense (k × k), from the entries' dense indices ``r k + c``
    (the last ``ns`` of ``layout``, in the order of its slots)."""
    dense = layout[1 + k + ns :]
    a = np.zeros(k * k)
    nm, nj, nb = mvals.shape[0], jvals.shape[0], bvals.shape[0]
    for e in range(nm):
        a[dense[e]] += mvals[e]
    for e in range(nj):
        a[dense[nm + e]] += jvals[e]
        a[dense[nm + nj + e]] += jvals[e]
    s0 = nm + 2 * nj
    for e in range(nb):
        a[dense[s0 + e]] += bvals[e]
        a[dense[s0 + nb + e]] += bvals[e]
    s0 += 2 * nb
    for e in range(ns - s0):
        a[dense[s0 + e]] = -mu
    return a.reshape((k, k))


@kernel
def lb_accelerations(P, pt, layout, q, qd, t, alpha, beta, mu, rcond):
    """``(ok, q̈, λ, P)`` at ``(q, q̇, t)``: the accelerations, multipliers (holonomic rows,
    then no-slip rows) and the power of the force elements and drivers (``state_power``;
    W); the saddle-point matrix stored as ``layout`` says: ``[b, perm (k), slots, dense]``,
    the half-bandwidth, the renumbering, the storage index of every entry and its dense
    index (see the module docstring; one array, so that a call from Python checks one
    argument). ``ok`` false when the matrix is singular to ``rcond`` and ``μ = 0`` (the
    other values are then zeros)."""
    n, m = P.n, P.m
    nh = P.rl_mk.shape[0]
    k = n + m + nh
    b = layout[0]
    perm = layout[1 : 1 + k]
    ns = (layout.shape[0] - 1 - k) // 2
    slots = layout[1 + k : 1 + k + ns]
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
    sol = np.empty(k)
    if ok and small > rcond * big:
        band.lu_solve_into(a, piv, perm, b, rhs, np.empty(k), sol)
    elif mu > 0.0:  # the least-squares solve of the dense matrix
        sol = np.linalg.lstsq(_dense_saddle(layout, k, ns, mvals, jvals, bvals, mu), rhs, rcond)[0]
    else:
        return False, np.zeros(n), np.zeros(m + nh), 0.0
    qdd = sol[:n].copy()
    lam = sol[n:].copy()
    return True, qdd, lam, state_power(P, mk, q, qd, t, lam, phit)


#: the step control's safety factor and the bounds of the factor a step size changes by
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
#: what :func:`rk_advance` returns: all outputs written; stopped after an accepted step
#: that ends with a contact penetrating (the time loop commits it), or after the one
#: accepted step of a ``single`` call; the step size fell below the spacing of the
#: floating-point numbers at ``t``; Φ_q lost rank (``RKSettings.rank``); the saddle-point
#: matrix is singular at a right-hand side (the formulation's least-squares solve takes
#: over from the last accepted state)
STATUS_OK, STATUS_CONTACT, STATUS_STEP, STATUS_SMALL, STATUS_SINGULAR, STATUS_DECLINE = range(6)
#: fields of the integrator's ``clock``: the time and next step size, the size of the
#: last accepted step (0: none yet), the right-hand sides evaluated, the steps a call
#: accepted, and the times of the last three (oldest first; fewer when fewer were)
T, H_ABS, H_LAST, NFEV, ACCEPTED, TIMES = 0, 1, 2, 3, 4, 5
CLOCK = TIMES + 3


class RKTableau(NamedTuple):
    """An explicit embedded Runge–Kutta pair with its continuous extension: ``a`` (s × s−1,
    lower triangle), ``b`` and ``c`` (s) the Butcher tableau of the s stages; ``e`` (s+1)
    the weights of the error estimate over the stages and the right-hand side at the end;
    ``p`` (s+1 × d) the dense output's polynomial coefficients; ``order`` that of the
    error estimate."""

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    e: np.ndarray
    p: np.ndarray
    order: int


class RKSettings(NamedTuple):
    """What :func:`rk_advance` keeps over a run: the relative and absolute tolerances, the
    time it never steps past (s), the stabilisation's α and β, the regularisation μ (1/kg),
    the pivot ratio ``rcond`` of a singular saddle-point matrix, the conditioned rank of
    Φ_q to hold (−1: no check) and the ratio of its singular values that counts,
    ``single`` (stop after each accepted step), ``work`` (the state's last component
    is the work of forces and drivers)."""

    rtol: float
    atol: float
    t_bound: float
    alpha: float
    beta: float
    mu: float
    rcond: float
    rank: int
    ratio: float
    single: bool
    work: bool


class RKState(NamedTuple):
    """The integrator's state, overwritten by each accepted step: ``y`` and its derivative
    ``f``, the ``clock`` (fields ``T`` …), and the last step's stages with the end slope
    ``k`` (s+1 rows) and start ``y_old``, for its continuous extension."""

    y: np.ndarray
    f: np.ndarray
    clock: np.ndarray
    k: np.ndarray
    y_old: np.ndarray


@kernel
def _derivative(P, pt, layout, cfg, y, t, out):
    """``out = ẏ`` at ``(t, y)``, ``y = [q, q̇(, W)]``; false when the saddle-point matrix is
    singular (``out`` then unchanged)."""
    n = P.n
    q = y[:n].copy()
    qd = y[n : 2 * n].copy()
    ok, qdd, _, power = lb_accelerations(
        P, pt, layout, q, qd, t, cfg.alpha, cfg.beta, cfg.mu, cfg.rcond
    )
    if not ok:
        return False
    for i in range(n):
        out[i] = qd[i]
        out[n + i] = qdd[i]
    if cfg.work:
        out[2 * n] = power
    return True


@kernel
def _rms(x):
    return np.sqrt(np.sum(x * x) / x.shape[0])


@kernel
def rk_start(P, pt, layout, tab, cfg, state):
    """The integrator's start at ``(clock[T], y)`` (``state``: :class:`RKState`): ``f = ẏ``
    there and the first step size into ``clock[H_ABS]`` (Hairer, Nørsett and Wanner's
    estimate from ẏ and one more right-hand side, for the error estimate's order). False
    when the saddle-point matrix is singular there."""
    y, f, clock = state.y, state.f, state.clock
    t = clock[T]
    clock[NFEV] = 0.0
    clock[ACCEPTED] = 0.0
    clock[H_LAST] = 0.0
    if not _derivative(P, pt, layout, cfg, y, t, f):
        return False
    clock[NFEV] = 1.0
    span = cfg.t_bound - t
    scale = cfg.atol + np.abs(y) * cfg.rtol
    d0 = _rms(y / scale)
    d1 = _rms(f / scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, span)
    f1 = np.empty_like(f)
    if not _derivative(P, pt, layout, cfg, y + h0 * f, t + h0, f1):
        return False
    clock[NFEV] = 2.0
    d2 = _rms((f1 - f) / scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (tab.order + 1))
    clock[H_ABS] = min(100.0 * h0, h1, span)
    return True


@kernel
def _conditioned_rank(P, pt, q, qd, t, ratio):
    """The singular values of Φ_q at ``(q, t)`` above ``ratio`` times the largest."""
    n, m = P.n, P.m
    mk = markers(P, q, qd, YES)
    jvals = constraints(P, mk, q, qd, t, pt.phi_r.shape[0])[3]
    a = np.zeros((m, n))
    for e in range(jvals.shape[0]):
        a[pt.phi_r[e], pt.phi_c[e]] += jvals[e]
    s = np.linalg.svd(a)[1]
    count = 0
    for v in s:
        if v > ratio * s[0]:
            count += 1
    return count


@kernel
def _dense_output(tab, k, y_old, h, x, out):
    """The continuous extension over the last step (from ``y_old``, size ``h``, stages and
    end slope ``k``) at the fraction ``x`` of it, into ``out``."""
    d = tab.p.shape[1]
    for c in range(y_old.shape[0]):
        acc = 0.0
        xp = x
        for j in range(d):
            qj = 0.0
            for i in range(k.shape[0]):
                qj += k[i, c] * tab.p[i, j]
            acc += qj * xp
            xp *= x
        out[c] = y_old[c] + h * acc


@kernel
def rk_advance(P, pt, layout, tab, cfg, state, targets, out_y):
    """Integrate ``ẏ`` (:func:`_derivative`) from ``(clock[T], y)`` (``state``:
    :class:`RKState`, overwritten with each accepted step's) until every time of
    ``targets`` (increasing, after the start of the last step) is passed, writing the
    state at ``targets[j]`` into row ``j`` of ``out_y`` (the continuous extension of the
    step that passes it). The step size control is the standard one (Hairer, Nørsett and Wanner,
    *Solving Ordinary Differential Equations I*, §II.4): a step is accepted when the RMS
    norm of its error estimate, scaled by ``atol + rtol·max(|y|, |y_new|)``, is below
    one; the next size is the last times ``SAFETY·err^(−1/(order+1))``, between
    ``MIN_FACTOR`` and ``MAX_FACTOR`` (at most 1 after a rejection in the same step).
    Returns ``(status, outputs written)`` (``STATUS_*``); ``clock`` counts the right-hand
    sides and the accepted steps of the call and keeps the last three accepted times."""
    y, f, clock, k, y_old = state
    n = P.n
    ny = y.shape[0]
    s = tab.b.shape[0]
    yi = np.empty(ny)
    y_new = np.empty(ny)
    t = clock[T]
    h_abs = clock[H_ABS]
    h_last = clock[H_LAST]
    nfev = clock[NFEV]
    accepted = 0
    clock[ACCEPTED] = 0.0
    nt = targets.shape[0]
    j = 0
    status = STATUS_OK
    trial = np.empty((s + 1, ny))  # the stages of a step until it is accepted
    while True:
        while j < nt and targets[j] <= t:
            if h_last > 0.0 and targets[j] < t:
                _dense_output(tab, k, y_old, h_last, (targets[j] - (t - h_last)) / h_last, yi)
                out_y[j] = yi
            else:
                out_y[j] = y
            j += 1
        if j == nt or status != STATUS_OK:
            break
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        rejected = False
        while True:  # one accepted step
            if h_abs < min_step:
                status = STATUS_SMALL
                break
            t_new = min(t + h_abs, cfg.t_bound)
            h = t_new - t
            h_abs = abs(h)
            trial[0] = f
            declined = False
            for i in range(1, s):
                for c in range(ny):
                    acc = 0.0
                    for m in range(i):
                        acc += tab.a[i, m] * trial[m, c]
                    yi[c] = y[c] + h * acc
                nfev += 1.0
                if not _derivative(P, pt, layout, cfg, yi, t + tab.c[i] * h, trial[i]):
                    declined = True
                    break
            if declined:
                status = STATUS_DECLINE
                break
            for c in range(ny):
                acc = 0.0
                for i in range(s):
                    acc += tab.b[i] * trial[i, c]
                y_new[c] = y[c] + h * acc
            nfev += 1.0
            if not _derivative(P, pt, layout, cfg, y_new, t_new, trial[s]):
                status = STATUS_DECLINE
                break
            err = 0.0
            for c in range(ny):
                acc = 0.0
                for i in range(s + 1):
                    acc += tab.e[i] * trial[i, c]
                scale = cfg.atol + max(abs(y[c]), abs(y_new[c])) * cfg.rtol
                err += (acc * h / scale) ** 2
            err = np.sqrt(err / ny)
            grow = SAFETY * err ** (-1.0 / (tab.order + 1))
            if err < 1.0:
                factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, grow)
                if rejected:
                    factor = min(1.0, factor)
                h_abs *= factor
                break
            h_abs *= grow if grow > MIN_FACTOR else MIN_FACTOR  # (NaN: the smallest factor)
            rejected = True
        if status != STATUS_OK:
            break
        y_old[:] = y
        y[:] = y_new
        f[:] = trial[s]
        k[:] = trial
        h_last = h
        t = t_new
        accepted += 1
        clock[TIMES] = clock[TIMES + 1]
        clock[TIMES + 1] = clock[TIMES + 2]
        clock[TIMES + 2] = t
        q = y[:n].copy()
        qd = y[n : 2 * n].copy()
        if cfg.rank >= 0 and _conditioned_rank(P, pt, q, qd, t, cfg.ratio) < cfg.rank:
            status = STATUS_SINGULAR
            break
        if P.cn_kind.shape[0] > 0:
            mk = markers(P, q, qd, YES)
            if any_penetration(P.cn_mk, P.cn_kind, P.cn_par, P.cn_onset, mk.u, mk.ud):
                status = STATUS_CONTACT
        if status == STATUS_OK and cfg.single:
            status = STATUS_STEP
    clock[T] = t
    clock[H_ABS] = h_abs
    clock[H_LAST] = h_last
    clock[NFEV] = nfev
    clock[ACCEPTED] = accepted
    return status, j
