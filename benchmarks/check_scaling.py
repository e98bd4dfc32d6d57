"""Time and peak memory of ``check`` for large models (linear in the number of bodies).

    python -m benchmarks.check_scaling [--sizes 1000,3000,10000]

Three families, each N bodies: a pendulum chain of N rigid links on revolute joints (one
connected mechanism, 7N coordinates), N point masses in a chain of distance joints, and N
free rigid bodies. Prints the time of reading the model (``model_from_data``) and of
``check`` (validation, system, assembly, rank by blocked sparse QR, passive freedoms), and
the process's peak resident memory. Each size runs in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def model_data(kind: str, n: int) -> dict:
    from solver.generators.mechanisms import pendulum_chain

    if kind == "chain":
        return pendulum_chain(n)
    if kind == "points":
        bodies = [
            {"name": f"p{i}", "type": "point_mass", "mass": 1.0, "position": [0.1 * i, 0, 0]}
            for i in range(n)
        ]
        joints = [
            {
                "name": f"d{i}",
                "type": "distance",
                "body1": "ground" if i == 0 else f"p{i - 1}",
                "body2": f"p{i}",
                "point1": [0.1 * (i - 1), 0, 0],
                "point2": [0.1 * i, 0, 0],
            }
            for i in range(n)
        ]
        return {"biela": 1, "bodies": bodies, "joints": joints}
    bodies = [
        {"name": f"b{i}", "mass": 1.0, "inertia": [1, 1, 1], "position": [0.1 * i, 0, 0]}
        for i in range(n)
    ]
    return {"biela": 1, "bodies": bodies}


def one(kind: str, n: int) -> dict:
    from solver.analysis.check import check
    from solver.model import model_from_data

    t0 = time.perf_counter()
    model = model_from_data(model_data(kind, n))
    t1 = time.perf_counter()
    report = check(model)
    t2 = time.perf_counter()
    return {
        "kind": kind,
        "bodies": n,
        "read_s": t1 - t0,
        "check_s": t2 - t1,
        "dof": report.dof,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,3000,10000")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return
    print(f"{'model':<8}{'bodies':>8}{'read (s)':>10}{'check (s)':>11}{'DOF':>8}{'peak MB':>9}")
    for kind in ("chain", "points", "free"):
        for n in (int(s) for s in args.sizes.split(",")):
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.check_scaling", "--one", kind, str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"{kind:<8}{n:>8}{r['read_s']:>10.2f}{r['check_s']:>11.2f}"
                f"{r['dof']:>8}{r['peak_mb']:>9.0f}"
            )


if __name__ == "__main__":
    main()
