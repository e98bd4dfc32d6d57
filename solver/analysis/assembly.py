"""The assembled configuration of a model, as poses a model editor can apply.

``assemble_model(model)`` validates the description, solves the position problem
``Φ(q, 0) = 0`` from the configuration in the file (minimum-norm Newton, as ``check``)
and returns every rigid body's and point mass's pose there: centre of mass (m, global)
and, for rigid bodies, the Euler parameters ``[e0, e1, e2, e3]`` (body → global).
Flexible bodies are left out (their nodes are the coordinates themselves).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.kinematics import assemble
from solver.mechanics.system import MultibodySystem
from solver.model import description as d
from solver.model.validation import validate_model


@dataclass
class Pose:
    """A body's placement: ``position`` of the centre of mass (m, global) and, for a rigid
    body, its unit Euler parameters ``orientation`` (``None`` for a point mass)."""

    position: np.ndarray
    orientation: np.ndarray | None = None


@dataclass
class Assembly:
    """The solution of the position problem at t = 0: ``poses`` by body name, the final
    ``residual`` (max |Φ|, m or rad) and the Newton ``iterations`` it took (0: the file's
    configuration already closes every joint)."""

    poses: dict[str, Pose] = field(default_factory=dict)
    residual: float = 0.0
    iterations: int = 0


def assemble_model(model: d.Model) -> Assembly:
    """Assemble ``model`` at t = 0; raises ``ModelError`` for a bad description and
    ``AssemblyError`` (``.items``, ``.residual``) when the joints cannot be closed."""
    validate_model(model)
    system = MultibodySystem(model)
    assembled = assemble(system, system.q0, 0.0, tol=model.solver.tolerance)
    state = system.body_state(assembled.q, np.zeros(system.n))
    poses: dict[str, Pose] = {}
    for body in model.bodies:
        s = state.get(body.name)
        if s is None or isinstance(body, d.FlexibleBody):
            continue
        if isinstance(body, d.RigidBody):
            poses[body.name] = Pose(np.array(s[:3], float), np.array(s[3:7], float))
        else:
            poses[body.name] = Pose(np.array(s[:3], float))
    return Assembly(poses, float(assembled.residual), int(assembled.iterations))
