"""The Biela workbench window: menus, toolbar, docks, viewport, playback, status bar.

Importing this module imports Qt (VTK when a window is built); ``app.launcher`` imports it
only when the GUI starts. The window wires the parts together:

- ``Document`` (model, file, undo stack) ← panels edit it;
- ``SimulationRunner`` (solver in a QThread) → ``RunData`` → plots, playback, viewport;
- the viewport renders on this (GUI) thread at ≤ 60 fps, the live plots refresh at 2 Hz.
"""

from __future__ import annotations

import logging
import signal
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app import export, result_quantities
from app import viewport as viewport_module
from app.application import get_application
from app.builder.controller import install_build
from app.document import Document, DocumentError
from app.icons import icon
from app.panels import ModelTree, PropertyPanel, SolverPanel
from app.playback import PlaybackBar
from app.plots import AddPlotDialog, PlotsPanel
from app.progress import ProgressBar
from app.rundata import RunData
from app.settings import Settings
from app.study_dialog import install_study
from app.viewport import Viewport
from app.worker import FrameBatch, RunOutcome, SimulationRunner

log = logging.getLogger(__name__)

APP_TITLE = "Biela"
MODEL_FILE_FILTER = "Biela models (*.json);;All files (*)"
EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
# During a run the status labels refresh at 4 Hz and the live plots at 2 Hz: a refresh of
# the two default plots costs ≈ 35 ms CPU (pyqtgraph re-ranges and re-draws the axes), which
# at 4 Hz took a fifth of the GUI's CPU budget from the viewport (measured, software GL).
PLOT_REFRESH_MS = 250
LIVE_PLOT_INTERVAL = 0.5  # s
CURSOR_REFRESH_MS = 100  # plot cursors during playback
RUN_MAX_FPS = 40  # viewport during a run: smooth enough, and leaves the CPU to the solver

SHORTCUTS = (
    ("Ctrl+N", "New model"),
    ("Ctrl+O", "Open a model"),
    ("Ctrl+S / Ctrl+Shift+S", "Save / Save as"),
    ("F7", "Check the model (as biela check)"),
    ("F8", "Assemble the initial configuration"),
    ("F5", "Run the analysis"),
    ("F6", "Pause / resume the run"),
    ("Shift+F5", "Stop the run (results so far are kept)"),
    ("Ctrl+R", "Reset to t = 0"),
    ("Space", "Play / pause the results"),
    ("1 / 2 / 3 / 4", "Iso / front / top / side view"),
    ("F", "Fit the model in the view"),
    ("Ctrl+Z / Ctrl+Shift+Z", "Undo / redo an edit"),
    ("Mouse", "left: rotate, middle or Shift+left: pan, wheel: zoom, click: select"),
)


def window_title(model_name: str | None, modified: bool = False) -> str:
    """``"Biela"`` without a model, ``"<model name> — Biela"`` with one (``*`` if modified)."""
    if not model_name:
        return APP_TITLE
    return f"{model_name}{' *' if modified else ''} — {APP_TITLE}"


def stability_warning(result) -> str | None:
    """The stability monitor's warning of a finished run (the step exceeds its estimate of
    the largest stable step, ``Result.stability``), or ``None``."""
    stability = getattr(result, "stability", None) or {}
    return stability.get("warning")


class MainWindow(QMainWindow):
    """The workbench. Constructible without an event loop (tests): ``MainWindow()``."""

    run_finished = Signal(object)  # RunOutcome, after the GUI has taken the results

    def __init__(self, model_path: str | Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("bielaMainWindow")
        self.settings = Settings()
        self.document = Document(self)
        self.runner = SimulationRunner(self)
        self.solver_target = None  # the solver process's entry point (None: the real solver)
        self.run_data: RunData | None = None
        self.last_outcome: RunOutcome | None = None
        self._run_t_end = 0.0
        self._dirty_plots = False
        self._plots_refreshed = 0.0
        self._run_started = 0.0
        self.resize(1400, 880)
        self.setMinimumSize(800, 500)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
        )

        # central: viewport over the playback bar
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.viewport = Viewport(central)
        self.plotter = self.viewport.plotter
        self.playback = PlaybackBar(central)
        layout.addWidget(self.viewport, 1)
        layout.addWidget(self.playback)
        self.setCentralWidget(central)

        self._create_docks()
        self._create_actions()
        self._create_menus()
        self._create_toolbar()
        self._create_status_bar()
        self._connect()
        self.build = install_build(self)  # point-and-click building (app.builder)
        self.settings.restore_layout(self)
        self._update_actions()
        self._update_title()
        if self.plotter is None:
            self.statusBar().showMessage("3D view unavailable (no OpenGL context)")

        self._refresh_timer = QTimer(self)
        self._refresh_timer.setInterval(PLOT_REFRESH_MS)
        self._refresh_timer.timeout.connect(self._refresh_live)

        if model_path is not None:
            self.open_model(model_path)

    # -- compatibility accessors ---------------------------------------------------------------

    @property
    def model(self) -> Any | None:
        return self.document.model

    @property
    def model_path(self) -> Path | None:
        return self.document.path

    @property
    def model_name(self) -> str | None:
        return self.document.name

    # -- construction ------------------------------------------------------------------------

    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _create_docks(self) -> None:
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        right = Qt.DockWidgetArea.RightDockWidgetArea
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        self.tree = ModelTree(self)
        self.properties = PropertyPanel(self.document, self)
        self.solver_panel = SolverPanel(self.document, self)
        self.plots = PlotsPanel(self)
        self.messages = QPlainTextEdit(self)
        self.messages.setObjectName("messages")
        self.messages.setReadOnly(True)
        self.messages.setMaximumBlockCount(2000)
        self.tree_dock = self._dock("Model", "modelDock", self.tree, left)
        self.properties_dock = self._dock("Properties", "propertiesDock", self.properties, left)
        self.solver_dock = self._dock("Solver", "solverDock", self.solver_panel, right)
        self.messages_dock = self._dock("Messages", "messagesDock", self.messages, right)
        self.plots_dock = self._dock("Plots", "plotsDock", self.plots, bottom)
        self.splitDockWidget(self.tree_dock, self.properties_dock, Qt.Orientation.Vertical)
        self.splitDockWidget(self.solver_dock, self.messages_dock, Qt.Orientation.Vertical)
        self.resizeDocks([self.tree_dock, self.solver_dock], [270, 290], Qt.Orientation.Horizontal)
        self.resizeDocks([self.plots_dock], [300], Qt.Orientation.Vertical)
        self.resizeDocks(
            [self.tree_dock, self.properties_dock], [330, 260], Qt.Orientation.Vertical
        )
        self.resizeDocks(
            [self.solver_dock, self.messages_dock], [380, 200], Qt.Orientation.Vertical
        )

    def _action(
        self, text: str, slot, shortcut=None, tip: str = "", icon_name: str | None = None
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(f"{text.replace('&', '').rstrip('…')} — {tip}")
        if icon_name:
            action.setIcon(icon(icon_name, self))
        action.triggered.connect(slot)
        return action

    def _create_actions(self) -> None:
        std = QKeySequence.StandardKey
        a = self._action
        self.new_action = a("&New", self.new_model, std.New, "Start an empty model", "new")
        self.open_action = a(
            "&Open…", self.open_model_dialog, std.Open, "Open a model file (*.json)", "open"
        )
        self.import_action = a(
            "&Import…", self.import_model_dialog, None, "A MUBODYNA folder, an MJCF or URDF file"
        )
        self.save_action = a("&Save", self.save_model, std.Save, "Save the model", "save")
        self.save_as_action = a(
            "Save &As…", self.save_model_as, std.SaveAs, "Save the model under a new name"
        )
        self.quit_action = a("&Quit", self.close, std.Quit, "Quit Biela")
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)

        self.export_csv_action = a(
            "Results &CSV…", self.export_csv_dialog, None, "The run's results, as biela run --csv"
        )
        self.export_screenshot_action = a(
            "&Viewport screenshot (PNG)…",
            self.export_screenshot_dialog,
            QKeySequence("Ctrl+Shift+P"),
            "Save the 3D view as an image",
            "screenshot",
        )
        self.export_window_action = a(
            "&Window screenshot (PNG)…", self.export_window_dialog, None, "Save the whole window"
        )
        self.export_movie_action = a(
            "&Animation (GIF/MP4)…", self.export_movie_dialog, None, "Save the motion as a movie"
        )

        self.undo_action = self.document.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(std.Undo)
        self.redo_action = self.document.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcut(std.Redo)

        self.view_actions: dict[str, QAction] = {}
        for key, text, shortcut in (
            ("iso", "&Isometric", "1"),
            ("front", "&Front", "2"),
            ("top", "&Top", "3"),
            ("side", "&Side", "4"),
        ):
            self.view_actions[key] = a(
                text,
                lambda _=False, k=key: self.viewport.camera_preset(k),
                QKeySequence(shortcut),
                f"{text.replace('&', '')} view",
                key,
            )
        self.fit_action = a(
            "Fit &all", self.viewport.fit, QKeySequence("F"), "Fit the model in the view", "fit"
        )
        self.toggle_actions: dict[str, QAction] = {}
        for group, text in (
            ("joints", "&Joints"),
            ("frames", "Body &frames"),
            ("markers", "Output &markers"),
            ("traces", "&Traces"),
            ("floor", "Floor &grid"),
            ("forces", "F&orces and contacts"),
        ):
            action = QAction(text, self)
            action.setCheckable(True)
            visible = self.settings.view_flag(group, group != "frames")
            action.setChecked(visible)
            self.viewport.set_group_visible(group, visible)
            action.toggled.connect(lambda on, g=group: self._toggle_group(g, on))
            self.toggle_actions[group] = action

        self.check_action = a(
            "&Check", self.check_model, QKeySequence("F7"), "Validate and count DOF", "check"
        )
        self.assemble_action = a(
            "&Assemble",
            self.assemble_model,
            QKeySequence("F8"),
            "Solve the initial position problem",
            "assemble",
        )
        self.run_action = a(
            "&Run", self.run_simulation, QKeySequence("F5"), "Run the analysis", "run"
        )
        self.pause_action = a(
            "&Pause", self.toggle_pause, QKeySequence("F6"), "Pause or resume the run", "pause"
        )
        self.stop_action = a(
            "S&top", self.stop_simulation, QKeySequence("Shift+F5"), "Stop the run", "stop"
        )
        self.reset_action = a(
            "R&eset", self.reset, QKeySequence("Ctrl+R"), "Back to t = 0", "reset"
        )
        self.play_action = a(
            "Play / pause results", self.playback.toggle, QKeySequence("Space"), "Playback"
        )
        self.add_plot_action = a(
            "Add &plot…", self.add_plot_dialog, None, "Plot any result quantity", "plot"
        )
        self.shortcuts_action = a("&Keyboard shortcuts", self.show_shortcuts, None, "", "help")
        self.about_action = a("&About Biela", self.show_about)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)

    def _create_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.new_action)
        file_menu.addAction(self.open_action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.examples_menu = file_menu.addMenu("&Examples")
        file_menu.addAction(self.import_action)
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        self.export_menu = file_menu.addMenu("&Export")
        self.export_menu.addAction(self.export_csv_action)
        self.export_plot_menu = self.export_menu.addMenu("&Plot")
        self.export_plot_menu.aboutToShow.connect(self._fill_plot_export_menu)
        self.export_menu.addAction(self.export_screenshot_action)
        self.export_menu.addAction(self.export_window_action)
        self.export_menu.addAction(self.export_movie_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self._fill_recent_menu()
        self._fill_examples_menu()

        edit_menu = bar.addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)

        view_menu = bar.addMenu("&View")
        camera = view_menu.addMenu("&Camera")
        for action in self.view_actions.values():
            camera.addAction(action)
        view_menu.addAction(self.fit_action)
        view_menu.addSeparator()
        for action in self.toggle_actions.values():
            view_menu.addAction(action)
        view_menu.addSeparator()
        panels = view_menu.addMenu("&Panels")
        for dock in (
            self.tree_dock,
            self.properties_dock,
            self.solver_dock,
            self.plots_dock,
            self.messages_dock,
        ):
            panels.addAction(dock.toggleViewAction())

        sim_menu = bar.addMenu("&Simulate")
        for action in (self.check_action, self.assemble_action):
            sim_menu.addAction(action)
        sim_menu.addSeparator()
        for action in (self.run_action, self.pause_action, self.stop_action, self.reset_action):
            sim_menu.addAction(action)
        sim_menu.addSeparator()
        sim_menu.addAction(self.play_action)
        sim_menu.addAction(self.add_plot_action)
        sim_menu.addSeparator()
        install_study(self, sim_menu)  # Simulate ▸ Study… (app.study_dialog)

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self.about_action)

    def _create_toolbar(self) -> None:
        tb = self.addToolBar("Main")
        tb.setObjectName("mainToolbar")
        tb.setIconSize(QSize(22, 22))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        for action in (self.new_action, self.open_action, self.save_action):
            tb.addAction(action)
        tb.addSeparator()
        for action in (self.check_action, self.assemble_action):
            tb.addAction(action)
        tb.addSeparator()
        for action in (self.run_action, self.pause_action, self.stop_action, self.reset_action):
            tb.addAction(action)
        tb.addSeparator()
        for action in self.view_actions.values():
            tb.addAction(action)
        tb.addAction(self.fit_action)
        tb.addSeparator()
        tb.addAction(self.add_plot_action)
        tb.addAction(self.export_screenshot_action)
        self.toolbar = tb

    def _create_status_bar(self) -> None:
        sb = self.statusBar()
        self.time_label = QLabel("t = –", self)
        self.wall_label = QLabel("wall –", self)
        self.rtf_label = QLabel("RTF –", self)
        self.newton_label = QLabel("Newton –", self)
        self.dof_label = QLabel("DOF –", self)
        self.fps_label = QLabel("", self)
        self.progress = ProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.progress.setFormat("%p%")
        self.progress.setValue(0)
        for widget, tip in (
            (self.time_label, "Simulated time"),
            (self.wall_label, "Wall-clock time of the run"),
            (self.rtf_label, "Real-time factor: simulated seconds per wall second"),
            (self.newton_label, "Newton iterations: last step / total"),
            (self.dof_label, "Degrees of freedom (rank of the constraint Jacobian)"),
            (self.fps_label, "Viewport frames per second"),
        ):
            widget.setToolTip(tip)
            sb.addPermanentWidget(widget)
        sb.addPermanentWidget(self.progress)

    def _connect(self) -> None:
        doc = self.document
        doc.replaced.connect(self._document_replaced)
        doc.changed.connect(self._document_changed)
        doc.modified_changed.connect(lambda _m: self._update_title())
        doc.path_changed.connect(self._update_title)
        self.tree.item_selected.connect(self._item_selected)
        self.viewport.picked.connect(self._picked)
        self.runner.columns_ready.connect(self._run_columns)
        self.runner.frames_ready.connect(self._run_frames)
        self.runner.preview_ready.connect(self._run_preview)
        self.runner.finished.connect(self._run_finished)
        self.playback.index_changed.connect(self._show_index)
        self.playback.ready = self.viewport.ready
        self._cursor_timer = QTimer(self)
        self._cursor_timer.setSingleShot(True)
        self._cursor_timer.setInterval(CURSOR_REFRESH_MS)
        self._cursor_timer.timeout.connect(self._update_cursors)
        self.plots.time_requested.connect(self.playback.set_time)
        self.plots.add_plot_requested.connect(self.add_plot_dialog)

    # -- menus that change -----------------------------------------------------------------------

    def _fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        files = self.settings.recent_files()
        for path in files:
            action = menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open_model(p))
        if files:
            menu.addSeparator()
            menu.addAction("Clear list", self._clear_recent)
        menu.setEnabled(bool(files))

    def _clear_recent(self) -> None:
        self.settings.clear_recent()
        self._fill_recent_menu()

    def _fill_examples_menu(self) -> None:
        self.examples_menu.clear()
        paths = sorted(EXAMPLES_DIR.glob("*.json")) if EXAMPLES_DIR.is_dir() else []
        for path in paths:
            action = self.examples_menu.addAction(path.stem.replace("_", " "))
            action.setStatusTip(str(path))
            action.triggered.connect(lambda _=False, p=path: self.open_model(p))
        self.examples_menu.setEnabled(bool(paths))

    def _fill_plot_export_menu(self) -> None:
        menu = self.export_plot_menu
        menu.clear()
        for plot in self.plots.plots:
            action = menu.addAction(f"{plot.spec.title} (PNG/SVG)…")
            action.triggered.connect(lambda _=False, p=plot: self.export_plot_dialog(p))

    # -- state of actions and labels -------------------------------------------------------------

    def _update_title(self) -> None:
        self.setWindowTitle(window_title(self.document.name, self.document.is_modified))
        self.setWindowModified(self.document.is_modified)

    def _update_actions(self) -> None:
        has_model = self.document.model is not None
        running = self.runner.running
        has_results = self.run_data is not None and len(self.run_data) > 0
        finished = has_results and not running
        for action in (self.save_action, self.save_as_action, self.check_action):
            action.setEnabled(has_model and not running)
        self.assemble_action.setEnabled(has_model and not running)
        self.run_action.setEnabled(has_model and not running)
        self.pause_action.setEnabled(running)
        self.stop_action.setEnabled(running)
        self.reset_action.setEnabled(has_model and not running)
        self.new_action.setEnabled(not running)
        self.open_action.setEnabled(not running)
        self.recent_menu.setEnabled(not running and bool(self.settings.recent_files()))
        self.examples_menu.setEnabled(not running)
        self.export_csv_action.setEnabled(
            finished and self.run_data is not None and self.run_data.result is not None
        )
        self.export_movie_action.setEnabled(finished and bool(export.movie_formats()))
        self.export_plot_menu.setEnabled(has_results)
        self.solver_panel.setEnabled(has_model and not running)
        self.properties.setEnabled(not running)
        self.play_action.setEnabled(finished)
        paused = self.runner.paused
        self.pause_action.setText("Res&ume" if paused else "&Pause")
        self.pause_action.setIcon(icon("run" if paused else "pause", self))

    def log_message(self, text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        for line in text.splitlines() or [""]:
            self.messages.appendPlainText(f"{stamp}  {line}")

    # -- document --------------------------------------------------------------------------------

    def maybe_save(self) -> bool:
        """Ask about unsaved changes; True when it is fine to discard the current model."""
        if not self.document.is_modified:
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f'The model "{self.document.name}" has unsaved changes. Save them?',
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save_model()
        return answer == QMessageBox.StandardButton.Discard

    def new_model(self) -> bool:
        if self.runner.running or not self.maybe_save():
            return False
        self.document.new()
        self.statusBar().showMessage("New model", 5000)
        return True

    def open_model(self, path: str | Path, ask: bool = True) -> bool:
        """Open the model at ``path``; on failure, show the message of ``biela check`` and
        keep the current document."""
        if self.runner.running:
            return False
        if ask and not self.maybe_save():
            return False
        path = Path(path)
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.document.open(path)
            error = None
        except DocumentError as exc:
            error = str(exc)
        finally:
            QApplication.restoreOverrideCursor()
        if error is not None:
            self.statusBar().showMessage(f"Could not open {path.name}", 10_000)
            self.log_message(f"cannot open {path}: {error}")
            QMessageBox.critical(self, "Cannot open model", error)
            return False
        self.settings.add_recent(path)
        self._fill_recent_menu()
        self.statusBar().showMessage(f"Opened {path}", 10_000)
        self.log_message(f"opened {path}")
        report = self.document.report
        if report is not None:
            for line in report.lines():
                self.log_message(f"  {line}")
            for warning in report.warnings:
                self.log_message(f"  warning: {warning}")
        return True

    def open_model_dialog(self) -> bool:
        """File ▸ Open…: ask for a model file and open it."""
        if self.runner.running or not self.maybe_save():
            return False
        start = str(self.model_path.parent) if self.model_path else str(Path.cwd())
        path, _ = QFileDialog.getOpenFileName(self, "Open model", start, MODEL_FILE_FILTER)
        if not path:
            return False
        return self.open_model(path, ask=False)

    def import_model_dialog(self) -> bool:
        """File ▸ Import…: a MUBODYNA folder, an MJCF or URDF file (``app.importing``)."""
        from app.importing import import_into

        return import_into(self)

    def save_model(self) -> bool:
        if self.document.model is None:
            return False
        if self.document.path is None:
            return self.save_model_as()
        return self._save_to(self.document.path)

    def save_model_as(self) -> bool:
        if self.document.model is None:
            return False
        start = str(self.document.path or Path.cwd() / "model.json")
        path, _ = QFileDialog.getSaveFileName(self, "Save model as", start, MODEL_FILE_FILTER)
        if not path:
            return False
        if not path.endswith(".json"):
            path += ".json"
        return self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        try:
            saved = self.document.save(path)
        except Exception as exc:  # OSError, ModelError: one line
            QMessageBox.critical(self, "Cannot save model", f"{path.name}: {exc}")
            return False
        self.settings.add_recent(saved)
        self._fill_recent_menu()
        self.statusBar().showMessage(f"Saved {saved}", 10_000)
        self.log_message(f"saved {saved}")
        return True

    def _document_replaced(self) -> None:
        self.playback.stop()
        self._set_run(None)
        model = self.document.model
        self.tree.set_model(model)
        self.properties.show_item(None, None)
        model_dir = self.document.path.parent if self.document.path else None
        self.viewport.set_model(model, model_dir)
        report = self.document.report
        self.dof_label.setText(f"DOF {report.dof}" if report is not None else "DOF –")
        self._update_title()
        self._update_actions()

    def _document_changed(self, field: str) -> None:
        if field in ("color", "radius", "length", "free_length") and not self.runner.running:
            model_dir = self.document.path.parent if self.document.path else None
            self.viewport.set_model(self.document.model, model_dir)
            self._set_run(None)
        self._update_title()

    # -- selection ---------------------------------------------------------------------------------

    def _item_selected(self, category: str, name: str) -> None:
        self.viewport.highlight(category or None, name or None)
        self.properties.show_item(category or None, name or None)
        if category:
            self.statusBar().showMessage(f"{category} {name}", 4000)

    def _picked(self, category: str, name: str) -> None:
        if category:
            self.tree.select(category, name)
        else:
            self.tree.clearSelection()

    def _toggle_group(self, group: str, on: bool) -> None:
        self.viewport.set_group_visible(group, on)
        self.settings.set_view_flag(group, on)

    # -- simulation --------------------------------------------------------------------------------

    def check_model(self) -> bool:
        """Simulate ▸ Check: the report of ``biela check``."""
        if self.document.model is None:
            return False
        try:
            report = self.document.recheck()
        except DocumentError as exc:
            self.log_message(f"check: {exc}")
            QMessageBox.critical(self, "Model check failed", str(exc))
            return False
        lines = report.lines() + [f"warning: {w}" for w in report.warnings]
        self.log_message("check: valid\n" + "\n".join(f"  {line}" for line in lines))
        self.dof_label.setText(f"DOF {report.dof}")
        QMessageBox.information(self, "Model check", "valid\n\n" + "\n".join(lines))
        return True

    def assemble_model(self) -> bool:
        """Simulate ▸ Assemble: solve the position problem at t = 0 and show it."""
        return self.run_simulation(analysis="assembly")

    def run_simulation(self, **overrides: Any) -> bool:
        """Start the model's analysis (settings of the solver panel, or ``overrides`` such as
        ``t_end=0.2``) in the worker thread. False if nothing was started."""
        model = self.document.model
        if model is None or self.runner.running:
            return False
        self.playback.stop()
        settings = model.solver
        self._run_t_end = float(overrides.get("t_end") or settings.t_end)
        self._run_analysis = overrides.get("analysis") or settings.analysis
        self._set_run(None)
        self.last_outcome = None
        self._run_started = time.perf_counter()
        self.progress.setValue(0)
        described = ", ".join(f"{k}={v}" for k, v in overrides.items())
        self.log_message(
            f"run: {self._run_analysis}"
            + (
                f" ({settings.formulation})"
                if self._run_analysis == "dynamic" and "formulation" not in overrides
                else ""
            )
            + (f" [{described}]" if described else "")
        )
        self.viewport.max_fps = RUN_MAX_FPS
        self.viewport.cpu_duty = viewport_module.RUN_RENDER_DUTY
        self.runner.start(model, overrides, self.solver_target)
        self._refresh_timer.start()
        self._update_actions()
        self.statusBar().showMessage("Running…")
        return True

    def pause_simulation(self) -> None:
        if self.runner.running and not self.runner.paused:
            self.runner.pause()
            self.statusBar().showMessage("Paused")
            self._update_actions()

    def resume_simulation(self) -> None:
        if self.runner.running and self.runner.paused:
            self.runner.resume()
            self.statusBar().showMessage("Running…")
            self._update_actions()

    def toggle_pause(self) -> None:
        if self.runner.paused:
            self.resume_simulation()
        else:
            self.pause_simulation()

    def stop_simulation(self) -> None:
        if self.runner.running:
            self.runner.stop()
            self.statusBar().showMessage("Stopping…")

    def reset(self) -> None:
        """Back to t = 0: the model as described, results cleared."""
        if self.runner.running:
            return
        self.playback.stop()
        self._set_run(None)
        model_dir = self.document.path.parent if self.document.path else None
        camera = self.plotter.camera_position if self.plotter is not None else None
        self.viewport.set_model(self.document.model, model_dir)
        if camera is not None:
            self.plotter.camera_position = camera
            self.plotter.render()
        self.progress.setValue(0)
        self._update_actions()

    def _set_run(self, run: RunData | None) -> None:
        self.run_data = run
        self.plots.set_run(run)
        self.playback.set_run(run)
        self.viewport.set_trace_data(None)
        if run is not None:
            self.viewport.set_columns(run.columns)

    def _run_columns(self, columns: list[str]) -> None:
        self._set_run(RunData(columns))
        self.playback.setEnabled(False)

    def _run_frames(self, batch: FrameBatch) -> None:
        run = self.run_data
        if run is None:
            return
        run.append(batch.rows, batch.iterations)
        run.wall_time = batch.wall_time
        self.viewport.set_trace_data(run.data)
        self.viewport.show_row(batch.rows[-1])
        self._dirty_plots = True

    def _run_preview(self, row) -> None:
        """A step between outputs: the view shows it, the run's data does not keep it."""
        if self.run_data is not None:
            self.viewport.show_row(row)

    def _refresh_live(self) -> None:
        if self._dirty_plots:
            self._update_status()
            now = time.perf_counter()
            if now - self._plots_refreshed >= LIVE_PLOT_INTERVAL - 0.01:
                self._dirty_plots = False
                self._plots_refreshed = now
                self.plots.refresh()
        fps = self.viewport.fps()
        self.fps_label.setText(f"{fps:.0f} fps" if fps else "")

    def _update_status(self) -> None:
        run = self.run_data
        if run is None or len(run) == 0:
            return
        t = float(run.t[-1])
        wall = max(run.wall_time, 1e-9)
        self.time_label.setText(f"t = {t:.4f} s")
        self.wall_label.setText(f"wall {wall:.2f} s")
        self.rtf_label.setText(f"RTF {t / wall:.3g}×")
        its = run.iterations
        self.newton_label.setText(f"Newton {int(its[-1])} / {int(its.sum())}")
        if self._run_t_end > 0:
            self.progress.setValue(int(1000 * min(1.0, t / self._run_t_end)))

    def _run_finished(self, outcome: RunOutcome) -> None:
        self._refresh_timer.stop()
        self.viewport.max_fps = viewport_module.MAX_FPS
        self.viewport.cpu_duty = None
        self.last_outcome = outcome
        run = self.run_data
        if run is None and outcome.result is not None:
            run = RunData(outcome.result.columns)
            self._set_run(run)
        if run is not None:
            run.result = outcome.result
            run.status = outcome.status
            run.message = outcome.message
            if outcome.wall_time:
                run.wall_time = outcome.wall_time
            self.plots.refresh()
            self.playback.set_run(run)
            if len(run):
                self.playback.set_index(len(run) - 1)
        self._update_status()
        self._update_actions()
        frames = len(run) if run is not None else 0
        summary = outcome.summary or {}
        if outcome.status == "ok":
            self.progress.setValue(1000)
            text = f"{self._run_analysis} done: {frames} frames in {outcome.wall_time:.2f} s"
            if summary.get("steps"):
                text += f", {summary['steps']} steps"
            if summary.get("max_energy_drift") is not None:
                text += f", max energy drift {summary['max_energy_drift']:.3g} J"
            warning = stability_warning(outcome.result)
            if warning:  # the step exceeds the stability monitor's estimate
                text += f"; warning: {warning}"
            self.statusBar().showMessage(text, 30_000 if warning else 15_000)
            self.log_message(text)
            if summary.get("dof") is not None:
                self.dof_label.setText(f"DOF {summary['dof']}")
        elif outcome.status == "cancelled":
            text = f"stopped: {outcome.message or 'cancelled'}; {frames} frames kept"
            self.statusBar().showMessage(text, 15_000)
            self.log_message(text)
        elif outcome.status == "failed":
            self.log_message(f"failed: {outcome.message}")
            self.statusBar().showMessage("The solver failed; the results so far are kept", 15_000)
            QMessageBox.warning(
                self,
                "Simulation failed",
                f"{outcome.message}\n\nThe {frames} frames computed up to the failure are kept: "
                "play them back, plot them or export them.",
            )
        else:
            self.log_message(f"cannot run: {outcome.message}")
            self.statusBar().showMessage("Cannot run", 15_000)
            QMessageBox.critical(self, "Cannot run the analysis", outcome.message)
        self.run_finished.emit(outcome)

    def _show_index(self, index: int) -> None:
        run = self.run_data
        if run is None or index >= len(run):
            return
        self.viewport.set_trace_data(run.data[: index + 1])
        self.viewport.show_row(run.row(index))
        self.viewport.render_pending()  # same event-loop pass as the bar: one composition
        if self.playback.playing:
            if not self._cursor_timer.isActive():  # plot cursors: ≤ 10 updates a second
                self._cursor_timer.start()
        else:
            self._update_cursors()

    def _update_cursors(self) -> None:
        run = self.run_data
        if run is None or len(run) == 0:
            return
        index = min(self.playback.index, len(run) - 1)
        self.plots.set_cursor(index)
        if not self.runner.running:
            self.time_label.setText(f"t = {float(run.t[index]):.4f} s")

    def show_time(self, t: float) -> None:
        """Move the mechanism and the plot cursors to time ``t`` of the results."""
        self.playback.set_time(t)

    # -- plots and exports -----------------------------------------------------------------------

    def add_plot_dialog(self) -> None:
        run = self.run_data
        if run is None or len(run) == 0:
            QMessageBox.information(
                self, "Add plot", "Run the model first: there is nothing to plot."
            )
            return
        model = self.document.model
        dialog = AddPlotDialog(result_quantities.available(model, run), self)
        if dialog.exec():
            y, x = dialog.choice()
            try:  # reactions, efforts, ... not requested by the model: from the run's rows
                result_quantities.ensure(model, run, (y, x), model.solver.analysis)
            except (ValueError, ArithmeticError) as exc:
                QMessageBox.warning(self, "Add plot", f"Cannot plot {y}: {exc}")
                return
            self.plots.add_quantity(y, x)

    def _ask_save_path(self, title: str, default: str, filters: str) -> Path | None:
        start = (self.document.path.parent if self.document.path else Path.cwd()) / default
        path, _ = QFileDialog.getSaveFileName(self, title, str(start), filters)
        return Path(path) if path else None

    def _stem(self) -> str:
        return self.document.path.stem if self.document.path else "biela"

    def export_csv(self, path: str | Path) -> Path:
        """Write the last run's results CSV (as ``biela run --csv``)."""
        if self.run_data is None or self.run_data.result is None:
            raise RuntimeError("no finished run to export")
        return export.write_csv(self.run_data.result, path)

    def export_csv_dialog(self) -> None:
        path = self._ask_save_path("Export results", f"{self._stem()}.csv", "CSV (*.csv)")
        if path is None:
            return
        try:
            self.export_csv(path)
        except Exception as exc:
            QMessageBox.critical(self, "Cannot export", f"{path.name}: {exc}")
            return
        self.log_message(f"results written to {path}")

    def export_plot_dialog(self, plot) -> None:
        path = self._ask_save_path(
            "Export plot",
            f"{self._stem()}_{plot.spec.key}.png",
            "PNG image (*.png);;SVG vector image (*.svg)",
        )
        if path is None:
            return
        if path.suffix.lower() not in (".png", ".svg"):
            path = path.with_suffix(".png")
        try:
            plot.export(path)
        except Exception as exc:
            QMessageBox.critical(self, "Cannot export", f"{path.name}: {exc}")
            return
        self.log_message(f"plot written to {path}")

    def export_screenshot(self, path: str | Path) -> Path:
        path = Path(path)
        if self.plotter is None:
            raise RuntimeError("the 3D view is unavailable")
        self.viewport.render_now()
        self.plotter.screenshot(str(path))
        return path

    def export_screenshot_dialog(self) -> None:
        path = self._ask_save_path("Save screenshot", f"{self._stem()}.png", "PNG image (*.png)")
        if path is None:
            return
        try:
            self.export_screenshot(path)
        except Exception as exc:
            QMessageBox.critical(self, "Cannot save screenshot", f"{path.name}: {exc}")
            return
        self.log_message(f"screenshot written to {path}")

    def export_window_dialog(self) -> None:
        path = self._ask_save_path("Save window", f"{self._stem()}_window.png", "PNG (*.png)")
        if path is not None and not self.grab().save(str(path), "PNG"):
            QMessageBox.critical(self, "Cannot save screenshot", f"{path.name}: not written")

    def export_movie(self, path: str | Path, fps: int = export.MOVIE_FPS) -> Path:
        """Render the results frame by frame (GUI thread) into a GIF or MP4."""
        run = self.run_data
        if run is None or len(run) == 0:
            raise RuntimeError("no results to animate")
        speed = self.playback.speed

        def render(index: int):
            self.viewport.set_trace_data(run.data[: index + 1])
            self.viewport.render_now(run.row(index))
            return self.viewport.image()

        def progress(done: int, total: int) -> bool:
            self.progress.setValue(int(1000 * done / total))
            QApplication.processEvents()
            return True

        try:
            return export.write_movie(path, run, render, fps=fps, speed=speed, progress=progress)
        finally:
            self._show_index(self.playback.index)

    def export_movie_dialog(self) -> None:
        formats = export.movie_formats()
        filters = ";;".join(
            {"gif": "Animated GIF (*.gif)", "mp4": "MP4 video (*.mp4)"}[f] for f in formats
        )
        path = self._ask_save_path("Export animation", f"{self._stem()}.{formats[0]}", filters)
        if path is None:
            return
        if path.suffix.lower().lstrip(".") not in formats:
            path = path.with_suffix(f".{formats[0]}")
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.export_movie(path)
        except Exception as exc:
            QMessageBox.critical(self, "Cannot export animation", f"{path.name}: {exc}")
            return
        finally:
            QApplication.restoreOverrideCursor()
        self.log_message(f"animation written to {path}")

    # -- help --------------------------------------------------------------------------------------

    def show_shortcuts(self) -> None:
        rows = "".join(f"<tr><td><b>{k}</b></td><td>&nbsp;{v}</td></tr>" for k, v in SHORTCUTS)
        QMessageBox.information(self, "Keyboard shortcuts", f"<table>{rows}</table>")

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

    # -- lifetime ----------------------------------------------------------------------------------

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        if not self.maybe_save():
            event.ignore()
            return
        if self.runner.running:
            self.runner.wait()
        self._refresh_timer.stop()
        self.playback.stop()
        self.settings.save_layout(self)
        self.settings.sync()
        # Release VTK's OpenGL resources while the context still exists.
        self.viewport.close_scene()
        super().closeEvent(event)


def run_gui(model_path: str | None = None) -> int:
    """Create (or reuse) the QApplication, show the main window, run the event loop.

    A ``model_path`` is opened once the window is visible, so an error message appears over it.
    """
    app = get_application()
    from app.theme import apply_style

    apply_style(app)
    # Let Ctrl+C in the terminal end the program (Python cannot run its handler inside exec).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    window = MainWindow(model_path=None)
    window.show()
    if model_path is not None:
        window.open_model(model_path)
    return int(app.exec())


__all__ = ["MainWindow", "run_gui", "window_title"]
