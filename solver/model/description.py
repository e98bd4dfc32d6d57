"""The model description: what the user describes, as typed dataclasses.

Conventions (docs/model_format.md §1): SI units; every point, axis and position is global, at the
initial configuration; Euler parameters ``[e0, e1, e2, e3]`` (scalar first, body→global);
angular velocities in the global frame; ``ground`` is the implicit fixed body.

Vectors are stored as tuples so that dataclass equality is exact and a model can be
compared after a load → save → load round trip. Optional fields are ``None`` when the
file does not give them; the writer omits them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from solver.model.functions import TimeFunction

Vec3 = tuple[float, float, float]
Mat3 = tuple[Vec3, Vec3, Vec3]
Quat = tuple[float, float, float, float]

GROUND = "ground"

RIGID_TYPES = ("rigid",)
POINT_MASS_TYPES = ("point_mass",)
FLEXIBLE_TYPES = ("ancf_beam2d", "ancf_cable", "ancf_beam3d")
BODY_TYPES = RIGID_TYPES + POINT_MASS_TYPES + FLEXIBLE_TYPES
#: element types of each flexible body type; the first is the default
FLEXIBLE_ELEMENTS = {
    "ancf_beam2d": ("euler_bernoulli", "continuum", "euler_bernoulli_linear", "belt"),
    "ancf_cable": ("cable",),
    "ancf_beam3d": ("continuum",),
}

JOINT_TYPES = (
    "spherical",
    "revolute",
    "prismatic",
    "cylindrical",
    "universal",
    "planar",
    "fixed",
    "distance",
    "point_on_line",
    "point_on_plane",
    "rolling_disk",
    "sliding",
)
ROLLING_SLIP = ("none", "lateral", "longitudinal", "free")

FORCE_TYPES = (
    "spring_damper",
    "rotational_spring_damper",
    "force",
    "torque",
    "joint_torque",
    "joint_force",
    "contact",
    "distributed_load",
    "pulley_contact",
)
CONTACT_MODELS = ("hunt_crossley", "lankarani_nikravesh", "hertz")
FRAMES = ("global", "body")

SHAPE_TYPES = ("box", "cylinder", "sphere", "rod", "mesh")

ANALYSES = ("dynamic", "kinematic", "static", "modes", "assembly")
COORDINATES = ("reference_point", "natural", "natural_planar")
FORMULATIONS = (
    "lagrange_baumgarte",
    "penalty",
    "augmented_lagrangian",
    "null_space",
    "central_differences",
    "index3_newmark",
)
ORIENTATIONS = ("euler_parameters", "euler_zxz", "rodrigues", "gibbs")


@dataclass(eq=True)
class Shape:
    """A visual (and, with a body ``density``, massive) shape in global coordinates.

    ``box``: ``center``, ``size`` (edge lengths along the box axes), ``orientation``
    (optional quaternion of the box axes); ``cylinder`` and ``rod``: ``start``/``end``
    (JSON ``from``/``to``) and ``radius``; ``sphere``: ``center``, ``radius``;
    ``mesh``: ``file`` (STL/OBJ path, relative to the model file), ``scale`` and ``center``
    (where the centroid of the volume the mesh encloses is placed; ``None``: where the
    file puts it). In a model file a box's, sphere's or mesh's ``center`` defaults to the
    body's ``position``.
    """

    type: str
    center: Vec3 | None = None
    size: Vec3 | None = None
    orientation: Quat | None = None
    start: Vec3 | None = None
    end: Vec3 | None = None
    radius: float | None = None
    file: str | None = None
    scale: float | None = None
    color: str | None = None


@dataclass(eq=True)
class RigidBody:
    """A rigid body: centre of mass ``position``, ``orientation`` body→global.

    ``inertia`` is about the centre of mass in body axes, stored as a full symmetric 3×3
    tensor (the file may give the diagonal only). A body may give ``density`` instead of
    ``mass``/``inertia``; its shapes then define both (see ``mass_properties``).
    """

    name: str
    mass: float
    inertia: Mat3
    position: Vec3 = (0.0, 0.0, 0.0)
    orientation: Quat = (1.0, 0.0, 0.0, 0.0)
    velocity: Vec3 = (0.0, 0.0, 0.0)
    angular_velocity: Vec3 = (0.0, 0.0, 0.0)
    shapes: list[Shape] = field(default_factory=list)
    color: str | None = None
    density: float | None = None
    type: str = "rigid"


@dataclass(eq=True)
class PointMass:
    """A particle: three coordinates, no orientation, no inertia."""

    name: str
    mass: float
    position: Vec3 = (0.0, 0.0, 0.0)
    velocity: Vec3 = (0.0, 0.0, 0.0)
    shapes: list[Shape] = field(default_factory=list)
    color: str | None = None
    type: str = "point_mass"


@dataclass(eq=True)
class Material:
    """Linear elastic material: Young's modulus ``E`` (Pa), Poisson ratio ``nu``,
    ``density`` (kg/m³) and the internal damping factor of García Vallejo (2006) §3.3 (s, 0 =
    none)."""

    E: float
    nu: float
    density: float
    damping: float = 0.0


@dataclass(eq=True)
class Section:
    """Beam cross-section: ``rectangle`` (width along the section's y, height along z),
    ``circle`` (radius) or ``general`` (area, Iy, Iz, J given directly, m², m⁴)."""

    shape: str
    width: float | None = None
    height: float | None = None
    radius: float | None = None
    area: float | None = None
    Iy: float | None = None
    Iz: float | None = None
    J: float | None = None


@dataclass(eq=True)
class Circle:
    """A circle in the plane z = 0 (its ``center`` z is that plane's), radius in m."""

    center: Vec3
    radius: float


#: ``initial`` of a closed belt: at rest in static equilibrium on its pulleys, or on the
#: wrap path itself.
LOOP_INITIAL = ("equilibrium", "path")


@dataclass(eq=True)
class Loop:
    """A closed belt wrapped around ``circles`` (counter-clockwise, on their outside), its
    natural length the path's divided by ``1 + strain``; ``initial`` (``LOOP_INITIAL``,
    ``None``: equilibrium when the belt has pulley contacts, else the path)."""

    circles: tuple[Circle, ...]
    strain: float = 0.0
    initial: str | None = None


@dataclass(eq=True)
class BeltOptions:
    """Stiffness factors of the belt element: α₁ (``axial_factor``), α₂ (``bending_factor``,
    bending and shear), and the shear correction factor k_s (``None``: Cowper's for the
    section)."""

    axial_factor: float = 1.0
    bending_factor: float = 1.0
    shear_factor: float | None = None


@dataclass(eq=True)
class FlexibleBody:
    """An ANCF beam lying straight and unstressed from ``points[0]`` to ``points[1]``
    at t = 0, meshed into ``elements`` equal elements with shared nodes; or, with ``loop``
    instead of ``points``, a closed planar belt whose last node is its first
    (``loop_path``)."""

    name: str
    type: str
    points: tuple[Vec3, Vec3] | None
    elements: int
    material: Material
    section: Section
    velocity: Vec3 = (0.0, 0.0, 0.0)
    color: str | None = None
    #: element type (``FLEXIBLE_ELEMENTS``); ``None`` = the type's default (the first)
    element: str | None = None
    loop: Loop | None = None
    belt: BeltOptions | None = None

    @property
    def closed(self) -> bool:
        return self.loop is not None

    def node_positions(self) -> list[Vec3]:
        """Global node positions at t = 0 (``elements + 1`` nodes, evenly spaced; a closed
        belt has ``elements`` nodes, evenly spaced along its path)."""
        if self.loop is not None:
            from solver.model.loop_path import LoopPath

            path = LoopPath(self.loop.circles)
            return [tuple(p) for p in path.nodes(self.elements)[0]]
        (ax, ay, az), (bx, by, bz) = self.points
        n = self.elements
        return [
            (ax + (bx - ax) * k / n, ay + (by - ay) * k / n, az + (bz - az) * k / n)
            for k in range(n + 1)
        ]

    def span(self) -> float:
        """Length (m) along the body at t = 0: the distance between the points, or the
        loop's path length."""
        if self.loop is not None:
            from solver.model.loop_path import LoopPath

            return LoopPath(self.loop.circles).length
        (ax, ay, az), (bx, by, bz) = self.points
        return ((bx - ax) ** 2 + (by - ay) ** 2 + (bz - az) ** 2) ** 0.5

    def natural_length(self) -> float:
        """Unstressed length (m): the span, or a loop's path length over ``1 + strain``."""
        if self.loop is not None:
            return self.span() / (1.0 + self.loop.strain)
        return self.span()


Body = RigidBody | PointMass | FlexibleBody


@dataclass(eq=True)
class Joint:
    """A kinematic joint between ``body1`` (may be ``ground``) and ``body2``.

    Which of the optional fields are required depends on ``type`` (docs/model_format.md;
    ``JOINT_FIELDS`` in ``solver.model.reader``).
    """

    name: str
    type: str
    body1: str
    body2: str
    point: Vec3 | None = None
    axis: Vec3 | None = None
    axis1: Vec3 | None = None
    axis2: Vec3 | None = None
    normal: Vec3 | None = None
    point1: Vec3 | None = None
    point2: Vec3 | None = None
    length: float | None = None
    radius: float | None = None
    slip: str | None = None
    rotation: str | None = None
    #: what the joint shares between a natural-coordinate rigid body and a flexible body's
    #: node (``SHARE_ITEMS``), in that order; ``None``: nothing (the joint is equations)
    share: tuple[str, ...] | None = None


#: ``rotation`` of a ``sliding`` joint: body2's rotation relative to the centreline.
SLIDING_ROTATION = ("free", "locked")

#: What a joint between a natural-coordinate rigid body and a flexible body's node may
#: share (``share``): the joint point (the node position), the revolute axis (the node's
#: r_y or r_z) and the node's slopes (a ``fixed`` joint).
SHARE_ITEMS = {
    "spherical": ("point",),
    "revolute": ("point", "axis"),
    "universal": ("point",),
    "fixed": ("point", "slopes"),
}
#: What ``"share": true`` shares, by joint type.
SHARE_TRUE = {
    "spherical": ("point",),
    "revolute": ("point",),
    "universal": ("point",),
    "fixed": ("point", "slopes"),
}


@dataclass(eq=True)
class Driver:
    """The relative ``coordinate`` (``angle`` for revolute, ``displacement`` for
    prismatic; either for cylindrical, default ``displacement``) of ``joint``, measured
    from the initial configuration, follows ``function`` (rad or m)."""

    name: str
    joint: str
    function: TimeFunction
    coordinate: str | None = None


@dataclass(eq=True)
class SphereRef:
    """A contact sphere carried by a body: global centre at t = 0 and radius (m)."""

    body: str
    center: Vec3
    radius: float


@dataclass(eq=True)
class PlaneRef:
    """A contact plane carried by a body: a point on it and its normal (toward the free
    side), global at t = 0."""

    body: str
    point: Vec3
    normal: Vec3


@dataclass(eq=True)
class ContactMaterials:
    """Young's moduli (Pa) and Poisson ratios of the two contacting bodies (Hertz)."""

    E1: float
    nu1: float
    E2: float
    nu2: float


@dataclass(eq=True)
class Friction:
    """Regularised Coulomb friction: coefficient ``mu``, sliding-speed tolerance (m/s)."""

    mu: float
    velocity_tolerance: float = 1e-3


@dataclass(eq=True)
class PulleyRef:
    """A rigid pulley: the circle of ``radius`` (m) about ``center`` (global at t = 0) in the
    plane of a planar belt, carried by ``body`` (a rigid body turning about z, or ground)."""

    body: str
    center: Vec3
    radius: float


@dataclass(eq=True)
class TrilinearFriction:
    """The trilinear friction law of a pulley contact: ``|f_t| = min(slope |v_t|, mu f_n)``
    per unit length (``slope`` in N·s/m², i.e. kg/(m·s))."""

    mu: float
    slope: float


@dataclass(eq=True)
class Force:
    """A force element. Which optional fields are required depends on ``type``
    (docs/model_format.md; ``FORCE_FIELDS`` in ``solver.model.reader``). ``vector`` entries
    are numbers or time functions."""

    name: str
    type: str
    body: str | None = None
    point: Vec3 | None = None
    vector: tuple[TimeFunction, TimeFunction, TimeFunction] | None = None
    frame: str | None = None
    body1: str | None = None
    point1: Vec3 | None = None
    body2: str | None = None
    point2: Vec3 | None = None
    stiffness: float | None = None
    damping: float | None = None
    free_length: float | None = None
    actuator: TimeFunction | None = None
    joint: str | None = None
    free_angle: float | None = None
    function: TimeFunction | None = None
    sphere: SphereRef | None = None
    plane: PlaneRef | None = None
    sphere2: SphereRef | None = None
    model: str | None = None
    materials: ContactMaterials | None = None
    exponent: float | None = None
    restitution: float | None = None
    friction: Friction | TrilinearFriction | None = None
    belt: str | None = None
    pulley: PulleyRef | None = None
    gauss_points: int | None = None


@dataclass(eq=True)
class Output:
    """An output point fixed to ``body`` at global ``point`` (t = 0)."""

    name: str
    body: str
    point: Vec3


#: Kinds of requested result quantities (an ``outputs`` item ``{"reactions": "J1"}``) and the
#: item list each names.
RESULT_REQUESTS = {
    "reactions": "joints",
    "efforts": "drivers",
    "accelerations": "bodies",
    "joint_coordinates": "joints",
    "contact_forces": "forces",
    "axial_forces": "bodies",
}


@dataclass(eq=True)
class ResultRequest:
    """Quantities to compute at every output (``solver.analysis.outputs``): ``kind`` one of
    ``RESULT_REQUESTS``; ``items`` the joint, driver or body names, ``None`` for all of
    them (the file's ``true``)."""

    kind: str
    items: tuple[str, ...] | None = None


@dataclass(eq=True)
class SolverSettings:
    """Analysis settings; ``parameters`` holds the formulation's own parameters."""

    analysis: str = "dynamic"
    coordinates: str = "reference_point"
    formulation: str = "augmented_lagrangian"
    dt: float = 1e-3
    t_end: float = 1.0
    output_dt: float | None = None
    tolerance: float = 1e-10
    max_iterations: int = 25
    orientation: str = "euler_parameters"
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=True)
class Model:
    """A complete model description (file format ``"biela": 1``)."""

    name: str = "Untitled"
    gravity: Vec3 = (0.0, 0.0, -9.81)
    bodies: list[Body] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    drivers: list[Driver] = field(default_factory=list)
    forces: list[Force] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    #: requested result quantities: reactions, efforts, accelerations, joint coordinates
    #: (the file's ``outputs`` list holds them with the output points)
    requests: list[ResultRequest] = field(default_factory=list)
    solver: SolverSettings = field(default_factory=SolverSettings)
    description: str | None = None
    warnings: list[str] = field(default_factory=list, compare=False, repr=False)

    def body(self, name: str) -> Body | None:
        """The body called ``name`` (``None`` for ground or an unknown name)."""
        return next((b for b in self.bodies if b.name == name), None)

    def joint(self, name: str) -> Joint | None:
        return next((j for j in self.joints if j.name == name), None)
