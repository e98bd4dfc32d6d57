"""All force elements of a model, evaluated together (the force table of docs/model_format.md §9).

``ForceSet(model, ctx)`` turns ``model.forces`` into vectorised element groups:

============================ ================================== ===============
type                         group                              module
============================ ================================== ===============
``spring_damper``            ``SpringDampers``                  ``springs``
``rotational_spring_damper`` ``JointTorques``                   ``joint_loads``
``joint_torque``             ``JointTorques`` (k = c = 0)       ``joint_loads``
``joint_force``              ``JointForces``                    ``joint_loads``
``force``                    ``PointForces``                    ``loads``
``torque``                   ``BodyTorques``                    ``loads``
``contact``                  ``Contacts``                       ``contact``
``distributed_load``         ``DistributedLoads``               ``distributed``
``pulley_contact``           ``PulleyContacts``                 ``pulley_contact``
============================ ================================== ===============

Gravity and the rigid-body quadratic-velocity forces are not here: the system adds them.
The relative angle of rotational springs is continuous over turns without help from the
time loop (see ``angles``); :meth:`ForceSet.reset` returns it to the initial
configuration before a run is restarted with the same system. Contacts keep a committed
state (the onset speed of each impact) that only :meth:`ForceSet.accept` at accepted
states of a run changes (see ``contact``).
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.bodies.natural.loads import NaturalLoads
from solver.mechanics.constraints.joints import normals
from solver.mechanics.forces.contact import Contacts
from solver.mechanics.forces.distributed import DistributedLoads
from solver.mechanics.forces.joint_loads import JointForces, JointTorques
from solver.mechanics.forces.loads import BodyTorques, PointForces
from solver.mechanics.forces.pulley_contact import PulleyContacts
from solver.mechanics.forces.springs import SpringDampers
from solver.mechanics.item_functions import checked_force
from solver.mechanics.markers import MarkerState
from solver.model import description as d
from solver.model.errors import ModelError, UnsupportedFeature


class ForceSet:
    """Builds force elements from ``model.forces`` using the system's markers.

    ``ctx`` is the system under construction: ``ctx.n``, ``ctx.point``, ``ctx.vector``,
    ``ctx.slots`` and ``ctx.markers``. All markers are created here, before the system
    freezes its marker table; :meth:`freeze` runs after that.
    """

    def __init__(self, model: d.Model, ctx) -> None:
        self.n = ctx.n
        self.markers = ctx.markers
        self.springs = SpringDampers()
        self.joint_torques = JointTorques()
        self.joint_forces = JointForces()
        self.point_forces = PointForces()
        self.torques = BodyTorques()
        self.natural_loads = NaturalLoads()  # body-axes forces, torques on natural bodies
        self.contacts = Contacts()
        self.distributed = DistributedLoads()  # line loads on flexible bodies
        self.pulley_contacts = PulleyContacts()  # belts on pulleys
        self._joints = {j.name: j for j in model.joints}
        self._bodies = {b.name: b for b in model.bodies}
        for i, f in enumerate(model.forces):
            getattr(self, f"_add_{f.type}")(ctx, f'forces[{i}] "{f.name}"', checked_force(i, f))

    # ---- building ---------------------------------------------------------------------
    def _add_spring_damper(self, ctx, where: str, f: d.Force) -> None:
        p1 = ctx.point(f.body1, f.point1, where, "point1")
        p2 = ctx.point(f.body2, f.point2, where, "point2")
        length = f.free_length
        if length is None:
            length = float(np.linalg.norm(np.subtract(f.point2, f.point1)))
        self.springs.add(p1, p2, f.stiffness or 0.0, f.damping or 0.0, length, f.actuator)

    def _axis_markers(self, ctx, joint: d.Joint):
        a, n1, n2 = normals(joint.axis)
        at = joint.point
        return (
            ctx.vector(joint.body1, n1, at),
            ctx.vector(joint.body1, n2, at),
            ctx.vector(joint.body2, n1, at),
        )

    def _add_rotational_spring_damper(self, ctx, where: str, f: d.Force) -> None:
        markers = self._axis_markers(ctx, self._joints[f.joint])
        self.joint_torques.add(*markers, f.stiffness or 0.0, f.damping or 0.0, f.free_angle or 0.0)

    def _add_joint_torque(self, ctx, where: str, f: d.Force) -> None:
        markers = self._axis_markers(ctx, self._joints[f.joint])
        self.joint_torques.add(*markers, function=f.function)

    def _add_joint_force(self, ctx, where: str, f: d.Force) -> None:
        j = self._joints[f.joint]
        a, _, _ = normals(j.axis)
        p1 = ctx.point(j.body1, j.point, where, "joint")
        p2 = ctx.point(j.body2, j.point, where, "joint")
        self.joint_forces.add(p1, p2, ctx.vector(j.body1, a, j.point), f.function)

    def _add_force(self, ctx, where: str, f: d.Force) -> None:
        body_frame = f.frame == "body"
        kind = ctx.slots[f.body].kind
        if body_frame and kind == "point_mass":
            raise ModelError(
                where,
                f'"{f.body}" is a point mass, which has no body axes; use frame "global"',
                "frame",
            )
        if body_frame and kind == "natural":
            self.natural_loads.add_force(ctx.slots[f.body], f.point, f.vector)
            return
        if body_frame and kind != "rigid":
            raise UnsupportedFeature(
                where,
                f'body-frame forces on {kind} bodies ("{f.body}") are not available in this '
                'version; use frame "global" or reference-point coordinates',
                "frame",
            )
        self.point_forces.add(ctx.point(f.body, f.point, where, "point"), f.vector, body_frame)

    def _add_torque(self, ctx, where: str, f: d.Force) -> None:
        slot = ctx.slots[f.body]
        if slot.kind == "point_mass":
            raise ModelError(where, f'"{f.body}" is a point mass; it cannot take a torque', "body")
        if slot.kind == "natural":
            self.natural_loads.add_torque(slot, f.vector, f.frame == "body")
            return
        if slot.kind != "rigid":
            raise UnsupportedFeature(
                where,
                f'torques on {slot.kind} bodies ("{f.body}") are not available in this version; '
                "use reference-point coordinates",
                "body",
            )
        self.torques.add(slot.offset, f.vector, f.frame == "body")

    def _add_contact(self, ctx, where: str, f: d.Force) -> None:
        self.contacts.add(ctx, where, f, self._bodies)

    def _add_distributed_load(self, ctx, where: str, f: d.Force) -> None:
        slot = ctx.slots[f.body]
        if slot.kind not in d.FLEXIBLE_TYPES:
            raise ModelError(where, f'"{f.body}" is not a flexible body (ancf_*)', "body")
        unit = np.array([slot.owner.distributed_load(slot, e) for e in np.eye(3)])
        cols = slot.owner.columns(slot)  # own, shared and those of eliminated nodes
        self.distributed.add(cols, unit[:, cols], f.vector)

    def _add_pulley_contact(self, ctx, where: str, f: d.Force) -> None:
        self.pulley_contacts.add(ctx, where, f)

    # ---- evaluation -------------------------------------------------------------------
    # Every force element is evaluated by the compiled kernels (``solver.kernels.system``,
    # over the arrays of ``solver.mechanics.packing``); the groups here hold their data.
    # Contacts integrate their own work over the accepted states (``contact_power``).

    def freeze(self) -> None:
        """Build the index arrays (after the marker table is frozen)."""
        self.pulley_contacts.freeze(self.markers)
        self.joint_torques.freeze()
        self.contacts.freeze()
        self.size = sum(len(g) for g in self._groups())  # fixed from here on

    def _groups(self):
        return (
            self.springs,
            self.joint_torques,
            self.joint_forces,
            self.point_forces,
            self.torques,
            self.natural_loads,
            self.contacts,
            self.pulley_contacts,
            self.distributed,
        )

    size: int | None = None  # the number of elements once frozen

    def __len__(self) -> int:
        if self.size is not None:
            return self.size
        return sum(len(g) for g in self._groups())

    def contact_power(self, ms: MarkerState) -> float:
        """Power (W) of the contacts' damping and friction."""
        return self.contacts.power(ms) if len(self.contacts) else 0.0

    # ---- state ------------------------------------------------------------------------
    def accept(self, ms: MarkerState, t: float | None = None) -> list:
        """Given the time ``t`` of an accepted state, commit the contact state (required for
        contacts); returns the contacts that started or whose approach speed grew, for the
        step check (``contact.Onset``)."""
        if len(self.contacts) and t is not None:
            return self.contacts.accept(ms, t)
        return []

    def reset(self) -> None:
        """Forget the turns counted so far: joint angles restart from the initial configuration;
        no contact is active and no contact work is done."""
        self.joint_torques.last[:] = 0.0
        self.contacts.reset()
