"""Read a model description from parsed JSON (format ``"biela": 1``).

Every field is type- and range-checked here; cross references and geometry are checked
in ``solver.model.validation``. Errors are ``ModelError`` naming the item and field.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from solver.model import description as d
from solver.model.errors import ModelError
from solver.model.fields import MIN_POSITIVE, REQUIRED, Fields, describe, fmt_vector, is_number
from solver.model.functions import TimeFunction, parse_function
from solver.model.mass_properties import SOLID_SHAPES, body_mass_properties
from solver.model.validation import SETTINGS_FIELDS, SOLVER_PARAMETERS, check_settings

FORMAT_VERSION = 1

#: Most elements of one flexible body (each adds 12 to 24 coordinates).
MAX_ELEMENTS = 10_000
#: Most Gauss points per element of a pulley contact.
MAX_GAUSS_POINTS = 20

TOP_FIELDS = (
    "biela",
    "name",
    "description",
    "gravity",
    "bodies",
    "joints",
    "drivers",
    "forces",
    "outputs",
    "solver",
)

#: Per joint type: (required fields, optional fields), beyond name/type/body1/body2.
JOINT_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "spherical": (("point",), ("share",)),
    "revolute": (("point", "axis"), ("share",)),
    "prismatic": (("point", "axis"), ()),
    "cylindrical": (("point", "axis"), ()),
    "universal": (("point", "axis1", "axis2"), ("share",)),
    "planar": (("point", "normal"), ()),
    "fixed": ((), ("point", "share")),
    "distance": (("point1", "point2"), ("length",)),
    "point_on_line": (("point", "axis"), ()),
    "point_on_plane": (("point", "normal"), ()),
    "rolling_disk": (("point", "axis", "radius", "normal"), ("slip",)),
    "sliding": (("point",), ("rotation",)),
}
JOINT_VECTORS = ("point", "point1", "point2")
JOINT_DIRECTIONS = ("axis", "axis1", "axis2", "normal")

#: Per force type: (required fields, optional fields), beyond name/type.
FORCE_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "spring_damper": (
        ("body1", "point1", "body2", "point2"),
        ("stiffness", "damping", "free_length", "actuator"),
    ),
    "rotational_spring_damper": (("joint",), ("stiffness", "damping", "free_angle")),
    "force": (("body", "point", "vector"), ("frame",)),
    "torque": (("body", "vector"), ("frame",)),
    "joint_torque": (("joint", "function"), ()),
    "joint_force": (("joint", "function"), ()),
    "distributed_load": (("body", "vector"), ()),
    "pulley_contact": (("belt", "pulley", "stiffness"), ("damping", "friction", "gauss_points")),
    "contact": (
        ("sphere",),
        (
            "plane",
            "sphere2",
            "model",
            "stiffness",
            "materials",
            "exponent",
            "restitution",
            "friction",
        ),
    ),
}


def _label(kind: str, index: int, item: Any) -> str:
    name = item.get("name") if isinstance(item, dict) else None
    return f'{kind}[{index}] "{name}"' if isinstance(name, str) else f"{kind}[{index}]"


def _name(f: Fields) -> str:
    name = f.string("name")
    if not name.strip():
        raise f.error("name", "must not be empty")
    if name != name.strip():
        raise f.error("name", f"{describe(name)} must not start or end with spaces")
    # names become CSV columns and appear in messages: no separators, quotes, control or
    # format characters (a terminal escape, a bidirectional override), no unpaired surrogates
    bad = [c for c in name if c in ".,;\"'" or not c.isprintable()]
    if bad:
        raise f.error("name", f"{describe(name)} must not contain {describe(bad[0])}")
    return name


def _function(f: Fields, key: str) -> TimeFunction:
    return parse_function(f.raw(key), where=f.where, field=f.prefix + key)


def _quaternion(f: Fields, key: str, warnings: list[str]) -> d.Quat:
    """Euler parameters from ``[e0, e1, e2, e3]`` or ``{"axis": [...], "angle": rad}``."""
    value = f.raw(key, None)
    if value is None:
        return (1.0, 0.0, 0.0, 0.0)
    if isinstance(value, dict):
        sub = f.object(key, ("axis", "angle"))
        axis = np.array(sub.vector("axis", nonzero=True))
        angle = sub.number("angle")
        axis = axis / np.linalg.norm(axis)
        s = math.sin(angle / 2.0)
        return (math.cos(angle / 2.0), *(float(a * s) for a in axis))
    q = f.check_vector(key, value, size=4)
    norm = math.sqrt(sum(v * v for v in q))
    if abs(norm - 1.0) <= 1e-12:
        return q
    if abs(norm - 1.0) <= 1e-3:
        warnings.append(
            f"{f.where}: {f.prefix}{key} had norm {norm:.9g}; normalised to a unit quaternion"
        )
        return tuple(v / norm for v in q)
    raise f.error(
        key,
        f"is not a unit quaternion (norm {norm:.6g}); give Euler parameters "
        '[e0, e1, e2, e3] with e0²+e1²+e2²+e3² = 1, or {"axis": [...], "angle": rad}',
    )


def _inertia(f: Fields) -> d.Mat3:
    value = f.raw("inertia")
    if isinstance(value, list) and len(value) == 3 and all(is_number(v) for v in value):
        ixx, iyy, izz = f.check_vector("inertia", value)
        return ((ixx, 0.0, 0.0), (0.0, iyy, 0.0), (0.0, 0.0, izz))
    if not (
        isinstance(value, list) and len(value) == 3 and all(isinstance(r, list) for r in value)
    ):
        raise f.error(
            "inertia",
            "must be [Ixx, Iyy, Izz] or a 3×3 tensor [[...], [...], [...]] (kg·m²), "
            f"not {describe(value)}",
        )
    rows = tuple(f.check_vector(f"inertia[{i}]", r) for i, r in enumerate(value))
    return rows  # type: ignore[return-value]


def check_inertia(f: Fields, inertia: d.Mat3) -> None:
    """Symmetric, positive definite, principal moments satisfying the triangle inequality."""
    j = np.array(inertia)
    scale = max(float(np.abs(j).max()), 1e-300)
    if np.abs(j - j.T).max() > 1e-9 * scale:
        raise f.error("inertia", "is not symmetric (Ixy must equal Iyx, and so on)")
    moments = np.linalg.eigvalsh(j)
    if 0.0 < moments[0] < MIN_POSITIVE * (1.0 - 1e-9):
        raise f.error(
            "inertia",
            f"has a principal moment of {moments[0]:.4g} kg·m², below {MIN_POSITIVE:g}: too small "
            "to compute with (check the units: kg·m²)",
        )
    if moments[0] <= 0.0:
        raise f.error(
            "inertia",
            f"is not positive definite (principal moments {', '.join(f'{m:.4g}' for m in moments)} kg·m²); "
            "every moment of inertia must be positive",
        )
    i1, i2, i3 = moments
    if i1 + i2 < i3 * (1.0 - 1e-9):
        raise f.error(
            "inertia",
            f"violates the triangle inequality: principal moments {i1:.4g} + {i2:.4g} < {i3:.4g}; "
            "no rigid body has these moments (check the units and the axes)",
        )


def _shape(item: Any, where: str, index: int, default_center=(0.0, 0.0, 0.0)) -> d.Shape:
    """One shape; a box's, sphere's or mesh's ``center`` defaults to ``default_center``
    (the body's ``position``)."""
    prefix = f"shapes[{index}]."
    kind = item.get("type") if isinstance(item, dict) else None
    allowed = {
        "box": ("type", "center", "size", "orientation", "color"),
        "cylinder": ("type", "from", "to", "radius", "color"),
        "rod": ("type", "from", "to", "radius", "color"),
        "sphere": ("type", "center", "radius", "color"),
        "mesh": ("type", "file", "scale", "center", "color"),
    }
    if kind not in allowed:
        f = Fields(item, where, ("type",) + tuple(k for a in allowed.values() for k in a), prefix)
        f.string("type", choices=d.SHAPE_TYPES)
    f = Fields(item, where, allowed[kind], prefix)
    color = f.string("color", None)
    if kind == "box":
        size = f.vector("size")
        if min(size) <= 0:
            raise f.error("size", "edge lengths must be positive")
        orientation = _quaternion(f, "orientation", []) if f.has("orientation") else None
        return d.Shape(
            "box",
            center=f.vector("center", default_center),
            size=size,
            orientation=orientation,
            color=color,
        )
    if kind in ("cylinder", "rod"):
        start, end = f.vector("from"), f.vector("to")
        if math.dist(start, end) < 1e-12:
            raise f.error("to", "coincides with from; a cylinder needs a length")
        # a rod's radius is optional (drawn thin; massless unless given)
        radius = f.number("radius", None if kind == "rod" else REQUIRED, positive=True)
        return d.Shape(kind, start=start, end=end, radius=radius, color=color)
    if kind == "sphere":
        return d.Shape(
            "sphere",
            center=f.vector("center", default_center),
            radius=f.number("radius", positive=True),
            color=color,
        )
    file = f.string("file")
    if not file.strip():
        raise f.error("file", "must name an STL or OBJ file")
    return d.Shape(
        "mesh",
        file=file,
        scale=f.number("scale", None, positive=True),
        center=f.vector("center", default_center),
        color=color,
    )


def _shapes(f: Fields) -> list[d.Shape]:
    """The body's shapes; centres left out default to the body's ``position``."""
    default = f.vector("position", (0.0, 0.0, 0.0))
    return [_shape(s, f.where, i, default) for i, s in enumerate(f.items("shapes", []))]


def _rigid_body(f: Fields, warnings: list[str]) -> d.RigidBody:
    name = _name(f)
    orientation = _quaternion(f, "orientation", warnings)
    shapes = _shapes(f)
    density = f.number("density", None, positive=True)
    common = dict(
        orientation=orientation,
        velocity=f.vector("velocity", (0.0, 0.0, 0.0)),
        angular_velocity=f.vector("angular_velocity", (0.0, 0.0, 0.0)),
        shapes=shapes,
        color=f.string("color", None),
    )
    if density is not None:
        for key in ("mass", "inertia"):
            if f.has(key):
                raise f.error(
                    key,
                    "must not be given with density; give either mass and inertia, or density and shapes",
                )
        solid = [
            s
            for s in shapes
            if s.type in SOLID_SHAPES and not (s.type == "rod" and s.radius is None)
        ]
        if not solid:
            raise f.error(
                "density",
                "needs solid shapes (box, cylinder, rod, sphere) to compute mass and inertia",
            )
        mass, centre, inertia = body_mass_properties(solid, density, orientation)
        position = f.vector("position", None)
        if position is not None and np.linalg.norm(np.subtract(position, centre)) > 1e-6:
            raise f.error(
                "position",
                f"{fmt_vector(position)} is not the centre of mass of the body's shapes "
                f"{fmt_vector(centre)}; omit position or give mass and inertia",
            )
        inertia_t = tuple(tuple(float(v) for v in row) for row in 0.5 * (inertia + inertia.T))
        body = d.RigidBody(
            name,
            float(mass),
            inertia_t,
            position=tuple(float(c) for c in centre),
            density=density,
            **common,
        )
    else:
        body = d.RigidBody(
            name,
            f.number("mass", positive=True),
            _inertia(f),
            position=f.vector("position", (0.0, 0.0, 0.0)),
            **common,
        )
    check_inertia(f, body.inertia)
    return body


def _point_mass(f: Fields) -> d.PointMass:
    return d.PointMass(
        _name(f),
        f.number("mass", positive=True),
        position=f.vector("position", (0.0, 0.0, 0.0)),
        velocity=f.vector("velocity", (0.0, 0.0, 0.0)),
        shapes=_shapes(f),
        color=f.string("color", None),
    )


def _flexible_body(f: Fields, kind: str) -> d.FlexibleBody:
    name = _name(f)
    loop = None
    p0 = p1 = None
    if f.has("loop"):
        if kind != "ancf_beam2d":
            raise f.error("loop", f"is only for planar belts (ancf_beam2d), not {kind}")
        if f.has("points"):
            raise f.error(
                "loop", "cannot be given with points: a beam is straight (points) or closed (loop)"
            )
        loop = _loop(f)
    else:
        pts = f.items("points")
        if len(pts) != 2:
            raise f.error("points", "must be [start, end]: two points [x, y, z]")
        p0, p1 = (f.check_vector(f"points[{i}]", p) for i, p in enumerate(pts))
        if math.dist(p0, p1) < 1e-9:
            raise f.error("points", "start and end coincide; a beam needs a length")
        if kind == "ancf_beam2d" and (abs(p0[2]) > 1e-12 or abs(p1[2]) > 1e-12):
            raise f.error("points", "a planar beam (ancf_beam2d) must lie in the plane z = 0")
    m = f.object("material", ("E", "nu", "density", "damping"))
    material = d.Material(
        m.number("E", positive=True),
        m.number("nu", 0.3, low=0.0, high=0.4999),
        m.number("density", positive=True),
        m.number("damping", 0.0, nonnegative=True),
    )
    s = f.object("section", ("shape", "width", "height", "radius", "area", "Iy", "Iz", "J"))
    shape = s.string("shape", "general", choices=("rectangle", "circle", "general"))
    if shape == "rectangle":
        for key in ("radius", "area", "Iy", "Iz", "J"):
            if s.has(key):
                raise s.error(key, "does not apply to a rectangle (give width and height)")
        section = d.Section(
            "rectangle",
            width=s.number("width", positive=True),
            height=s.number("height", positive=True),
        )
    elif shape == "circle":
        for key in ("width", "height", "area", "Iy", "Iz", "J"):
            if s.has(key):
                raise s.error(key, "does not apply to a circle (give radius)")
        section = d.Section("circle", radius=s.number("radius", positive=True))
    else:
        for key in ("width", "height", "radius"):
            if s.has(key):
                raise s.error(key, 'needs "shape": "rectangle" or "circle"')
        section = d.Section(
            "general",
            area=s.number("area", positive=True),
            Iy=s.number("Iy", positive=True),
            Iz=s.number("Iz", positive=True),
            J=s.number("J", None, positive=True),
        )
    element = f.string("element", None, choices=d.FLEXIBLE_ELEMENTS[kind])
    elements = f.integer("elements", 1, minimum=1, maximum=MAX_ELEMENTS)
    if loop is not None and elements < 3:
        raise f.error("elements", f"must be at least 3 for a closed loop (got {elements})")
    belt = None
    if f.has("belt"):
        if element != "belt":
            raise f.error("belt", 'gives the stiffness factors of "element": "belt" only')
        b = f.object("belt", ("axial_factor", "bending_factor", "shear_factor"))
        belt = d.BeltOptions(
            b.number("axial_factor", 1.0, positive=True),
            b.number("bending_factor", 1.0, positive=True),
            b.number("shear_factor", None, positive=True),
        )
    if element == "belt" and material.damping > 0.0:
        raise f.error("material.damping", "must be 0: the belt element has no material damping")
    return d.FlexibleBody(
        name,
        kind,
        None if loop is not None else (p0, p1),
        elements,
        material,
        section,
        velocity=f.vector("velocity", (0.0, 0.0, 0.0)),
        color=f.string("color", None),
        element=element,
        loop=loop,
        belt=belt,
    )


def _loop(f: Fields) -> d.Loop:
    """``loop``: circles (counter-clockwise, the belt on their outside), strain, initial."""
    from solver.model.loop_path import LoopPath, LoopPathError

    lp = f.object("loop", ("circles", "strain", "initial"))
    items = lp.items("circles")
    if not items:
        raise lp.error("circles", "must list at least one circle")
    circles = []
    for i, item in enumerate(items):
        c = Fields(item, f.where, ("center", "radius"), prefix=f"loop.circles[{i}].")
        center = c.vector("center")
        if abs(center[2]) > 1e-12:
            raise c.error("center", "must lie in the plane z = 0 of a planar belt")
        circles.append(d.Circle(center, c.number("radius", positive=True)))
    try:
        LoopPath(circles)
    except LoopPathError as exc:
        raise lp.error("circles", str(exc)) from None
    strain = lp.number("strain", 0.0, low=-0.5, high=1.0)
    return d.Loop(tuple(circles), strain, lp.string("initial", None, choices=d.LOOP_INITIAL))


BODY_FIELDS = {
    "rigid": (
        "name",
        "type",
        "mass",
        "inertia",
        "density",
        "position",
        "orientation",
        "velocity",
        "angular_velocity",
        "shapes",
        "color",
    ),
    "point_mass": ("name", "type", "mass", "position", "velocity", "shapes", "color"),
    **{
        k: (
            "name",
            "type",
            "points",
            "elements",
            "material",
            "section",
            "velocity",
            "color",
            "element",
            "loop",
            "belt",
        )
        for k in d.FLEXIBLE_TYPES
    },
}


def _body(item: Any, where: str, warnings: list[str]) -> d.Body:
    kind = item.get("type", "rigid") if isinstance(item, dict) else None
    if kind not in BODY_FIELDS:
        f = Fields(item, where, {k for v in BODY_FIELDS.values() for k in v})
        f.string("type", choices=d.BODY_TYPES)
    f = Fields(item, where, BODY_FIELDS[kind])
    if kind == "rigid":
        return _rigid_body(f, warnings)
    if kind == "point_mass":
        return _point_mass(f)
    return _flexible_body(f, kind)


def _joint(item: Any, where: str) -> d.Joint:
    kind = item.get("type") if isinstance(item, dict) else None
    base = ("name", "type", "body1", "body2")
    if kind not in JOINT_FIELDS:
        f = Fields(item, where, base + tuple({k for r, o in JOINT_FIELDS.values() for k in r + o}))
        f.string("type", choices=d.JOINT_TYPES)
    required, optional = JOINT_FIELDS[kind]
    if "share" in item and kind not in d.SHARE_ITEMS:
        raise ModelError(
            where,
            f"is not a field of {kind} joints: spherical, revolute, universal and fixed joints "
            "share coordinates",
            "share",
        )
    f = Fields(item, where, base + required + optional)
    values: dict[str, Any] = {}
    for key in required + optional:
        if key not in required and not f.has(key):
            continue
        if key in JOINT_VECTORS:
            values[key] = f.vector(key)
        elif key in JOINT_DIRECTIONS:
            values[key] = f.vector(key, nonzero=True)
        elif key in ("length", "radius"):
            values[key] = f.number(key, positive=True)
        elif key == "slip":
            values[key] = f.string(key, choices=d.ROLLING_SLIP)
        elif key == "rotation":
            values[key] = f.string(key, choices=d.SLIDING_ROTATION)
        elif key == "share":
            values[key] = _share(f, kind)
    return d.Joint(_name(f), kind, f.string("body1"), f.string("body2"), **values)


def _share(f: Fields, kind: str) -> tuple[str, ...] | None:
    """``share``: ``true`` (``SHARE_TRUE``), ``false`` (``None``) or a non-empty list of
    ``SHARE_ITEMS`` of the joint type, kept in that order."""
    value = f.raw("share")
    allowed = d.SHARE_ITEMS[kind]
    if isinstance(value, bool):
        return d.SHARE_TRUE[kind] if value else None
    listing = ", ".join(f'"{a}"' for a in allowed)
    if not isinstance(value, list) or not value:
        raise f.error(
            "share",
            f"must be true, false or a list of what to share ({listing}), not {describe(value)}",
        )
    for i, item in enumerate(value):
        if item not in allowed:
            raise f.error(
                f"share[{i}]",
                f"{describe(item)} cannot be shared by a {kind} joint (it shares {listing})",
            )
        if item in value[:i]:
            raise f.error(f"share[{i}]", f"{describe(item)} is listed twice")
    return tuple(a for a in allowed if a in value)


def _driver(item: Any, where: str) -> d.Driver:
    f = Fields(item, where, ("name", "joint", "function", "coordinate"))
    return d.Driver(
        _name(f),
        f.string("joint"),
        _function(f, "function"),
        f.string("coordinate", None, choices=("angle", "displacement")),
    )


def _sphere_ref(f: Fields, key: str) -> d.SphereRef:
    s = f.object(key, ("body", "center", "radius"))
    return d.SphereRef(s.string("body"), s.vector("center"), s.number("radius", positive=True))


def _force(item: Any, where: str) -> d.Force:
    kind = item.get("type") if isinstance(item, dict) else None
    if kind not in FORCE_FIELDS:
        f = Fields(
            item,
            where,
            ("name", "type") + tuple({k for r, o in FORCE_FIELDS.values() for k in r + o}),
        )
        f.string("type", choices=d.FORCE_TYPES)
    required, optional = FORCE_FIELDS[kind]
    f = Fields(item, where, ("name", "type") + required + optional)
    v: dict[str, Any] = {}
    for key in required + optional:
        if key not in required and not f.has(key):
            continue
        if key in ("body", "body1", "body2", "joint", "belt"):
            v[key] = f.string(key)
        elif key in ("point", "point1", "point2"):
            v[key] = f.vector(key)
        elif key in ("stiffness", "damping", "free_length", "restitution"):
            v[key] = f.number(key, nonnegative=True)
        elif key == "exponent":
            v[key] = f.number(key, positive=True)
        elif key == "free_angle":
            v[key] = f.number(key)
        elif key in ("actuator", "function"):
            v[key] = _function(f, key)
        elif key == "vector":
            vec = f.items(key)
            if len(vec) != 3:
                raise f.error(key, "must be a list of 3 components (numbers or functions)")
            v[key] = tuple(
                parse_function(c, where=where, field=f"vector[{i}]") for i, c in enumerate(vec)
            )
        elif key == "frame":
            v[key] = f.string(key, choices=d.FRAMES)
        elif key in ("sphere", "sphere2"):
            v[key] = _sphere_ref(f, key)
        elif key == "plane":
            p = f.object(key, ("body", "point", "normal"))
            v[key] = d.PlaneRef(
                p.string("body"), p.vector("point"), p.vector("normal", nonzero=True)
            )
        elif key == "model":
            v[key] = f.string(key, choices=d.CONTACT_MODELS)
        elif key == "materials":
            m = f.object(key, ("E1", "nu1", "E2", "nu2"))
            v[key] = d.ContactMaterials(
                m.number("E1", positive=True),
                m.number("nu1", low=0.0, high=0.5),
                m.number("E2", positive=True),
                m.number("nu2", low=0.0, high=0.5),
            )
        elif key == "pulley":
            p = f.object(key, ("body", "center", "radius"))
            v[key] = d.PulleyRef(
                p.string("body"), p.vector("center"), p.number("radius", positive=True)
            )
        elif key == "gauss_points":
            v[key] = f.integer(key, minimum=1, maximum=MAX_GAUSS_POINTS)
        elif key == "friction" and kind == "pulley_contact":
            m = f.object(key, ("mu", "slope"))
            v[key] = d.TrilinearFriction(
                m.number("mu", nonnegative=True), m.number("slope", positive=True)
            )
        elif key == "friction":
            m = f.object(key, ("mu", "velocity_tolerance"))
            v[key] = d.Friction(
                m.number("mu", nonnegative=True),
                m.number("velocity_tolerance", 1e-3, positive=True),
            )
    if kind == "pulley_contact" and v.get("stiffness") == 0.0:
        raise f.error("stiffness", "must be positive (got 0)")
    if kind == "contact":
        if ("plane" in v) == ("sphere2" in v):
            raise f.error("plane", "give either plane or sphere2 (the second contact surface)")
        if ("stiffness" in v) == ("materials" in v):
            raise f.error(
                "stiffness", "give either stiffness or materials (to compute the Hertz stiffness)"
            )
        if v.get("stiffness") == 0.0:
            raise f.error("stiffness", "must be positive (got 0)")
        if "restitution" in v and not 0.0 < v["restitution"] <= 1.0:
            raise f.error("restitution", f"must be in (0, 1] (got {v['restitution']:g})")
    return d.Force(_name(f), kind, **v)


def _output(item: Any, where: str) -> d.Output | d.ResultRequest:
    """An output point ``{"name", "body", "point"}`` or a request of result quantities
    ``{"reactions": "J1"}`` (a name, a list of names, or ``true`` for all)."""
    kinds = [k for k in d.RESULT_REQUESTS if isinstance(item, dict) and k in item]
    if not kinds:
        f = Fields(item, where, ("name", "body", "point"))
        return d.Output(_name(f), f.string("body"), f.vector("point"))
    f = Fields(item, where, tuple(d.RESULT_REQUESTS))
    if len(kinds) > 1:
        raise f.error(kinds[1], f"give one request per item (this one also has {kinds[0]})")
    kind = kinds[0]
    value = f.raw(kind)
    what = {"joints": "joint", "drivers": "driver", "bodies": "body", "forces": "force"}[
        d.RESULT_REQUESTS[kind]
    ]
    if value is True:
        return d.ResultRequest(kind, None)
    names = [value] if isinstance(value, str) else value
    if not (isinstance(names, list) and names and all(isinstance(n, str) and n for n in names)):
        raise f.error(
            kind,
            f"must be a {what} name, a list of {what} names or true (all), not {describe(value)}",
        )
    return d.ResultRequest(kind, tuple(names))


def _solver(data: Any) -> d.SolverSettings:
    """The solver settings of a file: unknown keys refused here, every value checked by
    ``check_settings`` (the rules the command line and ``simulate()`` go through too)."""
    f = Fields(data, "solver", SETTINGS_FIELDS)
    p = f.object("parameters", SOLVER_PARAMETERS, None)
    values = dict(f.data)
    if p is not None:
        values["parameters"] = dict(p.data)
    return check_settings(values)


def read_model(data: Any) -> d.Model:
    """Build a ``Model`` from parsed JSON; raise ``ModelError`` on the first mistake."""
    if not isinstance(data, dict):
        raise ModelError("", f"a model file must hold a JSON object {{...}}, not {describe(data)}")
    version = data.get("biela")
    if version is None:
        raise ModelError(
            "", 'is not a Biela model: the "biela" format version field is missing (add "biela": 1)'
        )
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelError(
            "", f'"biela" format version must be a whole number >= 1, not {describe(version)}'
        )
    if version > FORMAT_VERSION:
        raise ModelError(
            "",
            f"was written for model format {describe(version)} by a newer Biela; this version reads "
            f"format {FORMAT_VERSION}: update Biela to open it",
        )
    top = Fields(data, "model", TOP_FIELDS)
    warnings: list[str] = []
    name = top.string("name", "Untitled")
    model = d.Model(
        name=name,
        description=top.string("description", None),
        gravity=top.vector("gravity", (0.0, 0.0, -9.81)),
    )
    model.bodies = [
        _body(b, _label("bodies", i, b), warnings) for i, b in enumerate(top.items("bodies", []))
    ]
    model.joints = [
        _joint(j, _label("joints", i, j)) for i, j in enumerate(top.items("joints", []))
    ]
    model.drivers = [
        _driver(x, _label("drivers", i, x)) for i, x in enumerate(top.items("drivers", []))
    ]
    model.forces = [
        _force(x, _label("forces", i, x)) for i, x in enumerate(top.items("forces", []))
    ]
    outputs = [_output(x, _label("outputs", i, x)) for i, x in enumerate(top.items("outputs", []))]
    model.outputs = [o for o in outputs if isinstance(o, d.Output)]
    model.requests = [o for o in outputs if isinstance(o, d.ResultRequest)]
    model.solver = _solver(data["solver"]) if "solver" in data else d.SolverSettings()
    model.warnings = warnings
    return model
