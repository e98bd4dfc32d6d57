"""Headless command line: ``biela check MODEL``, ``biela run MODEL``, ``biela import SOURCE -o
MODEL.json`` (MUBODYNA folders, MJCF, URDF), ``biela study MODEL`` and ``biela compare MODEL``.

Exit codes (README, "Command line"): 0 success; 1 invalid model or option value (one line naming the
item and the field); 2 usage (and results that cannot be written); 3 the solver failed;
130 interrupted (Ctrl-C). Never a Python traceback for bad input. ``biela run`` writes the
CSV rows as they are computed (bounded memory for any run length), shows its progress on
stderr when it takes more than a few seconds, and writes the results computed so far
whatever ends it (the end time, a solver failure, Ctrl-C).
This module must not import Qt, VTK or anything from ``app``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import re
import signal
import sys
import threading
import time
import warnings

from solver.model.errors import printable
from solver.version import __version__

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_SOLVER = 0, 1, 2, 3
#: Ctrl-C (128 + SIGINT, as shells report it); the results up to then are written.
EXIT_INTERRUPTED = 130


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
    r.add_argument("--formulation", choices=FORMULATIONS, help="dynamic formulation")
    r.add_argument("--coordinates", choices=COORDINATES)
    r.add_argument(
        "--orientation",
        choices=ORIENTATIONS,
        help="rotation parameters of rigid bodies (central_differences; default: the model's)",
    )
    r.add_argument("--dt", type=_number, metavar="H", help="time step (s)")
    r.add_argument("--t-end", type=_number, metavar="T", help="end time (s)")
    r.add_argument("--output-dt", type=_number, metavar="H", help="output interval (s)")
    r.add_argument("--tolerance", type=_number, metavar="TOL", help="Newton tolerance")
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


#: How ``biela run``'s options are named in messages (``command line: --dt ...``).
OPTION_NAMES = {
    "analysis": "--analysis",
    "formulation": "--formulation",
    "coordinates": "--coordinates",
    "orientation": "--orientation",
    "dt": "--dt",
    "t_end": "--t-end",
    "output_dt": "--output-dt",
    "tolerance": "--tolerance",
}

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _number(text: str) -> float:
    """A decimal number as a model file writes it (ASCII digits; no ``inf``, ``nan``,
    underscores or spaces, which ``float`` would take); its range is checked by the
    model's rules (``check_settings``), so ``--dt -1`` is refused as ``dt`` is in a file."""
    if not _DECIMAL.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{printable(repr(text))} is not a decimal number")
    return float(text)


def _say(text: str, stream=None) -> None:
    """One message line, with control characters escaped (names come from files)."""
    print(printable(str(text)), file=stream or sys.stderr)


def _located(exc, name: str) -> str:
    """A ``ModelError`` found after reading the file, prefixed with the file's name."""
    return str(exc if str(exc).startswith(name) else exc.with_file(name))


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _output_clash(args) -> str | None:
    """Why the output paths cannot be used (one would overwrite the model or the other)."""
    outputs = [(opt, path) for opt, path in (("--csv", args.csv), ("--summary", args.summary))]
    outputs = [(opt, path) for opt, path in outputs if path]
    for opt, path in outputs:
        if _same_file(path, args.model):
            return f"{opt} {path} is the model file; the results would overwrite the model"
    if len(outputs) == 2 and _same_file(args.csv, args.summary):
        return f"--csv and --summary name the same file ({args.csv})"
    return None


class _Interrupt:
    """Ctrl-C during ``biela run``: the first asks the run to stop after the step it is
    computing (its results are then written as for any end), a second stops at once."""

    def __init__(self) -> None:
        self.requested = False
        self.stopping = False  # the second Ctrl-C was raised; later ones are ignored
        self.simulation = None
        self._previous = None

    def __enter__(self) -> _Interrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is None:
            return
        # interrupted: the process is on its way out with exit 130; a further Ctrl-C must
        # not turn that into a traceback or a death by signal
        signal.signal(signal.SIGINT, signal.SIG_IGN if self.requested else self._previous)

    def _handle(self, signum, frame) -> None:
        if self.requested and not self.stopping:
            self.stopping = True
            raise KeyboardInterrupt
        self.requested = True
        if self.simulation is not None:
            self.simulation.cancel()


def _open_outputs(args, columns: list[str], modes: bool):
    """``(csv stream or None, summary file or None)``, opened before the run so that a path
    that cannot be written stops it at once. A modes analysis writes its own CSV (the
    modes table) at the end: its path is only created here."""
    from solver.csv_stream import CsvStream

    stream = summary = None
    try:
        if args.csv and modes:
            open(args.csv, "w").close()
        elif args.csv:
            stream = CsvStream(args.csv, columns)
        if args.summary:
            summary = open(args.summary, "w", encoding="utf-8")  # noqa: SIM115
    except BaseException:
        if stream is not None:
            stream.close()
        raise
    return stream, summary


class _StartUp:
    """Python's cyclic garbage collector paused while a run starts: importing NumPy, SciPy
    and Numba and loading the compiled code make hundreds of thousands of long-lived
    objects that its collections would scan again and again (about a tenth of a second of
    a short run). :meth:`resume` (the first frame is out, or the kernels are to be
    compiled) freezes what the start-up made, so that later collections skip it, and turns
    the collector back on; leaving the block undoes both."""

    def __enter__(self) -> _StartUp:
        self.paused = gc.isenabled()
        self.frozen = False
        gc.disable()
        return self

    def resume(self) -> None:
        if self.paused:
            gc.freeze()
            self.frozen = True
            gc.enable()
            self.paused = False

    def __exit__(self, *exc) -> None:
        if self.paused:
            gc.enable()
            self.paused = False
        if self.frozen:
            gc.unfreeze()


def _compiled_ready(quiet: bool, model=None, on_compile=None, **overrides) -> None:
    """On a cold cache (the first run after an install or an update) compile the kernels
    that a run of ``model`` with ``overrides`` needs (``warmup.compiled_parts``; no model: the
    system's kernels) before the run, saying so on stderr: a minute or more once, then
    loaded in a second. ``on_compile`` (if given) is called before compiling."""
    from solver.analysis.warmup import compile_solver, compiled_parts, is_compiled

    parts = ("augmented_lagrangian",) if model is None else compiled_parts(model, **overrides)
    if is_compiled(parts):
        return
    if on_compile is not None:
        on_compile()
    _say("biela: compiling the solver's code once (first run after an install or an update)")
    seconds = compile_solver(None if quiet else lambda line: _say(f"biela: {line}"), parts)
    _say(f"biela: compiled in {seconds:.0f} s; later runs load it from the cache")


def _run(args) -> int:
    with _StartUp() as start_up:
        from solver.model import ModelError, load_model

        try:  # which compiled parts the run needs (a bad file is reported by the run itself)
            model = load_model(args.model)
        except ModelError:
            model = None
        overrides = {k: getattr(args, k) for k in ("analysis", "formulation", "coordinates")}
        _compiled_ready(args.quiet, model, on_compile=start_up.resume, **overrides)
        with _Interrupt() as interrupt:
            return _run_interruptible(args, interrupt, start_up)


def _run_interruptible(args, interrupt: _Interrupt, start_up: _StartUp) -> int:
    from solver.analysis.simulate import Simulation, settings_with
    from solver.model import ModelError, load_model
    from solver.run_progress import Progress

    name = os.path.basename(args.model)
    try:
        model = load_model(args.model)
    except ModelError as exc:
        _say(exc)
        return EXIT_INVALID
    try:
        settings = settings_with(
            model,
            source="command line",
            names=OPTION_NAMES,
            analysis=args.analysis,
            formulation=args.formulation,
            coordinates=args.coordinates,
            dt=args.dt,
            t_end=args.t_end,
            output_dt=args.output_dt,
            tolerance=args.tolerance,
            orientation=args.orientation,
        )
        simulation = Simulation(model, settings)
    except ModelError as exc:
        _say(_located(exc, name))
        return EXIT_INVALID
    clash = _output_clash(args)
    if clash:
        _say(f"biela: {clash}")
        return EXIT_USAGE
    result = simulation.result
    result.keep = False  # rows go to the CSV as they come: memory stays bounded
    modes = settings.analysis == "modes"
    try:
        stream, summary_file = _open_outputs(args, result.columns, modes)
    except OSError as exc:
        _say(f"biela: cannot write results: {exc.strerror or exc}: {exc.filename}")
        return EXIT_USAGE
    if stream is not None:
        result.sinks.append(stream)
    for warning in model.warnings:
        _say(f"warning: {warning}")
    progress = None if args.quiet else Progress(sys.stderr, settings.t_end, settings.dt)
    if progress is not None:
        simulation.on_step = lambda frame: progress.update(frame.t)
    interrupt.simulation = simulation
    if interrupt.requested:  # Ctrl-C while the model was read: stop at the first step
        simulation.cancel()
    write_error = None
    frames = iter(simulation)
    try:
        for frame in frames:
            start_up.resume()  # the first frame is out: the start-up is over
            if progress is not None:
                progress.update(frame.t)
    except ModelError as exc:  # refused when the steps start (e.g. a joint a formulation lacks)
        frames.close()
        for opened, path in ((stream, args.csv), (summary_file, args.summary)):
            if opened is not None:
                with contextlib.suppress(OSError):
                    opened.close()
                    os.unlink(path)  # nothing was computed: no results files
        _say(_located(exc, name))
        return EXIT_INVALID
    except OSError as exc:  # the CSV could not be written (disk full, ...)
        frames.close()
        write_error = exc
        result.status = "failed"
        result.message = f"cannot write results: {exc.strerror or exc}"
        result.summary.update(status=result.status, message=result.message)
    except BaseException as exc:  # a second Ctrl-C: stop at once, keep what is written
        if not _interrupted(exc):
            raise
        frames.close()  # the summary of what was computed
        result.status, result.message = "cancelled", "interrupted"
        result.summary.update(status=result.status, message=result.message)
    finally:
        if progress is not None:
            progress.close()
        try:
            if stream is not None:
                stream.close()
        except OSError as exc:
            write_error = write_error or exc
    try:
        if args.csv and modes and getattr(result, "modes", None) is not None:
            result.modes.to_csv(args.csv, simulation.system)
        if summary_file is not None:
            with summary_file:
                json.dump(result.summary, summary_file, indent=2)
                summary_file.write("\n")
    except OSError as exc:
        write_error = write_error or exc
    if write_error is not None:
        filename = write_error.filename or args.csv or args.summary
        _say(f"biela: cannot write results: {write_error.strerror or write_error}: {filename}")
        return EXIT_USAGE
    return _report(args, name, simulation)


def _report(args, name: str, simulation) -> int:
    """The run's outcome on the terminal, and the exit code."""
    result = simulation.result
    s = result.summary
    for warning in s.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    stability = getattr(result, "stability", None)
    if stability and stability.get("warning"):
        _say(f"warning: {stability['warning']}")
    kept = f"{len(result)} frames up to it were written" if args.csv else f"{len(result)} frames"
    if result.status == "cancelled":
        last = result.statistics.last
        at = "" if last is None else f" at t = {float(last[0]):.6g} s"
        _say(f"{name}: interrupted{at}; {kept}")
        return EXIT_INTERRUPTED
    if result.status != "ok":
        _say(f"{name}: {result.message}")
        _say(f"{name}: {len(result)} frames up to the failure were kept")
        return EXIT_SOLVER
    modes = getattr(result, "modes", None)
    if modes is not None and not args.quiet and hasattr(modes, "stable"):
        state = "stable" if modes.stable else "unstable"
        print(f"{name}: {len(modes)} modes about the steady motion ({state})")
        print(f"  {'mode':>4} {'Re s (1/s)':>14} {'Im s (rad/s)':>14} {'f (Hz)':>12} {'ζ':>10}")
        for row in s.get("modes", []):
            flag = "" if row["stable"] else "  (unstable: Re s > 0)"
            print(
                f"  {row['mode']:>4} {row['real']:>14.6g} {row['imag']:>14.6g} "
                f"{row['frequency_hz']:>12.6g} {row['damping_ratio']:>10.4g}{flag}"
            )
        return EXIT_OK
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
    if modes is None and not args.quiet:
        drift = s["max_energy_drift"]
        _say(
            f"{name}: {s['analysis']} analysis done: {s['steps']} steps, {s['frames']} frames in "
            f"{s['wall_time_s']:.3g} s{_loading(s)}; max |Φ| {s['max_constraint_position']:.3g}; "
            f"max energy drift {drift:.3g} J",
            sys.stdout,
        )
    return EXIT_OK


def _loading(summary: dict) -> str:
    """`` (+ … s loading the compiled code)`` when the run loaded kernels from the cache for
    a hundredth of a second or more (its ``load_time_s``, not in its ``wall_time_s``)."""
    load = summary.get("load_time_s") or 0.0
    return f" (+{load:.2g} s loading the compiled code)" if load >= 0.01 else ""


def _check(args) -> int:
    from solver.analysis.check import check
    from solver.analysis.errors import NonFiniteFunction
    from solver.analysis.kinematics import AssemblyError
    from solver.model import ModelError, load_model

    name = os.path.basename(args.model)
    try:
        model = load_model(args.model)
    except ModelError as exc:
        _say(exc)
        return EXIT_INVALID
    _compiled_ready(args.quiet, model)
    try:
        report = check(model)
    except ModelError as exc:  # errors found after reading (check()) get the file name too
        _say(_located(exc, name))
        return EXIT_INVALID
    except (AssemblyError, NonFiniteFunction) as exc:
        _say(f"{name}: {exc}")
        return EXIT_INVALID
    if not args.quiet:
        _say(f"{args.model}: valid", sys.stdout)
        for line in report.lines():
            _say(f"  {line}", sys.stdout)
        sys.stdout.flush()
    for warning in report.warnings:
        _say(f"warning: {warning}")
    return EXIT_OK


def _import(args) -> int:
    from solver.importers import import_model, write_imported
    from solver.model import ModelError

    try:
        imported = import_model(args.source)
    except ModelError as exc:
        _say(exc)
        return EXIT_INVALID
    for warning in imported.warnings:  # names from the imported files: shown escaped
        _say(f"warning: {warning}")
    try:
        written = write_imported(imported, args.output)
    except OSError as exc:
        _say(f"biela: cannot write the model: {exc.strerror}: {exc.filename}")
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


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was caused while handling, a Ctrl-C (compiled code that a
    ``KeyboardInterrupt`` reaches may turn it into a ``SystemError``)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a file name with undecodable bytes, ...
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        return EXIT_USAGE
    debug = bool(os.environ.get("BIELA_DEBUG"))
    try:
        with warnings.catch_warnings():
            if not debug:  # NumPy's and SciPy's warnings are not messages for the user:
                warnings.simplefilter("ignore")  # the solver reports what goes wrong
            return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        _say("biela: interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug, not bad input: still one clear line
        if _interrupted(exc):
            _say("biela: interrupted")
            return EXIT_INTERRUPTED
        if debug:
            raise
        _say(
            f"biela: internal error ({type(exc).__name__}: {exc}); please report it; "
            "BIELA_DEBUG=1 shows where"
        )
        return EXIT_SOLVER


#: commands after which the process leaves without the interpreter's shutdown (:func:`leave`)
QUICK_EXIT_COMMANDS = frozenset({"check", "run"})


def leave(code: int, command: str | None) -> None:
    """End the process with ``code``: after a ``check`` or ``run`` (their files closed) the
    output streams are flushed and the interpreter's shutdown is skipped (tearing down the
    loaded compiled code and modules takes about a third of a second, as long as a short
    run's own work); otherwise an ordinary exit."""
    if command in QUICK_EXIT_COMMANDS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: the code still tells
            pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    leave(main(), sys.argv[1] if len(sys.argv) > 1 else None)
