"""The numerics and the headless command line never import Qt, VTK or the GUI (docs/architecture.md,
"Layers").

Each check runs in a fresh interpreter, so modules imported by other tests cannot hide or fake
an import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

QT_AND_GRAPHICS = ("PySide6", "shiboken6", "pyvista", "pyvistaqt", "vtk", "vtkmodules", "pyqtgraph")

MODEL = {
    "biela": 1,
    "name": "Pendulum",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "type": "point_mass", "mass": 1.0, "position": [1, 0, 0]}],
    "joints": [
        {
            "name": "bar",
            "type": "distance",
            "body1": "ground",
            "body2": "bob",
            "point1": [0, 0, 0],
            "point2": [1, 0, 0],
        }
    ],
}


def imported_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; return the JSON it prints on its last line."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.pop("QT_API", None)
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


def forbidden(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in names)


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "pendulum.json"
    path.write_text(json.dumps(MODEL), encoding="utf-8")
    return path


def test_solver_and_cli_check_import_no_qt_vtk_or_app(model_file):
    result = imported_after(
        f"""
        import contextlib, io, json, sys
        import solver
        import solver.cli
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                code = solver.cli.main(["check", {str(model_file)!r}])
            except SystemExit as exit:
                code = exit.code
        print(json.dumps({{"code": code, "output": out.getvalue(), "modules": list(sys.modules)}}))
        """
    )
    assert result["code"] == 0, result["output"]
    assert forbidden(result["modules"], (*QT_AND_GRAPHICS, "app")) == []


def test_launcher_imports_no_qt_at_import_time():
    result = imported_after(
        """
        import json, sys
        import app.launcher
        print(json.dumps({"modules": list(sys.modules)}))
        """
    )
    assert forbidden(result["modules"], QT_AND_GRAPHICS) == []


def test_biela_check_through_the_launcher_imports_no_qt(model_file):
    result = imported_after(
        f"""
        import contextlib, io, json, sys
        from app.launcher import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["check", {str(model_file)!r}])
        print(json.dumps({{"code": code, "output": out.getvalue(), "modules": list(sys.modules)}}))
        """
    )
    assert result["code"] == 0, result["output"]
    assert forbidden(result["modules"], QT_AND_GRAPHICS) == []


def test_studies_and_their_plots_import_no_qt(tmp_path):
    """``biela compare`` draws with matplotlib's Agg canvas: no Qt binding is loaded."""
    result = imported_after(
        f"""
        import json, sys
        import solver.studies, solver.studies.engine
        from solver.studies import plots
        row = {{"status": "ok", "solver.dt": 1e-3, "solver.formulation": "penalty",
               "cpu_time_s": 0.5, "reference_distance": 1e-4, "max_energy_drift": 1e-6}}
        plots.work_precision([row], {str(tmp_path)!r})
        plots.drift([row], {str(tmp_path)!r})
        print(json.dumps({{"modules": list(sys.modules)}}))
        """
    )
    assert (
        forbidden(result["modules"], (*QT_AND_GRAPHICS, "app", "PyQt5", "PyQt6", "tkinter")) == []
    )
    assert (tmp_path / "work_precision.svg").exists() and (tmp_path / "drift.png").exists()
