"""Per-step CPU time of the hot paths, and of an earlier commit alternately in one process.

    python -m benchmarks.hot_paths [--cases a01-cd,a01-al,chain16-al,...] [--against REV]
        [--repeats 3]

Cases (model, formulation, simulated time; Δt = 1 ms): ``a01-cd`` / ``a01-al`` the IFToMM
A01 pendulum with central_differences / augmented_lagrangian (2 s), ``chain16-cd`` /
``chain16-al`` the 16-bar spherical chain (0.2 s), ``chain256-al`` the 256-bar chain
(0.05 s), ``slider400`` the scalable slider-crank with k = 400 dyads, R-matrix dynamics on
Saura et al.'s structural groups (Δt = 5 ms, 20 steps). CPU time (``time.process_time``) of the
time loop only (model set-up and the run's summary excluded), BLAS on one thread.

With ``--system`` the compiled steppers (``solver.compiled``) and the formulations' own
steps, which evaluate the system through its methods (the same kernels, called once per
evaluation from Python), run alternately instead.
With ``--against REV`` the ``solver`` package of that commit is exported (``git archive``)
into a temporary directory as ``solver_base`` (its imports rewritten) and both versions run
in this process, case by case and repeat by repeat in turn, so that the load of a shared
machine affects both alike. The table gives the best of the repeats of each, their ratio,
and the energy drift (slider-crank: final crank angle) and iterations per step of both,
which must agree.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import importlib  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from benchmarks.chain import chain_data  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "a01-cd": ("a01", "central_differences", 2.0),
    "a01-al": ("a01", "augmented_lagrangian", 2.0),
    "chain16-cd": ("chain16", "central_differences", 0.2),
    "chain16-al": ("chain16", "augmented_lagrangian", 0.2),
    "chain256-al": ("chain256", "augmented_lagrangian", 0.05),
    "slider400": ("slider400", "r_matrix", 20),
}
_IMPORT = re.compile(r"(?<![\w.])solver(?=\.[a-z_]|\s+import\b)")


def run_case(name: str, package: str = "solver") -> dict:
    """One run with ``package`` (``solver`` or the exported ``solver_base``): CPU ms per
    step, energy drift (slider-crank: final crank angle) and iterations per step."""
    model_name, formulation, span = CASES[name]
    if model_name == "slider400":
        scaling = importlib.import_module(
            "benchmarks.slider_crank_scaling" if package == "solver" else f"{package}_scaling"
        )
        case = scaling.Case(400)
        cpu, out = scaling.run_dynamics(case, "TOP", "MATR", int(span), record=True)
        return {"ms_per_step": 1e3 * cpu / span, "check": float(out[-1, 0]), "its": 0.0}
    simulate = importlib.import_module(f"{package}.analysis.simulate")
    models = importlib.import_module(f"{package}.model")
    if model_name == "a01":
        model = models.load_model(ROOT / "examples" / "pendulum.json")
    else:
        model = models.model_from_data(chain_data(int(model_name[5:])))
    settings = simulate.settings_with(
        model, analysis="dynamic", formulation=formulation, dt=1e-3, t_end=span, output_dt=0.01
    )
    sim = simulate.Simulation(model, settings)
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


def export(rev: str, into: Path) -> str:
    """Commit ``rev``'s ``solver`` package as ``solver_base`` under ``into`` (and its
    slider-crank benchmark as ``solver_base_scaling``); returns the package name."""
    archive = subprocess.run(
        ["git", "archive", rev, "solver", "benchmarks/slider_crank_scaling.py"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    raw = into / "raw"
    raw.mkdir()
    subprocess.run(["tar", "-x", "-C", str(raw)], input=archive, check=True)
    for path in (raw / "solver").rglob("*.py"):
        dest = into / "solver_base" / path.relative_to(raw / "solver")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(_IMPORT.sub("solver_base", path.read_text()))
    for path in (raw / "solver").rglob("*.json"):  # package data (schemas)
        dest = into / "solver_base" / path.relative_to(raw / "solver")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(path.read_bytes())
    scaling = raw / "benchmarks" / "slider_crank_scaling.py"
    if scaling.exists():
        (into / "solver_base_scaling.py").write_text(
            _IMPORT.sub("solver_base", scaling.read_text())
        )
    sys.path.insert(0, str(into))
    return "solver_base"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="a01-cd,a01-al,chain16-cd,chain16-al")
    parser.add_argument("--against", help="a commit to compare with, run alternately")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--system",
        action="store_true",
        help="compare the compiled steppers with the formulations' own steps, alternately",
    )
    args = parser.parse_args(argv)
    names = args.cases.split(",")
    import solver.analysis.dynamic as dynamic
    from solver.analysis.warmup import warm

    warm()  # compiled or loaded before any timing
    with tempfile.TemporaryDirectory() as tmp:
        packages = {"now": "solver"}
        if args.against:
            packages = {args.against: export(args.against, Path(tmp)), "now": "solver"}
        elif args.system:
            packages = {"system": "solver", "now": "solver"}
        compare = args.against or ("system" if args.system else None)
        best: dict = {}
        for _ in range(args.repeats):
            for name in names:
                for label, package in packages.items():
                    stepper = dynamic.compiled_stepper
                    if label == "system":
                        dynamic.compiled_stepper = lambda *args: None
                    try:
                        r = run_case(name, package)
                    finally:
                        dynamic.compiled_stepper = stepper
                    key = (name, label)
                    if key not in best or r["ms_per_step"] < best[key]["ms_per_step"]:
                        best[key] = r
        head = f"{'case':12s}" + "".join(f" {lab[:12]:>12s}" for lab in packages)
        print(head + ("    ratio   check (drift or angle), iterations" if compare else ""))
        for name in names:
            row = f"{name:12s}" + "".join(
                f" {best[(name, lab)]['ms_per_step']:9.3f} ms" for lab in packages
            )
            if compare:
                old, new = best[(name, compare)], best[(name, "now")]
                row += f"  {old['ms_per_step'] / new['ms_per_step']:6.2f}x"
                row += f"   {old['check']:.7g} / {new['check']:.7g}, "
                row += f"{old['its']:.2f} / {new['its']:.2f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
