"""The parts of a compiled null-space Newmark step, timed: CPU µs per call.

    .venv/bin/python -m benchmarks.null_space_parts [NAME ...] [--reps 2000] [--advance 500]

For each example (default: the four that run ``null_space`` with the Newmark method) the
run is advanced ``--advance`` steps by ``solver.compiled.null_space.ns_steps``, then
compiled loops call each part of one Newton iteration ``--reps`` times at that state: the
constraints (markers, Φ, Φ_q, Φ_t, γ), the mass matrix and forces, the null space and
solves (``step_spaces``: LU, QR, or SVD), the multipliers' least squares, the derivative
matrices K, C, Ḣ, Ḧ, the correction (the reduced system and its solve), a whole step on
earlier derivative matrices (``ns_step``) and a step of the run with its outputs (the
energies and constraint errors of every output step, as the time loop reads them)
(``ns_steps``). A step is about ``iterations × (constraints + mass and forces + spaces +
λ + correction)``, plus the derivatives when a step refreshes them (the first iteration
of every ``DERIVATIVE_AGE``-th step, and every iteration whose corrections are above √tol). Times are the
best of five repetitions of CPU time (``time.process_time``: other processes on a busy
machine lengthen wall time, not this); the loops compile on first use (a minute).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit

from solver import load_model
from solver.analysis.blas_threads import single_blas_thread
from solver.analysis.dynamic import initial_state
from solver.analysis.formulations import formulation_class
from solver.analysis.formulations.null_space_newmark import CONDITION_FLOOR
from solver.analysis.simulate import settings_with
from solver.compiled import null_space as cns
from solver.compiled.band import entries_mat_vec
from solver.compiled.pivoted_lu import entry_patterns
from solver.compiled.step_record import StepRecord
from solver.kernels.jit import NO, YES
from solver.kernels.system import constraints, dense_forces, markers, mass
from solver.mechanics.system import MultibodySystem

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NO_MU = np.zeros(0)  # the no-slip rows' multipliers: none here
DEFAULT = ["negrut_double_pendulum", "slider_crank_planar", "spinning_top", "andrews_squeezer"]


@njit
def _constraints(P, pt, x, v, t, reps):
    s = 0.0
    for _ in range(reps):
        mk = markers(P, x, v, YES)
        phi, phit, gamma, hv = constraints(P, mk, x, v, t, pt.phi_r.shape[0])
        s += hv[0]
    return s


@njit
def _mass_forces(P, pt, x, v, t, reps):
    mk = markers(P, x, v, YES)
    s = 0.0
    for _ in range(reps):
        mv = mass(P, x, pt.mass_r.shape[0])
        f, _, _ = dense_forces(P, pt, mk, x, v, t, YES, NO)
        s += mv[0] + f[0]
    return s


@njit
def _state(P, pt, x, v, a, t, w, rank):
    """What an iteration has before its solves: constraints, M, Q, spaces and λ."""
    mk = markers(P, x, v, YES)
    phi, phit, gamma, hv = constraints(P, mk, x, v, t, pt.phi_r.shape[0])
    hq = (pt.phi_r, pt.phi_c, hv)
    mv = mass(P, x, pt.mass_r.shape[0])
    f, _, _ = dense_forces(P, pt, mk, x, v, t, YES, NO)
    pat = entry_patterns(pt.phi_r, pt.phi_c, P.m, P.n)
    null, pm, sp, r, here = cns.step_spaces(
        pt.phi_r, pt.phi_c, hv, pat, P.m, P.n, phi, rank, CONDITION_FLOOR, -1, w, True
    )
    ma = entries_mat_vec(pt.mass_r, pt.mass_c, mv, a, P.n)
    lam = cns._lsq_t(sp, w, f - ma) if P.m else np.zeros(0)
    return mk, phi, hq, phit, gamma, (pt.mass_r, pt.mass_c, mv), f, null, pm, sp, lam


@njit
def _spaces(P, pt, x, v, a, t, w, rank, reps):
    mk, phi, hq, phit, gamma, mass, f, null, pm, sp, lam = _state(P, pt, x, v, a, t, w, rank)
    pat = entry_patterns(pt.phi_r, pt.phi_c, P.m, P.n)  # (made once per run)
    s = 0.0
    for _ in range(reps):
        null, pm, sp, r, here = cns.step_spaces(
            hq[0], hq[1], hq[2], pat, P.m, P.n, phi, rank, CONDITION_FLOOR, -1, w, True
        )
        s += r
    return s


@njit
def _multipliers(P, pt, x, v, a, t, w, rank, reps):
    mk, phi, hq, phit, gamma, mass, f, null, pm, sp, lam = _state(P, pt, x, v, a, t, w, rank)
    s = 0.0
    for _ in range(reps):
        lam = cns._lsq_t(sp, w, f - entries_mat_vec(mass[0], mass[1], mass[2], a, P.n))
        s += lam[0] if lam.shape[0] else 0.0
    return s


@njit
def _derivatives(P, pt, x, v, a, t, w, rank, reps):
    mk, phi, hq, phit, gamma, mass, f, null, pm, sp, lam = _state(P, pt, x, v, a, t, w, rank)
    s = 0.0
    for _ in range(reps):
        k, c, hd, hdd, _ = cns._derivatives(P, pt, mk, x, v, a, t, lam, NO_MU)
        s += k[2].shape[0]
    return s


@njit
def _correction(P, pt, coef, x, v, a, t, w, rank, reps):
    mk, phi, hq, phit, gamma, mass, f, null, pm, sp, lam = _state(P, pt, x, v, a, t, w, rank)
    der = cns._derivatives(P, pt, mk, x, v, a, t, lam, NO_MU)
    s = 0.0
    for _ in range(reps):
        ok, dx, dv, da = cns._correction(
            coef,
            (x, v, a),
            (x, v, a),
            (phi, hq, phit, gamma, mass, f, lam),
            der,
            (null, pm, sp, w),
            (np.zeros((0, x.shape[0])), NO_MU),
        )
        s += dx[0]
    return s


@njit
def _step(P, pt, settings, t, x, v, a, rank, reps):
    w, h = settings.w, settings.h
    mk, phi, hq, phit, gamma, mass, f, null, pm, sp, lam = _state(P, pt, x, v, a, t, w, rank)
    der = cns._derivatives(P, pt, mk, x, v, a, t, lam, NO_MU)
    pat = entry_patterns(pt.phi_r, pt.phi_c, P.m, P.n)
    s = 0.0
    for _ in range(reps):
        guess = (x + h * v + 0.5 * h * h * a, v + h * a, a)
        res = cns.ns_step(P, pt, pat, settings, t, (x, v, a), rank, der, True, True, guess)
        s += res[1]
    return s


def _best(fn, args, reps: int) -> float:
    """Best of five: CPU µs per call."""
    fn(*args, 1)
    best = np.inf
    for _ in range(5):
        start = time.process_time()
        fn(*args, reps)
        best = min(best, time.process_time() - start)
    return 1e6 * best / reps


def measure(name: str, reps: int, advance: int) -> dict:
    model = load_model(EXAMPLES / f"{name}.json")
    settings = settings_with(model)
    every = max(1, round(settings.output_dt / settings.dt))  # the steps whose frames are read
    system = MultibodySystem(model, settings.coordinates)
    formulation = formulation_class(settings.formulation)(system, settings)
    stepper = getattr(formulation, "stepper", None)
    if type(stepper).__name__ != "NewmarkNullSpace":
        raise SystemExit(f"{name}: not a null-space Newmark run")
    state = formulation.start(initial_state(system, settings.tolerance, settings.max_iterations))
    P, pt, n, h = system.arrays, system.patterns, system.n, settings.dt
    coef = tuple(float(c) for c in stepper.scheme.coefficients(h))
    w = np.ones(n) if stepper.weights is None else np.array(stepper.weights, dtype=float)
    q, qd = np.array(state.q, dtype=float), np.array(state.qd, dtype=float)
    qdd = np.array(state.qdd, dtype=float) if state.qdd is not None else np.zeros(n)
    lam = np.zeros(system.m)
    rank = int(stepper.rank_at(q, state.t))
    tol, max_it = float(stepper.tol), int(stepper.max_iterations)
    secant = system.nonconservative
    drivers = bool(np.any(system.packed.pr_func >= 0))
    out = np.zeros((advance, cns.N_OUT))
    bufs = [np.zeros((advance, n)) for _ in range(3)]
    past, memo = np.zeros((4, n)), np.zeros(2, np.int64)

    settings = cns.NSSettings(coef, w, float(CONDITION_FLOOR), tol, max_it, h, secant, drivers)
    arrays = cns.NSArrays(q, qd, qdd, lam, past, memo)

    def run(t, steps):
        record = StepRecord(
            out[:steps], *(b[:steps] for b in bufs), np.zeros((steps, 0)),
            np.arange(1, steps + 1) % every == 0,
        )  # fmt: skip
        return cns.ns_steps(P, pt, settings, t, steps, 0.0, 0.0, rank, arrays, record)

    with single_blas_thread(system):
        status, _, t, *_ = run(float(state.t), advance)
        if status != cns.STATUS_OK:
            raise SystemExit(f"{name}: the compiled steps failed (status {status})")
        its = float(out[:, cns.OUT_ITS].mean())
        x, v, a = q.copy(), qd.copy(), qdd.copy()
        row = {"example": name, "n": n, "m": system.m, "iterations": its}
        row["constraints"] = _best(_constraints, (P, pt, x, v, t), reps)
        row["mass_forces"] = _best(_mass_forces, (P, pt, x, v, t), reps)
        row["spaces"] = _best(_spaces, (P, pt, x, v, a, t, w, rank), reps)
        row["multipliers"] = _best(_multipliers, (P, pt, x, v, a, t, w, rank), reps)
        row["derivatives"] = _best(_derivatives, (P, pt, x, v, a, t, w, rank), reps)
        row["correction"] = _best(_correction, (P, pt, coef, x, v, a, t, w, rank), reps)
        ns = cns.NSSettings(coef, w, CONDITION_FLOOR, tol, max_it, h, False, False)
        row["ns_step"] = _best(_step, (P, pt, ns, t, x, v, a, rank), reps)
        chunk = min(advance, max(50, reps // 10))
        best = np.inf
        for _ in range(5):
            start = time.process_time()
            status, _, t, *_ = run(t, chunk)
            best = min(best, (time.process_time() - start) / chunk)
        row["ns_steps"] = 1e6 * best
    return row


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=DEFAULT, help="example names (file stems)")
    ap.add_argument("--reps", type=int, default=2000, help="calls per timing")
    ap.add_argument("--advance", type=int, default=500, help="steps before the timings")
    args = ap.parse_args(argv)
    cols = ["constraints", "mass_forces", "spaces", "multipliers", "derivatives", "correction"]
    cols += ["ns_step", "ns_steps"]
    print(f"{'example':<24}{'n':>4}{'m':>4}{'its':>6}" + "".join(f"{c:>13}" for c in cols))
    for name in args.names:
        row = measure(name, args.reps, args.advance)
        print(
            f"{name:<24}{row['n']:>4}{row['m']:>4}{row['iterations']:>6.2f}"
            + "".join(f"{row[c]:>13.2f}" for c in cols),
            flush=True,
        )


if __name__ == "__main__":
    main()
