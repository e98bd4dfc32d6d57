"""Fixtures for the GUI tests: a real X display (from pytest-xvfb), the QApplication, models.

The 3D viewport needs an OpenGL context, so these tests run under a real X server (Xvfb with
Mesa's llvmpipe), never with QT_QPA_PLATFORM=offscreen. pytest-xvfb starts Xvfb for the whole
session when ``Xvfb`` is on PATH (Debian package ``xvfb``) and sets DISPLAY.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_API", "pyside6")

SCREENSHOT_DIR = Path(__file__).parent / "screenshots"

#: A small valid model (docs/model_format.md): a point mass on a 1 m distance joint to ground.
PENDULUM = {
    "biela": 1,
    "name": "Pendulum",
    "gravity": [0, 0, -9.81],
    "bodies": [
        {
            "name": "bob",
            "type": "point_mass",
            "mass": 1.0,
            "position": [1, 0, 0],
            "velocity": [0, 0, 0],
            "shapes": [{"type": "sphere", "center": [1, 0, 0], "radius": 0.05}],
        }
    ],
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


def _display_problem() -> str | None:
    if not sys.platform.startswith("linux"):
        return None
    if os.environ.get("QT_QPA_PLATFORM", "").startswith("offscreen"):
        return (
            "QT_QPA_PLATFORM=offscreen gives the 3D viewport no OpenGL context; "
            "unset it (pytest-xvfb provides an X display)"
        )
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no X display: install Xvfb (Debian: apt-get install xvfb) so that pytest-xvfb "
        "can start one, or run under xvfb-run"
    )


@pytest.fixture(scope="session")
def qapp():
    """The application's own QApplication (OpenGL format set before it exists).

    Overrides pytest-qt's fixture. Without a display Qt would abort the whole test process,
    so check first: skip on a developer machine, fail in CI (CI must run the GUI tests).
    """
    problem = _display_problem()
    if problem is not None:
        if os.environ.get("CI"):
            pytest.fail(f"GUI tests cannot run: {problem}", pytrace=False)
        pytest.skip(f"GUI tests skipped: {problem}")
    from app.application import get_application
    from app.theme import apply_style

    app = get_application()
    _isolate_settings(app)
    apply_style(app)
    _check_binding_keeps_none_alive(app)
    return app


def _isolate_settings(app) -> None:
    """Keep the tests' recent files and window layout out of the user's own settings."""
    import tempfile

    from PySide6.QtCore import QSettings

    folder = tempfile.mkdtemp(prefix="biela-test-settings-")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
    app.setOrganizationName("BielaTests")


def _check_binding_keeps_none_alive(app) -> None:
    """Fail fast on a Qt binding that drops references to None on void calls (PySide6 6.12.0
    on Python 3.11): it would abort the whole test process a few thousand calls later with
    "Fatal Python error: none_dealloc", taking every other result with it."""
    if sys.version_info >= (3, 12):
        return  # None is immortal
    before = sys.getrefcount(None)
    for _ in range(200):
        app.processEvents()
    if sys.getrefcount(None) - before < -100:
        import PySide6

        pytest.fail(
            f"PySide6 {PySide6.__version__} drops a reference to None on every call of a void "
            f"method under Python {sys.version.split()[0]}; the GUI would crash with "
            '"none_dealloc". Install another PySide6 version (6.12.0 is known bad).',
            pytrace=False,
        )


def _write_model(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def pendulum_data() -> dict:
    """A fresh copy of a small valid model description (free to modify)."""
    return json.loads(json.dumps(PENDULUM))


@pytest.fixture
def write_model():
    """``write_model(path, data) -> path``: write a model description as JSON."""
    return _write_model


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SCREENSHOT_DIR


@pytest.fixture
def pendulum_file(tmp_path: Path) -> Path:
    return _write_model(tmp_path / "pendulum.json", PENDULUM)


@pytest.fixture
def invalid_model_file(tmp_path: Path, pendulum_data: dict) -> Path:
    """Valid JSON, invalid model: joint "bar" names a body that does not exist."""
    pendulum_data["name"] = "Broken"
    pendulum_data["joints"][0]["body2"] = "crank2"
    return _write_model(tmp_path / "broken.json", pendulum_data)


@pytest.fixture
def message_boxes(monkeypatch):
    """Record QMessageBox.critical/warning/information/about calls instead of blocking."""
    from PySide6.QtWidgets import QMessageBox

    calls: list[tuple[str, str, str]] = []

    def recorder(kind):
        def record(parent, title, text, *args, **kwargs):
            calls.append((kind, title, text))
            return QMessageBox.StandardButton.Ok

        return staticmethod(record)

    for kind in ("critical", "warning", "information", "about"):
        monkeypatch.setattr(QMessageBox, kind, recorder(kind))

    def question(parent, title, text, *args, **kwargs):
        calls.append(("question", title, text))
        return QMessageBox.StandardButton.Discard

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    return calls


@pytest.fixture
def main_window(qtbot):
    """A shown MainWindow without a model, closed (and VTK released) after the test."""
    from app.main_window import MainWindow

    window = MainWindow(model_path=None)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()
