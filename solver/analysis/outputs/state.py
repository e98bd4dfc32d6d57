"""The state of a run in reference-point coordinates, where the requested quantities are
computed whatever coordinates the run used.

A run in reference-point coordinates hands over its own ``q``, ``q̇`` (Euler parameters
normalised). Any other run (natural coordinates, structural groups) is mapped through the
body states it reports (``MultibodySystem.body_state``: centre of mass, Euler parameters,
velocity, global angular velocity), which are also the CSV columns, so a finished run of
rigid bodies and point masses can be post-processed from its rows alone
(``body_states_from_row``). Flexible bodies are copied from the run's state (every nodal
coordinate, and the sliding parameters), which the rows do not hold in full.

The reference system has every joint as equations: a joint that shares coordinates in the
run (``share``) is a constraint there, so its multipliers give its reaction, the force that
the shared coordinates transmit between the rigid body and the node.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from solver.mechanics.rotations import pdot_from_omega
from solver.mechanics.system import MultibodySystem
from solver.model import description as d
from solver.model.errors import UnsupportedFeature


class ReferenceState:
    """Maps the states of a run (``run_system``) to the reference-point system ``system``."""

    def __init__(self, model: d.Model, run_system: MultibodySystem | None = None) -> None:
        self.run_system = run_system
        self.same = run_system is not None and run_system.coordinates == "reference_point"
        if self.same:
            self.system = run_system
        else:
            self.system = MultibodySystem(without_sharing(model), "reference_point")
        if run_system is None and self.system.kinds:
            raise UnsupportedFeature(
                "outputs",
                "reactions, efforts, accelerations and joint coordinates of models with "
                "flexible bodies are computed during the run (the rows do not hold every "
                "nodal coordinate); request them in the model's outputs",
            )
        rigid = [s for s in self.system.slots.values() if s.kind == "rigid"]
        self._p_cols = np.array([np.arange(s.offset + 3, s.offset + 7) for s in rigid], np.int64)

    def from_frame(self, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(q, q̇)`` of the reference-point system for a state of the run."""
        if self.same:
            q = q.copy()
            if len(self._p_cols):
                p = q[self._p_cols]
                q[self._p_cols] = p / np.linalg.norm(p, axis=1, keepdims=True)
            return q, qd
        rq, rqd = self.from_body_states(self.run_system.body_state(q, qd))
        for kind in self.system.kinds:  # flexible bodies: every nodal coordinate
            run_kind = None
            for name, slot in self.system.slots.items():
                if slot.owner is not kind:
                    continue
                run_slot = self.run_system.slots[name]
                run_kind = run_slot.owner
                x, xd = run_kind.coordinates_of(run_slot, q, qd)
                cols = kind.beam(slot).all_cols
                rq[cols], rqd[cols] = x, xd
            for joint, col in kind.slide_cols.items():
                run_col = run_kind.slide_cols[joint]
                rq[col], rqd[col] = q[run_col], qd[run_col]
        return rq, rqd

    def from_body_states(self, states: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """``(q, q̇)`` from per-body ``[x y z e0 e1 e2 e3 vx vy vz wx wy wz]`` (rigid) or
        ``[x y z vx vy vz]`` (point mass)."""
        sysm = self.system
        q, qd = np.zeros(sysm.n), np.zeros(sysm.n)
        for name, slot in sysm.slots.items():
            s = np.asarray(states[name], float)
            o = slot.offset
            if slot.kind == "rigid":
                p = s[3:7] / np.linalg.norm(s[3:7])
                q[o : o + 3], q[o + 3 : o + 7] = s[:3], p
                qd[o : o + 3], qd[o + 3 : o + 7] = s[7:10], pdot_from_omega(p, s[10:13])
            elif slot.kind == "point_mass":
                q[o : o + 3], qd[o : o + 3] = s[:3], s[3:6]
            elif slot.owner is None:  # pragma: no cover - every built-in kind is above
                raise UnsupportedFeature("outputs", f'body "{name}" cannot be rebuilt from its row')
        return q, qd


def without_sharing(model: d.Model) -> d.Model:
    """``model`` with every joint as equations (no ``share``)."""
    if not any(j.share for j in model.joints):
        return model
    return replace(model, joints=[replace(j, share=None) for j in model.joints])


def body_states_from_row(
    system: MultibodySystem, columns: list[str], row: np.ndarray
) -> dict[str, np.ndarray]:
    """The per-body states of a results row (CSV columns ``B.x`` … ``B.wz``)."""
    index = {c: i for i, c in enumerate(columns)}
    out = {}
    for name in system.slots:
        fields = system.state_fields(name)
        out[name] = np.array([row[index[f"{name}.{f}"]] for f in fields])
    return out
