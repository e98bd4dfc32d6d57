"""The solver's packages import only downward (docs/architecture.md): every ``import`` of
``solver`` code, at the top of a module or inside a function, goes to a lower layer or to
the module's own layer. The kernels import nothing of the solver but kernels; nothing in
``solver`` imports Qt, VTK, pyvista or the workbench."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOLVER = Path(__file__).resolve().parents[1] / "solver"

#: lowest first; a module may import from its own layer and from lower layers
LAYERS = [
    ("solver.kernels",),
    ("solver.model",),
    (
        "solver.errors",
        "solver.lazy_scipy",
        "solver.results",
        "solver.csv_stream",
        "solver.run_progress",
        "solver.version",
    ),
    ("solver.mechanics",),
    ("solver.compiled",),  # compiled steppers: kernels only
    ("solver.generators",),
    ("solver.analysis",),
    ("solver.importers",),
    ("solver.studies",),
    ("solver.cli",),
    # the package itself (the public API and ``python -m solver``) and the entry point
    # ``python -m solver.compiled``
    ("solver", "solver.compiled.__main__"),
]
FORBIDDEN = ("PySide6", "vtk", "pyvista", "pyvistaqt", "pyqtgraph", "app")


def package_of(module: str) -> str:
    """The entry of ``LAYERS`` that holds ``module`` (the longest matching prefix)."""
    best = ""
    for layer in LAYERS:
        for name in layer:
            if (module == name or module.startswith(name + ".")) and len(name) > len(best):
                best = name
    return best


def level(module: str) -> int:
    pkg = package_of(module)
    return next(i for i, layer in enumerate(LAYERS) if pkg in layer)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOLVER.parent).with_suffix("").parts)
    if parts[-1] in ("__init__", "__main__") and len(parts) > 1:
        parts = parts[:-1] if parts[-1] == "__init__" else parts
    return ".".join(parts)


def imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
    return out


def violations(path: Path) -> list[str]:
    me = module_name(path)
    mine, mine_level = package_of(me), level(me)
    found = []
    for target in imports(path):
        root = target.split(".")[0]
        if root in FORBIDDEN:
            found.append(f"{me} imports {target}")
        if root != "solver":
            continue
        other = package_of(target)
        if other == mine:
            continue
        if level(target) > mine_level:
            found.append(f"{me} imports {target} (layer {level(target)} > {mine_level})")
    return found


def test_every_solver_module_imports_only_downward():
    bad = [v for path in sorted(SOLVER.rglob("*.py")) for v in violations(path)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("module", "target", "allowed"),
    [
        ("solver.kernels.system", "solver.mechanics.system", False),
        ("solver.mechanics.system", "solver.analysis.errors", False),
        ("solver.model.reader", "solver.results", False),
        ("solver.analysis.simulate", "solver.mechanics.system", True),
        ("solver.mechanics.system", "solver.mechanics.markers", True),
        ("solver.cli", "solver.studies", True),
    ],
)
def test_the_check_sees_upward_imports(tmp_path, monkeypatch, module, target, allowed):
    """The scan flags a probe module that imports upward, and lets downward imports pass."""
    parts = module.split(".")
    probe = SOLVER.parent.joinpath(*parts).with_suffix(".py")
    text = f"from {target} import something\n"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: text)
    assert (violations(probe) == []) is allowed
