"""The Biela workbench window: menus, toolbar, docks, viewport, playback, status bar.

Importing this module imports Qt (VTK when a window is built); ``app.launcher`` imports it
only when the GUI starts. The window wires the parts together:

- ``Document`` (model, file, undo stack) ← panels edit it; locked while a run streams, so
  the view, the plots and the playback always show the model that produced the results;
- ``SimulationRunner`` (solver in its own process) → ``RunData`` → plots, playback, viewport;
- the viewport renders on this (GUI) thread at ≤ 60 fps, the live plots refresh at 2 Hz.
"""

from __future__ import annotations

import copy
import logging
import signal
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QFrame,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app import export, result_quantities
from app import viewport as viewport_module
from app.application import get_application
from app.builder.controller import install_build
from app.document import Document, DocumentError
from app.examples import EXAMPLES_DIR, example_entries
from app.icons import icon
from app.messages import MessagesPanel
from app.panels import ModelTree, PropertyPanel, SolverPanel
from app.playback import PlaybackBar
from app.plot_dock import PlotDockSizer
from app.plot_export import PlotExportDialog
from app.plots import DEFAULT_EXPORT_SIZE, AddPlotDialog, PlotsPanel
from app.run_report import (
    accuracy_warning,
    count,
    energy_exchanged,
    stability_warning,
)
from app.rundata import RunData
from app.settings import Settings
from app.status import StatusFields
from app.study_dialog import install_study
from app.viewport import DEFORMATION_SCALES, Viewport
from app.worker import FrameBatch, RunOutcome, SimulationRunner

log = logging.getLogger(__name__)

APP_TITLE = "Biela"
MODEL_FILE_FILTER = "Biela models (*.json);;All files (*)"
# During a run the status labels refresh at 4 Hz and the live plots at 2 Hz: a refresh of
# the two default plots costs ≈ 35 ms CPU (pyqtgraph re-ranges and re-draws the axes), which
# at 4 Hz took a fifth of the GUI's CPU budget from the viewport (measured, software GL).
PLOT_REFRESH_MS = 250
LIVE_PLOT_INTERVAL = 0.5  # s
CURSOR_REFRESH_MS = 100  # plot cursors during playback
RUN_MAX_FPS = 40  # viewport during a run: smooth enough, and leaves the CPU to the solver
#: Why the model cannot be edited while a run streams (status bar, Edit panel, refusals).
RUN_LOCK = "the model is locked while the run streams: stop the run (Shift+F5) to edit it"

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
    ("Ctrl+Shift+M", "Maximise the plots (again: back)"),
    ("Ctrl+Z / Ctrl+Shift+Z", "Undo / redo an edit"),
    ("Mouse", "left: rotate, middle or Shift+left: pan, wheel: zoom, click: select"),
    ("Plots", "click: go to that time; wheel, right-drag: zoom; left-drag: pan; double-click: fit"),
)


def window_title(model_name: str | None, modified: bool = False) -> str:
    """``"Biela"`` without a model, ``"<model name> — Biela"`` with one (``*`` if modified)."""
    if not model_name:
        return APP_TITLE
    return f"{model_name}{' *' if modified else ''} — {APP_TITLE}"


def file_message(path: Path, error: BaseException | str) -> str:
    """``"<file>: <reason>"``, without naming the file twice when the reason already does."""
    text = str(error)
    if path.name in text:
        return text
    return f"{path.name}: {text}"


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
        self._run_analysis = ""
        self._run_model = None  # a copy of the model of the run going on (or last)
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
        if not self.settings.restore_layout(self):
            # the side columns wide enough for item names and the solver's fields
            self.resizeDocks(
                [self.tree_dock, self.solver_dock], [300, 320], Qt.Orientation.Horizontal
            )
        self._update_actions()
        self._update_title()
        if self.plotter is None:
            self.statusBar().showMessage("3D view unavailable (no OpenGL context)")
        self.log_message(
            "Open a model (File ▸ Open, File ▸ Examples) or start one (File ▸ New) and build "
            "it with the Build tools."
        )

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

    # -- construction: docks -------------------------------------------------------------------

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
        # The right column (solver settings, messages) runs down to the status bar: the
        # Messages panel gets the height, the plots the width under the view and the tree.
        self.setCorner(Qt.Corner.BottomRightCorner, right)
        self.tree = ModelTree(self)
        self.properties = PropertyPanel(self.document, self)
        self.solver_panel = SolverPanel(self.document, self)
        self.plots = PlotsPanel(self)
        self.messages = MessagesPanel(self)
        self.tree_dock = self._dock("Model", "modelDock", self.tree, left)
        self.properties_dock = self._dock("Properties", "propertiesDock", self.properties, left)
        solver_scroll = QScrollArea(self)  # its parameters may be many: they scroll
        solver_scroll.setWidget(self.solver_panel)
        solver_scroll.setWidgetResizable(True)
        solver_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._solver_scroll = solver_scroll
        self._fit_solver_width()
        # after the panel's own refresh (connected first): its parameters change its width
        self.document.replaced.connect(self._fit_solver_width)
        self.document.changed.connect(self._fit_solver_width)
        solver_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.solver_dock = self._dock("Solver", "solverDock", solver_scroll, right)
        self.messages_dock = self._dock("Messages", "messagesDock", self.messages, right)
        self.plots_dock = self._dock("Plots", "plotsDock", self.plots, bottom)
        self.splitDockWidget(self.tree_dock, self.properties_dock, Qt.Orientation.Vertical)
        self.splitDockWidget(self.solver_dock, self.messages_dock, Qt.Orientation.Vertical)
        self.resizeDocks([self.tree_dock, self.solver_dock], [270, 300], Qt.Orientation.Horizontal)
        self.resizeDocks(
            [self.tree_dock, self.properties_dock], [330, 260], Qt.Orientation.Vertical
        )
        self.resizeDocks(
            [self.solver_dock, self.messages_dock], [380, 300], Qt.Orientation.Vertical
        )
        self.plot_sizer = PlotDockSizer(self, self.plots_dock, self.plots)

    def _fit_solver_width(self, *_args) -> None:
        """The Solver dock is never narrower than its panel (no clipped fields)."""
        scroll = self._solver_scroll
        scroll.setMinimumWidth(
            self.solver_panel.minimumSizeHint().width()
            + scroll.verticalScrollBar().sizeHint().width()
        )

    # -- construction: actions -----------------------------------------------------------------

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
        self._create_file_actions()
        self._create_edit_actions()
        self._create_view_actions()
        self._create_simulate_actions()
        self._create_help_actions()

    def _create_file_actions(self) -> None:
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

    def _create_edit_actions(self) -> None:
        std = QKeySequence.StandardKey
        stack = self.document.undo_stack
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(std.Undo)
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcut(std.Redo)
        # the stack enables its actions itself; while a run streams they stay off
        stack.canUndoChanged.connect(self._update_undo_actions)
        stack.canRedoChanged.connect(self._update_undo_actions)

    def _create_view_actions(self) -> None:
        a = self._action
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
        self.fit_run_action = QAction("Fit the view &during runs", self)
        self.fit_run_action.setCheckable(True)
        self.fit_run_action.setChecked(self.settings.view_flag("fit_during_run", True))
        self.fit_run_action.setStatusTip(
            "While a run streams, zoom out when the mechanism leaves the view"
        )
        self.fit_run_action.toggled.connect(
            lambda on: self.settings.set_view_flag("fit_during_run", on)
        )
        self.toggle_actions: dict[str, QAction] = {}
        for group, text in (
            ("joints", "&Joints"),
            ("frames", "Body &frames"),
            ("markers", "Output &markers"),
            ("traces", "&Traces"),
            ("floor", "Floor &grid"),
            ("origin", "&Origin triad"),
            ("forces", "F&orces and contacts"),
        ):
            action = QAction(text, self)
            action.setCheckable(True)
            visible = self.settings.view_flag(group, group != "frames")
            action.setChecked(visible)
            self.viewport.set_group_visible(group, visible)
            action.toggled.connect(lambda on, g=group: self._toggle_group(g, on))
            self.toggle_actions[group] = action
        self.maximise_plots_action = a(
            "&Maximise plots",
            lambda _=False: self.plot_sizer.set_maximised(not self.plot_sizer.maximised),
            QKeySequence("Ctrl+Shift+M"),
            "Plots fill the window (again: back to the 3D view)",
        )
        self.maximise_plots_action.setCheckable(True)
        self.deformation_group = QActionGroup(self)
        self.deformation_actions: dict[float, QAction] = {}
        for scale in DEFORMATION_SCALES:
            action = QAction(f"× {scale:g}", self)
            action.setCheckable(True)
            action.setChecked(scale == 1.0)
            action.triggered.connect(lambda _=False, s=scale: self.set_deformation_scale(s))
            self.deformation_group.addAction(action)
            self.deformation_actions[scale] = action

    def _create_simulate_actions(self) -> None:
        a = self._action
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

    def _create_help_actions(self) -> None:
        a = self._action
        self.shortcuts_action = a("&Keyboard shortcuts", self.show_shortcuts, None, "", "help")
        self.about_action = a("&About Biela", self.show_about)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)

    # -- construction: menus ---------------------------------------------------------------------

    def _create_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = self._create_file_menu(bar)
        self.edit_menu = self._create_edit_menu(bar)
        self.view_menu = self._create_view_menu(bar)
        self.simulate_menu = self._create_simulate_menu(bar)
        self.help_menu = self._create_help_menu(bar)

    def _create_file_menu(self, bar) -> QMenu:
        menu = bar.addMenu("&File")
        menu.addAction(self.new_action)
        menu.addAction(self.open_action)
        self.recent_menu = menu.addMenu("Open &Recent")
        self.examples_menu = menu.addMenu("&Examples")
        menu.addAction(self.import_action)
        menu.addSeparator()
        menu.addAction(self.save_action)
        menu.addAction(self.save_as_action)
        menu.addSeparator()
        self.export_menu = menu.addMenu("&Export")
        self.export_menu.addAction(self.export_csv_action)
        self.export_plot_menu = self.export_menu.addMenu("&Plot")
        self.export_plot_menu.aboutToShow.connect(self._fill_plot_export_menu)
        self.export_menu.addAction(self.export_screenshot_action)
        self.export_menu.addAction(self.export_window_action)
        self.export_menu.addAction(self.export_movie_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)
        self._fill_recent_menu()
        self._fill_examples_menu()
        return menu

    def _create_edit_menu(self, bar) -> QMenu:
        menu = bar.addMenu("&Edit")
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)
        return menu

    def _create_view_menu(self, bar) -> QMenu:
        menu = bar.addMenu("&View")
        camera = menu.addMenu("&Camera")
        for action in self.view_actions.values():
            camera.addAction(action)
        menu.addAction(self.fit_action)
        self.follow_menu = menu.addMenu("F&ollow body")
        self.follow_menu.aboutToShow.connect(self._fill_follow_menu)
        menu.addAction(self.fit_run_action)
        menu.addSeparator()
        for action in self.toggle_actions.values():
            menu.addAction(action)
        self.deformation_menu = menu.addMenu("Flexible &deformation")
        self.deformation_menu.setToolTipsVisible(True)
        for action in self.deformation_actions.values():
            self.deformation_menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.maximise_plots_action)
        panels = menu.addMenu("&Panels")
        for dock in (
            self.tree_dock,
            self.properties_dock,
            self.solver_dock,
            self.plots_dock,
            self.messages_dock,
        ):
            panels.addAction(dock.toggleViewAction())
        return menu

    def _create_simulate_menu(self, bar) -> QMenu:
        menu = bar.addMenu("&Simulate")
        for action in (self.check_action, self.assemble_action):
            menu.addAction(action)
        menu.addSeparator()
        for action in (self.run_action, self.pause_action, self.stop_action, self.reset_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.play_action)
        menu.addAction(self.add_plot_action)
        menu.addSeparator()
        install_study(self, menu)  # Simulate ▸ Study… (app.study_dialog)
        return menu

    def _create_help_menu(self, bar) -> QMenu:
        menu = bar.addMenu("&Help")
        menu.addAction(self.shortcuts_action)
        menu.addAction(self.about_action)
        return menu

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
        self.status = StatusFields(self.statusBar(), self)
        # the names the rest of the workbench (and its tests) use
        self.time_label = self.status.time
        self.wall_label = self.status.wall
        self.rtf_label = self.status.rtf
        self.newton_label = self.status.newton
        self.dof_label = self.status.dof
        self.fps_label = self.status.fps
        self.progress = self.status.progress

    def _connect(self) -> None:
        doc = self.document
        doc.replaced.connect(self._document_replaced)
        doc.changed.connect(self._document_changed)
        doc.modified_changed.connect(lambda _m: self._update_title())
        doc.path_changed.connect(self._update_title)
        doc.refused.connect(lambda reason: self.statusBar().showMessage(f"Not changed: {reason}"))
        self.tree.item_selected.connect(self._item_selected)
        self.viewport.picked.connect(self._picked)
        self.runner.columns_ready.connect(self._run_columns)
        self.runner.frames_ready.connect(self._run_frames)
        self.runner.preview_ready.connect(self._run_preview)
        self.runner.status_ready.connect(self._run_status)
        self.runner.finished.connect(self._run_finished)
        self.playback.index_changed.connect(self._show_index)
        self.playback.ready = self.viewport.ready
        self._cursor_timer = QTimer(self)
        self._cursor_timer.setSingleShot(True)
        self._cursor_timer.setInterval(CURSOR_REFRESH_MS)
        self._cursor_timer.timeout.connect(self._update_cursors)
        self.plots.time_requested.connect(self.playback.set_time)
        self.plots.add_plot_requested.connect(self.add_plot_dialog)
        self.plots.maximise_requested.connect(self.plot_sizer.set_maximised)
        self.plot_sizer.maximised_changed.connect(self.maximise_plots_action.setChecked)

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
        """The examples by their model titles (the file name in the status tip)."""
        self.examples_menu.clear()
        entries = example_entries(EXAMPLES_DIR)
        for title, path in entries:
            action = self.examples_menu.addAction(title)
            action.setStatusTip(f"{path.name}: {path}")
            action.setToolTip(path.name)
            action.triggered.connect(lambda _=False, p=path: self.open_model(p))
        self.examples_menu.setEnabled(bool(entries))

    def _fill_plot_export_menu(self) -> None:
        menu = self.export_plot_menu
        menu.clear()
        for plot in self.plots.plots:
            action = menu.addAction(f"{plot.spec.title} (PNG/SVG)…")
            action.triggered.connect(lambda _=False, p=plot: self.export_plot_dialog(p))

    def _fill_follow_menu(self) -> None:
        """ "None" and every rigid body and point mass of the model (checked: followed)."""
        menu = self.follow_menu
        menu.clear()
        group = QActionGroup(menu)
        names = [None]
        model = self.document.model
        if model is not None:
            names += [b.name for b in model.bodies if b.type in ("rigid", "point_mass")]
        for name in names:
            action = menu.addAction(name or "None (fixed camera)")
            action.setCheckable(True)
            action.setChecked(self.viewport.follow == name)
            action.triggered.connect(lambda _=False, n=name: self.follow_body(n))
            group.addAction(action)

    def follow_body(self, name: str | None) -> None:
        """View ▸ Follow body: the camera moves with ``name``'s centre (None: it stays)."""
        self.viewport.set_follow(name)
        self.statusBar().showMessage(
            f"The camera follows {name}" if name else "The camera stays where it is", 5000
        )

    def set_deformation_scale(self, scale: float) -> None:
        """View ▸ Flexible deformation: draw flexible bodies' deformation ``scale`` × larger."""
        self.viewport.set_deformation_scale(scale)
        self.deformation_actions[scale].setChecked(True)
        if self.run_data is not None and len(self.run_data):
            self._show_index(min(self.playback.index, len(self.run_data) - 1))

    # -- state of actions and labels -------------------------------------------------------------

    def _update_title(self) -> None:
        # The "*" is part of the title (no "[*]" placeholder, so no setWindowModified).
        self.setWindowTitle(window_title(self.document.name, self.document.is_modified))

    def _update_undo_actions(self, *_args) -> None:
        stack = self.document.undo_stack
        locked = bool(self.document.locked)
        self.undo_action.setEnabled(stack.canUndo() and not locked)
        self.redo_action.setEnabled(stack.canRedo() and not locked)

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
        has_flexible = has_model and any(
            b.type.startswith("ancf") for b in self.document.model.bodies
        )
        self.deformation_menu.setEnabled(has_flexible)
        paused = self.runner.paused
        self.pause_action.setText("Res&ume" if paused else "&Pause")
        self.pause_action.setIcon(icon("run" if paused else "pause", self))
        self._update_undo_actions()

    def log_message(self, text: str) -> None:
        self.messages.log(text)

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
        self.log_message("new model")
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
            self.log_message(f"cannot open {file_message(path, error)}")
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
        name = self.document.path.name if self.document.path else "model.json"
        start = self._save_folder() / name
        path, _ = QFileDialog.getSaveFileName(self, "Save model as", str(start), MODEL_FILE_FILTER)
        if not path:
            return False
        if not path.endswith(".json"):
            path += ".json"
        return self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        try:
            saved = self.document.save(path)
        except Exception as exc:  # OSError, ModelError: one line
            QMessageBox.critical(self, "Cannot save model", file_message(path, exc))
            return False
        self.settings.add_recent(saved)
        self.settings.set_folder("models", saved.parent)
        self._fill_recent_menu()
        self._update_title()
        self.statusBar().showMessage(f"Saved {saved}", 10_000)
        self.log_message(f"saved {saved}")
        return True

    def _save_folder(self, kind: str = "models") -> Path:
        """Where a save or export dialog starts: the folder last used for ``kind``, else the
        model's own folder unless it is the examples folder that ships with Biela, else the
        current folder."""
        last = self.settings.folder(kind)
        if last is not None and last.is_dir():
            return last
        model_path = self.document.path
        if model_path is not None and model_path.parent.resolve() != EXAMPLES_DIR.resolve():
            return model_path.parent
        return Path.cwd()

    def _document_replaced(self) -> None:
        """A new or opened model: everything of the previous one goes (results, added plots,
        status figures, messages, zoom, followed body)."""
        self.playback.stop()
        self.plot_sizer.set_maximised(False)
        self._set_run(None)
        self.last_outcome = None
        self.plots.remove_user_plots()
        self.status.reset()
        self.messages.clear()
        self.viewport.set_follow(None)
        self.set_deformation_scale(1.0)
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
        ``t_end=0.2``) in the solver process. The model is locked until the run ends. False if
        nothing was started."""
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
        self.status.reset()
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
        self._run_model = copy.deepcopy(model)  # what the results belong to
        self.document.set_locked(RUN_LOCK)
        self.viewport.max_fps = RUN_MAX_FPS
        self.viewport.cpu_duty = viewport_module.RUN_RENDER_DUTY
        self.viewport.fit_during_run = self.fit_run_action.isChecked()
        self.runner.start(model, overrides, self.solver_target)
        self._refresh_timer.start()
        self._update_actions()
        self.statusBar().showMessage("Running… (the model is locked until the run ends)")
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
        self.status.reset()
        self._update_actions()

    def _set_run(self, run: RunData | None) -> None:
        self.run_data = run
        self.plots.set_run(run)
        self.playback.set_run(run)
        self.viewport.set_trace_data(None)
        self.viewport.reference = run.row(0).copy() if run is not None and len(run) else None
        if run is not None:
            self.viewport.set_columns(run.columns)

    def _run_columns(self, columns: list[str]) -> None:
        run = RunData(columns)
        run.model = self._run_model
        self._set_run(run)
        self.playback.setEnabled(False)

    def _run_frames(self, batch: FrameBatch) -> None:
        run = self.run_data
        if run is None:
            return
        first = len(run) == 0
        run.append(batch.rows, batch.iterations)
        run.wall_time = batch.wall_time
        if first:
            self.viewport.reference = run.row(0).copy()
        self.viewport.set_trace_data(run.data)
        self.viewport.show_row(batch.rows[-1])
        self._dirty_plots = True

    def _run_status(self, text: str) -> None:
        """The solver's word before a run starts (compiling its code on a cold cache)."""
        self.statusBar().showMessage(text)
        self.log_message(text)

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
        if self.run_data is not None:
            self.status.show_run(self.run_data, self._run_t_end)

    def _run_finished(self, outcome: RunOutcome) -> None:
        self._refresh_timer.stop()
        self.document.set_locked("")
        self.viewport.max_fps = viewport_module.MAX_FPS
        self.viewport.cpu_duty = None
        self.viewport.fit_during_run = False
        self.last_outcome = outcome
        run = self.run_data
        if run is None and outcome.result is not None:
            run = RunData(outcome.result.columns)
            run.model = self._run_model
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
                self.viewport.reference = run.row(0).copy()
                self.playback.set_index(len(run) - 1)
                if self.fit_run_action.isChecked():  # frames since the last check
                    self.viewport.keep_in_view(run.row(len(run) - 1))
        self._update_status()
        self._update_actions()
        self._report_outcome(outcome, run)
        self.run_finished.emit(outcome)

    def _report_outcome(self, outcome: RunOutcome, run: RunData | None) -> None:
        """Status bar, Messages panel and, for a failure, a dialog."""
        frames = count(len(run) if run is not None else 0, "frame")
        summary = outcome.summary or {}
        if outcome.status == "ok":
            self.progress.setValue(1000)
            text = f"{self._run_analysis} done: {frames} in {outcome.wall_time:.2f} s"
            if summary.get("steps"):
                text += f", {count(summary['steps'], 'step')}"
            if summary.get("max_energy_drift") is not None:
                text += f", max energy drift {summary['max_energy_drift']:.3g} J"
            warnings = self._step_warnings(outcome, run)
            for warning in warnings:
                text += f"; warning: {warning}"
            self.statusBar().showMessage(text, 30_000 if warnings else 15_000)
            self.log_message(text)
            if summary.get("dof") is not None:
                self.dof_label.setText(f"DOF {summary['dof']}")
        elif outcome.status == "cancelled":
            text = f"stopped: {outcome.message or 'cancelled'}; {frames} kept"
            self.statusBar().showMessage(text, 15_000)
            self.log_message(text)
        elif outcome.status == "failed":
            self.log_message(f"failed: {outcome.message}")
            self.statusBar().showMessage("The solver failed; the results so far are kept", 15_000)
            QMessageBox.warning(
                self,
                "Simulation failed",
                f"{outcome.message}\n\nThe {frames} computed up to the failure are kept: "
                "play them back, plot them or export them.",
            )
        else:
            self.log_message(f"cannot run: {outcome.message}")
            self.statusBar().showMessage("Cannot run", 15_000)
            QMessageBox.critical(self, "Cannot run the analysis", outcome.message)

    def _step_warnings(self, outcome: RunOutcome, run: RunData | None) -> list[str]:
        """The time step's stability and accuracy warnings (``app.run_report``)."""
        unstable = stability_warning(outcome.result)
        if unstable:  # the step exceeds the stability monitor's estimate
            return [unstable]
        if run is None or len(run) < 2:
            return []
        stability = getattr(outcome.result, "stability", None)
        inaccurate = accuracy_warning(
            outcome.summary or {}, stability, energy_exchanged(run.columns, run.data)
        )
        return [inaccurate] if inaccurate else []

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
        """A save dialog starting in the folder of the last export (``_save_folder``)."""
        start = self._save_folder("exports") / default
        path, _ = QFileDialog.getSaveFileName(self, title, str(start), filters)
        if not path:
            return None
        self.settings.set_folder("exports", Path(path).parent)
        return Path(path)

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
            QMessageBox.critical(self, "Cannot export", file_message(path, exc))
            return
        self.log_message(f"results written to {path}")

    def export_plot_dialog(self, plot) -> PlotExportDialog:
        """File ▸ Export ▸ Plot: file, size in pixels, time cursor or not (non-blocking)."""
        start = self._save_folder("exports") / f"{self._stem()}_{plot.spec.key}.png"
        size = self.settings.export_size() or DEFAULT_EXPORT_SIZE
        dialog = PlotExportDialog(plot.spec.title, start, size, self)
        dialog.accepted.connect(lambda: self._export_plot_chosen(plot, dialog))
        self.plot_export_dialog = dialog
        dialog.open()
        return dialog

    def _export_plot_chosen(self, plot, dialog: PlotExportDialog) -> None:
        path, size, with_cursor = dialog.choice()
        cursor = self.playback.index if with_cursor and self.run_data is not None else None
        try:
            plot.export(path, size, cursor)
        except Exception as exc:
            QMessageBox.critical(self, "Cannot export", file_message(path, exc))
            return
        self.settings.set_folder("exports", path.parent)
        self.settings.set_export_size(size)
        self.log_message(f"plot written to {path} ({size[0]} × {size[1]} px)")

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
            QMessageBox.critical(self, "Cannot save screenshot", file_message(path, exc))
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
            QMessageBox.critical(self, "Cannot export animation", file_message(path, exc))
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
        self.runner.shutdown()  # the run, if any, and the solver process
        self._refresh_timer.stop()
        self.playback.stop()
        self.plot_sizer.set_maximised(False)  # save the normal layout
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


__all__ = ["MainWindow", "file_message", "run_gui", "stability_warning", "window_title"]
