"""Headless command line: ``biela check MODEL``, ``biela run MODEL``, ``biela import SOURCE -o
MODEL.json`` (MUBODYNA folders, MJCF, URDF).

Exit codes (DESIGN §2): 0 success; 1 invalid model (one line naming the item and the
field); 2 usage; 3 the solver failed. Never a Python traceback for bad input.
This module must not import Qt, VTK or anything from ``app``.
"""

from __future__ import annotations

import argparse
import os
import sys

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
    return parser


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


COMMANDS = {"check": _check, "run": _run, "import": _import}


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
