"""The ``biela`` command: headless sub-commands go to ``solver.cli``, anything else opens the GUI.

This module imports no Qt (nor VTK) at import time, so ``biela check`` and ``biela run`` start
fast and work on machines without a display. Qt is imported only when the GUI is started.
"""

from __future__ import annotations

import argparse
import os
import sys

#: First arguments handled by the headless command line (``solver.cli``).
HEADLESS_COMMANDS = frozenset({"check", "run", "import", "study", "compare"})
#: Options answered by ``solver.cli`` as well (its help lists every command, GUI included).
CLI_OPTIONS = frozenset({"-h", "--help", "--version"})


def _gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="biela",
        description="Open the Biela multibody dynamics workbench.",
        epilog="Headless: 'biela check MODEL', 'biela run MODEL ...', 'biela import SOURCE -o "
        "MODEL.json' (see 'biela --help').",
    )
    parser.add_argument("model", nargs="?", metavar="MODEL", help="model file (*.json) to open")
    return parser


def _no_display_reason() -> str | None:
    """Why the GUI cannot start here, checked before Qt (which would abort the process)."""
    if not sys.platform.startswith("linux"):
        return None
    if os.environ.get("QT_QPA_PLATFORM"):
        return None  # the user chose a platform plugin; let Qt handle it
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "biela: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the workbench "
        "cannot open.\n"
        "  For headless use: 'biela check MODEL' or 'biela run MODEL' (see 'biela --help').\n"
        "  To run the GUI on a virtual screen: xvfb-run -a biela [MODEL]"
    )


def _exit_code(error: SystemExit) -> int:
    code = error.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``biela`` console script; returns the process exit code."""
    args = list(sys.argv[1:] if argv is None else argv)

    if args and (args[0] in HEADLESS_COMMANDS or args[0] in CLI_OPTIONS):
        try:
            from solver import cli

            return int(cli.main(args) or 0)
        except SystemExit as error:  # argparse's --help, --version and usage errors
            return _exit_code(error)
        except KeyboardInterrupt:  # Ctrl-C while the solver was still being imported
            print("biela: interrupted", file=sys.stderr)
            # half-imported modules (NumPy, SciPy) can turn the interpreter's shutdown into a
            # death by SIGINT; nothing is open yet, so leave without it
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(130)

    try:
        options = _gui_parser().parse_args(args)
    except SystemExit as error:  # usage errors: argparse printed the usage and the reason
        return _exit_code(error)

    reason = _no_display_reason()
    if reason is not None:
        print(reason, file=sys.stderr)
        return 1

    from app.main_window import run_gui

    return run_gui(options.model)


def console() -> None:
    """The ``biela`` console script: :func:`main`'s exit code; after a headless ``check`` or
    ``run`` without the interpreter's shutdown (``solver.cli.leave``)."""
    code = main()
    command = sys.argv[1] if len(sys.argv) > 1 else None
    if command in HEADLESS_COMMANDS:
        from solver import cli

        cli.leave(code, command)
    raise SystemExit(code)


if __name__ == "__main__":
    console()
