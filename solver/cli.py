"""Headless command line: ``biela check MODEL``, ``biela run MODEL``, ``biela import SOURCE -o
MODEL.json`` (MUBODYNA folders, MJCF, URDF), ``biela study MODEL`` and ``biela compare MODEL``.

Exit codes (DESIGN §2): 0 success; 1 invalid model (one line naming the item and the
field); 2 usage; 3 the solver failed. Never a Python traceback for bad input.
This module must not import Qt, VTK or anything from ``app``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from solver import __version__

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_SOLVER = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors: one line and exit 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="biela",
        description="Biela multibody dynamics. With no sub-command (or a MODEL file), "
        "opens the workbench.",
    )
    parser.add_argument("--version", action="version", version=f"biela {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    p = sub.add_parser("check", help="validate a model; print its degrees of freedom")
    p.add_argument("model", metavar="MODEL", help="model file (JSON)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing when valid")

    from solver.model.description import ANALYSES, COORDINATES, FORMULATIONS, ORIENTATIONS

    r = sub.add_parser("run", help="run an analysis; write CSV results and a JSON summary")
    r.add_argument("model", metavar="MODEL", help="model file (JSON)")
    r.add_argument("--analysis", choices=ANALYSES, help="default: the model's solver.analysis")
    r.add_argument("--formulation", choices=FORMULATIONS, help="dynamic formulation (DESIGN §3)")
    r.add_argument("--coordinates", choices=COORDINATES)
    r.add_argument(
        "--orientation",
        choices=ORIENTATIONS,
        help="rotation parameters of rigid bodies (central_differences; default: the model's)",
    )
    r.add_argument("--dt", type=_positive, metavar="H", help="time step (s)")
    r.add_argument("--t-end", type=_positive, metavar="T", help="end time (s)")
    r.add_argument("--output-dt", type=_positive, metavar="H", help="output interval (s)")
    r.add_argument("--tolerance", type=_positive, metavar="TOL", help="Newton tolerance")
    r.add_argument("--csv", metavar="OUT", help="write the results CSV here")
    r.add_argument("--summary", metavar="OUT.json", help="write the run summary (JSON) here")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")

    i = sub.add_parser(
        "import",
        help="convert a MUBODYNA model folder, an MJCF (.xml) or a URDF file to a Biela model",
    )
    i.add_argument("source", metavar="FILE_OR_FOLDER", help="MUBODYNA folder, .xml or .urdf")
    i.add_argument("-o", "--output", metavar="MODEL.json", required=True, help="model to write")
    i.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")

    st = sub.add_parser(
        "study",
        help="run a parameter or Monte Carlo study on Dask; write DIR/study.csv",
        description="Run one case per combination of the --vary values (a full grid), times "
        "--samples draws of the --sample distributions, on a local Dask cluster or on a "
        "scheduler. KEY is a dotted path into the model file, list items by name: solver.dt, "
        "solver.parameters.penalty, bodies.bob.mass, bodies.bob.position.0.",
    )
    st.add_argument("model", metavar="MODEL", help="model file (JSON)")
    st.add_argument(
        "--vary", action="append", default=[], metavar="KEY=V1,V2,...", help="values of a key"
    )
    st.add_argument(
        "--sample",
        action="append",
        default=[],
        metavar="KEY=DIST",
        help="a distribution of a key: uniform(a,b) or normal(mu,sigma)",
    )
    st.add_argument("--samples", type=_whole, metavar="N", help="number of draws (with --sample)")
    st.add_argument("--seed", type=_seed, metavar="S", help="seed of the draws (reproducible)")
    st.add_argument(
        "--reference",
        metavar="auto|FILE.csv",
        help="add each case's largest distance of the output points from a reference: "
        "auto (the case with the smallest Δt) or a results CSV",
    )
    _cluster_options(st)

    cp = sub.add_parser(
        "compare",
        help="compare formulations and time steps: a study with --reference auto, "
        "work-precision and drift plots",
    )
    cp.add_argument("model", metavar="MODEL", help="model file (JSON)")
    cp.add_argument(
        "--formulations", required=True, metavar="F1,F2,...", help=", ".join(FORMULATIONS)
    )
    cp.add_argument("--dts", required=True, metavar="H1,H2,...", help="time steps (s)")
    cp.add_argument(
        "--reference", default="auto", metavar="auto|FILE.csv", help="default: auto (smallest Δt)"
    )
    _cluster_options(cp)
    return parser


def _cluster_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=_whole, metavar="N", help="local worker processes (default: the cores)"
    )
    where.add_argument(
        "--scheduler", metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://10.0.0.5:8786"
    )
    p.add_argument(
        "--keep-runs", action="store_true", help="write each case's results to DIR/cases/NNN.csv"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def _whole(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def _run(args) -> int:
    from solver.analysis.simulate import simulate
    from solver.model import ModelError, load_model

    name = os.path.basename(args.model)
    try:
        model = load_model(args.model)
        result = simulate(
            model,
            analysis=args.analysis,
            formulation=args.formulation,
            coordinates=args.coordinates,
            dt=args.dt,
            t_end=args.t_end,
            output_dt=args.output_dt,
            tolerance=args.tolerance,
            orientation=args.orientation,
        )
    except ModelError as exc:
        print(str(exc if str(exc).startswith(name) else exc.with_file(name)), file=sys.stderr)
        return EXIT_INVALID
    for warning in model.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    modes = getattr(result, "modes", None)
    try:
        if args.csv and modes is not None:
            modes.to_csv(args.csv, getattr(result, "system", None))
        elif args.csv:
            result.to_csv(args.csv)
        if args.summary:
            result.write_summary(args.summary)
    except OSError as exc:
        print(f"biela: cannot write results: {exc.strerror}: {exc.filename}", file=sys.stderr)
        return EXIT_USAGE
    s = result.summary
    for warning in s.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    stability = getattr(result, "stability", None)
    if stability and stability.get("warning"):
        print(f"warning: {stability['warning']}", file=sys.stderr)
    if result.status != "ok":
        print(f"{name}: {result.message}", file=sys.stderr)
        print(f"{name}: {len(result)} frames up to the failure were kept", file=sys.stderr)
        return EXIT_SOLVER
    if modes is not None and not args.quiet:
        print(f"{name}: {len(s.get('modes', []))} modes about the static equilibrium")
        print(
            f"  {'mode':>4} {'ω (rad/s)':>14} {'f (Hz)':>14}"
            + ("  ξ" if modes.damping_ratio is not None else "")
        )
        for row in s.get("modes", []):
            xi = f"  {row['damping_ratio']:.4g}" if "damping_ratio" in row else ""
            flag = "  (unstable: ω² < 0)" if row["eigenvalue"] < 0 else ""
            print(
                f"  {row['mode']:>4} {row['omega_rad_s']:>14.6g} {row['frequency_hz']:>14.6g}{xi}{flag}"
            )
        return EXIT_OK
    if not args.quiet:
        drift = s["max_energy_drift"]
        print(
            f"{name}: {s['analysis']} analysis done: {s['steps']} steps, {s['frames']} frames in "
            f"{s['wall_time_s']:.3g} s; max |Φ| {s['max_constraint_position']:.3g}; "
            f"max energy drift {drift:.3g} J"
        )
    return EXIT_OK


def _check(args) -> int:
    from solver.analysis.check import check
    from solver.analysis.kinematics import AssemblyError
    from solver.model import ModelError, load_model

    try:
        model = load_model(args.model)
        report = check(model)
    except ModelError as exc:  # errors found after reading (check()) get the file name too
        name = os.path.basename(args.model)
        print(str(exc if str(exc).startswith(name) else exc.with_file(name)), file=sys.stderr)
        return EXIT_INVALID
    except AssemblyError as exc:
        print(f"{os.path.basename(args.model)}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if not args.quiet:
        print(f"{args.model}: valid")
        for line in report.lines():
            print(f"  {line}")
        sys.stdout.flush()
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return EXIT_OK


def _import(args) -> int:
    from solver.importers import import_model, write_imported
    from solver.model import ModelError

    try:
        imported = import_model(args.source)
    except ModelError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INVALID
    for warning in imported.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    try:
        written = write_imported(imported, args.output)
    except OSError as exc:
        print(f"biela: cannot write the model: {exc.strerror}: {exc.filename}", file=sys.stderr)
        return EXIT_USAGE
    if not args.quiet:
        m = imported.model
        print(
            f"{args.output}: {len(m.bodies)} bodies, {len(m.joints)} joints, "
            f"{len(m.drivers)} drivers, {len(m.forces)} forces"
            + (f" ({len(written) - 1} mesh files beside it)" if len(written) > 1 else "")
        )
    return EXIT_OK


def _assignments(items: list[str], option: str, parse) -> dict:
    from solver.studies.errors import StudyError
    from solver.studies.values import split_assignment

    out: dict = {}
    for item in items:
        key, value = split_assignment(item, option)
        if key in out:
            raise StudyError(key, f"is given twice ({option})")
        out[key] = parse(key, value)
    return out


def _invalid(args, exc) -> int:
    name = os.path.basename(args.model)
    print(str(exc if str(exc).startswith(name) else exc.with_file(name)), file=sys.stderr)
    return EXIT_INVALID


def _study(args) -> int:
    from solver.model import ModelError
    from solver.studies.values import parse_values

    try:
        vary = _assignments(args.vary, "--vary", parse_values)
        sample = _assignments(args.sample, "--sample", lambda key, text: text)
    except ModelError as exc:
        return _invalid(args, exc)
    return _run_study(args, vary, sample, args.samples, args.seed, args.reference, plots=False)


def _compare(args) -> int:
    from solver.model import ModelError
    from solver.studies.values import parse_values

    try:
        vary = {
            "solver.formulation": parse_values("solver.formulation", args.formulations),
            "solver.dt": parse_values("solver.dt", args.dts),
        }
    except ModelError as exc:
        return _invalid(args, exc)
    return _run_study(args, vary, {}, None, None, args.reference, plots=True)


def _run_study(args, vary, sample, samples, seed, reference, plots: bool) -> int:
    """The study of ``biela study`` and ``biela compare``: validate, run, write ``--out``."""
    from solver.model import ModelError
    from solver.studies import Study, output
    from solver.studies.progress import Progress

    name = os.path.basename(args.model)
    try:
        study = Study(
            args.model, vary=vary, sample=sample, samples=samples, seed=seed,
            reference=reference, keep_runs=args.keep_runs, workers=args.workers,
            scheduler=args.scheduler,
        )  # fmt: skip
        folder = output.prepare(args.out)
    except ModelError as exc:
        return _invalid(args, exc)
    if study.seed is not None and seed is None:
        print(
            f"seed {study.seed} (pass --seed {study.seed} to draw the same cases)", file=sys.stderr
        )
    progress = None if args.quiet else Progress(len(study))
    written = 0.0
    interrupted = False
    try:
        for row in study:
            index = row["case"]
            if index in study.runs:  # --keep-runs: write it, then let it go
                output.write_run(folder, index, len(study), *study.runs.pop(index))
            if time.perf_counter() - written >= output.REWRITE_INTERVAL:
                output.write_table(folder, study.completed_rows())
                written = time.perf_counter()
            if progress is not None:
                progress.update(study.done, study.failures)
    except KeyboardInterrupt:
        interrupted = True
    except ModelError as exc:  # the cluster refused (no scheduler, no workers)
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    finally:
        if progress is not None:
            progress.close()
        if study.started:
            output.write_table(folder, study.completed_rows())
    rows = study.completed_rows()
    if plots and rows:
        from solver.studies import plots as figures

        figures.work_precision(rows, folder, f"{study.name}: work–precision (labels: Δt in s)")
        figures.drift(rows, folder, f"{study.name}: energy drift")
    if study.reference_case is not None:
        case = study.cases[study.reference_case]
        print(f"reference: case {case.index} ({case.label()})", file=sys.stderr)
    failed = study.failures
    print(
        f"{name}: {len(rows)} of {len(study)} cases in {study.elapsed:.3g} s on "
        f"{study.worker_count} workers; {failed} failed; table {folder / 'study.csv'}",
        file=sys.stderr,
    )
    if interrupted:
        print("biela: interrupted", file=sys.stderr)
        return 130
    return EXIT_OK


COMMANDS = {
    "check": _check,
    "run": _run,
    "import": _import,
    "study": _study,
    "compare": _compare,
}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("biela: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug, not bad input: still one clear line
        if os.environ.get("BIELA_DEBUG"):
            raise
        print(
            f"biela: internal error ({type(exc).__name__}: {exc}); please report it; BIELA_DEBUG=1 shows where",
            file=sys.stderr,
        )
        return EXIT_SOLVER


if __name__ == "__main__":
    raise SystemExit(main())
