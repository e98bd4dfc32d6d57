"""The workbench uses the solver's public API only: ``solver`` (its exports), the model
description modules, ``solver.generators``, ``solver.studies``, and the command line for ``biela check/run``."""

from __future__ import annotations

import ast
from pathlib import Path

import solver

APP = Path(__file__).resolve().parents[2] / "app"

PUBLIC_MODULES = {
    "solver",
    "solver.model",
    "solver.model.description",
    "solver.model.functions",
    "solver.model.io",
    "solver.model.errors",
    "solver.model.mass_properties",
    "solver.studies",
}
#: The ``biela`` command hands ``check`` and ``run`` to the headless command line.
COMMAND_LINE = {"launcher.py": {"solver.cli"}}


def solver_imports(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every ``import solver…`` / ``from solver… import`` in a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "solver" or node.module.startswith("solver."):
                out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "solver" or alias.name.startswith("solver."):
                    out.append((alias.name, []))
    return out


def test_the_app_imports_only_the_solver_s_public_api():
    offending = []
    for path in sorted(APP.rglob("*.py")):
        allowed = PUBLIC_MODULES | COMMAND_LINE.get(path.name, set())
        for module, names in solver_imports(path):
            if module == "solver.generators" or module.startswith("solver.generators."):
                continue
            if module == "solver":
                hidden = [
                    n for n in names if n not in solver.__all__ and f"solver.{n}" not in allowed
                ]
                if hidden:
                    offending.append(f"{path.relative_to(APP)}: solver.{hidden}")
            elif module not in allowed:
                offending.append(f"{path.relative_to(APP)}: {module}")
    assert not offending, offending


def test_the_scan_sees_internal_imports(tmp_path):
    """The check above would catch the internals the builder once used."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from solver.analysis.check import check\n"
        "def f():\n    from solver.mechanics.system import MultibodySystem\n"
    )
    assert [m for m, _ in solver_imports(probe)] == [
        "solver.analysis.check",
        "solver.mechanics.system",
    ]
