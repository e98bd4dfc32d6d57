"""Per-step CPU time of the hot paths, and the same runs of an earlier commit alternately.

    python -m benchmarks.hot_paths [--cases a01-cd,a01-al,chain16-al,...] [--against REV]
        [--repeats 3]

Cases (model, formulation, Δt = 1 ms, simulated time): ``a01-cd`` / ``a01-al`` the IFToMM
A01 pendulum with central_differences / augmented_lagrangian (2 s), ``chain16-cd`` /
``chain16-al`` the 16-bar spherical chain (0.2 s), ``chain256-al`` the 256-bar chain
(0.05 s), ``slider400`` the scalable slider-crank with k = 400 dyads, R-matrix dynamics on
004's structural groups (Δt = 5 ms, 20 steps). Each run is a fresh process; CPU time is
``time.process_time`` of the time loop (set-up excluded), BLAS on one thread.

With ``--against REV`` the tree of that commit (``git archive``, into a temporary
directory) runs the same cases, alternating with the working tree run by run so that the
load of a shared machine affects both alike; the table gives the best of the repeats of
each, their ratio, and the energy drift / iterations of both (they must agree).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "a01-cd": ("a01", "central_differences", 2.0),
    "a01-al": ("a01", "augmented_lagrangian", 2.0),
    "chain16-cd": ("chain16", "central_differences", 0.2),
    "chain16-al": ("chain16", "augmented_lagrangian", 0.2),
    "chain256-al": ("chain256", "augmented_lagrangian", 0.05),
    "slider400": ("slider400", "r_matrix", 20),
}


def run_case(name: str) -> dict:
    """One run in this process: CPU ms per step, energy drift (or final value), iterations."""
    import time

    model_name, formulation, span = CASES[name]
    if model_name == "slider400":
        from benchmarks.slider_crank_scaling import Case, run_dynamics

        case = Case(400)
        cpu, out = run_dynamics(case, "TOP", "MATR", int(span), record=True)
        return {"ms_per_step": 1e3 * cpu / span, "check": float(out[-1, 0]), "its": 0}
    from solver.analysis.simulate import Simulation, settings_with
    from solver.model import load_model

    if model_name == "a01":
        model = load_model(ROOT / "examples" / "pendulum.json")
    else:
        from benchmarks.chain import chain_model

        model = chain_model(int(model_name[5:]))
    settings = settings_with(
        model, analysis="dynamic", formulation=formulation, dt=1e-3, t_end=span, output_dt=0.01
    )
    sim = Simulation(model, settings)
    c0 = c1 = time.process_time()
    for _ in sim:
        c1 = time.process_time()
    s = sim.result.summary
    steps = max(1, int(s["steps"]))
    return {
        "ms_per_step": 1e3 * (c1 - c0) / steps,
        "check": s["max_energy_drift"],
        "its": s["newton_iterations"] / steps,
    }


def spawn(tree: Path, name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
    env.setdefault("OMP_NUM_THREADS", "1")
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.hot_paths", "--one", name],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def export(rev: str, into: Path) -> Path:
    """The ``solver``, ``benchmarks`` and ``examples`` directories of commit ``rev``."""
    archive = subprocess.run(
        ["git", "archive", rev, "solver", "benchmarks", "examples"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    if not (into / "benchmarks" / "hot_paths.py").exists():  # older trees: this runner
        (into / "benchmarks" / "hot_paths.py").write_text(Path(__file__).read_text())
    return into


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="a01-cd,a01-al,chain16-cd,chain16-al")
    parser.add_argument("--against", help="a commit to compare with, run alternately")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_case(args.one)))
        return
    names = args.cases.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"now": ROOT}
        if args.against:
            trees = {args.against: export(args.against, Path(tmp)), "now": ROOT}
        best: dict = {}
        for _ in range(args.repeats):
            for name in names:
                for label, tree in trees.items():
                    r = spawn(tree, name)
                    key = (name, label)
                    if key not in best or r["ms_per_step"] < best[key]["ms_per_step"]:
                        best[key] = r
        head = f"{'case':12s}" + "".join(f" {lab[:12]:>12s}" for lab in trees)
        print(
            head + ("    ratio   check (drift / final value), iterations" if args.against else "")
        )
        for name in names:
            row = f"{name:12s}" + "".join(
                f" {best[(name, lab)]['ms_per_step']:9.3f} ms" for lab in trees
            )
            if args.against:
                old, new = best[(name, args.against)], best[(name, "now")]
                row += f"  {old['ms_per_step'] / new['ms_per_step']:6.2f}x"
                row += f"   {old['check']:.6e} / {new['check']:.6e}, {old['its']:.2f} / {new['its']:.2f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
