"""Headless command line: ``biela check MODEL`` (and, as analyses land, ``biela run``).

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
    return parser


def _check(args) -> int:
    from solver.analysis.check import check
    from solver.model import ModelError, load_model

    try:
        model = load_model(args.model)
        report = check(model)
    except ModelError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INVALID
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not args.quiet:
        print(f"{args.model}: valid")
        for line in report.lines():
            print(f"  {line}")
    return EXIT_OK


COMMANDS = {"check": _check}


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
