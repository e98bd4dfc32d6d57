"""Compile every kernel once, before the first run needs it: ``python -m solver.analysis.warmup``.

Numba compiles a kernel on its first call (a minute or two for all of them on a 2-core
machine) and caches it on disk (:mod:`solver.kernels.cache`); later processes load it
in well under a second. :func:`warm` makes the short runs of :func:`workloads` — the
compiled time steps on a small model with every compiled joint, driver, time function and
force element, a 64-bar chain for the kernels of large sparse systems, a slider-crank on
structural groups, a static and a modes analysis (the argument types, and so the compiled
signatures, are the same for every model) — and marks the cache warm. The command line
and the workbench call it before a run on a cold cache and show its progress.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from solver.kernels import cache


def _expression(text: str) -> dict:
    return {"expression": text}


def warm_model_data() -> dict:
    """Rigid bodies (one with a general inertia), a point mass and ground; joints of every
    compiled primitive; drivers with every kind of time function; every compiled force
    element."""
    return {
        "biela": 1,
        "name": "warm-up",
        "gravity": [0, -9.81, 0],
        "bodies": [
            {"name": "a", "mass": 1.0, "inertia": [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.3]],
             "position": [0.5, 0, 0], "angular_velocity": [0, 0, 1]},
            {"name": "b", "mass": 1.0, "inertia": [0.1, 0.1, 0.1], "position": [1.0, 0.5, 0]},
            {"name": "c", "mass": 1.0, "inertia": [0.1, 0.1, 0.1], "position": [2.0, 0.5, 0]},
            {"name": "p", "type": "point_mass", "mass": 0.5, "position": [1.5, 0, 0]},
        ],
        "joints": [
            {"name": "R", "type": "revolute", "body1": "ground", "body2": "a",
             "point": [0, 0, 0], "axis": [0, 0, 1]},
            {"name": "C", "type": "cylindrical", "body1": "a", "body2": "b",
             "point": [1.0, 0, 0], "axis": [0, 1, 0]},
            {"name": "P", "type": "prismatic", "body1": "b", "body2": "c",
             "point": [1.5, 0.5, 0], "axis": [1, 0, 0]},
            {"name": "D", "type": "distance", "body1": "b", "body2": "p",
             "point1": [1.0, 0.5, 0], "point2": [1.5, 0, 0]},
        ],
        "drivers": [
            {"name": "DC", "joint": "C", "function": _expression("0.1*sin(2*t)")},
            {"name": "DA", "joint": "C", "coordinate": "angle",
             "function": {"smooth_step": {"t0": 0, "f0": 0, "t1": 1, "f1": 0.5}}},
        ],
        "forces": [
            {"name": "S", "type": "spring_damper", "body1": "ground", "point1": [0, 1, 0],
             "body2": "b", "point2": [1.0, 0.5, 0], "stiffness": 10, "damping": 0.5,
             "actuator": {"polynomial": [0, 0.1]}},
            {"name": "RS", "type": "rotational_spring_damper", "joint": "R", "stiffness": 1,
             "damping": 0.1},
            {"name": "JT", "type": "joint_torque", "joint": "R",
             "function": {"table": [[0, 0], [1, 0.1]]}},
            {"name": "JF", "type": "joint_force", "joint": "P", "function": 0.5},
            {"name": "F", "type": "force", "body": "c", "point": [2.0, 0.5, 0],
             "vector": [0, 0.1, 0], "frame": "body"},
            {"name": "T", "type": "torque", "body": "a", "vector": [0, 0, 0.1]},
        ],
    }  # fmt: skip


def chain_data(n: int) -> dict:
    """A horizontal chain of ``n`` 1 m, 1 kg bars joined by spherical joints."""
    bodies = [
        {"name": f"b{i}", "mass": 1.0, "inertia": [1e-4, 0.08, 0.08], "position": [i + 0.5, 0, 0]}
        for i in range(n)
    ]
    joints = [
        {"name": f"S{i}", "type": "spherical", "body1": "ground" if i == 0 else f"b{i - 1}",
         "body2": f"b{i}", "point": [float(i), 0, 0]}
        for i in range(n)
    ]  # fmt: skip
    return {"biela": 1, "name": "warm-up chain", "gravity": [0, 0, -9.81], "bodies": bodies,
            "joints": joints}  # fmt: skip


def workloads():
    """``(what, model data, simulate keywords)`` of the warm-up runs: together they call
    every kernel with the argument types of a real run."""
    from solver.generators.slider_crank import slider_crank_model

    model = warm_model_data()
    for formulation in ("augmented_lagrangian", "central_differences", "penalty", "null_space"):
        yield (f"time steps ({formulation})", model,
               {"formulation": formulation, "dt": 1e-3, "t_end": 0.003})  # fmt: skip
    yield ("kinematics", slider_crank_model(2, driven=True),
           {"analysis": "kinematic", "coordinates": "reference_point", "dt": 0.01,
            "t_end": 0.02})  # fmt: skip
    yield ("natural coordinates", model,
           {"coordinates": "natural", "formulation": "augmented_lagrangian", "dt": 1e-3,
            "t_end": 0.002})  # fmt: skip
    yield ("large systems (64-bar chain)", chain_data(64),
           {"formulation": "augmented_lagrangian", "dt": 1e-3, "t_end": 0.002})  # fmt: skip
    groups = {"group_method": "structural_groups"}
    yield ("structural groups, kinematics", slider_crank_model(2, driven=True),
           {"analysis": "kinematic", "coordinates": "natural", "dt": 0.01, "t_end": 0.02,
            "parameters": groups})  # fmt: skip
    yield ("structural groups, R matrix", slider_crank_model(2),
           {"formulation": "null_space", "coordinates": "natural", "dt": 0.005, "t_end": 0.01,
            "parameters": {**groups, "method": "r_matrix"}})  # fmt: skip


def warm(progress: Callable[[str], None] | None = None, force: bool = False) -> float:
    """Compile (or load) every kernel by the runs of :func:`workloads`, unless the cache is
    already warm for these sources (``force``: run them anyway); ``progress`` gets a line
    per run. Returns the seconds taken."""
    from solver.analysis.simulate import simulate
    from solver.model import model_from_data

    start = time.perf_counter()
    if cache.is_warm() and not force:
        return 0.0
    for what, data, kw in workloads():
        if progress is not None:
            progress(f"compiling the solver: {what} ({time.perf_counter() - start:.0f} s)")
        result = simulate(model_from_data(data), **{"analysis": "dynamic", **kw})
        if result.status != "ok":
            raise RuntimeError(f"warm-up run ({what}): {result.message}")
    seconds = time.perf_counter() - start
    cache.mark_warm(seconds)
    return seconds


def is_compiled() -> bool:
    """Whether the kernels are ready (cached for these sources, or ``BIELA_JIT=0``)."""
    from solver.kernels import jit

    return not jit.ENABLED or cache.is_warm()


def compile_solver(progress: Callable[[str], None] | None = None) -> float:
    """Compile every kernel if the cache is cold (the first run after an install or an
    update: minutes; then each process loads them in about a second); ``progress`` gets a
    line per stage. Returns the seconds spent compiling (0 when already compiled)."""
    if is_compiled():
        return 0.0
    return warm(progress)


def main(argv: list[str] | None = None) -> int:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    quiet = "--quiet" in argv
    say = None if quiet else (lambda line: print(line, file=sys.stderr))
    seconds = warm(say, force="--force" in argv)
    if not quiet:
        print(f"compiled code ready in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
