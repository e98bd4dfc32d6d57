"""Wires the building tools into the main window: Build toolbar and menu, the Edit dock
(palette settings, typed placement, item editor, live-check messages), scene refresh after
each edit, live DOF check in the status bar and highlighting of redundant or conflicting
joints.

``install_build(window)`` is the only call the main window makes.
"""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QBrush, QColor, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app.builder import shapes
from app.builder.editor import ModelEditor, unique_name
from app.builder.edits import CHANGED_FIELD, EditRefused, ModelEdit, Snapshot, validated
from app.builder.form import ItemForm, parse_numbers
from app.builder.generators_dialog import GeneratorsDialog
from app.builder.live_check import LiveReport, assembled_model, live_check
from app.builder.picking import WORK_PLANES
from app.builder.tools import AXIS_MODES, JOINT_TOOLS, BuildTools
from solver import AssemblyError
from solver.model import ModelError
from solver.model import description as d

FLAG_COLOR = "#d7301f"
AXIS_LABELS = {"plane": "Axis: plane", "face": "Axis: face", "two points": "Axis: 2 pts"}
AXIS_TIPS = {
    "plane": "Joint axis: the work plane's normal (a planar mechanism's hinges)",
    "face": "Joint axis: the normal of the face clicked first (the work plane's on the grid)",
    "two points": "Joint axis: two more clicks give its direction",
}
GRID_COLOR = "#9fb3c8"
GRID_LINES = 20  # the work-plane grid's drawn divisions a side, at most
TOOL_LABELS = {
    "select": "Select",
    "move": "Move",
    "box": "Box",
    "cylinder": "Cylinder",
    "sphere": "Sphere",
    "rod": "Rod",
    "revolute": "Revolute",
    "spherical": "Spherical",
    "prismatic": "Prismatic",
    "cylindrical": "Cylindr.",
    "universal": "Universal",
    "planar": "Planar",
    "fixed": "Fixed",
    "point_on_line": "Pt-line",
    "point_on_plane": "Pt-plane",
    "distance": "Distance",
    "spring": "Spring",
    "trace": "Trace",
}


class BuildController:
    """Owns the editor, the mouse tools and the Edit dock of one main window."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.document = window.document
        self.viewport = window.viewport
        self.editor = ModelEditor(self.document)
        self.tools = BuildTools(self.viewport, self.editor, window)
        self.picker = self.tools.picker
        self.report: LiveReport | None = None
        self._grid_actor = None
        self._flagged: dict[tuple[str, str], str] = {}
        self._check_timer = QTimer(window)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(0)
        self._check_timer.timeout.connect(self.run_live_check)
        self._create_dock()
        self._create_actions()
        self._create_toolbars()
        self._create_menu()
        self.document.changed.connect(self._document_changed)
        self.document.replaced.connect(self._document_replaced)
        self.document.lock_changed.connect(self._lock_changed)
        self.tools.cursor_moved.connect(self._cursor_moved)
        window.tree.item_selected.connect(self._selected)
        self.tools.message.connect(self._message)
        self.tools.tool_changed.connect(self._tool_changed)
        self.tools.trace_added.connect(self.add_trace_plot)
        self.form.committed.connect(self._select_later)
        window.properties.validate = self.validate_field
        window.properties.refused.connect(self._refused)

    # -- construction ------------------------------------------------------------------------

    def _spin(
        self, name: str, low: float, high: float, decimals: int, value: float, suffix: str, tip: str
    ) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self.window)
        box.setObjectName(name)
        box.setRange(low, high)
        box.setDecimals(decimals)
        box.setValue(value)
        box.setSuffix(suffix)
        box.setToolTip(tip)
        box.setKeyboardTracking(False)
        box.valueChanged.connect(self._palette_changed)
        return box

    def _create_dock(self) -> None:
        w = self.window
        self.density = self._spin(
            "buildDensity",
            1.0,
            1e5,
            0,
            shapes.STEEL,
            " kg/m³",
            "Density of new bodies: their mass and inertia follow",
        )
        self.size = self._spin(
            "buildSize",
            0.001,
            100,
            3,
            self.tools.size,
            " m",
            "Size of new boxes (edge), spheres and cylinders (diameter)",
        )
        self.rod_radius = self._spin(
            "buildRodRadius", 0.0005, 10, 4, self.tools.rod_radius, " m", "Radius of new rods"
        )
        self.grid_step = self._spin(
            "buildGridStep",
            0.0,
            10,
            3,
            self.picker.grid_step,
            " m",
            "Clicks on the work plane snap to this grid (0: no snapping)",
        )
        self.coordinates = QLineEdit(w)
        self.coordinates.setObjectName("buildCoordinates")
        self.coordinates.setPlaceholderText("x, y, z (rod: x1, y1, z1; x2, y2, z2)")
        self.coordinates.setToolTip(
            "Typed placement: Enter places the active tool's body here (a rod: both ends), or "
            "counts as a click of a joint, spring or trace tool at this point"
        )
        self.coordinates.setMinimumWidth(200)
        self.coordinates.returnPressed.connect(self.place_typed)

        panel = QWidget(w)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(4, 4, 4, 4)
        self.problems = QLabel("", panel)
        self._shown_problems: tuple[list[str], list[str]] = ([], [])
        self.problems.setObjectName("buildProblems")
        self.problems.setWordWrap(True)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.problems)
        self.form = ItemForm(self.editor, panel)
        layout.addWidget(self.form, 1)
        dock = QDockWidget("Edit", w)
        dock.setObjectName("editDock")
        dock.setWidget(panel)
        w.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        w.tabifyDockWidget(w.properties_dock, dock)
        dock.raise_()
        w.resizeDocks([w.tree_dock, dock], [250, 560], Qt.Orientation.Vertical)
        self.dock = dock

    def _create_actions(self) -> None:
        w = self.window
        self.tool_group = QActionGroup(w)
        self.tool_group.setExclusive(True)
        self.tool_actions: dict[str, QAction] = {}
        for tool, label in TOOL_LABELS.items():
            action = QAction(label, w)
            action.setCheckable(True)
            action.setObjectName(f"tool_{tool}")
            action.setToolTip(self.tools.prompt() if tool == "select" else _tip(tool))
            action.triggered.connect(lambda _=False, t=tool: self.set_tool(t))
            self.tool_group.addAction(action)
            self.tool_actions[tool] = action
        self.tool_actions["select"].setChecked(True)
        self.axis_group = QActionGroup(w)
        self.axis_actions: dict[str, QAction] = {}
        for mode in AXIS_MODES:
            label = AXIS_LABELS.get(mode, mode)
            action = QAction(label, w)
            action.setCheckable(True)
            action.setObjectName(f"axis_{mode.replace(' ', '_')}")
            action.setToolTip(AXIS_TIPS.get(mode, f"Joint axis along global {mode}"))
            action.triggered.connect(lambda _=False, m=mode: self.set_axis_mode(m))
            self.axis_group.addAction(action)
            self.axis_actions[mode] = action
        self.axis_actions[self.tools.axis_mode].setChecked(True)
        self.plane_group = QActionGroup(w)
        self.plane_actions: dict[str, QAction] = {}
        for plane in WORK_PLANES:
            action = QAction(f"Plane {plane}", w)
            action.setCheckable(True)
            action.setObjectName(f"plane_{plane}")
            action.setToolTip(f"Clicks on empty space land on the {plane} plane")
            action.triggered.connect(lambda _=False, p=plane: self.set_work_plane(p))
            self.plane_group.addAction(action)
            self.plane_actions[plane] = action
        self.plane_actions[self.picker.plane].setChecked(True)
        self.mesh_action = QAction("Mesh…", w)
        self.mesh_action.setObjectName("addMesh")
        self.mesh_action.setToolTip("Add a body from an STL or OBJ file")
        self.mesh_action.triggered.connect(self.add_mesh_dialog)
        self.delete_action = QAction("Delete", w)
        self.delete_action.setObjectName("deleteSelected")
        self.delete_action.setShortcut(QKeySequence.StandardKey.Delete)
        self.delete_action.triggered.connect(self.delete_selected)
        self.assemble_action = QAction("Close gaps", w)
        self.assemble_action.setObjectName("assembleModel")
        self.assemble_action.setToolTip(
            "Assemble: move the bodies so that every joint closes (undoable); reports the residual"
        )
        self.assemble_action.triggered.connect(self.assemble_model)
        self.generators_action = QAction("Generators…", w)
        self.generators_action.setObjectName("generators")
        self.generators_action.triggered.connect(self.generators_dialog)
        self.cancel_action = QAction("Cancel tool", w)
        self.cancel_action.setShortcut(QKeySequence("Esc"))
        self.cancel_action.triggered.connect(lambda: self.set_tool("select"))

    def _create_toolbars(self) -> None:
        w = self.window
        actions = QToolBar("Build actions", w)
        actions.setObjectName("buildActionsToolbar")
        actions.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in (self.delete_action, self.assemble_action, self.generators_action):
            actions.addAction(action)
        w.addToolBar(Qt.ToolBarArea.TopToolBarArea, actions)
        self.actions_toolbar = actions
        w.addToolBarBreak()
        tb = QToolBar("Build", w)
        tb.setObjectName("buildToolbar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for tool in TOOL_LABELS:
            tb.addAction(self.tool_actions[tool])
            if tool in ("move", "rod", "distance"):
                if tool == "rod":
                    tb.addAction(self.mesh_action)
                tb.addSeparator()
        w.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
        w.addToolBarBreak()
        options = QToolBar("Build options", w)
        options.setObjectName("buildOptionsToolbar")
        options.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.axis_actions.values():
            options.addAction(action)
        options.addSeparator()
        for action in self.plane_actions.values():
            options.addAction(action)
        options.addSeparator()
        for label, widget in (
            ("ρ", self.density),
            ("size", self.size),
            ("rod r", self.rod_radius),
            ("grid", self.grid_step),
            ("at", self.coordinates),
        ):
            options.addWidget(QLabel(f" {label} ", options))
            options.addWidget(widget)
        w.addToolBar(Qt.ToolBarArea.TopToolBarArea, options)
        self.toolbar = tb
        self.options_toolbar = options

    def _create_menu(self) -> None:
        bar = self.window.menuBar()
        menu = QMenu("&Build", bar)
        menu.setObjectName("buildMenu")
        help_action = next((a for a in bar.actions() if a.text() == "&Help"), None)
        if help_action is not None:  # File Edit View Simulate Build Help
            bar.insertMenu(help_action, menu)
        else:
            bar.addMenu(menu)
        tools = menu.addMenu("&Tool")
        for action in self.tool_actions.values():
            tools.addAction(action)
        axis = menu.addMenu("Joint &axis")
        for action in self.axis_actions.values():
            axis.addAction(action)
        plane = menu.addMenu("Work &plane")
        for action in self.plane_actions.values():
            plane.addAction(action)
        menu.addAction(self.mesh_action)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.addAction(self.assemble_action)
        menu.addAction(self.generators_action)
        menu.addAction(self.cancel_action)
        self.menu = menu

    def validate_field(self, target: Any, field: str, value: Any) -> str | None:
        """Why ``target.field = value`` is refused by the model format (None: accepted)."""
        from app.builder.editor import category_of, with_value

        try:
            category = category_of(target)
            new = with_value(target, (field,), value)
            self.editor.trial(lambda m: _swap(m, category, target.name, new))
        except (EditRefused, TypeError) as error:
            return str(error)
        return None

    def add_trace_plot(self, name: str) -> None:
        """A plot of the x, y, z of output point ``name`` (filled by the next run)."""
        from app.plots import PlotSpec

        plots = self.window.plots
        key = f"trace_{name}"
        if any(plot.spec.key == key for plot in plots.plots):
            return
        curves = [(f"{name}.{axis}", axis) for axis in "xyz"]
        plots.add(
            PlotSpec(
                key,
                f"Trace {name}",
                curves,
                y_label="position (m)",
                colors=["#d62728", "#2ca02c", "#1f77b4"],
            )
        )

    def _refused(self, reason: str) -> None:
        self.form.error.setText(f"Refused: {reason}")
        self._message(f"Refused: {reason}")

    # -- settings --------------------------------------------------------------------------------

    def set_tool(self, tool: str) -> None:
        if self.document.model is None and tool != "select":
            self.document.new()
        self.tools.set_tool(tool)

    def _tool_changed(self, tool: str) -> None:
        action = self.tool_actions.get(tool)
        if action is not None and not action.isChecked():
            action.setChecked(True)
        self._show_grid(tool != "select")

    def set_axis_mode(self, mode: str) -> None:
        self.tools.set_axis_mode(mode)
        self.axis_actions[self.tools.axis_mode].setChecked(True)
        self._message(self.tools.prompt())

    def set_work_plane(self, plane: str) -> None:
        self.picker.plane = plane
        self.plane_actions[plane].setChecked(True)
        self._show_grid(self.tools.tool != "select")
        self.frame_work_plane()

    def _palette_changed(self) -> None:
        self.tools.density = self.density.value()
        self.tools.size = self.size.value()
        self.tools.rod_radius = self.rod_radius.value()
        self.picker.grid_step = self.grid_step.value()
        self.form.density = self.density.value()
        if self._grid_actor is not None:
            self._show_grid(True)

    def _message(self, text: str) -> None:
        if text:
            self.window.statusBar().showMessage(text, 20_000)

    # -- the work-plane grid -------------------------------------------------------------------------

    def _show_grid(self, visible: bool) -> None:
        plotter = self.viewport.plotter
        if plotter is None:
            return
        if self._grid_actor is not None:
            plotter.remove_actor(self._grid_actor, render=False)
            self._grid_actor = None
        if visible:
            import pyvista

            step = self.picker.grid_step or 0.05
            n = 40
            while n * step < 1.0:
                n *= 2
            # drawn with at most GRID_LINES lines a side (a multiple of the snapping step)
            drawn = n // max(1, -(-n // GRID_LINES))
            normal = np.asarray(WORK_PLANES[self.picker.plane], float)
            plane = pyvista.Plane(
                center=tuple(normal * self.picker.plane_offset),
                direction=tuple(normal),
                i_size=n * step,
                j_size=n * step,
                i_resolution=drawn,
                j_resolution=drawn,
            )
            self._grid_actor = plotter.add_mesh(
                plane,
                style="wireframe",
                color=GRID_COLOR,
                opacity=0.5,
                line_width=1,
                pickable=False,
                lighting=False,
                reset_camera=False,
                render=False,
                name="build_work_grid",
            )
        self.viewport.request_render()

    def frame_work_plane(self, half_width: float = 0.8) -> None:
        """Look straight at the work plane, around the model (or the origin)."""
        plotter = self.viewport.plotter
        if plotter is None:
            return
        normal = np.asarray(WORK_PLANES[self.picker.plane], float)
        model = self.document.model
        center = np.zeros(3)
        if model is not None and model.bodies:
            from app import scene

            pts = scene.model_points(model)
            center = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
            half_width = max(half_width, 0.7 * float(np.ptp(pts, axis=0).max()))
        up = {"XY": (0, 1, 0), "XZ": (0, 0, 1), "YZ": (0, 0, 1)}[self.picker.plane]
        camera = plotter.camera
        angle = np.radians(camera.view_angle)
        distance = half_width / np.tan(angle / 2)
        sign = -1.0 if self.picker.plane == "XZ" else 1.0  # look at XZ from −y (x right)
        camera.focal_point = tuple(center)
        camera.position = tuple(center + sign * normal * distance)
        camera.up = up
        plotter.renderer.ResetCameraClippingRange()
        plotter.render()

    # -- document changes -------------------------------------------------------------------------

    def _document_replaced(self) -> None:
        self.tools.cancel()
        self.form.show_item(None, None)
        self._flagged = {}
        if self.tools.tool != "select":
            self._show_grid(True)
        self.schedule_check()

    def _document_changed(self, field: str) -> None:
        if field != CHANGED_FIELD:
            self.schedule_check()
            self.form.rebuild()
            return
        self.refresh_scene()

    def refresh_scene(self) -> None:
        """Redraw the model after an edit, keeping the camera, and re-select."""
        w = self.window
        model = self.document.model
        selected = w.tree.selected()
        plotter = self.viewport.plotter
        camera = plotter.camera_position if plotter is not None else None
        if not w.runner.running:
            w.playback.stop()
            w._set_run(None)
        with QSignalBlocker(w.tree):
            w.tree.set_model(model)
        model_dir = self.document.path.parent if self.document.path else None
        with _renders_deferred(plotter):  # one render below instead of three
            self.viewport.set_model(model, model_dir)
        if plotter is not None:
            if camera is not None:
                plotter.camera_position = camera
            else:
                self.frame_work_plane()
            self.tools._markers.clear()
            if self.tools.tool != "select":
                self._show_grid(True)
            plotter.render()
        key = self.tools.last_added or selected
        self.tools.last_added = None
        if key is not None and model is not None:
            w.tree.select(*key)
            if w.tree.selected() is None:
                w._item_selected("", "")
        else:
            w._item_selected("", "")
        w._update_title()
        w._update_actions()
        self.schedule_check()

    def _selected(self, category: str, name: str) -> None:
        self.form.show_item(category or None, name or None)
        self._apply_flags()

    def _select_later(self, category: str, name: str) -> None:
        QTimer.singleShot(0, lambda: self.window.tree.select(category, name))

    # -- live check --------------------------------------------------------------------------------

    def schedule_check(self) -> None:
        """Check the model once the current event is handled (edits come in bursts)."""
        self.report = None
        self._check_timer.start()

    def run_live_check(self) -> LiveReport | None:
        model = self.document.model
        if model is None:
            self.report = None
            return None
        report = live_check(model)
        self.report = report
        w = self.window
        w.dof_label.setText(report.status())
        lines = []
        if report.error:
            lines.append(report.error)
        if report.redundant:
            lines.append(report.redundancy_text())
        lines += report.warnings
        notes = [report.passive_text()] if report.passive else []
        tip = "\n".join(lines + notes) or (
            "Degrees of freedom: numerical (rank of Φ_q) and Grübler's count"
        )
        w.dof_label.setToolTip(tip)
        self._show_problems(lines, notes)
        self._flagged = report.flagged()
        self._apply_flags()
        return report

    def _show_problems(self, lines: list[str], notes: list[str] | None = None) -> None:
        """The Edit panel's note: why the model is locked (a run), the check's notes (grey)
        and its problems (red)."""
        self._shown_problems = (list(lines), list(notes or []))
        html = []
        if self.document.locked:
            locked = self.document.locked
            reason = _html(locked[:1].upper() + locked[1:])
            html.append(f"<span style='color:#5a6270'>{reason}.</span>")
        for note in notes or []:
            html.append(f"<span style='color:#5a6270'>{_html(note)}</span>")
        if lines:
            html.append(
                "<span style='color:#b3261e'>" + "<br>".join(_html(x) for x in lines) + "</span>"
            )
        self.problems.setText("<br>".join(html))

    def _apply_flags(self) -> None:
        tree = self.window.tree
        for category in ("joint", "driver"):
            model = self.document.model
            if model is None:
                break
            items = model.joints if category == "joint" else model.drivers
            for item in items:
                node = tree.item_for(category, item.name)
                if node is None:
                    continue
                reason = self._flagged.get((category, item.name))
                node.setForeground(0, QBrush(QColor(FLAG_COLOR)) if reason else QBrush())
                node.setToolTip(0, reason or "")
        viewport = self.viewport
        if viewport.plotter is None:
            return
        for key, item in viewport.items.items():
            if key == viewport.selected:
                continue
            flagged = key in self._flagged
            for actor, color in zip(item.actors, item.colors, strict=True):
                actor.prop.color = FLAG_COLOR if flagged else color
        viewport.request_render()

    # -- actions -------------------------------------------------------------------------------------

    def place_typed(self) -> bool:
        """Enter in "at": the active tool's body at the typed coordinates (a rod: both ends),
        or a click of a joint, spring, distance or trace tool at that point."""
        text = self.coordinates.text()
        tool = self.tools.tool
        if tool in ("select", "move"):
            self._message(
                "Typed coordinates place a body or a joint point: choose a Build tool first"
            )
            return False
        try:
            if tool == "rod":
                v = parse_numbers(text, (6,))
                points = [np.array(v[:3]), np.array(v[3:])]
            else:
                points = [np.array(parse_numbers(text, (3,)))]
            for p in points:
                self.tools.use_typed(p)
        except (ValueError, EditRefused) as error:
            self.tools.cancel()
            self._message(f"Not placed: {error}")
            return False
        if self.tools.pending:  # a joint or spring waiting for its next point
            self._message(self.tools.prompt() + " (or type its coordinates)")
        return True

    # -- run lock and cursor ------------------------------------------------------------------

    def _lock_changed(self, reason: str) -> None:
        """While a run streams, no tool edits the model (the Select tool stays)."""
        locked = bool(reason)
        if locked:
            self.set_tool("select")
        for action in [
            *self.tool_actions.values(),
            self.mesh_action,
            self.delete_action,
            self.assemble_action,
            self.generators_action,
        ]:
            if action is not self.tool_actions["select"]:
                action.setEnabled(not locked)
        self.coordinates.setEnabled(not locked)
        self.form.setEnabled(not locked)
        if locked:
            self._show_problems([])
        else:  # the lock's note goes at once; the check then brings its own
            self._show_problems(*self._shown_problems)
            self.schedule_check()

    def _cursor_moved(self, point, label: str) -> None:
        readout = self.window.status.cursor
        if point is None:
            readout.setText("")
            return
        x, y, z = (float(v) + 0.0 for v in point)
        readout.setText(f"x {x:.3f}  y {y:.3f}  z {z:.3f} m" + (f" ({label})" if label else ""))

    def add_mesh_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Add a mesh body", str(Path.cwd()), "Meshes (*.stl *.obj);;All (*)"
        )
        if path:
            self.add_mesh(path)

    def add_mesh(self, path: str | Path) -> str | None:
        """Add a body from an STL/OBJ file (mass and inertia from its volume and density)."""
        path = Path(path)
        stored = str(path)
        if self.document.path is not None:
            try:
                stored = str(path.resolve().relative_to(self.document.path.parent.resolve()))
            except ValueError:
                stored = str(path.resolve())
        if self.document.model is None:
            self.document.new()
        name = unique_name(self.document.model, path.stem or "mesh")
        try:
            body = shapes.mesh_body(name, path, self.density.value(), stored_path=stored)
            self.tools.last_added = ("body", name)
            self.editor.add(body)
        except (ValueError, OSError, EditRefused) as error:
            self._message(f"Mesh not added: {error}")
            self.tools.last_added = None
            return None
        return name

    def delete_selected(self) -> bool:
        key = self.window.tree.selected()
        if key is None:
            return False
        return self.tools.delete(*key)

    def assemble_model(self) -> float | None:
        """Close the gaps: bodies moved to the solution of the position problem (undoable)."""
        model = self.document.model
        if model is None:
            return None
        try:
            assembled, residual, iterations = assembled_model(model)
            before = Snapshot.of(model)
            after = Snapshot.of(validated(assembled))
        except (ModelError, EditRefused, AssemblyError, ArithmeticError, ValueError) as error:
            self._message(f"Cannot assemble: {error}")
            self.window.log_message(f"assemble: {error}")
            return None
        text = f"Assembled: residual {residual:.3g} after {iterations} Newton iterations"
        if before != after:
            self.document.undo_stack.push(ModelEdit(self.document, before, after, "Assemble"))
        self._message(text)
        self.window.log_message(text)
        return residual

    def generators_dialog(self) -> GeneratorsDialog:
        dialog = GeneratorsDialog(self.window)
        dialog.accepted.connect(lambda: self.use_generated(dialog.result_model))
        dialog.open()
        self.dialog = dialog
        return dialog

    def use_generated(self, model: d.Model | None) -> bool:
        """Make a generated model the document (asks about unsaved changes first)."""
        if model is None or not self.window.new_model():
            return False
        doc = self.document
        doc.model.solver = copy.deepcopy(model.solver)
        self.editor.apply(f"Generate {model.name}", lambda m: Snapshot.of(model).apply_to(m))
        self.window.solver_panel.refresh()
        self.frame_work_plane()
        self.window.viewport.camera_preset("iso")
        return True


def _swap(model: d.Model, category: str, name: str, new: Any) -> None:
    from app.builder.editor import LISTS, find

    items = getattr(model, LISTS[category])
    items[items.index(find(model, category, name))] = new


@contextlib.contextmanager
def _renders_deferred(plotter: Any):
    """Make ``plotter.render`` a no-op inside the block (the caller renders once after)."""
    if plotter is None:
        yield
        return
    plotter.render = lambda *args, **kwargs: None
    try:
        yield
    finally:
        del plotter.render  # the class's method again


def _tip(tool: str) -> str:
    if tool in JOINT_TOOLS:
        return (
            f"{tool.replace('_', ' ').capitalize()} joint: click the joint point on the "
            "first body (or the grid for ground), then the second body"
        )
    return {
        "move": "Drag a body in the work plane",
        "box": "Click to place a box (size from the Edit panel)",
        "cylinder": "Click to place a cylinder along the joint-axis direction",
        "sphere": "Click to place a sphere",
        "rod": "Click the two ends of a rod",
        "spring": "Spring-damper: click a point on each body",
        "trace": "Click a point of a body to trace it (output point)",
    }.get(tool, "")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def install_build(window: Any) -> BuildController:
    """Add the building tools to ``window`` (a ``MainWindow``)."""
    return BuildController(window)
