"""The live check after each edit: degrees of freedom, redundant and conflicting joints, and
"Assemble" that closes small gaps in the model itself.

``live_check(model)`` runs the solver's ``check`` (validation, assembly at t = 0, numerical
rank of Φ_q) and returns a ``LiveReport``: Grübler's count, the numerical DOF (less the
passive freedoms the solver's report names), the redundant equations and the joints they
involve, or the joints that cannot be closed together. It
never raises: a problem is part of the report. ``assembled_model`` solves the position
problem and moves every body (with its shapes, points and the joints it carries) to the
assembled configuration.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from solver import AssemblyError, CheckReport, ModelError, assemble_model, check
from solver.model import description as d
from solver.model.mass_properties import rotation_matrix

#: Formulations that run a model with redundant constraints (rank-deficient Φ_q).
REDUNDANCY_FORMULATIONS = ("central_differences", "penalty", "augmented_lagrangian")


@dataclass
class LiveReport:
    """What the status bar, the tree and the viewport show after an edit."""

    grubler: int | None = None
    dof: int | None = None
    redundant: int = 0
    redundant_items: list[str] = field(default_factory=list)  # "joint:J1", "driver:m"
    conflicting_items: list[str] = field(default_factory=list)
    residual: float = 0.0
    error: str = ""
    warnings: list[str] = field(default_factory=list)
    check_report: CheckReport | None = None  # the solver's report (None: invalid model)
    #: freedoms that move no joint, force or output point (e.g. a coupler's spin between
    #: two spherical joints), as the solver's report describes them (one line per body);
    #: ``dof`` counts them, ``active_dof`` does not
    passive: list[str] = field(default_factory=list)
    active_dof: int | None = None

    @property
    def passive_count(self) -> int:
        if self.dof is None or self.active_dof is None:
            return 0
        return self.dof - self.active_dof

    def flagged(self) -> dict[tuple[str, str], str]:
        """``(category, name) → explanation`` of every item to highlight."""
        out: dict[tuple[str, str], str] = {}
        for key in self.redundant_items:
            kind, _, name = key.partition(":")
            if kind in ("joint", "driver"):
                out[(kind, name)] = self.redundancy_text()
        for key in self.conflicting_items:
            kind, _, name = key.partition(":")
            if kind in ("joint", "driver"):
                out[(kind, name)] = self.error
        return out

    def redundancy_text(self) -> str:
        if not self.redundant:
            return ""
        names = ", ".join(k.partition(":")[2] for k in self.redundant_items)
        return (
            f"{self.redundant} redundant constraint equation{'s' if self.redundant > 1 else ''}"
            f" among {names}: these joints constrain the same motion more than once (e.g. a "
            "planar loop of revolute joints in 3D constrains the out-of-plane motion twice). "
            "The mechanism still moves with "
            f"{self.dof} DOF; run it with a formulation that allows redundancy "
            f"({', '.join(REDUNDANCY_FORMULATIONS)}), or replace a revolute by a spherical, "
            "universal or point-on-line joint to remove it."
        )

    def status(self) -> str:
        """One line for the status bar."""
        if self.error and self.dof is None:
            grubler = f"Grübler {self.grubler}, " if self.grubler is not None else ""
            return f"DOF ? ({grubler}{self.error.split(':')[0] if self.conflicting_items else 'invalid'})"
        text = f"DOF {self.active_dof} (Grübler {self.grubler}"
        if self.passive_count:
            text += f", {self.passive_count} passive"
        if self.redundant:
            text += f", {self.redundant} redundant"
        return text + ")"

    def passive_text(self) -> str:
        """``"1 passive freedom: coupler spin about J1–J2 (not counted: …)"``, or ``""``."""
        if not self.passive:
            return ""
        n = self.passive_count or len(self.passive)
        return (
            f"{n} passive freedom{'s' if n > 1 else ''}: {'; '.join(self.passive)} (moves no "
            "joint, force or output point: not counted in the DOF, and no driver takes it)"
        )


def live_check(model: d.Model) -> LiveReport:
    """Check ``model`` (see the module docstring); never raises."""
    report = LiveReport()
    try:
        result = check(model)
    except ModelError as error:
        report.error = str(error)
        return report
    except AssemblyError as error:  # the joints that cannot be closed
        report.error = str(error)
        report.conflicting_items = list(error.items)
        report.residual = float(error.residual)
        if error.report is not None:
            report.check_report = error.report
            report.grubler = error.report.grubler_dof
        return report
    except (ArithmeticError, ValueError, np.linalg.LinAlgError) as error:
        report.error = f"{type(error).__name__}: {error}"
        return report
    report.check_report = result
    report.grubler = result.grubler_dof
    report.dof = result.dof
    report.passive = list(getattr(result, "passive_freedoms", []))
    report.active_dof = getattr(result, "active_dof", result.dof)
    report.residual = result.assembly_residual
    report.warnings = list(result.warnings)
    if result.mobility is not None:
        report.redundant = result.mobility.redundant
        report.redundant_items = list(result.mobility.redundant_items)
    return report


def assembled_model(model: d.Model) -> tuple[d.Model, float, int]:
    """``(assembled copy, residual, Newton iterations)``: bodies moved to satisfy the joints
    at t = 0. Raises ``ModelError`` or ``AssemblyError``."""
    from app.builder.editor import move_body_in

    assembly = assemble_model(model)
    new = copy.deepcopy(model)
    motions: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for body in model.bodies:
        pose = assembly.poses.get(body.name)
        if pose is None:
            continue
        old_p = np.asarray(body.position, float)
        if isinstance(body, d.RigidBody) and pose.orientation is not None:
            rot = rotation_matrix(pose.orientation) @ rotation_matrix(body.orientation).T
        else:
            rot = np.eye(3)
        shift = pose.position - old_p
        if np.abs(shift).max() < 1e-15 and np.abs(rot - np.eye(3)).max() < 1e-15:
            continue
        motions[body.name] = (rot, old_p, shift)
        move_body_in(new, body.name, shift, rot, old_p)
    for joint in new.joints:
        carrier = joint.body1 if joint.body1 in motions else None
        if carrier is not None:
            rot, centre, shift = motions[carrier]
            for name in ("point", "point1"):
                p = getattr(joint, name)
                if p is not None:
                    setattr(joint, name, _moved(p, rot, centre, shift))
            for name in ("axis", "axis1", "normal"):
                a = getattr(joint, name)
                if a is not None:
                    setattr(joint, name, tuple(float(v) for v in rot @ np.asarray(a, float)))
        if joint.point2 is not None and joint.body2 in motions:
            rot, centre, shift = motions[joint.body2]
            joint.point2 = _moved(joint.point2, rot, centre, shift)
        if joint.axis2 is not None and joint.body2 in motions:
            rot = motions[joint.body2][0]
            joint.axis2 = tuple(float(v) for v in rot @ np.asarray(joint.axis2, float))
    return new, assembly.residual, assembly.iterations


def _moved(p, rot, centre, shift):
    return tuple(float(v) for v in rot @ (np.asarray(p, float) - centre) + centre + shift)
