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
``solver.analysis.linalg.saddle_solve`` does. SI units; ``M q̈ = Q − Φ_qᵀ λ − Bᵀ λ_nh``.

The explicit embedded Runge–Kutta pairs integrate ``y = [q, q̇(, W)]`` on it
(:func:`rk_advance`), with the work W of forces and drivers as one more state, step after
step in one call until the output times are passed, a contact penetrates or Φ_q loses
rank. It is the one compiled entry of the formulation (every kernel called from Python
is compiled with all it calls): an output time at the state's own time gives the
accelerations there, without a step, which serves SciPy's integrators as their
right-hand side (``solver.analysis.compiled_runge_kutta.CompiledRungeKutta.evaluate``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled import band
from solver.compiled.dense import min_norm_lstsq
from solver.kernels.contact_record import commit_step
from solver.kernels.jit import YES, kernel
from solver.kernels.scratch import local_zeros
from solver.kernels.small import all_finite, all_finite_matrix, dot
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


@kernel(inline="always")
def lb_accelerations(P, pt, layout, q, qd, t, alpha, beta, mu, rcond):
    """``(q̈, λ, P)`` at ``(q, q̇, t)``: the accelerations, multipliers (holonomic rows,
    then no-slip rows) and the power of the force elements and drivers (``state_power``;
    W); the saddle-point matrix stored as ``layout`` says: ``[b, perm (k), slots, dense]``,
    the half-bandwidth, the renumbering, the storage index of every entry and its dense
    index (see the module docstring). Non-finite values where the matrix or the
    right-hand side has some."""
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
        bvals = local_zeros(0)
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
    else:  # the least-squares solve of the dense matrix
        dense = _dense_saddle(layout, k, ns, mvals, jvals, bvals, mu)
        if all_finite_matrix(dense) and all_finite(rhs):
            sol = min_norm_lstsq(dense, rhs, rcond)
        else:  # (a Runge–Kutta stage far off: its error estimate rejects the step)
            sol[:] = np.nan
    qdd = sol[:n].copy()
    lam = sol[n:].copy()
    return qdd, lam, state_power(P, mk, q, qd, t, lam, phit)


#: the step control's safety factor and the bounds of the factor a step size changes by
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
#: what :func:`rk_advance` returns: all outputs written; stopped after an accepted step
#: whose contacts' events the time loop must read before more are written (no room left
#: for another commit's); the step size fell below the spacing of the floating-point
#: numbers at ``t``; Φ_q lost rank (``RKSettings.rank``)
STATUS_OK, STATUS_CONTACT, STATUS_SMALL, STATUS_SINGULAR = range(4)
#: fields of the integrator's ``clock``: the time and next step size (0: not started),
#: the size of the last accepted step (0: none yet), the right-hand sides evaluated and
#: whether the last step's extra stages are evaluated
T, H_ABS, H_LAST, NFEV, EXTRA = 0, 1, 2, 3, 4
CLOCK = 5


class RKTableau(NamedTuple):
    """An explicit embedded Runge–Kutta pair with its continuous extension. ``b`` (s) the
    weights of the s stages; ``a`` (r × r, lower triangle) and ``c`` (r) the stages' rows
    and nodes, row s being the right-hand side at the step's end and rows s+1 … r−1 the
    extra stages of the dense output (none but for DOP853); ``e`` (s+1) the weights of
    the error estimate over the stages and the end, ``e3`` those of the second estimate
    of DOP853 (empty for the others); the dense output ``p`` (s+1 × degree: the
    polynomial's coefficients of RK45 and RK23) or ``d`` (4 × r: DOP853's); ``order``
    that of the error estimate."""

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    e: np.ndarray
    e3: np.ndarray
    p: np.ndarray
    d: np.ndarray
    order: int


class RKSettings(NamedTuple):
    """What :func:`rk_advance` keeps over a run: the relative and absolute tolerances, the
    time it never steps past (s), the stabilisation's α and β, the regularisation μ
    (1/kg), the pivot ratio ``rcond`` of a singular saddle-point matrix, the conditioned
    rank of Φ_q to hold (−1: no check) and the ratio of its singular values that counts,
    ``work`` (the state's last component is the work of forces and drivers)."""

    rtol: float
    atol: float
    t_bound: float
    alpha: float
    beta: float
    mu: float
    rcond: float
    rank: int
    ratio: float
    work: bool


class RKState(NamedTuple):
    """The integrator's state, overwritten by each accepted step: ``y`` and its derivative
    ``f``, the ``clock`` (fields ``T`` …), and the last step's stages, end slope and extra
    stages ``k`` (the tableau's rows) and start ``y_old``, for its continuous
    extension."""

    y: np.ndarray
    f: np.ndarray
    clock: np.ndarray
    k: np.ndarray
    y_old: np.ndarray


class RKOutput(NamedTuple):
    """Where :func:`rk_advance` writes the state at its output times, a row each: ``y``,
    the accelerations ``qdd``, the multipliers ``lam`` (holonomic, then no-slip) and the
    power of the force elements and drivers (W)."""

    y: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    power: np.ndarray


@kernel(inline="always")
def _derivative(P, pt, layout, cfg, y, t, out):
    """``out = ẏ`` at ``(t, y)``, ``y = [q, q̇(, W)]``; returns ``(q̈, λ, P)``."""
    n = P.n
    q = y[:n].copy()
    qd = y[n : 2 * n].copy()
    qdd, lam, power = lb_accelerations(
        P, pt, layout, q, qd, t, cfg.alpha, cfg.beta, cfg.mu, cfg.rcond
    )
    for i in range(n):
        out[i] = qd[i]
        out[n + i] = qdd[i]
    if cfg.work:
        out[2 * n] = power
    return qdd, lam, power


@kernel(inline="always")
def _rms(x):
    return np.sqrt(dot(x, x) / x.shape[0])


@kernel(inline="always")
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


@kernel(inline="always")
def _dense_output(tab, k, y_old, y, h, x, out):
    """The continuous extension over the last step (from ``y_old`` to ``y``, size ``h``,
    stages, end slope and extra stages ``k``) at the fraction ``x`` of it, into ``out``:
    the polynomial ``y_old + h Σ_j (kᵀ p)_j x^(j+1)``, or DOP853's ``y_old + F₀ x(1 + (1−x)
    (F₁ + x(F₂ + …)))`` in the alternating factors x, 1 − x, with ``F₀ = Δy``,
    ``F₁ = h f_old − Δy``, ``F₂ = 2Δy − h (f + f_old)``, ``F₃…₆ = h d k``."""
    if tab.d.shape[0] == 0:
        for c in range(y_old.shape[0]):
            acc = 0.0
            xp = x
            for j in range(tab.p.shape[1]):
                qj = 0.0
                for i in range(tab.p.shape[0]):
                    qj += k[i, c] * tab.p[i, j]
                acc += qj * xp
                xp *= x
            out[c] = y_old[c] + h * acc
        return
    s = tab.b.shape[0]
    nd = tab.d.shape[0]
    for c in range(y_old.shape[0]):
        dy = y[c] - y_old[c]
        acc = 0.0
        for r in range(nd + 3):  # F₆ … F₀, each added then multiplied by x or 1 − x
            i = nd + 2 - r
            if i == 0:
                fi = dy
            elif i == 1:
                fi = h * k[0, c] - dy
            elif i == 2:
                fi = 2.0 * dy - h * (k[s, c] + k[0, c])
            else:
                fi = 0.0
                for m in range(tab.d.shape[1]):
                    fi += tab.d[i - 3, m] * k[m, c]
                fi *= h
            acc = (acc + fi) * (x if r % 2 == 0 else 1.0 - x)
        out[c] = y_old[c] + acc


#: what :func:`rk_advance` evaluates next (a stage ``i`` of a step is ``1 ≤ i ≤ s``, an
#: extra stage of the last step ``i > s``): the state at an output time (or, with none
#: due, the first stage of a new step), then the derivative at the start and at the
#: trial point of the first step size's estimate
_OUTPUT, _START, _GUESS = -1, -2, -3


@kernel
def rk_advance(P, pt, layout, tab, cfg, state, targets, out):
    """Integrate ``ẏ`` (:func:`_derivative`) from ``(clock[T], y)`` (``state``:
    :class:`RKState`, overwritten with each accepted step's; started first where
    ``clock[H_ABS]`` is 0) until every time of ``targets`` (increasing, after the start of
    the last step) is passed, writing the state at ``targets[j]`` into row ``j`` of
    ``out`` (:class:`RKOutput`; the continuous extension of the step that passes it, and
    the accelerations there). Returns ``(status, outputs written)`` (``STATUS_*``);
    ``clock`` counts the right-hand sides. The contacts are committed at every accepted
    step (``solver.kernels.contact_record.commit_step``), after the outputs inside it are
    written (their accelerations with the onset speeds committed before it, as when the
    time loop commits).

    The first step size is Hairer, Nørsett and Wanner's estimate from ẏ at the start and
    one more right-hand side (*Solving Ordinary Differential Equations I*, §II.4), the
    step size control the standard one: a step is accepted when the RMS norm of its
    error estimate, scaled by ``atol + rtol·max(|y|, |y_new|)``, is below one; the next
    size is the last times ``SAFETY·err^(−1/(order+1))``, between ``MIN_FACTOR`` and
    ``MAX_FACTOR`` (at most 1 after a rejection in the same step; a non-finite
    right-hand side makes ``err`` NaN: the smallest factor). Every right-hand side is
    evaluated at one place of the loop (a state machine, ``_OUTPUT`` …): the
    accelerations are compiled once into this kernel."""
    y, f, clock, k, y_old = state
    n = P.n
    ny = y.shape[0]
    s = tab.b.shape[0]
    rows = k.shape[0]  # the stages, the end slope and the dense output's extra stages
    two = tab.e3.shape[0] > 0  # DOP853's two error estimates
    trial = np.empty_like(k)  # the stages of a step until it is accepted
    y_new = np.empty_like(y)
    yi = np.empty_like(y)
    slope = np.empty_like(y)
    scale = np.empty_like(y)
    nt = targets.shape[0]
    j = 0
    status = STATUS_OK
    t = clock[T]
    h_abs = clock[H_ABS]
    h = h0 = d1 = ti = t_new = 0.0
    rejected = False
    pending = False  # an accepted step whose contacts are to be committed
    phase = _OUTPUT if h_abs > 0.0 else _START
    while True:
        # the point of the next right-hand side
        if phase == _OUTPUT:
            h_last = clock[H_LAST]
            inside = j < nt and targets[j] < t and h_last > 0.0
            if inside and rows > s + 1 and clock[EXTRA] == 0.0:
                phase = s + 1  # the dense output's extra stages first
            elif j < nt and targets[j] <= t:
                if inside:
                    x = (targets[j] - (t - h_last)) / h_last
                    _dense_output(tab, k, y_old, y, h_last, x, yi)
                else:
                    yi[:] = y
                ti = targets[j]
            elif pending:  # the last step's contacts, after the outputs inside it
                pending = False
                mk = markers(P, y[:n].copy(), y[n : 2 * n].copy(), YES)
                if commit_step(P, mk.u, mk.ud, t, False)[1] and status == STATUS_OK:
                    status = STATUS_CONTACT  # (no room for more events)
                continue
            elif j == nt or status != STATUS_OK:
                break
            else:  # a step (again, after a rejection)
                if h_abs < 10.0 * abs(np.nextafter(t, np.inf) - t):
                    status = STATUS_SMALL
                    break
                t_new = min(t + h_abs, cfg.t_bound)
                h = t_new - t
                h_abs = abs(h)
                trial[0] = f
                phase = 1
        if phase > s:  # an extra stage of the last accepted step
            h_last = clock[H_LAST]
            for c in range(ny):
                acc = 0.0
                for m in range(phase):
                    acc += tab.a[phase, m] * k[m, c]
                yi[c] = y_old[c] + h_last * acc
            ti = t - h_last + tab.c[phase] * h_last
        elif phase >= 1:
            w = tab.b if phase == s else tab.a[phase]
            for c in range(ny):
                acc = 0.0
                for m in range(phase):
                    acc += w[m] * trial[m, c]
                yi[c] = y[c] + h * acc
            ti = t_new if phase == s else t + tab.c[phase] * h
        elif phase == _START:
            yi[:] = y
            ti = t
        elif phase == _GUESS:
            yi[:] = y + h0 * f
            ti = t + h0
        qdd, lam, power = _derivative(P, pt, layout, cfg, yi, ti, slope)
        # what it gives
        if phase == _OUTPUT:
            out.y[j] = yi
            out.qdd[j] = qdd
            out.lam[j] = lam
            out.power[j] = power
            j += 1
            continue
        clock[NFEV] += 1.0
        if phase == _START:
            f[:] = slope
            scale[:] = cfg.atol + np.abs(y) * cfg.rtol
            d0 = _rms(y / scale)
            d1 = _rms(f / scale)
            h0 = min(1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1, cfg.t_bound - t)
            phase = _GUESS
            continue
        if phase == _GUESS:
            d2 = _rms((slope - f) / scale) / h0
            if d1 <= 1e-15 and d2 <= 1e-15:
                h1 = max(1e-6, h0 * 1e-3)
            else:
                h1 = (0.01 / max(d1, d2)) ** (1.0 / (tab.order + 1))
            h_abs = min(100.0 * h0, h1, cfg.t_bound - t)
            clock[H_LAST] = 0.0
            phase = _OUTPUT
            continue
        if phase > s:
            k[phase] = slope
            phase += 1
            if phase == rows:
                clock[EXTRA] = 1.0
                phase = _OUTPUT
            continue
        trial[phase] = slope
        if phase < s:
            phase += 1
            continue
        y_new[:] = yi  # the step's end and its error estimate
        err = err3 = 0.0
        for c in range(ny):
            acc = acc3 = 0.0
            for i in range(s + 1):
                acc += tab.e[i] * trial[i, c]
                if two:
                    acc3 += tab.e3[i] * trial[i, c]
            sc = cfg.atol + max(abs(y[c]), abs(y_new[c])) * cfg.rtol
            err += (acc / sc) ** 2
            err3 += (acc3 / sc) ** 2
        if not two:
            err = abs(h) * np.sqrt(err / ny)
        elif err > 0.0 or err3 > 0.0:  # DOP853: the 5th-order estimate, with the 3rd's
            err = abs(h) * err / np.sqrt((err + 0.01 * err3) * ny)
        grow = SAFETY * err ** (-1.0 / (tab.order + 1))
        phase = _OUTPUT
        if not err < 1.0:
            h_abs *= grow if grow > MIN_FACTOR else MIN_FACTOR
            rejected = True
            continue
        factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, grow)
        h_abs *= min(1.0, factor) if rejected else factor
        rejected = False
        y_old[:] = y
        y[:] = y_new
        f[:] = slope
        k[:] = trial
        t = t_new
        clock[H_LAST] = h
        clock[EXTRA] = 0.0
        q = y[:n].copy()
        qd = y[n : 2 * n].copy()
        if cfg.rank >= 0 and _conditioned_rank(P, pt, q, qd, t, cfg.ratio) < cfg.rank:
            status = STATUS_SINGULAR
            break
        pending = P.cn_kind.shape[0] > 0
    clock[T] = t
    clock[H_ABS] = h_abs
    return status, j
