"""Every example headless with its own settings: time per step and real-time factor.

    .venv/bin/python -m benchmarks.examples_speed [--cap SECONDS] [--only NAME ...]
        [--csv benchmarks/results/examples.csv] [--numpy] [--repeats N]

Per example: the formulation and Δt of its ``solver`` section, the simulated time, the
wall time of ``simulate`` as a user calls it (the system built and assembled included; the
model read excluded; compiled code loaded or compiled by a short run before the timed
one) and of its time loop alone (``loop_s``), ms per step and the real-time factor
(simulated / wall time of ``simulate``) and whether its steps ran compiled
(``solver.analysis.compiled_steps``; else the formulation's own steps). ``--cap`` shortens runs
longer than that many simulated seconds (the time per step is still the model's).
Statics and kinematics examples are timed the same way (steps are output times).
``--numpy`` also times each run with the formulation's own (NumPy) steps instead of the
compiled stepper, right after the compiled run, and prints their ratio. ``--repeats N``
times the run N times and keeps the fastest (one slow run on a busy machine, a
collection of the garbage collector, must not make the table; the NumPy run is timed
once).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import time
from pathlib import Path

from solver import load_model, simulate
from solver.analysis.simulate import settings_with
from solver.mechanics.system import MultibodySystem

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _compiled(system, settings) -> bool:
    from solver.analysis.compiled_steps import compiled_stepper
    from solver.analysis.formulations import formulation_class

    if settings.analysis != "dynamic":
        return False
    formulation = formulation_class(settings.formulation)(system, settings)
    return compiled_stepper(system, settings, formulation) is not None


@contextlib.contextmanager
def _numpy_steps():
    """Runs inside take the formulations' own steps (no compiled stepper)."""
    from solver.analysis import dynamic

    real = dynamic.compiled_stepper
    dynamic.compiled_stepper = lambda *args: None
    try:
        yield
    finally:
        dynamic.compiled_stepper = real


def measure(path: Path, cap: float | None, numpy: bool = False, repeats: int = 1) -> dict:
    model = load_model(path)
    settings = settings_with(model)
    t_end = settings.t_end if cap is None else min(settings.t_end, cap)
    dt = settings.dt
    simulate(model, t_end=min(t_end, 10 * dt))  # compiled code loaded (or compiled)
    wall = float("inf")
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        run = simulate(model, t_end=t_end)
        took = time.perf_counter() - start
        if took < wall:
            wall, result = took, run
    numpy_ms = None
    if numpy:
        with _numpy_steps():
            start = time.perf_counter()
            simulate(model, t_end=t_end)
            numpy_ms = 1e3 * (time.perf_counter() - start) / max(1, round(t_end / dt))
    steps = max(1, round(t_end / dt))
    system = MultibodySystem(model)
    return {
        "example": path.stem,
        "formulation": settings.formulation if settings.analysis == "dynamic" else "-",
        "analysis": settings.analysis,
        "dt_s": dt,
        "t_end_s": t_end,
        "status": result.status,
        "wall_s": round(wall, 3),
        "loop_s": round(float(result.summary.get("wall_time_s") or 0.0), 3),
        "ms_per_step": round(1e3 * wall / steps, 4),
        "real_time_factor": round(t_end / wall, 3),
        "compiled": _compiled(system, settings),
        "numpy_ms_per_step": None if numpy_ms is None else round(numpy_ms, 4),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=float, default=None, help="simulated seconds at most")
    ap.add_argument("--only", nargs="*", default=None, help="example names (file stems)")
    ap.add_argument("--csv", type=Path, default=None, help="write the table here too")
    ap.add_argument("--numpy", action="store_true", help="also time the NumPy steps")
    ap.add_argument("--repeats", type=int, default=1, help="the fastest of this many runs")
    args = ap.parse_args(argv)
    paths = sorted(EXAMPLES.glob("*.json"))
    if args.only:
        paths = [p for p in paths if p.stem in set(args.only)]
    rows = []
    head = f"{'example':<30}{'formulation':<24}{'dt':>9}{'t_end':>7}{'ms/step':>10}{'RTF':>9}  path"
    print(head)
    for path in paths:
        row = measure(path, args.cap, args.numpy, args.repeats)
        rows.append(row)
        where = "compiled" if row["compiled"] else "formulation"
        print(
            f"{row['example']:<30}{row['formulation']:<24}{row['dt_s']:>9.2g}"
            f"{row['t_end_s']:>7.3g}{row['ms_per_step']:>10.3f}{row['real_time_factor']:>9.2f}"
            f"  {where}{'' if row['status'] == 'ok' else '  [' + row['status'] + ']'}"
            + (
                f"  numpy {row['numpy_ms_per_step']:.3f} ms/step "
                f"({row['numpy_ms_per_step'] / row['ms_per_step']:.1f}x)"
                if args.numpy
                else ""
            ),
            flush=True,
        )
    if args.csv:
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        with args.csv.open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
