"""CPU time per step of Biela against Exudyn on models with force elements, alternately.

    python -m benchmarks.exudyn_ratio [--repeats 5] [--t-end 1.0] [--case four-bar] [--examples]

Cases (Δt = 1 ms, ``--t-end`` of simulated time, Biela's augmented Lagrangian against
Exudyn's implicit generalized-α, ρ∞ = 0.9, both with their own dense or sparse solvers as
``benchmarks.run`` sets them): the spatial four-bar of ``examples/four_bar_spatial.json``
without its motor (one spring), the 16-bar spherical chain with a spring–damper from the
tip of every bar to the ground point below its rest position, and the 16-, 64- and 256-bar
chains without springs. Each repeat runs Biela then Exudyn on the same case, so that the
load of a shared machine affects both alike; the table gives the median CPU time per step
of each (the run's set-up excluded, each code's whole time loop included) and their ratio.

``--fresh`` times each Biela run in a process of its own by its summary's ``wall_time_s``
(what ``biela run`` reports: the run's time loop with its start and fixed costs, without
the process's start-up and the loading of the compiled kernels), against Exudyn's wall
time of ``SolveDynamic``.

``--examples`` runs ``benchmarks.examples_speed`` (every example's time per step and
real-time factor with its own settings).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from benchmarks.chain import chain_data  # noqa: E402
from benchmarks.run import run_biela, run_exudyn  # noqa: E402
from solver.analysis.warmup import compile_solver  # noqa: E402
from solver.model import load_model, model_from_data  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def four_bar_without_motor():
    model = load_model(EXAMPLES / "four_bar_spatial.json")
    model.drivers.clear()
    return model


def chain_with_springs(n: int):
    data = copy.deepcopy(chain_data(n))
    data["forces"] = [
        {"name": f"K{i}", "type": "spring_damper", "body1": "ground",
         "point1": [i + 1.0, 0.0, -1.0], "body2": f"bar{i}", "point2": [i + 1.0, 0.0, 0.0],
         "stiffness": 50.0, "damping": 0.5}
        for i in range(n)
    ]  # fmt: skip
    return model_from_data(data)


CASES = {
    "four-bar, 1 spring": four_bar_without_motor,
    "chain 16 + 16 springs": lambda: chain_with_springs(16),
    "chain 16": lambda: model_from_data(chain_data(16)),
    "chain 64": lambda: model_from_data(chain_data(64)),
    "chain 256": lambda: model_from_data(chain_data(256)),
}


#: a case run in a process of its own; prints its summary's status, message, steps,
#: ``wall_time_s`` and ``load_time_s``
_FRESH = """
import json, sys
from benchmarks.exudyn_ratio import CASES
from solver import simulate
sim = simulate(CASES[sys.argv[1]](), formulation="augmented_lagrangian", dt=float(sys.argv[2]),
               t_end=float(sys.argv[3]), stream=True)
for _frame in sim:
    pass
s = sim.result.summary
print(json.dumps([s["status"], s["message"], s["steps"], s["wall_time_s"], s["load_time_s"]]))
"""


def run_fresh(name: str, dt: float, t_end: float) -> dict:
    """Biela on the case ``name`` in a new process, timed by its summary's ``wall_time_s``
    (the run's whole time loop, its start included; the process's start-up, loading the
    compiled kernels included, is not)."""
    done = subprocess.run(
        [sys.executable, "-c", _FRESH, name, repr(dt), repr(t_end)],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    status, message, steps, wall, load = json.loads(done.stdout.splitlines()[-1])
    return {"status": status, "message": message, "steps": steps, "cpu_s": wall, "load": load,
            "path": f"new process, loading {load:.3f} s"}  # fmt: skip


def compare(
    repeats: int, t_end: float, dt: float = 1e-3, only: str = "", fresh: bool = False
) -> None:
    print(f"Δt = {dt:g} s, {t_end:g} s simulated, median of {repeats} alternate repeats")
    if fresh:
        print("Biela: summary wall_time_s of a run in a new process; Exudyn: SolveDynamic")
    print(f"{'case':24s} {'Biela ms/step':>14s} {'Exudyn ms/step':>15s} {'ratio':>7s}  path")
    for name, make in CASES.items():
        if only not in name:
            continue
        model = make()
        sparse = sum(7 for _ in model.bodies) > 300
        ours, theirs, path = [], [], ""
        for _ in range(repeats):
            if fresh:
                b = run_fresh(name, dt, t_end)
            else:
                b = run_biela(model, "augmented_lagrangian", dt, t_end)
            e = run_exudyn(model, dt, t_end, sparse)
            if b["status"] != "ok" or e["status"] != "ok":
                print(f"{name:24s} failed: {b['message'] or e['message']}")
                break
            ours.append(1e3 * b["cpu_s"] / b["steps"])
            theirs.append(1e3 * (e["wall_s"] if fresh else e["cpu_s"]) / e["steps"])
            path = b["path"]
        else:
            mb, me = statistics.median(ours), statistics.median(theirs)
            print(f"{name:24s} {mb:14.3f} {me:15.3f} {mb / me:7.2f}  {path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--examples", action="store_true")
    parser.add_argument("--case", default="", help="only the cases whose name contains this")
    parser.add_argument(
        "--fresh", action="store_true",
        help="each Biela run in a new process, timed by its summary's wall_time_s "
        "(the run's fixed costs included), against Exudyn's wall time",
    )  # fmt: skip
    args = parser.parse_args(argv)
    compile_solver()
    if args.examples:
        from benchmarks.examples_speed import main as examples

        examples([])
        return
    run_biela(four_bar_without_motor(), "augmented_lagrangian", 1e-3, 0.01)  # loaded once
    compare(args.repeats, args.t_end, only=args.case, fresh=args.fresh)


if __name__ == "__main__":
    main()
