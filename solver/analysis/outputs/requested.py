"""The requested result quantities of a model: their CSV columns and their values at each
output state (``outputs: [{"reactions": "J1"}, {"efforts": true}, …]``).

Columns, after the standard ones (SI units):

* ``reactions``: ``reaction.J.Fx Fy Fz Tx Ty Tz`` (N, N·m; on body2 at the joint point, global
  axes) and ``reaction.J.Fx_body`` … ``Tz_body`` (the same in body2's axes);
* ``efforts``: ``effort.D.torque`` (N·m) or ``effort.D.force`` (N) of driver D;
* ``accelerations``: ``B.ax ay az`` (centre of mass, m/s², global), and for rigid bodies
  ``B.alphax alphay alphaz`` (angular acceleration, rad/s², global) and ``B.wx_body wy_body
  wz_body`` (angular velocity in body axes, rad/s);
* ``joint_coordinates``: ``joint.J.angle`` (rad) and ``joint.J.angle_rate`` (rad/s),
  ``joint.J.displacement`` (m) and ``joint.J.displacement_rate`` (m/s);
* ``contact_forces``: ``contact.C.normal``, ``friction`` (N), ``torque`` (N·m),
  ``contact_length``, ``slip_length``, ``depth`` (m) of pulley contact C;
* ``axial_forces``: ``axial.B.nK`` (N), the axial force at node K of flexible body B.
"""

from __future__ import annotations

import numpy as np

from solver.analysis.linalg import SaddleHint
from solver.analysis.outputs import body_frames as bf
from solver.analysis.outputs.joint_coordinates import JointCoordinates
from solver.analysis.outputs.multipliers import accelerations_and_multipliers
from solver.analysis.outputs.reactions import Effort, Reaction
from solver.analysis.outputs.state import ReferenceState, body_states_from_row
from solver.mechanics.forces.pulley_contact import PulleyContacts
from solver.mechanics.system import MultibodySystem
from solver.model import description as d

REACTION_FIELDS = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")
REACTION_BODY_FIELDS = tuple(f"{f}_body" for f in REACTION_FIELDS)
RIGID_ACCELERATION_FIELDS = (
    "ax",
    "ay",
    "az",
    "alphax",
    "alphay",
    "alphaz",
    "wx_body",
    "wy_body",
    "wz_body",
)
POINT_ACCELERATION_FIELDS = ("ax", "ay", "az")


def requested_items(model: d.Model, requests=None) -> list[tuple[str, str]]:
    """``(kind, name)`` of every requested item, in request order, without repeats."""
    out: list[tuple[str, str]] = []
    for r in model.requests if requests is None else requests:
        pool = getattr(model, d.RESULT_REQUESTS[r.kind])
        if r.items is not None:
            names = list(r.items)
        elif r.kind == "accelerations":
            names = [b.name for b in pool if not isinstance(b, d.FlexibleBody)]
        elif r.kind == "joint_coordinates":
            names = [j.name for j in pool if j.type in ("revolute", "prismatic", "cylindrical")]
            names = [n for n in names if _rigid_joint(model, model.joint(n))]
        elif r.kind == "contact_forces":
            names = [f.name for f in pool if f.type == "pulley_contact"]
        elif r.kind == "axial_forces":
            names = [b.name for b in pool if isinstance(b, d.FlexibleBody)]
        else:
            names = [x.name for x in pool]
        out += [(r.kind, n) for n in names if (r.kind, n) not in out]
    return out


def _rigid_joint(model: d.Model, joint: d.Joint) -> bool:
    return not any(isinstance(model.body(b), d.FlexibleBody) for b in (joint.body1, joint.body2))


def _driver_kind(model: d.Model, driver: d.Driver) -> str:
    joint = model.joint(driver.joint)
    coordinate = driver.coordinate or ("angle" if joint.type == "revolute" else "displacement")
    return "torque" if coordinate == "angle" else "force"


def item_columns(model: d.Model, kind: str, name: str) -> list[str]:
    """The CSV columns of one requested item."""
    if kind == "reactions":
        return [f"reaction.{name}.{f}" for f in REACTION_FIELDS + REACTION_BODY_FIELDS]
    if kind == "efforts":
        driver = next(x for x in model.drivers if x.name == name)
        return [f"effort.{name}.{_driver_kind(model, driver)}"]
    if kind == "accelerations":
        rigid = isinstance(model.body(name), d.RigidBody)
        return [
            f"{name}.{f}"
            for f in (RIGID_ACCELERATION_FIELDS if rigid else POINT_ACCELERATION_FIELDS)
        ]
    if kind == "contact_forces":
        return [f"contact.{name}.{f}" for f in PulleyContacts.OUTPUT_FIELDS]
    if kind == "axial_forces":
        body = model.body(name)
        nodes = body.elements + (0 if body.closed else 1)
        return [f"axial.{name}.n{k}" for k in range(nodes)]
    joint = model.joint(name)
    fields = {
        "revolute": ("angle", "angle_rate"),
        "prismatic": ("displacement", "displacement_rate"),
        "cylindrical": ("angle", "angle_rate", "displacement", "displacement_rate"),
    }[joint.type]
    return [f"joint.{name}.{f}" for f in fields]


def request_columns(model: d.Model, requests=None) -> list[str]:
    """The columns the model's requests (or ``requests``) add to the results."""
    return [
        c
        for kind, name in requested_items(model, requests)
        for c in item_columns(model, kind, name)
    ]


class RequestedOutputs:
    """Evaluates the requested quantities of ``model`` at the output states of a run.

    ``run_system`` is the run's system (its coordinates may be natural); ``analysis``
    decides how the multipliers are found (``multipliers``). Stateful only through the
    joint angles' branch (call in time order)."""

    def __init__(
        self,
        model: d.Model,
        run_system: MultibodySystem | None,
        analysis: str = "dynamic",
        requests=None,
    ) -> None:
        self.model = model
        self.items = requested_items(model, requests)
        self.columns = [c for k, n in self.items for c in item_columns(model, k, n)]
        self.ref = ReferenceState(model, run_system)
        self.static = analysis == "static"
        sysm = self.ref.system
        joints = {j.name: j for j in model.joints}
        self.evaluators = []
        for kind, name in self.items:
            if kind == "reactions":
                self.evaluators.append((kind, Reaction(sysm, f"joint:{name}", joints[name])))
            elif kind == "efforts":
                drv = next(x for x in model.drivers if x.name == name)
                self.evaluators.append((kind, Effort(sysm, drv, joints[drv.joint])))
            elif kind in ("accelerations", "axial_forces"):
                self.evaluators.append((kind, sysm.slots[name]))
            elif kind == "contact_forces":
                self.evaluators.append((kind, name))
            else:
                self.evaluators.append((kind, JointCoordinates(sysm, joints[name])))
        self._saddle = SaddleHint()  # the states follow each other: so does their rank
        self.needs_dynamics = any(
            k in ("reactions", "efforts", "accelerations") for k, _ in self.items
        )
        contacts = sysm.force_set.contacts
        self._accept_contacts = not self.ref.same and len(contacts) > 0
        if self._accept_contacts:
            contacts.reset()

    def __len__(self) -> int:
        return len(self.columns)

    def values(self, t: float, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """The requested values at a state of the run (in the run's coordinates)."""
        q, qd = self.ref.from_frame(q, qd)
        return self.reference_values(t, q, qd)

    def row_values(self, columns: list[str], row: np.ndarray) -> np.ndarray:
        """The requested values from a results row (rigid bodies and point masses)."""
        states = body_states_from_row(self.ref.system, columns, row)
        q, qd = self.ref.from_body_states(states)
        return self.reference_values(float(row[columns.index("t")]), q, qd)

    def reference_values(self, t: float, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        sysm = self.ref.system
        if self._accept_contacts:
            sysm.force_set.accept(sysm.marker_state(q, qd), t)
        qdd = lam = a = None
        if self.needs_dynamics:
            qdd, lam, a = accelerations_and_multipliers(sysm, q, qd, t, self.static, self._saddle)
        out: list[float] = []
        for kind, ev in self.evaluators:
            if kind == "reactions":
                out += [v for part in ev(q, a, lam) for v in part]
            elif kind == "efforts":
                out.append(ev(q, a, lam))
            elif kind == "accelerations":
                out += list(body_accelerations(ev, q, qd, qdd))
            elif kind == "axial_forces":
                out += list(ev.owner.axial_forces(q, ev))
            elif kind == "contact_forces":
                ms = sysm.marker_state(q, qd)
                values = sysm.force_set.pulley_contacts.summary(ms)[ev]
                out += [values[f] for f in PulleyContacts.OUTPUT_FIELDS]
            else:
                out += ev(q, qd)
        return np.array(out, float)


def body_accelerations(slot, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
    """``[ax ay az alphax alphay alphaz wx_body wy_body wz_body]`` of a rigid body
    (``α = 2 E(p) p̈``, since ``Ė(p) ṗ = 0``; ``ω̄ = Rᵀ ω``), ``[ax ay az]`` of a point mass."""
    o = slot.offset
    if slot.kind != "rigid":
        return qdd[o : o + 3]
    p = bf.parameters(q, o + 3)
    alpha = bf.e_times(p, qdd[o + 3 : o + 7].tolist())
    omega = bf.e_times(p, qd[o + 3 : o + 7].tolist())
    body = bf.rotate_back(p, omega)
    return np.array([*qdd[o : o + 3].tolist(), *(2.0 * x for x in alpha), *(2.0 * x for x in body)])


def peaks(columns: list[str], t: np.ndarray, data: np.ndarray) -> dict[str, dict[str, float]]:
    """Per requested column: minimum, maximum, largest magnitude and its time."""
    out = {}
    for i, c in enumerate(columns):
        v = data[:, i]
        if not len(v) or not np.isfinite(v).any():
            continue
        k = int(np.nanargmax(np.abs(v)))
        out[c] = {
            "min": float(np.nanmin(v)),
            "max": float(np.nanmax(v)),
            "max_abs": float(abs(v[k])),
            "t_max_abs": float(t[k]),
        }
    return out


def requested_from_rows(
    model: d.Model,
    columns: list[str],
    data: np.ndarray,
    requests,
    analysis: str = "dynamic",
) -> tuple[list[str], np.ndarray]:
    """The ``requests`` (``ResultRequest`` list) computed after a run from its results rows
    (``columns``, ``data``: frames × columns), for models of rigid bodies and point masses:
    ``(new columns, values (frames × new columns))``. Raises ``UnsupportedFeature`` for a
    model whose state the rows do not hold (flexible bodies)."""
    outputs = RequestedOutputs(model, None, analysis, requests)
    values = np.array([outputs.row_values(columns, row) for row in np.atleast_2d(data)])
    return outputs.columns, values.reshape(len(data), len(outputs.columns))


def rows_suffice(model: d.Model) -> bool:
    """Whether ``requested_from_rows`` can work on this model (no flexible bodies)."""
    return not any(isinstance(b, d.FlexibleBody) for b in model.bodies)


def request_for_column(model: d.Model, column: str) -> d.ResultRequest | None:
    """The request (one item) whose columns include ``column``, if any."""
    every = [d.ResultRequest(kind) for kind in d.RESULT_REQUESTS]
    for kind, name in requested_items(model, every):
        if column in item_columns(model, kind, name):
            return d.ResultRequest(kind, (name,))
    return None
