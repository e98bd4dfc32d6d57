"""The Biela main window: menus, status bar and the 3D viewport.

Importing this module imports Qt (VTK when a window is built); ``app.launcher`` imports it
only when the GUI starts.
"""

from __future__ import annotations

import logging
import signal
import traceback
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from app.application import get_application, opengl_problem

log = logging.getLogger(__name__)

APP_TITLE = "Biela"
MODEL_FILE_FILTER = "Biela models (*.json);;All files (*)"

# Viewport look: z is up (gravity along -z), the floor is the z = 0 plane around the origin.
BACKGROUND_BOTTOM = "#2b2f36"
BACKGROUND_TOP = "#5b6370"
FLOOR_SIZE = 10.0  # m, side of the floor grid
FLOOR_DIVISIONS = 20
FLOOR_COLOR = "#9aa3ad"
ORIGIN_AXIS_LENGTH = 1.0  # m


def window_title(model_name: str | None) -> str:
    """``"Biela"`` without a model, ``"<model name> — Biela"`` with one."""
    return f"{model_name} — {APP_TITLE}" if model_name else APP_TITLE


def _create_viewport(parent: QWidget) -> tuple[QWidget, Any | None]:
    """The central widget: a pyvistaqt QtInteractor, or a QLabel saying why there is none.

    Returns ``(widget, plotter)``; ``plotter`` is None when the 3D view is unavailable.
    """
    problem = opengl_problem()
    if problem is None:
        try:
            import pyvista
            from pyvistaqt import QtInteractor

            plotter = QtInteractor(parent, auto_update=False)
            _populate_scene(plotter, pyvista)
            return plotter, plotter
        except Exception as error:  # any VTK/GL failure: explain, don't crash
            log.warning("3D viewport unavailable:\n%s", traceback.format_exc())
            problem = f"The 3D viewport could not be created: {type(error).__name__}: {error}"
    label = QLabel(f"3D view unavailable.\n\n{problem}", parent)
    label.setObjectName("viewportUnavailable")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setMargin(24)
    return label, None


def _populate_scene(plotter: Any, pyvista: Any) -> None:
    """Floor grid in the z = 0 plane, a small x/y/z triad at the origin, orientation axes."""
    plotter.set_background(BACKGROUND_BOTTOM, top=BACKGROUND_TOP)
    floor = pyvista.Plane(
        center=(0.0, 0.0, 0.0),
        direction=(0.0, 0.0, 1.0),
        i_size=FLOOR_SIZE,
        j_size=FLOOR_SIZE,
        i_resolution=FLOOR_DIVISIONS,
        j_resolution=FLOOR_DIVISIONS,
    )
    plotter.add_mesh(
        floor,
        name="floor_grid",
        style="wireframe",
        color=FLOOR_COLOR,
        opacity=0.6,
        line_width=1,
        pickable=False,
        lighting=False,
    )
    for name, direction, color in (
        ("origin_x", (1.0, 0.0, 0.0), "#e41a1c"),
        ("origin_y", (0.0, 1.0, 0.0), "#4daf4a"),
        ("origin_z", (0.0, 0.0, 1.0), "#377eb8"),
    ):
        end = tuple(ORIGIN_AXIS_LENGTH * c for c in direction)
        plotter.add_mesh(
            pyvista.Line((0.0, 0.0, 0.0), end),
            name=name,
            color=color,
            line_width=3,
            pickable=False,
            lighting=False,
        )
    plotter.add_axes(interactive=False)
    plotter.view_isometric()
    plotter.reset_camera()


class MainWindow(QMainWindow):
    """Menus (File, Help), a status bar and the 3D viewport; holds the current model.

    Constructible without an event loop (tests): ``MainWindow(model_path=None)``.
    """

    def __init__(self, model_path: str | Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.model: Any | None = None  # solver.model Model of the current document
        self.model_path: Path | None = None
        self.model_name: str | None = None
        self.resize(1280, 800)
        self.setMinimumSize(640, 400)

        self._create_actions()
        self._create_menus()
        self.statusBar().showMessage("Ready")

        self.viewport, self.plotter = _create_viewport(self)
        self.setCentralWidget(self.viewport)
        if self.plotter is None:
            self.statusBar().showMessage("3D view unavailable (no OpenGL context)")

        self._update_title()
        if model_path is not None:
            self.open_model(model_path)

    # -- actions and menus -------------------------------------------------------------------

    def _create_actions(self) -> None:
        self.open_action = QAction("&Open…", self)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_action.setStatusTip("Open a model file (*.json)")
        self.open_action.triggered.connect(self.open_model_dialog)

        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.setStatusTip("Quit Biela")
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)

        self.about_action = QAction("&About Biela", self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)

    def _create_menus(self) -> None:
        menu_bar = self.menuBar()
        file_menu = menu_bar.addMenu("&File")
        file_menu.addAction(self.open_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        help_menu = menu_bar.addMenu("&Help")
        help_menu.addAction(self.about_action)

    # -- document ----------------------------------------------------------------------------

    def _update_title(self) -> None:
        self.setWindowTitle(window_title(self.model_name))

    def open_model(self, path: str | Path) -> bool:
        """Load the model at ``path`` and make it the current document.

        On failure, shows a message naming the problem and keeps the current document
        (title unchanged); returns False. Never raises for a bad file.
        """
        path = Path(path)
        try:
            from solver import load_model

            model = load_model(path)
        except Exception as error:  # never a traceback in front of the user
            self._report_open_error(path, error)
            return False
        self.model = model
        self.model_path = path
        name = getattr(model, "name", None)
        self.model_name = str(name) if name else path.stem
        self._update_title()
        self.statusBar().showMessage(f"Opened {path}", 10_000)
        return True

    def _report_open_error(self, path: Path, error: Exception) -> None:
        from solver.model.errors import ModelError

        if isinstance(error, ModelError):
            message = str(error)
            if path.name not in message:
                message = f"{path.name}: {message}"
        elif isinstance(error, FileNotFoundError):
            message = f"{path}: no such file"
        elif isinstance(error, IsADirectoryError):
            message = f"{path}: is a directory, not a model file"
        elif isinstance(error, OSError):
            message = f"{path}: {error.strerror or error}"
        else:
            # A bug rather than a bad file: keep the details on stderr for the report.
            log.error("unexpected error opening %s:\n%s", path, traceback.format_exc())
            message = f"{path.name}: unexpected error: {type(error).__name__}: {error}"
        self.statusBar().showMessage(f"Could not open {path.name}", 10_000)
        QMessageBox.critical(self, "Cannot open model", message)

    def open_model_dialog(self) -> bool:
        """File ▸ Open…: ask for a model file and open it."""
        start = str(self.model_path.parent) if self.model_path else str(Path.cwd())
        path, _ = QFileDialog.getOpenFileName(self, "Open model", start, MODEL_FILE_FILTER)
        if not path:
            return False
        return self.open_model(path)

    def show_about(self) -> None:
        try:
            from importlib.metadata import version

            biela_version = version("biela")
        except Exception:
            biela_version = "unknown"
        QMessageBox.about(
            self,
            "About Biela",
            f"<h3>Biela {biela_version}</h3>"
            "<p>A multibody dynamics workbench: rigid and flexible (ANCF) bodies, joints, "
            "contact and five dynamic formulations.</p>"
            "<p>Headless use: <code>biela check MODEL</code>, <code>biela run MODEL</code>.</p>",
        )

    # -- lifetime ----------------------------------------------------------------------------

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        if self.plotter is not None:
            # Release VTK's OpenGL resources while the context still exists.
            self.plotter.close()
        super().closeEvent(event)


def run_gui(model_path: str | None = None) -> int:
    """Create (or reuse) the QApplication, show the main window, run the event loop.

    A ``model_path`` is opened once the window is visible, so an error message appears over it.
    """
    app = get_application()
    # Let Ctrl+C in the terminal end the program (Python cannot run its handler inside exec).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    window = MainWindow(model_path=None)
    window.show()
    if model_path is not None:
        window.open_model(model_path)
    return int(app.exec())


__all__ = ["MainWindow", "run_gui", "window_title"]
