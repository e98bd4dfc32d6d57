"""Mouse tools of the 3D view: place bodies, draw rods, add joints and springs, move bodies,
trace points, and the right-click menu (forces, torques, drivers, trace, move, delete).

``BuildTools`` filters the viewport's mouse events. With the ``select`` tool, clicks pass to
the viewport (selection, camera). Any other tool takes left clicks (the camera does not
move on them): each click is resolved by ``picking.Picker`` to a point, a body and a face
normal, and the tool makes its edit through the ``ModelEditor`` once it has its clicks:

- ``box``, ``cylinder``, ``sphere``: one click (on the grid, or on a body: the new body
  sits on the picked face);
- ``rod``: two clicks, its ends; joint types: click the joint point on the first body (or
  on the grid: ground), then click the second body. The axis is the work plane's normal
  unless chosen otherwise (the clicked face's normal, a global axis, or with ``two points``
  two more clicks); an arrow shows it from the first click on. ``distance`` and
  ``spring``: a point on each body. Between the clicks of a rod, a spring or a distance a
  line follows the cursor (rubber band).
- typed coordinates (``use_typed``) count as a click at that point, on the bodies that have
  it (a shared rod end, a point inside a shape) or on ground.
- ``trace``: a point on a body becomes an output point;
- ``move``: drag a body; it follows the cursor in the work plane and is moved by one
  undoable edit on release.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QLineEdit, QMenu, QMessageBox, QWidget

from app.builder import shapes
from app.builder.editor import EditRefused, ModelEditor, dependents, find, unique_name
from app.builder.function_editor import FunctionEdit, ItemDialog, parse_function_text
from app.builder.picking import Pick, Picker
from solver.model import ModelError
from solver.model import description as d

BODY_TOOLS = ("box", "cylinder", "sphere", "rod")
#: Joint tools: joint type → clicks needed (axis from two more clicks comes on top).
JOINT_TOOLS = (
    "revolute",
    "spherical",
    "prismatic",
    "cylindrical",
    "universal",
    "planar",
    "fixed",
    "point_on_line",
    "point_on_plane",
    "distance",
)
TOOLS = ("select", "move", *BODY_TOOLS, *JOINT_TOOLS, "spring", "trace")
#: Where a joint's axis (or a planar joint's normal) comes from: the work plane's normal
#: (default), the normal of the face clicked first, a global axis, or two more clicks.
AXIS_MODES = ("plane", "face", "X", "Y", "Z", "two points")
AXIS_ALIASES = {"normal": "face"}
#: Tools whose second click is previewed by a line from the first (rubber band).
BAND_TOOLS = ("rod", "spring", "distance")
HOVER_MS = 30  # mouse moves are handled at most this often (picking costs a few ms)
NEEDS_AXIS = {"revolute", "prismatic", "cylindrical", "point_on_line", "universal"}
NEEDS_NORMAL = {"planar", "point_on_plane"}
PROMPTS = {
    "select": "Click to select; right-click for forces, drivers and traces",
    "move": "Drag a body to move it in the work plane (Shift+drag: rotate it)",
    "box": "Click on the grid or on a body to place a box",
    "cylinder": "Click on the grid or on a body to place a cylinder",
    "sphere": "Click on the grid or on a body to place a sphere",
    "rod": "Click the first end of the rod",
    "spring": "Click a point on the first body (or the grid for ground)",
    "distance": "Click a point on the first body (or the grid for ground)",
    "trace": "Click a point on a body to trace it",
}
CLICK_PIXELS = 4  # a press and release closer than this are a click, not a drag


def _vec(p) -> d.Vec3:
    return tuple(float(v) + 0.0 for v in p)


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


class BuildTools(QObject):
    """The active tool and its pending clicks (see the module docstring)."""

    message = Signal(str)  # prompts and results for the status bar
    trace_added = Signal(str)  # the name of a new output point
    tool_changed = Signal(str)
    #: the point under the cursor (what a click would use, None: off the work plane) and
    #: what it snapped to
    cursor_moved = Signal(object, str)

    def __init__(self, viewport: Any, editor: ModelEditor, parent: QWidget) -> None:
        super().__init__(parent)
        self.viewport = viewport
        self.editor = editor
        self.picker = Picker(viewport)
        self.parent_widget = parent
        self.tool = "select"
        self.axis_mode = "plane"
        self.density = shapes.STEEL
        self.size = 0.1  # m: box edge, sphere and cylinder diameter, cylinder length
        self.rod_radius = 0.015  # m
        self.spring_stiffness = 1000.0  # N/m
        self.spring_damping = 10.0  # N·s/m
        self.pending: list[Pick] = []
        self._markers: list = []
        self._press: QPoint | None = None
        self._drag: dict | None = None
        self.context_menu: QMenu | None = None
        self.dialog: ItemDialog | None = None
        self.last_added: tuple[str, str] | None = None
        self.ask_dependents: Callable[[str, str, list], str | None] = self._ask_dependents
        self._band: tuple[Any, Any] | None = None  # rubber band (mesh, actor)
        #: the arrow shown after a joint's first click: (point, axis), None when none
        self.axis_preview: tuple[np.ndarray, np.ndarray] | None = None
        self._hover_at: tuple[float, float] | None = None
        self._hover_timer = QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(HOVER_MS)
        self._hover_timer.timeout.connect(self._hover)
        if viewport.plotter is not None:
            viewport.plotter.installEventFilter(self)

    # -- state -----------------------------------------------------------------------------------

    @property
    def model(self) -> d.Model:
        return self.editor.model

    def set_tool(self, tool: str) -> None:
        if tool not in TOOLS:
            raise KeyError(tool)
        self.cancel()
        self.tool = tool
        self.tool_changed.emit(tool)
        self.message.emit(self.prompt())

    def prompt(self) -> str:
        if self.tool in PROMPTS and not self.pending:
            return PROMPTS[self.tool]
        if self.tool == "rod":
            return "Click the second end of the rod"
        if self.tool in JOINT_TOOLS or self.tool == "spring":
            name = self.tool.replace("_", " ")
            if not self.pending:
                return f"{name}: click the joint point on the first body (or the grid: ground)"
            if self.tool in ("distance", "spring"):
                return f"{name}: click a point on the second body"
            if len(self.pending) == 1:
                return f"{name}: click the second body"
            return (
                f"{name}: click {'the first' if len(self.pending) == 2 else 'the second'} "
                "point of the axis"
            )
        return ""

    def set_axis_mode(self, mode: str) -> None:
        mode = AXIS_ALIASES.get(mode, mode)
        if mode not in AXIS_MODES:
            raise KeyError(mode)
        self.axis_mode = mode
        self.cancel()

    def cancel(self) -> None:
        self.pending.clear()
        self._clear_markers()
        self._clear_band()
        self._drag = None

    # -- events ----------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        kind = event.type()
        if kind == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape:
            self.cancel()
            self.message.emit(self.prompt())
            return False
        if kind == QEvent.Type.Leave:  # the cursor left the view: no position to show
            self._hover_timer.stop()
            self._hover_at = None
            self.cursor_moved.emit(None, "")
            return False
        if kind not in (
            QEvent.Type.MouseButtonPress,
            QEvent.Type.MouseButtonRelease,
            QEvent.Type.MouseMove,
        ):
            return False
        pos = event.position().toPoint()
        button = event.button()
        if button == Qt.MouseButton.RightButton:
            if kind == QEvent.Type.MouseButtonPress:
                self._press = pos
            elif kind == QEvent.Type.MouseButtonRelease and self._press is not None:
                if (pos - self._press).manhattanLength() <= CLICK_PIXELS:
                    self.show_context_menu(pos.x(), pos.y())
                self._press = None
            return False
        if kind == QEvent.Type.MouseMove and event.buttons() == Qt.MouseButton.NoButton:
            self._hover_at = (pos.x(), pos.y())
            if not self._hover_timer.isActive():
                self._hover_timer.start()
        if self.tool == "select":
            return False
        if kind == QEvent.Type.MouseMove:
            if self._drag is not None:
                self._drag_to(pos.x(), pos.y())
                return True
            return False
        if button != Qt.MouseButton.LeftButton:
            return False
        if kind == QEvent.Type.MouseButtonPress:
            self._press = pos
            if self.tool == "move":
                rotate = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
                self._drag_start(pos.x(), pos.y(), rotate)
            return True
        if self._press is None:
            return True
        press, self._press = self._press, None
        if self.tool == "move":
            self._drag_end(pos.x(), pos.y())
        elif (pos - press).manhattanLength() <= CLICK_PIXELS:
            self.click(pos.x(), pos.y())
        return True

    def click(self, x: float, y: float) -> None:
        """A left click of the active tool at widget pixel (x, y)."""
        pick = self.picker.pick(x, y, self.editor.document.model)
        if pick is None:
            return
        try:
            self._use(pick)
        except (EditRefused, ValueError) as error:
            self.cancel()
            self.message.emit(f"Not added: {error}")

    def use_typed(self, point) -> None:
        """Typed coordinates: a click of the active tool at ``point`` (global, m), on the
        bodies that have that point (``picking.bodies_at``) or on ground."""
        from app.builder.picking import bodies_at

        p = np.asarray(point, float)
        bodies = bodies_at(self.editor.document.model or d.Model(), p)
        self._use(Pick(p, bodies[0] if bodies else d.GROUND, None, "typed", bodies))

    # -- hovering: cursor read-out and rubber band -----------------------------------------------

    def _hover(self) -> None:
        if self._hover_at is None or self.viewport.plotter is None:
            return
        x, y = self._hover_at
        model = self.editor.document.model
        if self.tool == "select" or model is None:
            point, label = self.picker.plane_point(x, y), f"{self.picker.plane} plane"
        else:
            pick = self.picker.pick(x, y, model)
            point = pick.point if pick is not None else None
            label = (pick.snapped or pick.body) if pick is not None else ""
        self.cursor_moved.emit(point, label)
        if point is not None and self.tool in BAND_TOOLS and len(self.pending) == 1:
            self._show_band(self.pending[0].point, point)

    def _show_band(self, a: np.ndarray, b: np.ndarray) -> None:
        """A line from the first click to the cursor: a rod's axis or a spring's coils."""
        plotter = self.viewport.plotter
        if plotter is None:
            return
        import pyvista

        from app import scene

        if self.tool == "spring":
            length = float(np.linalg.norm(b - a))
            points = scene.helix(a, b, min(0.06 * max(length, 1e-6), 0.05))
        else:
            points = np.vstack([a, b])
        if self._band is None:
            mesh = pyvista.lines_from_points(points)
            actor = plotter.add_mesh(
                mesh,
                color="#e6550d",
                line_width=3,
                pickable=False,
                lighting=False,
                reset_camera=False,
                render=False,
                name="build_rubber_band",
            )
            self._band = (mesh, actor)
        else:
            self._band[0].copy_from(pyvista.lines_from_points(points))
        self.viewport.request_render()

    def band_points(self) -> np.ndarray | None:
        """The rubber band's end points (tests), None when none is shown."""
        if self._band is None:
            return None
        pts = np.asarray(self._band[0].points)
        return np.vstack([pts[0], pts[-1]])

    def _clear_band(self) -> None:
        if self._band is not None and self.viewport.plotter is not None:
            self.viewport.plotter.remove_actor(self._band[1], render=False)
            self.viewport.request_render()
        self._band = None

    def _use(self, pick: Pick) -> None:
        tool = self.tool
        if tool in ("box", "cylinder", "sphere"):
            self._place(tool, pick)
        elif tool == "rod":
            self._collect(pick, 2, self._make_rod)
        elif tool in ("distance", "spring"):
            self._collect(pick, 2, self._make_link)
        elif tool in JOINT_TOOLS:
            needed = (
                4
                if self.axis_mode == "two points" and (tool in NEEDS_AXIS or tool in NEEDS_NORMAL)
                else 2
            )
            first = self.pending[0] if len(self.pending) == 1 else None
            if first is not None and pick.body == first.body:
                # the first click was on a point several bodies share (a rod end where two
                # rods meet): the second body is one of them, so the first is another
                others = [b for b in first.bodies if b != pick.body]
                if others:
                    first.body = others[0]
            if len(self.pending) == 1 and not self._second_body(pick):
                self.message.emit(
                    f"{tool.replace('_', ' ')}: that is the same body; click the second body"
                )
                return
            self._collect(pick, needed, self._make_joint)
        elif tool == "trace":
            self.add_trace(pick)

    def _collect(self, pick: Pick, needed: int, make: Callable[[list[Pick]], None]) -> None:
        self.pending.append(pick)
        self._mark(pick.point)
        axial = self.tool in NEEDS_AXIS or self.tool in NEEDS_NORMAL
        if len(self.pending) == 1 and axial and self.axis_mode != "two points":
            self._mark_axis(pick.point, self.axis_for(pick, None))
        if len(self.pending) < needed:
            self.message.emit(self.prompt())
            return
        picks = list(self.pending)
        self.cancel()
        make(picks)
        self.message.emit(self.prompt())

    # -- making items ------------------------------------------------------------------------------

    def _added(self, category: str, name: str, what: str) -> None:
        self.last_added = (category, name)
        self.message.emit(f"Added {what} {name}")

    def _place(self, kind: str, pick: Pick) -> None:
        size = self.size
        normal = _unit(pick.normal) if pick.normal is not None else self.picker.normal
        on_body = pick.body != d.GROUND
        centre = pick.point + (0.5 * size * normal if on_body else 0.0)
        name = unique_name(self.model, kind)
        if kind == "box":
            body = shapes.box(name, centre, (size, size, size), self.density)
        elif kind == "sphere":
            body = shapes.sphere(name, centre, size / 2, self.density)
        else:
            axis = self.axis_for(pick, None) if self.axis_mode != "two points" else normal
            half = 0.5 * size * _unit(axis)
            body = shapes.cylinder(name, centre - half, centre + half, size / 2, self.density)
        self.editor.add(body)
        self._added("body", name, kind)

    def _make_rod(self, picks: list[Pick]) -> None:
        name = unique_name(self.model, "rod")
        self.editor.add(
            shapes.rod(name, picks[0].point, picks[1].point, self.rod_radius, self.density)
        )
        self._added("body", name, "rod")

    def _second_body(self, pick: Pick) -> str | None:
        """The second body of a joint: the clicked body unless it is the first one, then
        another body at the same snapped point, else ground."""
        first = self.pending[0].body
        if pick.body != first:
            return pick.body
        others = [b for b in pick.bodies if b != first]
        if others:
            return others[0]
        if first != d.GROUND and not pick.bodies:
            return d.GROUND
        return None

    def axis_for(self, first: Pick, picks: list[Pick] | None) -> np.ndarray:
        """The joint axis of the axis mode: a global axis, the two extra clicks, the clicked
        face's normal (``face``; the work plane's on the grid) or the work plane's normal."""
        mode = self.axis_mode
        if mode in ("X", "Y", "Z"):
            return np.eye(3)["XYZ".index(mode)]
        if mode == "two points" and picks is not None and len(picks) >= 4:
            axis = picks[3].point - picks[2].point
            if np.linalg.norm(axis) <= 0:
                raise EditRefused("the two axis points coincide: the axis has zero length")
            return _unit(axis)
        if mode == "face" and first.normal is not None and np.linalg.norm(first.normal) > 0:
            return _unit(first.normal)
        return self.picker.normal

    def _make_joint(self, picks: list[Pick]) -> None:
        kind = self.tool
        first = picks[0]
        body1 = first.body
        self.pending = [first]
        body2 = self._second_body(picks[1])
        self.pending = []
        if body2 is None:
            raise EditRefused("a joint needs two different bodies")
        if body2 == d.GROUND and body1 != d.GROUND:
            body1, body2 = d.GROUND, body1
        name = unique_name(self.model, "J")
        point = _vec(first.point)
        joint = d.Joint(name=name, type=kind, body1=body1, body2=body2)
        axis = _vec(np.round(self.axis_for(first, picks), 15))
        joint.point = point
        if kind in ("revolute", "prismatic", "cylindrical", "point_on_line"):
            joint.axis = axis
        elif kind in NEEDS_NORMAL:
            joint.normal = axis
        elif kind == "universal":
            a1 = np.asarray(axis)
            helper = self.picker.normal if abs(a1 @ self.picker.normal) < 0.9 else np.eye(3)[0]
            joint.axis1 = axis
            joint.axis2 = _vec(_unit(np.cross(a1, helper)))
        self.editor.add(joint)
        self._added("joint", name, f"{kind.replace('_', ' ')} joint")

    def _make_link(self, picks: list[Pick]) -> None:
        a, b = picks
        if a.body == b.body:
            others = [x for x in b.bodies if x != a.body]
            b = Pick(b.point, others[0] if others else d.GROUND, b.normal, b.snapped, b.bodies)
        if a.body == b.body:
            raise EditRefused("the two points are on the same body")
        if self.tool == "distance":
            self.pending = []
            self._make_joint_distance(a, b)
            return
        name = unique_name(self.model, "spring")
        length = float(np.linalg.norm(b.point - a.point))
        force = d.Force(
            name=name,
            type="spring_damper",
            body1=a.body,
            point1=_vec(a.point),
            body2=b.body,
            point2=_vec(b.point),
            stiffness=self.spring_stiffness,
            damping=self.spring_damping,
            free_length=length,
        )
        self.editor.add(force)
        self._added("force", name, "spring")

    def _make_joint_distance(self, a: Pick, b: Pick) -> None:
        name = unique_name(self.model, "J")
        joint = d.Joint(
            name=name,
            type="distance",
            body1=a.body,
            body2=b.body,
            point1=_vec(a.point),
            point2=_vec(b.point),
        )
        self.editor.add(joint)
        self._added("joint", name, "distance joint")

    def add_trace(self, pick: Pick) -> None:
        if pick.body == d.GROUND:
            self.message.emit("Trace: click a point on a body (ground does not move)")
            return
        name = unique_name(self.model, "P")
        self.editor.add(d.Output(name=name, body=pick.body, point=_vec(pick.point)))
        self._added("output", name, "trace point")
        self.trace_added.emit(name)

    # -- moving by dragging ------------------------------------------------------------------------

    def _drag_start(self, x: float, y: float, rotate: bool = False) -> None:
        pick = self.picker.pick(x, y, self.editor.document.model)
        if pick is None or pick.body == d.GROUND or pick.item is None:
            self._drag = None
            return
        start = self.picker.plane_point(x, y)
        item = self.viewport.items.get(("body", pick.body))
        if start is None or item is None:
            return
        body = self.model.body(pick.body)
        self._drag = {
            "body": pick.body,
            "start": start,
            "actors": item.actors,
            "shift": None,
            "rot": None,
            "rotate": rotate and isinstance(body, d.RigidBody),
            "centre": np.asarray(body.position, float) if body is not None else start,
        }

    def _drag_to(self, x: float, y: float) -> None:
        """Translate (or with Shift, rotate about the work plane's normal through the centre
        of mass, in 5° steps) the dragged body's actors as a preview."""
        drag = self._drag
        now = self.picker.plane_point(x, y)
        if drag is None or now is None:
            return
        matrix = np.eye(4)
        if drag["rotate"]:
            from app.builder.editor import axis_rotation

            n = self.picker.normal
            c = drag["centre"] - (drag["centre"] - now) @ n * n  # centre, in the plane
            a, b = drag["start"] - c, now - c
            angle = float(np.arctan2(np.cross(a, b) @ n, a @ b))
            angle = np.radians(5.0) * round(np.degrees(angle) / 5.0)
            rot = axis_rotation(n, angle)
            matrix[:3, :3] = rot
            matrix[:3, 3] = drag["centre"] - rot @ drag["centre"]
            drag["rot"] = rot if angle else None
        else:
            matrix[:3, 3] = now - drag["start"]
            drag["shift"] = now - drag["start"]
        for actor in drag["actors"]:
            actor.user_matrix = matrix
        self.viewport.request_render()

    def _drag_end(self, x: float, y: float) -> None:
        drag, self._drag = self._drag, None
        if drag is None:
            return
        self._drag = drag
        self._drag_to(x, y)
        self._drag = None
        shift, rot = drag["shift"], drag["rot"]
        for actor in drag["actors"]:
            actor.user_matrix = np.eye(4)
        if rot is None and (shift is None or np.linalg.norm(shift) == 0):
            self.viewport.request_render()
            return
        try:
            if rot is not None:
                self.editor.move_body(drag["body"], np.zeros(3), rot, drag["centre"])
                self.message.emit(f"Rotated {drag['body']}")
                return
            self.editor.move_body(drag["body"], shift)
        except EditRefused as error:
            self.message.emit(f"Not moved: {error}")
            self.viewport.request_render()
            return
        self.message.emit(f"Moved {drag['body']} by {np.round(shift, 6).tolist()} m")

    # -- markers of pending clicks -----------------------------------------------------------------

    def _mark(self, point: np.ndarray) -> None:
        plotter = self.viewport.plotter
        if plotter is None:
            return
        import pyvista

        r = max(0.02 * max(getattr(self.viewport, "scale", 1.0), 0.2), 2 * self.rod_radius)
        actor = plotter.add_mesh(
            pyvista.Sphere(radius=r, center=tuple(point)),
            color="#e6550d",
            pickable=False,
            reset_camera=False,
            render=False,
        )
        self._markers.append(actor)
        self.viewport.request_render()

    def _mark_axis(self, point: np.ndarray, axis: np.ndarray) -> None:
        """The joint axis the next click will use, as an arrow at the joint point."""
        self.axis_preview = (np.asarray(point, float), np.asarray(axis, float))
        plotter = self.viewport.plotter
        if plotter is None:
            return
        import pyvista

        length = 0.15 * max(getattr(self.viewport, "scale", 1.0), 0.5)
        arrow = pyvista.Arrow(start=tuple(point), direction=tuple(axis), scale=length)
        actor = plotter.add_mesh(
            arrow, color="#e6550d", pickable=False, reset_camera=False, render=False
        )
        self._markers.append(actor)
        self.viewport.request_render()

    def _clear_markers(self) -> None:
        self.axis_preview = None
        plotter = self.viewport.plotter
        for actor in self._markers:
            if plotter is not None:
                plotter.remove_actor(actor, render=False)
        self._markers.clear()
        self.viewport.request_render()

    # -- context menu ------------------------------------------------------------------------------

    def show_context_menu(self, x: float, y: float) -> QMenu | None:
        """The right-click menu at widget pixel (x, y) (kept in ``context_menu``)."""
        model = self.editor.document.model
        if model is None or self.viewport.plotter is None:
            return None
        menu = QMenu(self.parent_widget)
        menu.setObjectName("buildContextMenu")
        if self.editor.document.locked:
            menu.addAction(f"Not now: {self.editor.document.locked}").setEnabled(False)
            self.context_menu = menu
            menu.popup(self.viewport.plotter.mapToGlobal(QPoint(int(x), int(y))))
            return menu
        pick = self.picker.pick(x, y, model)
        item = pick.item if pick is not None else None
        if pick is not None and pick.body != d.GROUND:
            body = pick.body
            menu.addAction(f"Trace this point of {body}", lambda: self.add_trace(pick))
            menu.addAction(f"Add force on {body}…", lambda: self.force_dialog(pick, "force"))
            menu.addAction(f"Add torque on {body}…", lambda: self.force_dialog(pick, "torque"))
            menu.addAction(f"Move {body}…", lambda: self.move_dialog(body))
        if item is not None and item[0] == "joint":
            joint = find(model, "joint", item[1])
            if joint is not None and joint.type in ("revolute", "prismatic", "cylindrical"):
                menu.addAction(f"Add driver on {joint.name}…", lambda: self.driver_dialog(joint))
                label = "torque" if joint.type == "revolute" else "force"
                menu.addAction(
                    f"Add joint {label} on {joint.name}…",
                    lambda: self.force_dialog(pick, f"joint_{label}", joint.name),
                )
        if item is not None and item[0] in (
            "body",
            "joint",
            "force",
            "output",
            "flexible",
            "contact",
        ):
            menu.addSeparator()
            menu.addAction(f"Delete {item[0]} {item[1]}", lambda: self.delete(*item))
        if menu.isEmpty():
            menu.addAction("Nothing here").setEnabled(False)
        self.context_menu = menu
        plotter = self.viewport.plotter
        menu.popup(plotter.mapToGlobal(QPoint(int(x), int(y))))
        return menu

    def delete(self, category: str, name: str) -> bool:
        """Delete an item, asking what to do with the items that depend on it."""
        model = self.editor.document.model
        deps = dependents(model, category, name)
        policy = "delete"
        if deps:
            answer = self.ask_dependents(category, name, deps)
            if answer is None:
                return False
            policy = answer
        try:
            self.editor.remove(category, name, policy)
        except EditRefused as error:
            self.message.emit(f"Not deleted: {error}")
            return False
        self.message.emit(f"Deleted {category} {name}")
        return True

    def _ask_dependents(self, category: str, name: str, deps: list) -> str | None:
        listed = ", ".join(f"{c} {n}" for c, n in deps)
        box = QMessageBox(self.parent_widget)
        box.setWindowTitle(f"Delete {category} {name}")
        box.setText(f"{category.capitalize()} {name} is used by: {listed}.")
        delete = box.addButton("Delete them too", QMessageBox.ButtonRole.DestructiveRole)
        ground = None
        if category in ("body", "flexible"):
            ground = box.addButton("Attach them to ground", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        if clicked is delete:
            return "delete"
        if ground is not None and clicked is ground:
            return "ground"
        return None

    # -- dialogs -----------------------------------------------------------------------------------

    def _t_end(self) -> float:
        model = self.editor.document.model
        return model.solver.t_end if model is not None else 1.0

    def force_dialog(self, pick: Pick, kind: str, joint: str | None = None) -> ItemDialog:
        """Force, torque, joint torque or joint force with time functions (non-blocking)."""
        dialog = ItemDialog(f"Add {kind.replace('_', ' ')}", self.parent_widget)
        name = dialog.add("name", "Name", QLineEdit(unique_name(self.model, kind.split("_")[-1])))
        del name
        if kind in ("force", "torque"):
            frame = QComboBox()
            for f in d.FRAMES:
                frame.addItem(f, f)
            dialog.add("frame", "Frame", frame)
            for k, axis in enumerate("xyz"):
                dialog.add(
                    f"v{k}",
                    f"{kind.capitalize()} {axis} (N{'·m' if kind == 'torque' else ''})",
                    FunctionEdit("0", self._t_end()),
                )
        else:
            dialog.add("f", "f(t) (N·m or N)", FunctionEdit("1.0", self._t_end()))

        def accept(dlg: ItemDialog) -> str | None:
            try:
                if kind in ("force", "torque"):
                    vector = tuple(
                        parse_function_text(dlg.text(f"v{k}"), kind, f"vector[{k}]")
                        for k in range(3)
                    )
                    force = d.Force(
                        name=dlg.text("name").strip(),
                        type=kind,
                        body=pick.body,
                        vector=vector,
                        frame=dlg.text("frame") or None,
                    )
                    if kind == "force":
                        force.point = _vec(pick.point)
                else:
                    force = d.Force(
                        name=dlg.text("name").strip(),
                        type=kind,
                        joint=joint,
                        function=parse_function_text(dlg.text("f"), kind),
                    )
                self.editor.add(force)
            except (ModelError, EditRefused) as error:
                return str(error)
            self._added("force", force.name, kind.replace("_", " "))
            return None

        dialog.on_accept = accept
        self.dialog = dialog
        dialog.open()
        return dialog

    def driver_dialog(self, joint: d.Joint) -> ItemDialog:
        dialog = ItemDialog(f"Drive joint {joint.name}", self.parent_widget)
        dialog.add("name", "Name", QLineEdit(unique_name(self.model, "motor")))
        coordinate = QComboBox()
        choices = {
            "revolute": ["angle"],
            "prismatic": ["displacement"],
            "cylindrical": ["displacement", "angle"],
        }[joint.type]
        for c in choices:
            coordinate.addItem(c, c)
        dialog.add("coordinate", "Coordinate", coordinate)
        dialog.add("f", "f(t) (rad or m)", FunctionEdit("2*pi*t", self._t_end()))

        def accept(dlg: ItemDialog) -> str | None:
            try:
                coord = dlg.text("coordinate")
                driver = d.Driver(
                    name=dlg.text("name").strip(),
                    joint=joint.name,
                    function=parse_function_text(dlg.text("f"), "driver"),
                    coordinate=coord if joint.type == "cylindrical" else None,
                )
                self.editor.add(driver)
            except (ModelError, EditRefused) as error:
                return str(error)
            self._added("driver", driver.name, "driver")
            return None

        dialog.on_accept = accept
        self.dialog = dialog
        dialog.open()
        return dialog

    def move_dialog(self, body: str) -> ItemDialog:
        """Numeric move: translation (m) and a rotation (deg) about an axis through the
        centre of mass."""
        from app.builder.editor import axis_rotation

        dialog = ItemDialog(f"Move {body}", self.parent_widget)
        dialog.add("shift", "Translate by (m)", QLineEdit("0, 0, 0"))
        dialog.add("axis", "Rotation axis", QLineEdit("0, 0, 1"))
        dialog.add("angle", "Rotation angle (deg)", QLineEdit("0"))

        def accept(dlg: ItemDialog) -> str | None:
            try:
                shift = [float(v) for v in dlg.text("shift").replace(";", ",").split(",")]
                axis = [float(v) for v in dlg.text("axis").replace(";", ",").split(",")]
                angle = float(dlg.text("angle"))
                if len(shift) != 3 or len(axis) != 3:
                    return "give three numbers x, y, z"
                if angle and np.linalg.norm(axis) == 0:
                    return "the rotation axis has zero length"
                rot = axis_rotation(axis, np.radians(angle)) if angle else None
                self.editor.move_body(body, shift, rot)
            except ValueError:
                return "give numbers, e.g. 0.1, 0, 0"
            except EditRefused as error:
                return str(error)
            return None

        dialog.on_accept = accept
        self.dialog = dialog
        dialog.open()
        return dialog
