"""The model check: validation plus a degrees-of-freedom count.

``check(model)`` returns a ``CheckReport``. For now it counts coordinates and constraint
equations by type (Grübler–Kutzbach, spatial); the numerical rank of the constraint
Jacobian, redundancy and assembly are added by the mechanics layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.model import description as d
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
}
#: Velocity-level (non-holonomic) no-slip equations of a rolling disc, by ``slip``.
ROLLING_NO_SLIP = {"none": 2, "lateral": 1, "longitudinal": 1, "free": 0}
#: Nodal coordinates per node of each ANCF element type.
NODE_COORDINATES = {"ancf_beam2d": 6, "ancf_cable": 6, "ancf_beam3d": 12}


def body_freedoms(body: d.Body) -> int:
    """Degrees of freedom of a free body (rigid 6, point mass 3, ANCF: nodal coordinates)."""
    if isinstance(body, d.RigidBody):
        return 6
    if isinstance(body, d.PointMass):
        return 3
    return NODE_COORDINATES[body.type] * (body.elements + 1)


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

    @property
    def grubler_dof(self) -> int:
        """Free-body freedoms minus holonomic and velocity-level equations and drivers."""
        return self.freedoms - self.holonomic_equations - self.velocity_equations - self.drivers

    def lines(self) -> list[str]:
        return [
            f'model "{self.name}": {self.bodies} bodies, {self.joints} joints, '
            f"{self.drivers} drivers, {self.forces} forces",
            f"degrees of freedom (Grübler): {self.grubler_dof} = {self.freedoms} body freedoms"
            f" − {self.holonomic_equations} joint equations"
            + (f" − {self.velocity_equations} rolling equations" if self.velocity_equations else "")
            + (f" − {self.drivers} drivers" if self.drivers else ""),
        ]


def check(model: d.Model) -> CheckReport:
    """Validate ``model`` (raises ``ModelError``) and count its degrees of freedom."""
    validate_model(model)
    holonomic = sum(JOINT_EQUATIONS[j.type] for j in model.joints)
    rolling = sum(
        ROLLING_NO_SLIP[j.slip or "none"] for j in model.joints if j.type == "rolling_disk"
    )
    return CheckReport(
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
