"""The model check: validation, assembly and a degrees-of-freedom report.

``check(model)`` validates the description, counts freedoms and equations by type
(Grübler–Kutzbach, spatial), assembles the initial configuration (minimum-norm Newton;
``AssemblyError`` names the joints that cannot be closed and the residual) and takes the
numerical rank of ``Φ_q`` there: DOF, redundant constraints and the joints involved,
the passive freedoms (a body's spin that moves none of its joint, force or output points:
"1 passive freedom: coupler spin about J1–J2") and a warning near a singular position.
Everything after validation is sparse for large models, so a check costs time and memory
in proportion to the number of bodies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.kinematics import AssemblyError, assemble
from solver.analysis.mobility import Mobility, mobility
from solver.analysis.rolling_consistency import check_rolling_consistency
from solver.mechanics.system import MultibodySystem
from solver.model import description as d
from solver.model.errors import UnsupportedFeature
from solver.model.validation import validate_model

#: Holonomic constraint equations per joint type (spatial).
JOINT_EQUATIONS = {
    "spherical": 3,
    "revolute": 5,
    "prismatic": 5,
    "cylindrical": 4,
    "universal": 4,
    "planar": 3,
    "fixed": 6,
    "distance": 1,
    "point_on_line": 2,
    "point_on_plane": 1,
    "rolling_disk": 1,
    "sliding": 2,  # 3 point equations − the sliding parameter they add
}
#: Velocity-level (non-holonomic) no-slip equations of a rolling disc, by ``slip``.
ROLLING_NO_SLIP = {"none": 2, "lateral": 1, "longitudinal": 1, "free": 0}
#: Nodal coordinates per node of each ANCF body type (its default element), and the planar
#: elements that carry the section vector r_y too (6 per node).
NODE_COORDINATES = {"ancf_beam2d": 4, "ancf_cable": 6, "ancf_beam3d": 12}
PLANAR_WITH_SECTION = ("continuum", "belt")


def _count(n: int, word: str) -> str:
    """``"1 body"``, ``"2 bodies"``, ``"0 joints"``."""
    if n == 1:
        return f"1 {word}"
    return f"{n} {word[:-1] + 'ies' if word.endswith('y') else word + 's'}"


def body_freedoms(body: d.Body) -> int:
    """Degrees of freedom of a free body (rigid 6, point mass 3, ANCF: nodal coordinates; a
    closed belt has as many nodes as elements)."""
    if isinstance(body, d.RigidBody):
        return 6
    if isinstance(body, d.PointMass):
        return 3
    per_node = NODE_COORDINATES[body.type]
    if body.element in PLANAR_WITH_SECTION:  # r, r_x and r_y
        per_node = 6
    return per_node * (body.elements + (0 if body.closed else 1))


@dataclass
class CheckReport:
    """What ``biela check`` prints: counts and the Grübler degrees of freedom."""

    name: str
    bodies: int
    joints: int
    drivers: int
    forces: int
    freedoms: int
    holonomic_equations: int
    velocity_equations: int
    warnings: list[str] = field(default_factory=list)
    mobility: Mobility | None = None
    assembly_iterations: int = 0
    assembly_residual: float = 0.0
    unsupported: str = ""

    @property
    def grubler_dof(self) -> int:
        """Free-body freedoms minus holonomic and velocity-level equations and drivers."""
        return self.freedoms - self.holonomic_equations - self.velocity_equations - self.drivers

    @property
    def dof(self) -> int:
        """Numerical DOF when available (passive freedoms included), else Grübler's count."""
        return self.mobility.dof if self.mobility else self.grubler_dof

    @property
    def passive_freedoms(self) -> list[str]:
        """One description per body with passive freedoms, e.g. "coupler spin about J1–J2"."""
        return [f.describe() for f in self.mobility.passive] if self.mobility else []

    @property
    def active_dof(self) -> int:
        """The DOF that drivers or the dynamics determine: ``dof`` less the passive
        freedoms (what a kinematic analysis needs driven, and the builder shows)."""
        return self.mobility.active_dof if self.mobility else self.grubler_dof

    @property
    def redundant(self) -> int:
        return self.mobility.redundant if self.mobility else 0

    def lines(self) -> list[str]:
        out = [
            f'model "{self.name}": '
            + ", ".join(
                _count(n, word)
                for n, word in (
                    (self.bodies, "body"),
                    (self.joints, "joint"),
                    (self.drivers, "driver"),
                    (self.forces, "force"),
                )
            ),
            f"degrees of freedom (Grübler): {self.grubler_dof} = {self.freedoms} body freedoms"
            f" − {self.holonomic_equations} joint equations"
            + (f" − {self.velocity_equations} rolling equations" if self.velocity_equations else "")
            + (f" − {_count(self.drivers, 'driver')}" if self.drivers else ""),
        ]
        mob = self.mobility
        if mob is None:
            out.append(f"numerical degrees of freedom: not computed ({self.unsupported})")
            return out
        out.append(
            f"degrees of freedom (rank of the constraint Jacobian): {mob.dof} = "
            f"{mob.coordinates} coordinates − rank {mob.rank} of {mob.equations} equations"
        )
        if mob.passive:
            out.append(mob.describe_passive())
        if mob.redundant:
            out.append(f"redundant constraints: {mob.redundant}, among {mob.describe_redundancy()}")
        else:
            out.append("redundant constraints: 0")
        out.append(
            f"assembly: residual {self.assembly_residual:.3g} after {self.assembly_iterations} Newton iterations"
        )
        return out


def check(model: d.Model) -> CheckReport:
    """Validate and assemble ``model``; raises ``ModelError`` (also for rolling discs whose
    no-slip conditions conflict) or ``AssemblyError``, whose ``report`` is this report
    without the numerical part (counts and Grübler's DOF)."""
    validate_model(model)
    holonomic = sum(
        JOINT_EQUATIONS[j.type] + (j.type == "sliding" and j.rotation == "locked")
        for j in model.joints
    )
    rolling = sum(
        ROLLING_NO_SLIP[j.slip or "none"] for j in model.joints if j.type == "rolling_disk"
    )
    report = CheckReport(
        name=model.name,
        bodies=len(model.bodies),
        joints=len(model.joints),
        drivers=len(model.drivers),
        forces=len(model.forces),
        freedoms=sum(body_freedoms(b) for b in model.bodies),
        holonomic_equations=holonomic,
        velocity_equations=rolling,
        warnings=list(model.warnings),
    )
    try:
        system = MultibodySystem(model)
    except UnsupportedFeature as exc:
        report.unsupported = str(exc)
        return report
    system.check_functions(0.0, 0.0)  # drivers and forces usable at t = 0 (NonFiniteFunction)
    try:
        assembled = assemble(system, system.q0, 0.0, tol=model.solver.tolerance)
    except AssemblyError as error:
        error.report = report  # the counts (Grübler) hold without a configuration
        raise
    report.assembly_iterations = assembled.iterations
    report.assembly_residual = assembled.residual
    report.mobility = mob = mobility(system, assembled.q)
    check_rolling_consistency(
        system, assembled.q
    )  # wheels: before the run, Villar Alegría (2018) §2.2
    if mob.rank and mob.condition < 1e-7:
        report.warnings.append(
            f"the initial configuration is close to a singular position (smallest/largest "
            f"singular value of the constraint Jacobian {mob.condition:.2g})"
        )
    if assembled.iterations:
        moved = float(np.abs(assembled.q - system.q0).max())
        report.warnings.append(
            f"the initial configuration was assembled: coordinates moved by up to {moved:.3g}"
        )
    return report
