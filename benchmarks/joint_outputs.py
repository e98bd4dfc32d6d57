"""Cost of the per-row requested outputs: joint coordinates, reactions and efforts.

    python -m benchmarks.joint_outputs [--rows N] [--repeat R]

A fully driven chain ground → arm (revolute, 4π rad/s) → carriage (prismatic along the
arm, 0.2 sin 3t m) → spindle (cylindrical on a tilted axis, 6 rad/s and 0.1 sin 2t m) is
run as a kinematic analysis for 2 s (``joint_model_data``); at N of its states the script
times, per output row, each joint's ``JointCoordinates`` call, all three together, each
joint's ``Reaction``, a driver's ``Effort`` (from the multipliers, which are computed once
per row by the run and not timed here), each body's accelerations, and the whole
``RequestedOutputs.values`` of a row with every request (joint coordinates, reactions,
efforts, accelerations: the multipliers included). µs per row, best of R repeats of the CPU time (``time.process_time``).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from solver import simulate
from solver.analysis.outputs import RequestedOutputs
from solver.analysis.outputs.joint_coordinates import JointCoordinates
from solver.analysis.outputs.multipliers import accelerations_and_multipliers
from solver.analysis.outputs.reactions import Effort, Reaction
from solver.analysis.outputs.requested import body_accelerations
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

#: the cylindrical joint's axis (global at t = 0)
SPINDLE_AXIS = (0.0, 0.6, 0.8)


def _body(name: str, position, inertia=(0.01, 0.02, 0.03)) -> dict:
    return {"name": name, "mass": 1.0, "inertia": list(inertia), "position": position}


def joint_model_data(driven: bool = True, t_end: float = 2.0, dt: float = 1e-3) -> dict:
    """The arm–carriage–spindle chain; ``driven``: the four drivers (a kinematic analysis),
    else all but the spindle's angle (it turns freely about its tilted axis, from 5 rad/s
    about it: a dynamic analysis)."""
    drivers = [
        {"name": "spin", "joint": "hinge", "function": {"polynomial": [0, 4 * math.pi]}},
        {"name": "feed", "joint": "rail", "function": {"expression": "0.2*sin(3*t)"}},
        {
            "name": "lift",
            "joint": "screw",
            "coordinate": "displacement",
            "function": {"expression": "0.1*sin(2*t)"},
        },
    ]
    if driven:
        drivers.append(
            {
                "name": "turn",
                "joint": "screw",
                "coordinate": "angle",
                "function": {"polynomial": [0, 6]},
            }
        )
    spindle = _body("spindle", [1.0, 0.0, 0.3], (0.02, 0.02, 0.02))  # balanced on its axis
    if not driven:
        spindle["angular_velocity"] = [5.0 * c for c in SPINDLE_AXIS]
    return {
        "biela": 1,
        "name": "arm, carriage and spindle",
        "gravity": [0.0, 0.0, -9.81],
        "bodies": [_body("arm", [0.5, 0.0, 0.0]), _body("carriage", [1.0, 0.0, 0.0]), spindle],
        "joints": [
            {
                "name": "hinge",
                "type": "revolute",
                "body1": "ground",
                "body2": "arm",
                "point": [0, 0, 0],
                "axis": [0, 0, 1],
            },
            {
                "name": "rail",
                "type": "prismatic",
                "body1": "arm",
                "body2": "carriage",
                "point": [1.0, 0, 0],
                "axis": [1, 0, 0],
            },
            {
                "name": "screw",
                "type": "cylindrical",
                "body1": "carriage",
                "body2": "spindle",
                "point": [1.0, 0.0, 0.3],
                "axis": list(SPINDLE_AXIS),
            },
        ],
        "drivers": drivers,
        "outputs": [
            {"joint_coordinates": True},
            {"reactions": True},
            {"efforts": True},
            {"accelerations": True},
        ],
        "solver": {
            "analysis": "kinematic" if driven else "dynamic",
            "dt": dt,
            "t_end": t_end,
            "output_dt": dt,
        },
    }


def best_time(fn, repeat: int) -> float:
    """Best of ``repeat`` CPU timings of ``fn()`` (s), after a warm-up call."""
    fn()
    best = math.inf
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    model = model_from_data(joint_model_data())
    result = simulate(model)
    assert result.status == "ok", result.message
    system = MultibodySystem(model)
    # the run's states, from its rows (rigid bodies: the body states are the coordinates)
    outputs = RequestedOutputs(model, None, "kinematic")
    rows = result.data[:: max(1, len(result.data) // args.rows)][: args.rows]
    states = [outputs.ref.from_body_states(_states(system, result.columns, r)) for r in rows]
    t = [float(r[0]) for r in rows]
    dyn = [
        accelerations_and_multipliers(system, q, qd, ti)
        for ti, (q, qd) in zip(t, states, strict=True)
    ]
    n = len(states)
    joints = {j.name: j for j in model.joints}
    cases = {}
    for name in ("hinge", "rail", "screw"):
        jc = JointCoordinates(system, joints[name])
        cases[f"joint coordinates: {joints[name].type}"] = lambda jc=jc: [
            jc(q, qd) for q, qd in states
        ]
    every = [JointCoordinates(system, joints[k]) for k in ("hinge", "rail", "screw")]
    cases["joint coordinates: all three"] = lambda: [
        [jc(q, qd) for jc in every] for q, qd in states
    ]
    for name in ("hinge", "rail", "screw"):
        re = Reaction(system, f"joint:{name}", joints[name])
        cases[f"reaction: {joints[name].type}"] = lambda re=re: [
            re(q, a, lam) for (q, _), (_, lam, a) in zip(states, dyn, strict=True)
        ]
    driver = next(x for x in model.drivers if x.name == "lift")
    eff = Effort(system, driver, joints[driver.joint])
    cases["effort (cylindrical displacement)"] = lambda: [
        eff(q, a, lam) for (q, _), (_, lam, a) in zip(states, dyn, strict=True)
    ]
    slots = [system.slots[b] for b in ("arm", "carriage", "spindle")]
    cases["accelerations: three rigid bodies"] = lambda: [
        [body_accelerations(slot, q, qd, qdd) for slot in slots]
        for (q, qd), (qdd, _, _) in zip(states, dyn, strict=True)
    ]
    whole = RequestedOutputs(model, system, "kinematic")
    cases["RequestedOutputs.values, every request"] = lambda: [
        whole.values(ti, q, qd) for ti, (q, qd) in zip(t, states, strict=True)
    ]
    print(f"{n} rows, best of {args.repeat}")
    for label, fn in cases.items():
        print(f"  {label:45s} {best_time(fn, args.repeat) / n * 1e6:8.1f} µs per row")


def _states(system: MultibodySystem, columns: list[str], row: np.ndarray) -> dict:
    from solver.analysis.outputs.state import body_states_from_row

    return body_states_from_row(system, columns, row)


if __name__ == "__main__":
    main()
