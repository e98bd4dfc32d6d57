"""Study throughput on Dask: 16 runs of a 16-bar chain on 1 and on 2 local workers.

Each case is the 16-bar spherical chain (``benchmarks.chain``) with the last bar's mass drawn
from uniform(0.9, 1.1) kg (16 draws, seed 1), augmented Lagrangian, Δt = 1 ms, 2 s. Reported
per worker count (best of ``--repeat`` studies): the cluster start, the case phase (first
submission to last row) and its speed-up of 2 workers over 1, and the dispatch overhead per
case with 1 worker: (case phase − Σ time of the cases on the worker) / cases, which is what
Dask adds to each case (serialising the model, scheduling, sending the row back). The load
average before and after each study is printed: the machine may be shared.

    .venv/bin/python -m benchmarks.study_speed [--repeat 2] [--t-end 2]
"""

from __future__ import annotations

import argparse
import os
import time

from benchmarks.chain import chain_data
from solver.studies import Study


def one(workers: int, t_end: float, cases: int) -> dict:
    data = chain_data(16)
    data["solver"] = {"formulation": "augmented_lagrangian", "dt": 1e-3, "t_end": t_end,
                      "output_dt": 0.01}  # fmt: skip
    load = os.getloadavg()[0]
    study = Study(data, sample={"bodies.bar15.mass": "uniform(0.9, 1.1)"}, samples=cases, seed=1,
                  workers=workers)  # fmt: skip
    start = time.perf_counter()
    rows = list(study)
    total = time.perf_counter() - start
    assert all(r["status"] == "ok" for r in rows), [r["message"] for r in rows]
    on_workers = sum(o.case_time_s for o in study.outcomes.values())
    return {
        "workers": workers,
        "total_s": total,
        "cluster_s": study.timing["cluster"],
        "warm_up_s": study.timing["warm_up"],
        "cases_s": study.timing["cases"],
        "sum_case_s": on_workers,
        "sum_cpu_s": sum(r["cpu_time_s"] for r in rows),
        "overhead_per_case_ms": 1e3 * (study.timing["cases"] - on_workers / workers) / cases,
        "load_before": load,
        "load_after": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--t-end", type=float, default=2.0)
    parser.add_argument("--cases", type=int, default=16)
    args = parser.parse_args(argv)
    print(f"cores: {len(os.sched_getaffinity(0))}; {args.cases} cases of the 16-bar chain, "
          f"t_end {args.t_end:g} s")  # fmt: skip
    best: dict[int, dict] = {}
    for _ in range(args.repeat):
        for workers in (1, 2):
            r = one(workers, args.t_end, args.cases)
            print(
                f"  {workers} worker(s): cases {r['cases_s']:.2f} s (on workers Σ {r['sum_case_s']:.2f} s), "
                f"cluster start {r['cluster_s']:.2f} s, warm-up check {r['warm_up_s']:.2f} s, "
                f"overhead {r['overhead_per_case_ms']:.1f} ms/case, load {r['load_before']:.2f} → "
                f"{r['load_after']:.2f}"
            )
            if workers not in best or r["cases_s"] < best[workers]["cases_s"]:
                best[workers] = r
    speedup = best[1]["cases_s"] / best[2]["cases_s"]
    print(f"speed-up, 2 workers over 1 (case phase, best of {args.repeat}): {speedup:.2f}x")
    print(f"dispatch overhead per case, 1 worker: {best[1]['overhead_per_case_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
