"""Cross-reference and geometric checks of a model description, and the solver settings.

``validate_model`` raises ``ModelError`` naming the item and field of the first mistake:
duplicate or reserved names, references to missing bodies or joints, joints that do not
fit the bodies they connect (a point mass has no orientation, a flexible body is joined
at a node), degenerate geometry, drivers on joints that have no such coordinate. It adds
warnings (``model.warnings``) for what is legal but surely unintended: a contact sphere
that starts deep inside its plane or the other sphere.

``check_settings`` is the one set of rules for the solver settings, whether they come from
a model file, the command line's overrides or ``simulate()``'s keyword arguments.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

import numpy as np

from solver.model import description as d
from solver.model.errors import ModelError
from solver.model.fields import Fields, describe, fmt_vector, is_number, number_problem, suggest

#: Column prefixes the results CSV uses for itself.
RESERVED = ("t", "energy", "constraint", d.GROUND)

#: Joints a point mass (no orientation) may take part in.
POINT_MASS_JOINTS = ("spherical", "distance", "point_on_line", "point_on_plane", "sliding")

#: Joint coordinates a driver, joint torque or joint force can act on.
JOINT_COORDINATES = {
    "revolute": ("angle",),
    "prismatic": ("displacement",),
    "cylindrical": ("displacement", "angle"),
}


def _label(kind: str, index: int, name: str) -> str:
    return f'{kind}[{index}] "{name}"'


def _unique(items, kind: str, seen: dict[str, str]) -> None:
    for i, item in enumerate(items):
        where = _label(kind, i, item.name)
        if item.name in RESERVED and kind in ("bodies", "outputs"):
            raise ModelError(where, f'"{item.name}" is reserved; choose another name', "name")
        if item.name in seen:
            raise ModelError(where, f'"{item.name}" is already used by {seen[item.name]}', "name")
        seen[item.name] = where


def _parallel(a, b) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.linalg.norm(np.cross(a, b))) < 1e-9 * float(
        np.linalg.norm(a) * np.linalg.norm(b)
    )


class _Checker:
    def __init__(self, model: d.Model) -> None:
        self.model = model
        self.bodies = {b.name: b for b in model.bodies}
        self.joints = {j.name: j for j in model.joints}

    def body_ref(self, where: str, field: str, name: str, ground_ok: bool = True) -> d.Body | None:
        if name == d.GROUND:
            if not ground_ok:
                raise ModelError(where, "cannot be ground here; name a moving body", field)
            return None
        if name not in self.bodies:
            raise ModelError(where, f'"{name}" does not exist', field)
        return self.bodies[name]

    def at_node(self, where: str, field: str, body: d.Body | None, point) -> None:
        """A point on a flexible body must be one of its nodes."""
        if not isinstance(body, d.FlexibleBody) or point is None:
            return
        length = body.span()
        nodes = body.node_positions()
        gap = min(math.dist(point, n) for n in nodes)
        if gap > 1e-9 * max(length, 1.0):
            along = " along the loop" if body.closed else ""
            raise ModelError(
                where,
                f'{fmt_vector(point)} is not a node of flexible body "{body.name}" '
                f"(nodes every {length / body.elements:g} m{along} from {fmt_vector(nodes[0])})",
                field,
            )

    def joint(self, i: int, j: d.Joint) -> None:
        where = _label("joints", i, j.name)
        b1 = self.body_ref(where, "body1", j.body1)
        b2 = self.body_ref(where, "body2", j.body2)
        if j.body1 == j.body2:
            raise ModelError(
                where, f'"{j.body2}" is also body1; a joint connects two bodies', "body2"
            )
        if isinstance(b1, d.PointMass) and j.type in ("point_on_line", "point_on_plane"):
            raise ModelError(
                where,
                f'"{b1.name}" is a point mass: it cannot carry the {j.type.split("_")[-1]} '
                "(give the point mass as body2)",
                "body1",
            )
        for field, body in (("body1", b1), ("body2", b2)):
            if isinstance(body, d.PointMass) and j.type not in POINT_MASS_JOINTS:
                raise ModelError(
                    where,
                    f'"{body.name}" is a point mass (no orientation); a {j.type} joint needs '
                    f"a rigid body (point masses take {', '.join(POINT_MASS_JOINTS)})",
                    field,
                )
            if isinstance(body, d.PointMass):
                point = j.point1 if field == "body1" and j.type == "distance" else j.point
                point = j.point2 if field == "body2" and j.type == "distance" else point
                if point is not None and math.dist(point, body.position) > 1e-9 * max(
                    1.0, math.hypot(*point)
                ):
                    pf = (
                        {"body1": "point1", "body2": "point2"}[field]
                        if j.type == "distance"
                        else "point"
                    )
                    raise ModelError(
                        where,
                        f'{fmt_vector(point)} is not at point mass "{body.name}" (at '
                        f"{fmt_vector(body.position)}); a point mass can only be joined at its own position",
                        pf,
                    )
        if j.type == "distance":
            self.at_node(where, "point1", b1, j.point1)
            self.at_node(where, "point2", b2, j.point2)
            if j.length is None and math.dist(j.point1, j.point2) < 1e-12:
                raise ModelError(
                    where, "coincides with point1; give a length or use a spherical joint", "point2"
                )
        elif j.type == "sliding":
            self.sliding(where, j, b1, b2)
        else:
            self.at_node(where, "point", b1, j.point)
            self.at_node(where, "point", b2, j.point)
        if j.type == "universal" and _parallel(j.axis1, j.axis2):
            raise ModelError(
                where, "is parallel to axis1; a universal joint needs two crossing axes", "axis2"
            )
        if j.type == "rolling_disk":
            if isinstance(b2, d.FlexibleBody) or b2 is None:
                raise ModelError(where, "must be the rigid disc (body2 rolls on body1)", "body2")
            if _parallel(j.axis, j.normal):
                raise ModelError(
                    where,
                    "is parallel to the plane normal; the disc would lie flat on the plane",
                    "axis",
                )
        if (
            j.type == "fixed"
            and j.point is None
            and (isinstance(b1, d.FlexibleBody) or isinstance(b2, d.FlexibleBody))
        ):
            raise ModelError(
                where, "is needed to clamp a flexible body (the node to clamp)", "point"
            )
        if j.share:
            self.share(where, j, b1, b2)

    def share(self, where: str, j: d.Joint, b1, b2) -> None:
        """A shared joint joins a rigid body and a node of a flexible body."""
        kinds = {type(b) for b in (b1, b2)}
        if kinds != {d.RigidBody, d.FlexibleBody}:
            what = " and ".join(
                "ground" if b is None else f'"{b.name}" ({b.type})' for b in (b1, b2)
            )
            raise ModelError(
                where,
                "needs a rigid body (in natural coordinates) and a node of a flexible body "
                f"(ancf_*); the joint joins {what}",
                "share",
            )

    def sliding(self, where: str, j: d.Joint, b1, b2) -> None:
        """body1 is the flexible bar; ``point`` (of body2) lies on its centreline."""
        if not isinstance(b1, d.FlexibleBody):
            what = "ground" if b1 is None else f'"{b1.name}" ({b1.type})'
            raise ModelError(
                where,
                f"is {what}; a sliding joint needs the flexible body (ancf_*) the point "
                "slides along as body1",
                "body1",
            )
        if b1.closed:
            raise ModelError(
                where,
                f'"{b1.name}" is a closed loop; sliding joints run along straight beams',
                "body1",
            )
        self.at_node(where, "point", b2, j.point)
        a, b = np.asarray(b1.points, float)
        length = float(np.linalg.norm(b - a))
        p = np.asarray(j.point, float)
        s = float((p - a) @ (b - a)) / length
        gap = float(np.linalg.norm(p - a - s * (b - a) / length))
        if gap > 1e-9 * max(length, 1.0) or not -1e-9 * length <= s <= length * (1 + 1e-9):
            raise ModelError(
                where,
                f'{fmt_vector(j.point)} is not on the centreline of flexible body "{b1.name}" '
                f"(from {fmt_vector(b1.points[0])} to {fmt_vector(b1.points[1])}); the sliding "
                "point must start on the beam",
                "point",
            )
        if j.rotation == "locked":
            if b1.type != "ancf_beam2d":
                raise ModelError(
                    where,
                    f'"locked" needs a planar beam (ancf_beam2d); "{b1.name}" is {b1.type}',
                    "rotation",
                )
            if not isinstance(b2, d.RigidBody):
                what = "ground" if b2 is None else f'"{b2.name}" ({b2.type})'
                raise ModelError(
                    where,
                    f'"locked" holds the angle of a rigid body2 to the centreline; body2 is {what}',
                    "rotation",
                )

    def driver(self, i: int, drv: d.Driver, driven: dict) -> None:
        where = _label("drivers", i, drv.name)
        joint = self.joints.get(drv.joint)
        if joint is None:
            raise ModelError(where, f'"{drv.joint}" does not exist', "joint")
        coords = JOINT_COORDINATES.get(joint.type)
        if coords is None:
            raise ModelError(
                where,
                f'"{drv.joint}" is a {joint.type} joint; drivers act on revolute (angle), '
                "prismatic (displacement) or cylindrical joints",
                "joint",
            )
        coordinate = drv.coordinate or coords[0]
        if coordinate not in coords:
            raise ModelError(
                where,
                f'"{coordinate}" is not a coordinate of a {joint.type} joint (it has {", ".join(coords)})',
                "coordinate",
            )
        key = (drv.joint, coordinate)
        if key in driven:
            raise ModelError(
                where,
                f'the {coordinate} of joint "{drv.joint}" is already driven by {driven[key]}',
                "joint",
            )
        driven[key] = where

    def force(self, i: int, f: d.Force) -> None:
        where = _label("forces", i, f.name)
        if f.type == "spring_damper":
            b1 = self.body_ref(where, "body1", f.body1)
            b2 = self.body_ref(where, "body2", f.body2)
            if f.body1 == f.body2:
                raise ModelError(
                    where, f'"{f.body2}" is also body1; a spring connects two bodies', "body2"
                )
            self.at_node(where, "point1", b1, f.point1)
            self.at_node(where, "point2", b2, f.point2)
        elif f.type in ("force", "torque"):
            body = self.body_ref(where, "body", f.body, ground_ok=False)
            if f.type == "force":
                self.at_node(where, "point", body, f.point)
            if f.type == "force" and f.frame == "body" and isinstance(body, d.PointMass):
                raise ModelError(
                    where,
                    f'"{f.body}" is a point mass (no orientation); use "frame": "global"',
                    "frame",
                )
            if f.type == "torque" and isinstance(body, d.PointMass):
                raise ModelError(
                    where, f'"{f.body}" is a point mass; it cannot take a torque', "body"
                )
        elif f.type in ("rotational_spring_damper", "joint_torque", "joint_force"):
            joint = self.joints.get(f.joint)
            if joint is None:
                raise ModelError(where, f'"{f.joint}" does not exist', "joint")
            need = "displacement" if f.type == "joint_force" else "angle"
            if need not in JOINT_COORDINATES.get(joint.type, ()):
                kinds = (
                    "prismatic or cylindrical"
                    if need == "displacement"
                    else "revolute or cylindrical"
                )
                raise ModelError(
                    where,
                    f'"{f.joint}" is a {joint.type} joint; a {f.type} needs a {kinds} joint',
                    "joint",
                )
        elif f.type == "distributed_load":
            body = self.body_ref(where, "body", f.body, ground_ok=False)
            if not isinstance(body, d.FlexibleBody):
                raise ModelError(
                    where,
                    f'"{f.body}" is not a flexible body; a distributed_load acts along an '
                    "ancf_beam2d, ancf_cable or ancf_beam3d",
                    "body",
                )
        elif f.type == "pulley_contact":
            belt = self.body_ref(where, "belt", f.belt, ground_ok=False)
            if not isinstance(belt, d.FlexibleBody) or belt.type != "ancf_beam2d":
                what = f"{belt.type}" if belt is not None else "ground"
                raise ModelError(
                    where,
                    f'"{f.belt}" is {what}; a pulley contact acts on a planar flexible body '
                    "(ancf_beam2d)",
                    "belt",
                )
            pulley = self.body_ref(where, "pulley.body", f.pulley.body)
            if pulley is not None and not isinstance(pulley, d.RigidBody):
                raise ModelError(
                    where,
                    f'"{f.pulley.body}" is {pulley.type}; a pulley is a rigid body or ground',
                    "pulley.body",
                )
        elif f.type == "contact":
            s1 = self.body_ref(where, "sphere.body", f.sphere.body)
            other = f.plane if f.plane is not None else f.sphere2
            field = "plane.body" if f.plane is not None else "sphere2.body"
            self.body_ref(where, field, other.body)
            if other.body == f.sphere.body:
                raise ModelError(
                    where,
                    f'"{other.body}" is also the sphere\'s body; contact needs two bodies',
                    field,
                )
            if isinstance(s1, d.FlexibleBody):
                raise ModelError(
                    where, "contact spheres on flexible bodies are not supported", "sphere.body"
                )

    def output(self, i: int, o: d.Output) -> None:
        where = _label("outputs", i, o.name)
        body = self.body_ref(where, "body", o.body, ground_ok=False)
        self.at_node(where, "point", body, o.point)


def validate_model(model: d.Model) -> None:
    """Raise ``ModelError`` for the first inconsistency in ``model``."""
    columns: dict[str, str] = {}
    _unique(model.bodies, "bodies", columns)
    _unique(model.outputs, "outputs", columns)
    _unique(model.joints, "joints", {})
    _unique(model.drivers, "drivers", {})
    _unique(model.forces, "forces", {})
    check = _Checker(model)
    for i, j in enumerate(model.joints):
        check.joint(i, j)
    driven: dict = {}
    for i, drv in enumerate(model.drivers):
        check.driver(i, drv, driven)
    for i, f in enumerate(model.forces):
        check.force(i, f)
    for i, o in enumerate(model.outputs):
        check.output(i, o)
    check_loops(model)
    for r in model.requests:
        check_request(model, r)
    for i, f in enumerate(model.forces):
        warning = contact_start_warning(i, f)
        if warning and warning not in model.warnings:
            model.warnings.append(warning)


def check_loops(model: d.Model) -> None:
    """A closed belt that starts in equilibrium on its pulleys has some."""
    touched = {f.belt for f in model.forces if f.type == "pulley_contact"}
    for i, b in enumerate(model.bodies):
        closed = isinstance(b, d.FlexibleBody) and b.closed
        if closed and b.loop.initial == "equilibrium" and b.name not in touched:
            raise ModelError(
                _label("bodies", i, b.name),
                'is "equilibrium", which needs a pulley_contact on this belt (or give "path")',
                "loop.initial",
            )


#: Joints that have a coordinate of their own (``joint_coordinates``).
COORDINATE_JOINTS = JOINT_COORDINATES


def check_request(model: d.Model, request: d.ResultRequest) -> None:
    """The names of a result request exist and fit it: reactions of joints, efforts of
    drivers, accelerations of rigid bodies and point masses, coordinates of revolute,
    prismatic and cylindrical joints."""
    kind = request.kind
    where = f'outputs "{kind}"'
    pool = getattr(model, d.RESULT_REQUESTS[kind])
    names = {x.name: x for x in pool}
    for name in request.items or ():
        if name not in names:
            listed = ", ".join(f'"{n}"' for n in names) or "none"
            raise ModelError(
                where, f'"{name}" is not one of the model\'s {d.RESULT_REQUESTS[kind]} ({listed})'
            )
        item = names[name]
        if kind == "contact_forces" and item.type != "pulley_contact":
            raise ModelError(
                where,
                f'"{name}" is a {item.type} force: contact forces are given for pulley_contact '
                "forces",
            )
        if kind == "axial_forces" and not isinstance(item, d.FlexibleBody):
            raise ModelError(
                where, f'"{name}" is not a flexible body: axial forces are given along beams'
            )
        if kind == "accelerations" and isinstance(item, d.FlexibleBody):
            raise ModelError(
                where,
                f'"{name}" is a flexible body: accelerations are given for rigid bodies and '
                "point masses",
            )
        if kind == "joint_coordinates" and item.type not in COORDINATE_JOINTS:
            raise ModelError(
                where,
                f'"{name}" is a {item.type} joint: joint coordinates are given for '
                f"{', '.join(COORDINATE_JOINTS)} joints",
            )
        if kind == "joint_coordinates":
            for field in ("body1", "body2"):
                body = model.body(getattr(item, field))
                if isinstance(body, d.FlexibleBody):
                    raise ModelError(
                        where,
                        f'"{name}" joins flexible body "{body.name}": joint coordinates are '
                        "given between rigid bodies",
                    )


#: Initial penetration of a contact, as a fraction of the (smaller) sphere radius, above
#: which the start is surely a mistake (a sphere resting under its weight is compressed by
#: a few 1e-5 of its radius at most).
DEEP_START = 0.01


def contact_start_warning(index: int, force: d.Force) -> str | None:
    """A warning when contact ``force`` starts with its sphere deep inside the plane or the
    other sphere (more than ``DEEP_START`` of the radius): the first contact force would
    be enormous and fling the bodies apart. Positions are global at t = 0."""
    if force.type != "contact" or force.sphere is None:
        return None
    where = _label("forces", index, force.name)
    center, radius = np.asarray(force.sphere.center, float), force.sphere.radius
    if force.plane is not None:
        normal = np.asarray(force.plane.normal, float)
        height = float((center - np.asarray(force.plane.point, float)) @ normal) / float(
            np.linalg.norm(normal)
        )
        depth, scale = radius - height, radius
        place = (
            f"with its centre {-height:.3g} m behind the plane"
            if height < 0
            else f"{depth:.3g} m into the plane"
        )
        fields = "sphere.center, plane.point and plane.normal (toward the free side)"
    elif force.sphere2 is not None:
        other = np.asarray(force.sphere2.center, float)
        depth = radius + force.sphere2.radius - float(np.linalg.norm(center - other))
        scale = min(radius, force.sphere2.radius)
        place = f"{depth:.3g} m into the other sphere"
        fields = "sphere.center and sphere2.center"
    else:
        return None
    if depth <= DEEP_START * scale:
        return None
    return (
        f"{where}: the sphere starts {place} (penetration {depth:.3g} m, radius "
        f"{scale:.3g} m): the first contact force would fling the bodies apart; check {fields}"
    )


# ---- solver settings -------------------------------------------------------------------

#: Keys of the ``solver`` object.
SETTINGS_FIELDS = (
    "analysis",
    "coordinates",
    "formulation",
    "dt",
    "t_end",
    "output_dt",
    "tolerance",
    "max_iterations",
    "orientation",
    "parameters",
)

#: Formulation parameters accepted under ``solver.parameters`` and their kinds.
SOLVER_PARAMETERS: dict[str, Any] = {
    "penalty": "positive",
    "xi": "nonnegative",
    "omega": "positive",
    "rho_inf": (0.0, 1.0),
    "gamma": "positive",
    "beta": "nonnegative",
    "alpha": "positive",
    "baumgarte_alpha": "nonnegative",
    "baumgarte_beta": "nonnegative",
    "regularisation": "nonnegative",
    "rtol": "positive",
    "atol": "positive",
    "method": ("r_matrix", "newmark"),
    "scheme": ("trapezoidal", "fox_goodwin", "linear_acceleration", "custom"),
    "integrator": ("RK45", "RK23", "DOP853"),
    "variant": ("standard", "reformulated", "family", "fourth_degree", "fifth_degree"),
    "zeta": "positive",
    "group_method": ("global", "structural_groups"),
    "projections": bool,
    "rank_tolerance": "positive",
    "predictor": ("quadratic", "linear"),
    "step_control": bool,
    "rotation_length": "positive",
    "load_steps": "count",
}

#: Most load steps of a static analysis (its smallest increment is 1/4096 of the loads).
MAX_LOAD_STEPS = 4096

#: Most time steps of one run: t_end / dt. Beyond it a run would take days and is far
#: more likely a unit mistake (t_end in ms, dt in s) than an intention.
MAX_STEPS = 10**9
#: Most Newton iterations per step (the compiled steppers count in 64-bit integers).
MAX_ITERATIONS = 1_000_000


def check_settings(
    values: dict[str, Any] | d.SolverSettings,
    given: dict[str, str] | None = None,
    source: str = "solver",
) -> d.SolverSettings:
    """Checked ``SolverSettings`` from ``values`` (a dict as in a model file's ``solver``
    object, missing keys taking their defaults, or settings to check again); raises
    ``ModelError`` naming the field.

    ``given`` maps the fields that were given elsewhere than in the file to how they were
    given, and ``source`` names that place, so an error names what the user typed: for
    the command line ``{"dt": "--dt"}`` and ``"command line"`` gives
    ``command line: --dt (1 s) is larger than t_end (0.1 s)``."""
    if isinstance(values, d.SolverSettings):
        values = {k: v for k, v in asdict(values).items() if v is not None}
    given = given or {}

    def name(key: str) -> str:
        return given.get(key, key)

    def where(key: str) -> str:
        return source if key in given else "solver"

    try:
        return _settings(values, name, where)
    except ModelError as exc:
        key = exc.field.split(".")[0]
        if key not in given:
            raise
        rest = exc.field[len(key) :]
        raise ModelError(source, exc.reason, given[key] + rest) from None


def _settings(values: dict[str, Any], name, where) -> d.SolverSettings:
    if not isinstance(values, dict):
        raise ModelError("solver", f"must be an object {{...}}, not {describe(values)}")
    default = d.SolverSettings()
    f = Fields(values, "solver", SETTINGS_FIELDS)
    dt, t_end = values.get("dt", default.dt), values.get("t_end", default.t_end)
    try:
        counted = number_problem(dt, positive=True) is None and 0 < float(t_end) < math.inf
    except (TypeError, ValueError, OverflowError):  # not a number: its own rule says so
        counted = False
    if counted and is_number(t_end):
        _check_steps(float(t_end), float(dt), name, where)  # before t_end's own range
    settings = d.SolverSettings(
        analysis=f.string("analysis", default.analysis, choices=d.ANALYSES),
        coordinates=f.string("coordinates", default.coordinates, choices=d.COORDINATES),
        formulation=f.string("formulation", default.formulation, choices=d.FORMULATIONS),
        dt=f.number("dt", default.dt, positive=True),
        t_end=f.number("t_end", default.t_end, positive=True),
        output_dt=f.number("output_dt", None, positive=True),
        tolerance=f.number("tolerance", default.tolerance, positive=True),
        max_iterations=f.integer(
            "max_iterations", default.max_iterations, minimum=1, maximum=MAX_ITERATIONS
        ),
        orientation=f.string("orientation", default.orientation, choices=d.ORIENTATIONS),
        parameters={},
    )
    params = values.get("parameters")
    if isinstance(params, dict):  # unknown keys named as the user wrote them
        for key in params:
            if key not in SOLVER_PARAMETERS:
                raise ModelError(
                    where("parameters"),
                    f'unknown field "{name("parameters")}.{describe(key)[1:-1]}"'
                    + suggest(str(key), SOLVER_PARAMETERS),
                )
    p = f.object("parameters", SOLVER_PARAMETERS, None) if params else None
    if p is not None:
        for key, kind in SOLVER_PARAMETERS.items():
            if not p.has(key):
                continue
            if kind == "positive":
                value = p.number(key, positive=True)
            elif kind == "nonnegative":
                value = p.number(key, nonnegative=True)
            elif kind == "count":
                value = p.integer(key, minimum=1, maximum=MAX_LOAD_STEPS)
            elif kind is bool:
                value = p.boolean(key)
            elif all(isinstance(c, str) for c in kind):
                value = p.string(key, choices=kind)
            else:
                value = p.number(key, low=kind[0], high=kind[1])
            settings.parameters[key] = value
    dt, t_end = settings.dt, settings.t_end
    if dt > t_end:
        raise ModelError(
            where("dt"), f"({dt:g} s) is larger than {name('t_end')} ({t_end:g} s)", name("dt")
        )
    if settings.output_dt is not None and settings.output_dt < dt * (1 - 1e-12):
        raise ModelError(
            where("output_dt"),
            f"({settings.output_dt:g} s) is smaller than {name('dt')} ({dt:g} s)",
            name("output_dt"),
        )
    return settings


def _check_steps(t_end: float, dt: float, name, where) -> None:
    """At most ``MAX_STEPS`` steps (a huge t_end is named with the step count)."""
    if t_end / dt > MAX_STEPS * (1 + 1e-12):
        key = "t_end" if where("t_end") != "solver" or where("dt") == "solver" else "dt"
        raise ModelError(
            where(key),
            f"{name('t_end')} ({t_end:g} s) / {name('dt')} ({dt:g} s) is {t_end / dt:.3g} "
            f"time steps; a run takes at most {MAX_STEPS:.0e} (a smaller {name('t_end')} "
            f"or a larger {name('dt')})",
        )
