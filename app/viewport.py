"""The 3D view: bodies, joint glyphs, springs, flexible bodies, contacts, traces, floor grid.

Everything here runs on the GUI thread. Frames come in with ``show_row`` as often as they
like; a timer renders at most ``MAX_FPS`` times a second and only the newest row (stale
rows are dropped). Geometry is built once per model in global coordinates at t = 0 and then
moved with each body's ``T(t) · T(0)⁻¹`` (``app.scene``); springs, distance rods and
flexible bodies are rebuilt from the row.
"""

from __future__ import annotations

import logging
import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from vtkmodules.vtkCommonMath import vtkMatrix4x4

from app import scene
from app.application import opengl_problem
from app.theme import (
    BACKGROUND,
    BODY_PALETTE,
    CONTACT_COLOR,
    FLOOR_COLOR,
    HIGHLIGHT_COLOR,
    JOINT_COLOR,
    MARKER_COLOR,
    SPRING_COLOR,
    TRACE_PALETTE,
)
from solver.model import description as d

log = logging.getLogger(__name__)

MAX_FPS = 60
#: Rendering may take at most this fraction of the GUI thread's time (wall clock), so a slow
#: frame (software OpenGL on a loaded machine) spaces the next ones out and clicks are not
#: starved.
RENDER_DUTY = 0.8
#: During a run the GUI process (all its threads: Mesa rasterises in its own, and Qt composes
#: the window) may use at most this fraction of one core, measured over the last ~0.1 s;
#: above it the viewport skips frames, leaving the solver process its core. CPU time, not
#: wall time: on a busy machine a frame waits longer for the CPU but costs no more.
RUN_RENDER_DUTY = 0.7
#: Groups of actors the View menu shows and hides.
GROUPS = ("bodies", "joints", "frames", "markers", "traces", "floor", "forces", "origin")
#: An empty model shows the work area around the origin: this half-width (m).
EMPTY_EXTENT = 1.0
#: During a run with ``fit_during_run``, the view is checked this often (s) and refitted
#: when a body's centre comes closer to its edge than ``VIEW_MARGIN`` (of the half-size).
VIEW_CHECK_INTERVAL = 0.25
VIEW_MARGIN = 0.92
NO_MODEL_HINT = (
    "No model yet. Open one (Ctrl+O, or File > Examples),\n"
    "or start one (Ctrl+N) and build it with the Build tools."
)
#: Deformation scales offered for flexible bodies.
DEFORMATION_SCALES = (1.0, 10.0, 100.0, 1000.0)


@dataclass
class Item:
    """The actors of one model item and how they move."""

    category: str
    name: str
    actors: list = field(default_factory=list)
    colors: list = field(default_factory=list)  # the actors' own colours (un-highlighted)
    group: str = "bodies"


@dataclass
class MovingGlyph:
    """Actors whose geometry moves rigidly with ``body`` (None: fixed to ground)."""

    body: Any | None
    actors: list


@dataclass
class Link:
    """A two-point element redrawn every frame: a spring (helix) or a distance rod."""

    body1: Any | None
    point1: np.ndarray
    body2: Any | None
    point2: np.ndarray
    mesh: Any
    kind: str  # "spring" | "rod"
    radius: float


def make_interactor(parent: QWidget) -> Any:
    """The VTK widget. By default ``app.image_view``: VTK renders off screen and the widget
    paints the pixels (the window stays a raster window; under software OpenGL a frame costs
    a third of pyvistaqt's). ``BIELA_VIEWPORT=opengl``: pyvistaqt's ``QOpenGLWidget``."""
    kind = os.environ.get("BIELA_VIEWPORT", "image").lower()
    if kind == "opengl":
        from pyvistaqt import QtInteractor

        return QtInteractor(parent, auto_update=False, multi_samples=0)
    from app.image_view import ImageInteractor

    return ImageInteractor(parent, multi_samples=0)


def nice_step(span: float, divisions: int = 10) -> float:
    """A 1-2-5 grid spacing giving about ``divisions`` lines over ``span``."""
    raw = max(span, 1e-9) / divisions
    power = 10 ** np.floor(np.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return float(m * power)
    return float(10 * power)


class Viewport(QWidget):
    """A pyvistaqt QtInteractor with the model scene, or a label saying why there is none."""

    picked = Signal(str, str)  # category, name (empty strings: nothing under the cursor)
    rendered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plotter: Any | None = None
        self.unavailable: str | None = None
        self.model: d.Model | None = None
        self.model_dir: Path | None = None
        self.cmap: scene.ColumnMap | None = None
        self.items: dict[tuple[str, str], Item] = {}
        self.glyphs: list[MovingGlyph] = []
        self._motion: dict[str, Any] = {}  # body name → its actors' shared vtkMatrix4x4
        self.links: list[Link] = []
        self.flexible: list[tuple[d.FlexibleBody, Any, Any]] = []  # body, line, tube filter
        self.traces: dict[str, tuple[Any, Any]] = {}  # output name → (mesh, actor)
        self.groups: dict[str, list] = {g: [] for g in GROUPS}
        self.visible = {g: True for g in GROUPS}
        self.selected: tuple[str, str] | None = None
        self.scale = 1.0
        self.up = np.array([0.0, 0.0, 1.0])
        self._pending: np.ndarray | None = None
        self._needs_render = False
        self.max_fps = MAX_FPS
        self.render_duty = RENDER_DUTY
        self._last_render = 0.0
        self._render_cost = 0.0  # wall time of a render (s), smoothed
        self.cpu_duty: float | None = None  # limit on the process's CPU share (None: none)
        self._cpu_mark = (time.perf_counter(), time.process_time())
        self._cpu_rate = 0.0  # the GUI process's CPU use (cores), smoothed
        self._trace_data: np.ndarray | None = None
        self._current_row: np.ndarray | None = None
        self.frames_rendered = 0
        self._render_times: list[float] = []
        self._press: QPoint | None = None
        #: body whose centre the camera follows (None: a fixed camera)
        self.follow: str | None = None
        self._follow_at: np.ndarray | None = None
        #: refit the view when the mechanism leaves it (the main window sets it during runs)
        self.fit_during_run = False
        self._view_checked = 0.0
        #: flexible bodies' deformation drawn this many times larger (relative to ``reference``)
        self.deformation_scale = 1.0
        self.reference: np.ndarray | None = None  # the run's row at t = 0
        self.origin_length = 0.0
        self._hint: Any | None = None  # the text shown without a model

        problem = opengl_problem()
        if problem is None:
            try:
                # No MSAA and no translucent floor: under Mesa's software renderer each costs
                # tens of milliseconds a frame (measured: 256 ms → 5 ms a frame).
                self.plotter = make_interactor(self)
                self.plotter.ren_win.SetMultiSamples(0)
                self.plotter.setObjectName("viewport3d")
                layout.addWidget(self.plotter)
                self._setup_scene()
                self.plotter.installEventFilter(self)
                # time every render, whoever asks for it (our ticks, camera interaction)
                self.plotter.ren_win.AddObserver("StartEvent", self._render_started)
                self.plotter.ren_win.AddObserver("EndEvent", self._render_ended)
            except Exception as error:  # any VTK/GL failure: explain, don't crash
                log.warning("3D viewport unavailable:\n%s", traceback.format_exc())
                problem = f"The 3D viewport could not be created: {type(error).__name__}: {error}"
                self.plotter = None
        if self.plotter is None:
            self.unavailable = problem
            label = QLabel(f"3D view unavailable.\n\n{problem}", self)
            label.setObjectName("viewportUnavailable")
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setWordWrap(True)
            label.setMargin(24)
            layout.addWidget(label)
            self.label = label

        self._timer = QTimer(self)
        self._timer.setInterval(int(1000 / MAX_FPS))
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    # -- scene set-up --------------------------------------------------------------------------

    def _setup_scene(self) -> None:
        import pyvista

        p = self.plotter
        p.set_background(BACKGROUND)
        # Translucent glyphs (sleeves, contact spheres, planes) are blended in one plain pass
        # over the opaque ones: VTK's default order-independent translucency adds full-window
        # passes that cost more than the whole opaque scene in software OpenGL (measured on
        # the double four-bar: 55 → 32 ms a frame).
        p.renderer.SetUseOIT(False)
        # Two lights instead of pyvista's five-light kit: per-pixel lighting is the main cost
        # of a frame in software OpenGL (measured 52 → 18 ms a frame).
        p.renderer.remove_all_lights()
        p.add_light(pyvista.Light(light_type="headlight", intensity=0.75))
        key = pyvista.Light(light_type="camera light", intensity=0.45)
        key.position = (0.6, 1.0, 1.0)
        p.add_light(key)
        p.add_axes(interactive=False, line_width=2, labels_off=False)
        self._show_empty()

    def _show_empty(self) -> None:
        """No model: the work area around the origin, in an isometric view, and a hint."""
        self.scale = 1.0
        self.up = np.array([0.0, 0.0, 1.0])
        self._add_floor(np.zeros(3), 2.0 * EMPTY_EXTENT)
        self._add_origin(0.3 * EMPTY_EXTENT)
        self.camera_preset("iso")
        if self._hint is None:
            self._hint = self.plotter.add_text(
                NO_MODEL_HINT,
                position="upper_edge",
                font_size=11,
                color="#c8d0da",
                name="no_model_hint",
                render=False,
            )
        self._hint.SetVisibility(True)

    def _add_floor(self, center: np.ndarray, size: float) -> None:
        import pyvista

        p = self.plotter
        for actor in self.groups["floor"]:
            p.remove_actor(actor, render=False)
        self.groups["floor"] = []
        step = nice_step(size, 10)
        n = max(2, int(round(size / step)))
        size = n * step
        floor = pyvista.Plane(
            center=tuple(center),
            direction=tuple(self.up),
            i_size=size,
            j_size=size,
            i_resolution=n,
            j_resolution=n,
        )
        actor = p.add_mesh(
            floor,
            name="floor_grid",
            style="wireframe",
            color=FLOOR_COLOR,
            line_width=1,
            pickable=False,
            lighting=False,
            reset_camera=False,
        )
        self.floor_step = step
        self.groups["floor"].append(actor)
        actor.SetVisibility(self.visible["floor"])

    def _add_origin(self, length: float) -> None:
        """The global frame at the origin: x red, y green, z blue (as the corner axes)."""
        import pyvista

        p = self.plotter
        for actor in self.groups["origin"]:
            p.remove_actor(actor, render=False)
        self.groups["origin"] = []
        self.origin_length = length
        for k, color in enumerate(("#e41a1c", "#4daf4a", "#377eb8")):
            arrow = pyvista.Arrow(
                start=(0.0, 0.0, 0.0),
                direction=tuple(np.eye(3)[k]),
                scale=length,
                tip_length=0.22,
                tip_radius=0.07,
                shaft_radius=0.022,
                tip_resolution=12,
                shaft_resolution=12,
            )
            actor = p.add_mesh(
                arrow,
                name=f"origin_{'xyz'[k]}",
                color=color,
                pickable=False,
                lighting=False,
                reset_camera=False,
                render=False,
            )
            actor.SetVisibility(self.visible["origin"])
            self.groups["origin"].append(actor)

    def clear(self) -> None:
        """Remove the model's actors (the floor, origin and axes stay)."""
        if self.plotter is None:
            return
        for group, actors in self.groups.items():
            if group in ("floor", "origin"):
                continue
            for actor in actors:
                self.plotter.remove_actor(actor, render=False)
            actors.clear()
        self.items.clear()
        self.glyphs.clear()
        self._motion.clear()
        self.links.clear()
        self.flexible.clear()
        self.traces.clear()
        self.cmap = None
        self._pending = None
        self._trace_data = None
        self._current_row = None
        self.reference = None
        self._follow_at = None
        self.selected = None

    def set_model(self, model: d.Model | None, model_dir: Path | None = None) -> None:
        """Build the scene of ``model`` at t = 0 and frame it."""
        self.model = model
        self.model_dir = model_dir
        if self.plotter is None:
            return
        self.clear()
        if model is None:
            self._show_empty()
            self.plotter.render()
            return
        if self._hint is not None:
            self._hint.SetVisibility(False)
        self.scale = scene.model_scale(model)
        self.up = scene.up_vector(model)
        try:
            self._build(model)
        except Exception:  # never lose the document over a drawing problem
            log.error("could not draw the model:\n%s", traceback.format_exc())
        pts = scene.model_points(model)
        center = pts.mean(axis=0)
        low = float((pts @ self.up).min())
        floor_center = center - (float(center @ self.up) - low) * self.up
        floor_center -= 0.02 * self.scale * self.up
        empty = not model.bodies
        self._add_floor(floor_center, 2.0 * EMPTY_EXTENT if empty else max(2.0 * self.scale, 1.0))
        self._add_origin(0.3 * EMPTY_EXTENT if empty else 0.1 * self.scale)
        self._follow_at = None
        self.camera_preset("iso")
        self.plotter.render()

    # -- building ------------------------------------------------------------------------------

    def _add(self, item: Item, mesh: Any, color: str, group: str | None = None, **kwargs) -> Any:
        kwargs.setdefault("smooth_shading", True)
        kwargs.setdefault("specular", 0.3)
        kwargs.setdefault("specular_power", 20)
        actor = self.plotter.add_mesh(mesh, color=color, reset_camera=False, render=False, **kwargs)
        group = group or item.group
        item.actors.append(actor)
        item.colors.append(color)
        self.groups[group].append(actor)
        actor.SetVisibility(self.visible[group])
        return actor

    def _item(self, category: str, name: str, group: str) -> Item:
        key = (category, name)
        if key not in self.items:
            self.items[key] = Item(category, name, group=group)
        return self.items[key]

    def _build(self, model: d.Model) -> None:
        import pyvista

        self._pv = pyvista
        r_joint = 0.018 * self.scale
        self.r_joint = r_joint
        bodies = {b.name: b for b in model.bodies}
        rigidish = {n: b for n, b in bodies.items() if isinstance(b, d.RigidBody | d.PointMass)}

        # bodies
        for index, body in enumerate(model.bodies):
            color = body.color or BODY_PALETTE[index % len(BODY_PALETTE)]
            if isinstance(body, d.FlexibleBody):
                item = self._item("flexible", body.name, "bodies")
                radius = scene.section_radius(body)
                radius = max(radius, 0.004 * self.scale)
                import vtk

                curve = np.asarray(body.node_positions(), dtype=float)
                if body.closed:  # a closed belt: back to node 0
                    curve = np.vstack([curve, curve[:1]])
                line = pyvista.lines_from_points(curve)
                actor = self._add(item, line.tube(radius=radius, n_sides=16), color)
                # The tube follows the centre line through a VTK pipeline: each frame only
                # moves the line's points (the filter re-runs at render time).
                tube = vtk.vtkTubeFilter()
                tube.SetInputData(line)
                tube.SetRadius(radius)
                tube.SetNumberOfSides(16)
                tube.CappingOn()
                actor.mapper.SetInputConnection(tube.GetOutputPort())
                self.flexible.append((body, line, tube))
                continue
            item = self._item("body", body.name, "bodies")
            actors = []
            for shape in body.shapes:
                mesh = self._shape_mesh(shape)
                if mesh is not None:
                    actors.append(self._add(item, mesh, shape.color or color))
            if not actors:
                for mesh in self._stick_meshes(model, body, r_joint):
                    actors.append(self._add(item, mesh, color))
            self.glyphs.append(MovingGlyph(body, actors))
            # body frame triad at the centre of mass
            if isinstance(body, d.RigidBody):
                frame_actors = self._triad(body, 0.06 * self.scale)
                self.glyphs.append(MovingGlyph(body, frame_actors))

        # joints
        for joint in model.joints:
            item = self._item("joint", joint.name, "joints")
            self._joint_glyph(item, joint, rigidish, r_joint)

        # forces and contacts
        for force in model.forces:
            if force.type == "contact":
                item = self._item("contact", force.name, "forces")
                self._contact_glyph(item, force, rigidish)
                continue
            item = self._item("force", force.name, "forces")
            if force.type == "spring_damper" and force.point1 is not None:
                self._link(
                    item, force.body1, force.point1, force.body2, force.point2, "spring", rigidish
                )
            elif force.type == "force" and force.point is not None:
                mesh = self._ball(0.6 * r_joint, center=force.point)
                actor = self._add(item, mesh, SPRING_COLOR)
                self.glyphs.append(MovingGlyph(rigidish.get(force.body or ""), [actor]))

        # output points: markers and traces
        for index, output in enumerate(model.outputs):
            item = self._item("output", output.name, "markers")
            color = TRACE_PALETTE[index % len(TRACE_PALETTE)]
            mesh = self._ball(0.55 * r_joint, center=output.point)
            actor = self._add(item, mesh, MARKER_COLOR, smooth_shading=True)
            self.glyphs.append(MovingGlyph(rigidish.get(output.body), [actor]))
            trace = pyvista.PolyData(np.asarray([output.point, output.point], dtype=float))
            trace.lines = np.array([2, 0, 1])
            tactor = self.plotter.add_mesh(
                trace,
                color=color,
                line_width=2,
                lighting=False,
                pickable=False,
                reset_camera=False,
                render=False,
            )
            self.groups["traces"].append(tactor)
            tactor.SetVisibility(self.visible["traces"])
            self.traces[output.name] = (trace, tactor)

    def _shape_mesh(self, shape: d.Shape) -> Any | None:
        pv = self._pv
        if shape.type == "sphere" and shape.center is not None and shape.radius:
            return pv.Sphere(
                radius=shape.radius, center=shape.center, theta_resolution=32, phi_resolution=20
            )
        if shape.type in ("cylinder", "rod") and shape.start is not None and shape.end is not None:
            a = np.asarray(shape.start, float)
            b = np.asarray(shape.end, float)
            length = float(np.linalg.norm(b - a))
            if length <= 0:
                return None
            radius = shape.radius or 0.01 * self.scale
            return pv.Cylinder(
                center=(a + b) / 2,
                direction=b - a,
                radius=radius,
                height=length,
                resolution=32,
                capping=True,
            ).triangulate()
        if shape.type == "box" and shape.center is not None and shape.size is not None:
            sx, sy, sz = shape.size
            box = pv.Box(bounds=(-sx / 2, sx / 2, -sy / 2, sy / 2, -sz / 2, sz / 2))
            rot = (
                scene.quat_matrix(np.asarray(shape.orientation, float))
                if shape.orientation is not None
                else np.eye(3)
            )
            box.transform(scene.homogeneous(rot, np.asarray(shape.center, float)), inplace=True)
            return box
        if shape.type == "mesh" and shape.file:
            path = Path(shape.file)
            if not path.is_absolute() and self.model_dir is not None:
                path = self.model_dir / path
            try:
                mesh = pv.read(str(path))
            except Exception as error:
                log.warning("mesh %s not drawn: %s", path, error)
                return None
            if shape.scale:
                mesh = mesh.scale(shape.scale)
            if shape.center is not None:  # the enclosed volume's centroid goes to center
                mesh = mesh.translate(np.subtract(shape.center, _mesh_centroid(mesh)))
            return mesh
        return None

    def _ball(self, radius: float, center) -> Any:
        """A small glyph sphere (joints, markers, force points): 20 × 12 facets, not pyvista's
        30 × 30. Smooth-shaded at glyph size it looks the same, and the double four-bar's four
        glyph spheres then cost ~1 ms less a frame in software OpenGL (14 → 13 ms, measured)."""
        return self._pv.Sphere(radius=radius, center=center, theta_resolution=20, phi_resolution=12)

    def _stick_meshes(self, model: d.Model, body: Any, r_joint: float) -> list:
        """A body without shapes: a ball at its centre of mass and sticks to its points."""
        pv = self._pv
        com = np.asarray(body.position, float)
        meshes = [self._ball(1.2 * r_joint, center=com)]
        for p in scene.attachment_points(model, body.name):
            if np.linalg.norm(p - com) > 1e-9:
                meshes.append(
                    pv.Cylinder(
                        center=(p + com) / 2,
                        direction=p - com,
                        radius=0.45 * r_joint,
                        height=float(np.linalg.norm(p - com)),
                        resolution=20,
                    )
                )
        return meshes

    def _triad(self, body: d.RigidBody, length: float) -> list:
        pv = self._pv
        m0 = scene.initial_matrix(body)
        origin = m0[:3, 3]
        actors = []
        for k, color in enumerate(("#e41a1c", "#4daf4a", "#377eb8")):
            end = origin + length * m0[:3, k]
            actor = self.plotter.add_mesh(
                pv.Line(origin, end),
                color=color,
                line_width=3,
                lighting=False,
                pickable=False,
                reset_camera=False,
                render=False,
            )
            self.groups["frames"].append(actor)
            actor.SetVisibility(self.visible["frames"])
            actors.append(actor)
        return actors

    def _carrier(self, joint: d.Joint, rigidish: dict, prefer: str = "body2") -> Any | None:
        order = (joint.body2, joint.body1) if prefer == "body2" else (joint.body1, joint.body2)
        for name in order:
            if name in rigidish:
                return rigidish[name]
        return None

    def _joint_glyph(self, item: Item, joint: d.Joint, rigidish: dict, r: float) -> None:
        pv = self._pv
        point = np.asarray(joint.point, float) if joint.point is not None else None
        color = JOINT_COLOR

        def cylinder(p, axis, radius, height, resolution=28):
            axis = np.asarray(axis, float)
            return pv.Cylinder(
                center=p, direction=axis, radius=radius, height=height, resolution=resolution
            )

        kind = joint.type
        if kind == "distance":
            self._link(item, joint.body1, joint.point1, joint.body2, joint.point2, "rod", rigidish)
            for body, p in ((joint.body1, joint.point1), (joint.body2, joint.point2)):
                actor = self._add(item, self._ball(0.7 * r, center=p), color)
                self.glyphs.append(MovingGlyph(rigidish.get(body), [actor]))
            return
        if point is None:
            return
        if kind == "revolute" and joint.axis is not None:
            actors = [self._add(item, cylinder(point, joint.axis, 1.1 * r, 5 * r), color)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish), actors))
        elif kind == "spherical":
            actors = [self._add(item, self._ball(1.5 * r, center=point), color)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish), actors))
        elif kind in ("prismatic", "cylindrical") and joint.axis is not None:
            sleeve = cylinder(point, joint.axis, 1.8 * r, 7 * r, 32)
            actors = [self._add(item, sleeve, color, opacity=0.75)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish, "body1"), actors))
            if kind == "cylindrical":
                ring = cylinder(point, joint.axis, 1.0 * r, 1.5 * r)
                actors = [self._add(item, ring, color)]
                self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish), actors))
        elif kind == "universal":
            for axis, owner in ((joint.axis1, joint.body1), (joint.axis2, joint.body2)):
                if axis is None:
                    continue
                actors = [self._add(item, cylinder(point, axis, 0.6 * r, 6 * r), color)]
                self.glyphs.append(MovingGlyph(rigidish.get(owner), actors))
            actors = [self._add(item, self._ball(1.0 * r, center=point), color)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish), actors))
        elif kind in ("planar", "point_on_plane") and joint.normal is not None:
            disc = cylinder(point, joint.normal, 4 * r, 0.3 * r, 40)
            actors = [self._add(item, disc, color, opacity=0.6)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish, "body1"), actors))
            ball = [self._add(item, self._ball(0.8 * r, center=point), color)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish), ball))
        elif kind == "point_on_line" and joint.axis is not None:
            u = _unit(joint.axis)
            rail = cylinder(point, u, 0.35 * r, 10 * r, 16)
            actors = [self._add(item, rail, color, opacity=0.8)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish, "body1"), actors))
            ball = [self._add(item, self._ball(0.9 * r, center=point), color)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish), ball))
        elif kind == "rolling_disk" and joint.axis is not None:
            radius = joint.radius or 3 * r
            ring = cylinder(point, joint.axis, radius, 0.4 * r, 48)
            actors = [self._add(item, ring, color, opacity=0.5)]
            self.glyphs.append(MovingGlyph(rigidish.get(joint.body2), actors))
        else:  # fixed and anything new: a small cube
            cube = pv.Cube(center=point, x_length=2 * r, y_length=2 * r, z_length=2 * r)
            actors = [self._add(item, cube, color)]
            self.glyphs.append(MovingGlyph(self._carrier(joint, rigidish), actors))

    def _link(self, item, body1, point1, body2, point2, kind, rigidish) -> None:
        pv = self._pv
        p1 = np.asarray(point1, float)
        p2 = np.asarray(point2, float)
        length = float(np.linalg.norm(p2 - p1))
        radius = min(0.06 * max(length, 1e-6), 0.025 * self.scale)
        if kind == "spring":
            points = scene.helix(p1, p2, radius)
            mesh = pv.lines_from_points(points)
            self._add(
                item, mesh, SPRING_COLOR, line_width=3, render_lines_as_tubes=True, lighting=True
            )
        else:
            mesh = pv.lines_from_points(np.vstack([p1, p2]))
            self._add(item, mesh, JOINT_COLOR, line_width=6, render_lines_as_tubes=True)
        self.links.append(
            Link(rigidish.get(body1), p1, rigidish.get(body2), p2, mesh, kind, radius)
        )

    def _contact_glyph(self, item: Item, force: d.Force, rigidish: dict) -> None:
        pv = self._pv
        for ref in (force.sphere, force.sphere2):
            if ref is not None:
                mesh = pv.Sphere(radius=ref.radius, center=ref.center, theta_resolution=32)
                actor = self._add(item, mesh, CONTACT_COLOR, opacity=0.55)
                self.glyphs.append(MovingGlyph(rigidish.get(ref.body), [actor]))
        if force.plane is not None:
            size = 0.6 * self.scale
            mesh = pv.Plane(
                center=force.plane.point, direction=force.plane.normal, i_size=size, j_size=size
            )
            actor = self._add(item, mesh, CONTACT_COLOR, opacity=0.35, smooth_shading=False)
            self.glyphs.append(MovingGlyph(rigidish.get(force.plane.body), [actor]))

    # -- frames ---------------------------------------------------------------------------------

    def set_columns(self, columns: list[str]) -> None:
        """The result columns of the run whose rows will be shown."""
        self.cmap = scene.ColumnMap.from_columns(columns)

    def show_row(self, row: np.ndarray) -> None:
        """Show the state of ``row`` at the next render tick (older pending rows are dropped)."""
        self._pending = row

    def set_trace_data(self, data: np.ndarray | None) -> None:
        """Rows whose output points the traces go through (up to the time shown)."""
        self._trace_data = data

    def render_now(self, row: np.ndarray | None = None) -> None:
        """Apply ``row`` (or the pending one) and render immediately (exports, tests)."""
        if row is not None:
            self._pending = row
        self._tick(force=True)

    def request_render(self) -> None:
        """Render at the next tick (selection, visibility and camera changes)."""
        self._needs_render = True

    def ready(self) -> bool:
        """True when a frame rendered now would respect the frame-rate and duty limits."""
        now = time.perf_counter()
        spacing = max(1.0 / self.max_fps, self._render_cost / self.render_duty) - 0.002
        if now - self._last_render < spacing:
            return False
        return not self.cpu_duty or self.cpu_rate() <= self.cpu_duty

    def cpu_rate(self) -> float:
        """The GUI process's recent CPU use, in cores (updated at most every 0.1 s)."""
        now, cpu = time.perf_counter(), time.process_time()
        then, cpu_then = self._cpu_mark
        if now - then >= 0.1:
            rate = (cpu - cpu_then) / (now - then)
            self._cpu_rate = rate if now - then > 1.0 else 0.5 * self._cpu_rate + 0.5 * rate
            self._cpu_mark = (now, cpu)
        return self._cpu_rate

    def render_pending(self) -> None:
        """Move the scene to the pending row now and render it if the limits allow (else at
        a later tick): the state shown is current at once, only the pixels may wait."""
        self._apply_pending()
        self._tick()

    def _apply_pending(self) -> None:
        row, self._pending = self._pending, None
        if row is None:
            return
        self._needs_render = True
        if self.cmap is not None and self.model is not None:
            try:
                self._apply(row)
            except Exception:
                log.error("could not draw a frame:\n%s", traceback.format_exc())
                self.cmap = None

    def _tick(self, force: bool = False) -> None:
        if self.plotter is None:
            return
        if self._pending is None and not self._needs_render and not force:
            return
        if not force and not self.ready():
            return  # keep the newest row pending; older ones are already dropped
        self._apply_pending()
        self._needs_render = False
        if force:
            self.plotter.render()  # now: exports and tests read the image right after
        elif self.isVisible():
            # The widget renders when it paints; plotter.render() would render once more
            # before it (two renders a frame, measured). update() = one.
            self._last_render = time.perf_counter()  # until the render itself reports
            self.plotter.update()

    def _render_started(self, *_args) -> None:
        self._render_start = time.perf_counter()

    def _render_ended(self, *_args) -> None:
        finished = time.perf_counter()
        started = getattr(self, "_render_start", finished)
        self._render_cost = 0.7 * self._render_cost + 0.3 * (finished - started)
        # frame spacing runs from request to request (``_tick`` sets ``_last_render``): from
        # the render's end, a 30 ms render at 30 fps spaced frames ~63 ms apart (measured
        # 16 fps streaming while the GUI process used 0.4 cores)
        if self._last_render < started - 1.0:  # a render nobody requested (a camera drag)
            self._last_render = started
        self.frames_rendered += 1
        self._render_times.append(started)
        if len(self._render_times) > 120:
            del self._render_times[:60]
        self.rendered.emit()

    def fps(self, window: float = 1.0) -> float:
        """Frames rendered per second over the last ``window`` seconds."""
        now = time.perf_counter()
        recent = [t for t in self._render_times if now - t <= window]
        if len(recent) < 2:
            return 0.0
        return (len(recent) - 1) / max(recent[-1] - recent[0], 1e-9)

    def _body_matrix(self, body: Any | None, row: np.ndarray) -> np.ndarray:
        if body is None:
            return np.eye(4)
        return scene.motion_matrix(self.cmap, row, body)

    def _apply(self, row: np.ndarray) -> None:
        self._current_row = row
        cache: dict[str, np.ndarray] = {}

        def matrix(body):
            if body is None:
                return np.eye(4)
            if body.name not in cache:
                cache[body.name] = self._body_matrix(body, row)
            return cache[body.name]

        # one vtkMatrix4x4 per body, shared by its actors and updated in place: a frame
        # costs one 16-number copy per body, not a new matrix per actor
        shared: dict[str, Any] = {}
        for glyph in self.glyphs:
            if glyph.body is None:
                continue
            name = glyph.body.name
            vtk_matrix = shared.get(name)
            if vtk_matrix is None:
                vtk_matrix = self._motion.get(name)
                if vtk_matrix is None:
                    vtk_matrix = self._motion[name] = vtkMatrix4x4()
                vtk_matrix.DeepCopy(matrix(glyph.body).ravel())
                shared[name] = vtk_matrix
            for actor in glyph.actors:
                if actor.GetUserMatrix() is not vtk_matrix:  # e.g. replaced by a drag
                    actor.SetUserMatrix(vtk_matrix)
        for link in self.links:
            a = scene.transform_point(matrix(link.body1), link.point1)
            b = scene.transform_point(matrix(link.body2), link.point2)
            if link.kind == "spring":
                link.mesh.points = scene.helix(a, b, link.radius)
            else:
                link.mesh.points = np.vstack([a, b])
        for body, line, _tube in self.flexible:
            curve = scene.node_curve(
                self.cmap, row, body, reference=self.reference, scale=self.deformation_scale
            )
            if len(curve) != line.n_points:
                line.copy_from(self._pv.lines_from_points(curve))
            else:
                line.points = curve
            line.Modified()
        if self._trace_data is not None and len(self._trace_data):
            for name, (mesh, _actor) in self.traces.items():
                i = self.cmap.point.get(name)
                if i is None:
                    continue
                pts = np.ascontiguousarray(self._trace_data[:, i : i + 3], dtype=float)
                if len(pts) < 2:
                    pts = np.vstack([pts, pts])
                mesh.copy_from(self._pv.lines_from_points(pts))
        if self.follow is not None:
            self._follow(row)
        elif self.fit_during_run:
            self._keep_in_view(row)

    def _follow(self, row: np.ndarray) -> None:
        """Move the camera with the followed body's centre (same direction and distance)."""
        at = scene.point_of(self.cmap, row, self.follow)
        if at is None:
            return
        if self._follow_at is not None:
            delta = at - self._follow_at
            camera = self.plotter.camera
            camera.position = tuple(np.asarray(camera.position, float) + delta)
            camera.focal_point = tuple(np.asarray(camera.focal_point, float) + delta)
            self.plotter.renderer.ResetCameraClippingRange()
        self._follow_at = at

    def _keep_in_view(self, row: np.ndarray) -> None:
        """Refit the camera (to the model and its path so far) when a body's centre nears
        the edge of the view; checked every ``VIEW_CHECK_INTERVAL``."""
        now = time.perf_counter()
        if now - self._view_checked < VIEW_CHECK_INTERVAL:
            return
        self._view_checked = now
        self.keep_in_view(row)

    def keep_in_view(self, row: np.ndarray) -> bool:
        """Refit the camera if a body's centre at ``row`` is near or past the view's edge;
        True when it did."""
        if self.plotter is None or self.cmap is None:
            return False
        indices = [*self.cmap.rigid.values(), *self.cmap.point.values()]
        indices += [ix for nodes in self.cmap.nodes.values() for ix, _ in nodes]
        step = max(1, len(indices) // 200)  # a large model: a sample of its bodies
        if not indices or self.points_in_view([row[i : i + 3] for i in indices[::step]]):
            return False
        self._fit_camera()
        self.request_render()
        return True

    def points_in_view(self, points, margin: float = VIEW_MARGIN) -> bool:
        """True when every global point projects inside ``margin`` of the view's half-size."""
        renderer = self.plotter.renderer
        for p in points:
            renderer.SetWorldPoint(float(p[0]), float(p[1]), float(p[2]), 1.0)
            renderer.WorldToView()
            x, y, _z = renderer.GetViewPoint()
            if abs(x) > margin or abs(y) > margin:
                return False
        return True

    def set_follow(self, name: str | None) -> None:
        """Follow body ``name``'s centre with the camera (None: stop following)."""
        self.follow = name or None
        self._follow_at = None
        if self._current_row is not None and self.follow is not None and self.cmap is not None:
            self._follow_at = scene.point_of(self.cmap, self._current_row, self.follow)

    def set_deformation_scale(self, scale: float) -> None:
        """Draw flexible bodies' deformation ``scale`` times larger (redraws the frame)."""
        self.deformation_scale = float(scale)
        if self._current_row is not None and self._pending is None:
            self._pending = self._current_row
        self.request_render()

    # -- selection --------------------------------------------------------------------------------

    def highlight(self, category: str | None, name: str | None) -> None:
        """Highlight one item's actors (None: none)."""
        if self.plotter is None:
            return
        if self.selected in self.items:
            item = self.items[self.selected]
            for actor, color in zip(item.actors, item.colors, strict=True):
                actor.prop.color = color
        self.selected = None
        key = (category, name)
        if key in self.items:
            for actor in self.items[key].actors:
                actor.prop.color = HIGHLIGHT_COLOR
            self.selected = key
        self.request_render()

    def item_at(self, x: int, y: int) -> tuple[str, str] | None:
        """The model item drawn at widget pixel (x, y), if any."""
        if self.plotter is None:
            return None
        import vtk

        picker = vtk.vtkPropPicker()
        ratio = self.plotter.devicePixelRatioF()
        height = self.plotter.height() * ratio
        picker.Pick(x * ratio, height - y * ratio - 1, 0, self.plotter.renderer)
        actor = picker.GetActor()
        if actor is None:
            return None
        for key, item in self.items.items():
            if any(a is actor for a in item.actors):
                return key
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.plotter:
            kind = event.type()
            if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
                self._press = event.position().toPoint()
            elif (
                kind == QEvent.Type.MouseButtonRelease
                and event.button() == Qt.MouseButton.LeftButton
                and self._press is not None
            ):
                pos = event.position().toPoint()
                if (pos - self._press).manhattanLength() <= 4:
                    key = self.item_at(pos.x(), pos.y())
                    self.picked.emit(*(key or ("", "")))
                self._press = None
        return False

    # -- view -------------------------------------------------------------------------------------

    def set_group_visible(self, group: str, visible: bool) -> None:
        self.visible[group] = visible
        for actor in self.groups[group]:
            actor.SetVisibility(visible)
        self.request_render()

    def camera_preset(self, name: str) -> None:
        """``iso``, ``front``, ``top`` or ``side``, with ``up`` opposite to gravity."""
        if self.plotter is None:
            return
        up = self.up
        # a horizontal "forward" direction: the global axis least aligned with up
        axes = np.eye(3)
        side_axis = axes[int(np.argmin(np.abs(axes @ up)))]
        side_axis = side_axis - (side_axis @ up) * up
        side_axis /= np.linalg.norm(side_axis)
        front = np.cross(up, side_axis)  # right-handed: side × front = up
        if name == "front":
            direction, view_up = -front, up
        elif name == "side":
            direction, view_up = side_axis, up
        elif name == "top":
            direction, view_up = up, front
        else:
            direction, view_up = side_axis - front + 0.8 * up, up
        direction = direction / np.linalg.norm(direction)
        camera = self.plotter.camera
        focal = np.asarray(camera.focal_point, float)
        camera.position = tuple(focal + direction * 10.0)
        camera.up = tuple(view_up)
        self.fit()

    def fit(self) -> None:
        """Frame the model (its points at t = 0 and, after a run, the traces)."""
        if self.plotter is None:
            return
        self._fit_camera()
        self.plotter.render()

    def _fit_camera(self) -> None:
        bounds = self._model_bounds()
        if bounds is None:
            self.plotter.reset_camera()
            return
        lo = np.array(bounds[0::2])
        hi = np.array(bounds[1::2])
        center = (lo + hi) / 2
        radius = max(0.5 * float(np.linalg.norm(hi - lo)), 1e-3)
        camera = self.plotter.camera
        direction = np.asarray(camera.position, float) - np.asarray(camera.focal_point, float)
        direction /= max(float(np.linalg.norm(direction)), 1e-12)
        angle = np.radians(camera.view_angle)
        aspect = self.plotter.width() / max(self.plotter.height(), 1)
        half = 0.5 * angle if aspect >= 1 else np.arctan(np.tan(0.5 * angle) * aspect)
        distance = 1.08 * radius / np.sin(half)
        camera.focal_point = tuple(center)
        camera.position = tuple(center + direction * distance)
        self.plotter.renderer.ResetCameraClippingRange()

    def _model_bounds(self):
        if self.model is None or not self.model.bodies:  # the floor grid around the origin
            e = EMPTY_EXTENT
            return (-e, e, -e, e, -0.2 * e, 0.2 * e)
        pts = scene.model_points(self.model)
        if self._trace_data is not None and self.cmap is not None and len(self._trace_data):
            extra = [self._trace_data[:, i : i + 3] for i in self.cmap.point.values()] + [
                self._trace_data[:, i : i + 3] for i in self.cmap.rigid.values()
            ]
            if extra:
                pts = np.vstack([pts, *extra])
        lo = pts.min(axis=0) - 0.05 * self.scale
        hi = pts.max(axis=0) + 0.05 * self.scale
        return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])

    def image(self) -> np.ndarray | None:
        """The rendered view as an (h, w, 3) uint8 array."""
        if self.plotter is None:
            return None
        self.plotter.render()
        return np.asarray(self.plotter.screenshot(return_img=True))[..., :3]

    def close_scene(self) -> None:
        self._timer.stop()
        if self.plotter is not None:
            self.plotter.close()


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else np.array([0.0, 0.0, 1.0])


def _mesh_centroid(mesh) -> np.ndarray:
    """Centroid of the volume a mesh encloses (of its bounding box if it encloses none)."""
    import pyvista

    from app.builder.shapes import mesh_mass_properties

    try:
        surface = mesh
        if not isinstance(surface, pyvista.PolyData):
            surface = surface.extract_surface(algorithm="dataset_surface")
        surface = surface.triangulate()
        faces = np.asarray(surface.faces).reshape(-1, 4)[:, 1:]
        return mesh_mass_properties(np.asarray(surface.points, float), faces, 1.0)[1]
    except (ValueError, AttributeError):
        return np.asarray(mesh.center, float)
