"""Compile the kernels before a run needs them: ``python -m solver.analysis.warmup``.

Numba compiles a kernel on its first call (about three minutes for all of them on a 2-core
machine) and caches it on disk (:mod:`solver.kernels.cache`); later processes load it
in about a second. :func:`warm` makes the short runs of :func:`workloads` — the
compiled time steps of each formulation on a small model with every compiled joint,
driver, time function and force element, kinematics, natural coordinates, a 64-bar chain
for the kernels of large sparse systems, a slider-crank on structural groups (the argument
types, and so the compiled signatures, are the same for every model) — and marks each
part warm. The command line and the workbench compile the parts a run needs
(:func:`compiled_parts`) before it starts, and say so; ``python -m solver.compiled`` compiles
them all.

Compiling is single-threaded, and the big compiled functions (each formulation's time
steps, with every kernel they call) are independent: with ``jobs = 2`` (``python -m
solver.compiled --jobs 2``) a second process compiles the parts of ``SECOND_JOB`` while
this one compiles the augmented Lagrangian's. Both compile the system's kernels they share
(Numba's cache writes are atomic file replacements, and the same sources give the same
code), about half again the CPU time of one process: it pays only with a second core
to spare, so one process is the default."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

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


def rolling_disc_data() -> dict:
    """A tilted disc rolling without slip on the ground plane (both no-slip rows)."""
    return {
        "biela": 1,
        "name": "warm-up disc",
        "gravity": [0, 0, -9.81],
        "bodies": [
            {"name": "disc", "mass": 2.0, "inertia": [0.125, 0.25, 0.125],
             "position": [0, 0, 0.49], "orientation": {"axis": [1, 0, 0], "angle": 0.2},
             "velocity": [1.0, 0, 0], "angular_velocity": [0, 2.0, 0.4]},
        ],
        "joints": [
            {"name": "roll", "type": "rolling_disk", "body1": "ground", "body2": "disc",
             "point": [0, 0, 0.49], "axis": [0, 0.98, 0.2], "radius": 0.5,
             "normal": [0, 0, 1]},
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


#: the parts of the warm-up, each marked warm on its own: a run compiles the parts it needs
PARTS = (
    "augmented_lagrangian",
    "central_differences",
    "penalty",
    "null_space",
    "lagrange_baumgarte",
    "kinematic",
    "natural",
    "large",
    "structural_groups",
)
#: the formulations with a part of their own (the others run the system's kernels, which
#: every part compiles)
_OWN_PART = (
    "augmented_lagrangian",
    "central_differences",
    "penalty",
    "null_space",
    "lagrange_baumgarte",
)


def workloads():
    """``(part, what, model data, simulate keywords)`` of the warm-up runs: together they
    call every kernel with the argument types of a real run."""
    from solver.generators.slider_crank import slider_crank_model

    model = warm_model_data()
    for formulation in _OWN_PART:
        yield (formulation, f"time steps ({formulation})", model,
               {"formulation": formulation, "dt": 1e-3, "t_end": 0.003})  # fmt: skip
    yield ("lagrange_baumgarte", "rolling discs", rolling_disc_data(),
           {"formulation": "lagrange_baumgarte", "dt": 1e-3, "t_end": 0.003})  # fmt: skip
    yield ("kinematic", "kinematics", slider_crank_model(2, driven=True),
           {"analysis": "kinematic", "coordinates": "reference_point", "dt": 0.01,
            "t_end": 0.02})  # fmt: skip
    yield ("natural", "natural coordinates", model,
           {"coordinates": "natural", "formulation": "augmented_lagrangian", "dt": 1e-3,
            "t_end": 0.002})  # fmt: skip
    yield ("large", "large systems (64-bar chain)", chain_data(64),
           {"formulation": "augmented_lagrangian", "dt": 1e-3, "t_end": 0.002})  # fmt: skip
    groups = {"group_method": "structural_groups"}
    yield ("structural_groups", "structural groups, kinematics",
           slider_crank_model(2, driven=True),
           {"analysis": "kinematic", "coordinates": "natural", "dt": 0.01, "t_end": 0.02,
            "parameters": groups})  # fmt: skip
    yield ("structural_groups", "structural groups, R matrix", slider_crank_model(2),
           {"formulation": "null_space", "coordinates": "natural", "dt": 0.005, "t_end": 0.01,
            "parameters": {**groups, "method": "r_matrix"}})  # fmt: skip


def compiled_parts(model, **overrides) -> tuple[str, ...]:
    """The parts of the warm-up that a run of ``model`` with the keyword ``overrides`` of
    ``simulate`` (``None``: the model's setting) needs: its formulation's time steps (a
    kinematic analysis: the kinematics; any other analysis and formulation: the
    augmented Lagrangian's part, which compiles every kernel of the system), natural
    coordinates and structural groups when it uses them. A large model's sparse kernels
    and anything else compile when first called."""
    solver = model.solver

    def get(name: str):
        value = overrides.get(name)
        return getattr(solver, name) if value is None else value

    analysis, formulation = get("analysis"), get("formulation")
    if analysis == "kinematic":
        parts = ["kinematic"]
    elif analysis == "dynamic" and formulation in _OWN_PART:
        parts = [formulation]
    else:
        parts = ["augmented_lagrangian"]
    if get("coordinates") in ("natural", "natural_planar"):  # the same (linear) markers
        parts.append("natural")
    parameters = {**solver.parameters, **(overrides.get("parameters") or {})}
    if parameters.get("group_method") == "structural_groups":
        parts.append("structural_groups")
    return tuple(parts)


#: the parts a second compiling process takes (``warm(jobs=2)``), chosen so that both
#: take about as long: the central differences' and the penalty's time steps and the
#: null-space's (their first part compiles the system's kernels again, as the first
#: process does for the augmented Lagrangian's); the first keeps the augmented
#: Lagrangian, natural coordinates, the large systems (both augmented Lagrangian runs),
#: and the short parts (Lagrange–Baumgarte, kinematics, structural groups)
SECOND_JOB = (
    "central_differences",
    "penalty",
    "null_space",
)


def warm(
    progress: Callable[[str], None] | None = None,
    force: bool = False,
    parts: Iterable[str] | None = None,
    jobs: int = 1,
) -> float:
    """Compile (or load) the kernels of ``parts`` (default: every part) by the runs of
    :func:`workloads`, skipping the parts already warm for these sources (``force``: run
    them anyway); ``progress`` gets a line per run. With ``jobs`` 2 and parts for both, a
    second process compiles those of ``SECOND_JOB`` meanwhile. Returns the seconds taken."""
    from solver.analysis.simulate import simulate
    from solver.kernels import jit
    from solver.model import model_from_data

    start = time.perf_counter()
    wanted = set(PARTS if parts is None else parts)
    todo = [w for w in workloads() if w[0] in wanted and (force or not cache.is_warm(w[0]))]
    second = sorted({w[0] for w in todo} & set(SECOND_JOB), key=PARTS.index)
    child = None
    if jit.ENABLED and jobs > 1 and second and len(second) < len({w[0] for w in todo}):
        child = _SecondJob(second, force, progress)
        todo = [w for w in todo if w[0] not in second]
    try:
        for _, what, data, kw in todo:
            if progress is not None:
                progress(f"compiling the solver: {what} ({time.perf_counter() - start:.0f} s)")
            result = simulate(model_from_data(data), **{"analysis": "dynamic", **kw})
            if result.status != "ok":
                raise RuntimeError(f"warm-up run ({what}): {result.message}")
    finally:
        if child is not None:
            child.finish()
    seconds = time.perf_counter() - start
    if jit.ENABLED:  # plain Python (BIELA_JIT=0) compiles nothing: nothing is warm
        for part in {w[0] for w in todo}:
            cache.mark_warm(seconds, part)
    return seconds


class _SecondJob:
    """``python -m solver.compiled --parts … --jobs 1`` in another process, its progress
    lines handed to ``progress`` as they come."""

    def __init__(self, parts: list[str], force: bool, progress) -> None:
        package = str(Path(__file__).resolve().parents[2])  # the directory of ``solver``
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package, env.get("PYTHONPATH")]))
        argv = [sys.executable, "-m", "solver.compiled", "--parts", ",".join(parts)]
        argv += ["--jobs", "1"] + (["--force"] if force else [])
        self.parts = parts
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.reader = threading.Thread(target=self._read, args=(progress,), daemon=True)
        self.reader.start()

    def _read(self, progress) -> None:
        for line in self.process.stderr:
            line = line.rstrip("\n")
            self.lines.append(line)
            if progress is not None and line.startswith("compiling the solver:"):
                progress(line)

    def finish(self) -> None:
        """Wait for the process; ``RuntimeError`` with its last lines if it failed."""
        code = self.process.wait()
        self.reader.join()
        if code != 0:
            tail = "\n".join(self.lines[-5:])
            raise RuntimeError(f"compiling {', '.join(self.parts)} failed (exit {code}):\n{tail}")


def is_compiled(parts: Iterable[str] | None = None) -> bool:
    """Whether the kernels of ``parts`` (default: all) are ready (cached for these sources,
    or ``BIELA_JIT=0``)."""
    from solver.kernels import jit

    return not jit.ENABLED or all(cache.is_warm(p) for p in (PARTS if parts is None else parts))


def compile_solver(
    progress: Callable[[str], None] | None = None, parts: Iterable[str] | None = None
) -> float:
    """Compile the kernels of ``parts`` (:func:`compiled_parts` a run; default: all) if they are
    not cached yet (the first run after an install or an update: a minute or more; then
    each process loads them in about a second); ``progress`` gets a line per stage.
    Returns the seconds spent compiling (0 when already compiled)."""
    parts = None if parts is None else tuple(parts)
    if is_compiled(parts):
        return 0.0
    return warm(progress, parts=parts)


def _option(argv: list[str], name: str) -> str | None:
    """The value after ``name`` in ``argv`` (``None`` when absent)."""
    if name in argv and argv.index(name) + 1 < len(argv):
        return argv[argv.index(name) + 1]
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    quiet = "--quiet" in argv
    say = None if quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    parts = _option(argv, "--parts")
    jobs = _option(argv, "--jobs")
    seconds = warm(
        say,
        force="--force" in argv,
        parts=None if parts is None else [p for p in parts.split(",") if p],
        jobs=1 if jobs is None else int(jobs),
    )
    if not quiet:
        print(f"compiled code ready in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
