"""The benchmark bicycle: eigenvalues against forward speed, and the manoeuvres' energy
criterion and CPU time against the published solutions.

    python -m benchmarks.bicycle [--plot resources/screenshots/bicycle_eigenvalues.png]
        [--speeds 201] [--manoeuvre 2] [--runs central_differences:0.025,0.01,0.005,0.001
        null_space/r_matrix:0.01 augmented_lagrangian:0.01] [--no-runs] [--no-plot]

* Eigenvalues: the modes of the upright steady motion (``steady_motion_modes``) at
  ``--speeds`` speeds from 0 to 10 m/s, their real parts (solid dots) and imaginary parts
  (open dots) against speed, with the weave and capsize speeds found by bisection and the
  stable range shaded (Meijaard et al. 2007, Fig. 3 and Table 2).
* Runs: the manoeuvre (Urkullu (2019) §8.12; 20 s) with each formulation and Δt given as
  ``FORMULATION[/METHOD]:DT,DT,…``; for each, the energy criterion
  ``e = 100 (max E − min E)/E₀`` and the CPU time of the run (``time.process_time`` of this
  process, BLAS on one thread, energies recorded at every step; after a three-step run
  that compiles what it calls), beside the published
  solutions of the thesis's Table 8.28: R matrix (MBSLIM, Fortran, 10 ms, e = 9e-4,
  0.681 s), augmented Lagrangian (MbsLab, C++, 0.01 ms, 8.5e-4, 26.2 s) and DIMCD
  (GNU Octave, 10 ms, 6.9e-4, 362 s; its e at 25, 5 and 1 ms: 4.6e-3, 1.6e-4, 6.2e-6).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from scipy.optimize import brentq  # noqa: E402

from solver import simulate  # noqa: E402
from solver.analysis.steady_modes import steady_motion_modes  # noqa: E402
from solver.generators.bicycle import MANOEUVRES, bicycle_model, energy_criterion  # noqa: E402
from solver.mechanics.system import MultibodySystem  # noqa: E402
from solver.model import model_from_data  # noqa: E402

#: Urkullu (2019) §8.12, Table 8.28: (solution, method, language, Δt (s), e, CPU (s))
PUBLISHED = (
    ("Solution 1", "R matrix (MBSLIM)", "Fortran", 0.01, 9e-4, 0.681),
    ("Solution 2", "augmented Lagrangian (MbsLab)", "C++", 1e-5, 8.5e-4, 26.2),
    ("DIMCD", "central differences", "GNU Octave", 0.01, 6.9e-4, 362.0),
)
DIMCD_E = {0.025: 4.6e-3, 0.01: 6.9e-4, 0.005: 1.6e-4, 0.001: 6.2e-6}

DEFAULT_RUNS = (
    "central_differences:0.025,0.01,0.005,0.001",
    "null_space/r_matrix:0.01",
    "null_space:0.01",
    "augmented_lagrangian:0.01",
)


def eigenvalues(speed: float) -> np.ndarray:
    """The steady-motion eigenvalues (1/s) of the bicycle running upright at ``speed``."""
    system = MultibodySystem(model_from_data(bicycle_model(speed=speed, roll_rate=0.0)))
    return steady_motion_modes(system).eigenvalues


def _weave(speed: float) -> float:
    s = eigenvalues(speed)
    return float(s[np.abs(s.imag) > 1e-6].real.max())


def _capsize(speed: float) -> float:
    s = eigenvalues(speed)
    return float(s[np.abs(s.imag) <= 1e-6].real.max())


def stable_range() -> tuple[float, float]:
    """The weave and capsize speeds (m/s)."""
    return brentq(_weave, 4.0, 4.6, xtol=1e-10), brentq(_capsize, 5.8, 6.3, xtol=1e-10)


def plot(path: str, count: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    speeds = np.linspace(0.0, 10.0, count)
    values = [eigenvalues(float(v)) for v in speeds]
    weave, capsize = stable_range()
    print(f"weave speed {weave:.10f} m/s, capsize speed {capsize:.10f} m/s")
    fig, ax = plt.subplots(figsize=(8.0, 5.0), dpi=120)
    ax.axvspan(weave, capsize, color="#d9f0d3", label="stable upright motion")
    for v, s in zip(speeds, values, strict=True):
        ax.plot([v] * len(s), s.real, "o", ms=2.2, color="#1b5e9e")
        im = s.imag[s.imag > 1e-9]
        ax.plot([v] * len(im), im, "o", ms=2.6, mfc="none", mew=0.7, color="#d95f02")
    ax.plot([], [], "o", ms=3, color="#1b5e9e", label="real part Re(s)")
    ax.plot([], [], "o", ms=3, mfc="none", color="#d95f02", label="imaginary part Im(s) > 0")
    ax.axhline(0.0, color="black", lw=0.6)
    for x, name in ((weave, "weave"), (capsize, "capsize")):
        ax.axvline(x, color="#555555", lw=0.8, ls="--")
        ax.text(x, 9.2, f" {name}\n {x:.4f} m/s", fontsize=8, va="top")
    ax.set_xlim(0.0, 10.0)
    ax.set_ylim(-10.0, 10.0)
    ax.set_xlabel("forward speed v (m/s)")
    ax.set_ylabel("eigenvalue s (1/s)")
    ax.set_title(
        "Benchmark bicycle (Meijaard et al. 2007): modes of the upright steady motion\n"
        "linearised from examples/bicycle_benchmark.json (4 bodies, 2 rolling wheels)",
        fontsize=10,
    )
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    print(f"saved {path}")


def run(number: int, formulation: str, dt: float) -> dict:
    """One manoeuvre: e, CPU time (s), steps and mean Newton iterations (after a run of
    three steps, which compiles what the run will call: compiling is not its time)."""
    speed, roll_rate = MANOEUVRES[number]
    name, _, method = formulation.partition("/")
    model = model_from_data(bicycle_model(speed, roll_rate, dt=dt, t_end=20.0, formulation=name))
    if method:
        model.solver.parameters["method"] = method
    model.solver.output_dt = dt
    short = model_from_data(bicycle_model(speed, roll_rate, dt=dt, t_end=3 * dt, formulation=name))
    short.solver.parameters = dict(model.solver.parameters)
    short.solver.output_dt = dt
    for _ in simulate(short, stream=True):
        pass
    sim = simulate(model, stream=True)
    start = time.process_time()
    its = [frame.iterations for frame in sim]
    cpu = time.process_time() - start
    result = sim.result
    return {
        "formulation": formulation,
        "dt": dt,
        "status": result.status,
        "e": energy_criterion(result) if len(result) else float("nan"),
        "cpu": cpu,
        "steps": len(its) - 1,
        "iterations": float(np.mean(its[1:])) if len(its) > 1 else 0.0,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plot", default="resources/screenshots/bicycle_eigenvalues.png")
    parser.add_argument("--speeds", type=int, default=201)
    parser.add_argument("--manoeuvre", type=int, default=2, choices=sorted(MANOEUVRES))
    parser.add_argument("--runs", nargs="*", default=list(DEFAULT_RUNS))
    parser.add_argument("--no-runs", action="store_true")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    if not args.no_plot:
        plot(args.plot, args.speeds)
    if args.no_runs:
        return
    print(f"\nmanoeuvre {args.manoeuvre}: speed, roll rate = {MANOEUVRES[args.manoeuvre]}, 20 s")
    print("| solution | formulation | Δt (ms) | e (%) | CPU (s) | steps | Newton its |")
    print("|---|---|---|---|---|---|---|")
    for label, method, language, dt, e, cpu in PUBLISHED:
        print(f"| {label} | {method}, {language} | {dt * 1e3:g} | {e:.2g} | {cpu:g} | | |")
    for spec in args.runs:
        formulation, _, dts = spec.partition(":")
        for dt in (float(x) for x in dts.split(",")):
            row = run(args.manoeuvre, formulation, dt)
            ref = DIMCD_E.get(dt) if formulation == "central_differences" else None
            note = f" (DIMCD {ref:.2g})" if ref and args.manoeuvre == 2 else ""
            status = "" if row["status"] == "ok" else f" [{row['status']}]"
            print(
                f"| Biela{status} | {formulation}, Python | {dt * 1e3:g} | {row['e']:.2g}{note} "
                f"| {row['cpu']:.3g} | {row['steps']} | {row['iterations']:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
