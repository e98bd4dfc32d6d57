"""Compile the kernels before a run needs them: ``python -m solver.analysis.warmup``.

Numba compiles a kernel on its first call (under two minutes for all of them on a 2-core
machine, in two processes) and caches it on disk (:mod:`solver.kernels.cache`); later
processes load what they run in a few hundredths of a second. :func:`warm` makes the short runs of :func:`workloads` — the
compiled time steps of each formulation on a small model with every compiled joint,
driver, time function and force element, kinematics, natural coordinates, a 64-bar chain
for the kernels of large sparse systems, a slider-crank on structural groups (the argument
types, and so the compiled signatures, are the same for every model) — and marks each
part warm. The command line and the workbench compile the parts a run needs
(:func:`compiled_parts`) before it starts, and say so; ``python -m solver.compiled`` compiles
them all.

Compiling is single-threaded, so where two cores are free (:func:`default_jobs`) a second
process compiles beside this one. Building any system evaluates all of the system's
entries, each compiled with every kernel it calls, so both processes would begin by
compiling the same ones: they share them out instead (the force entries here; the
constraints', their second derivatives', the mass matrix's and the energies' there), each
waits for the other's and loads them from the cache, and then, when several parts are to
be compiled, the second takes those of ``SECOND_JOB`` (the big compiled functions, each
formulation's time steps, are independent). Numba's cache writes are atomic file
replacements, and the same sources give the same code. Two processes take about the CPU
time of one; ``jobs = 1`` (``python -m solver.compiled --jobs 1``) compiles in this one."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

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
#: take about as long once the system's entries are shared out (``FIRST_FAMILIES``,
#: ``SECOND_FAMILIES``): the null-space time steps (the longest compile),
#: Lagrange–Baumgarte's (rolling discs included) and the structural groups'; the first
#: keeps the augmented Lagrangian's and the central differences' time steps, the
#: penalty's, and the short parts (kinematics, natural coordinates, the large systems).
#: Measured on two cores: 114 and 111 s (122 and 111 s with the structural groups in the
#: first)
SECOND_JOB = (
    "lagrange_baumgarte",
    "null_space",
    "structural_groups",
)


#: the system's evaluation entries, each compiled with every kernel it calls, that every
#: part needs first (building any system evaluates them all): with two processes the
#: first compiles the force entries while the second compiles the others, then each loads
#: the other's from the cache, instead of both compiling all of them
FAMILIES = {
    "forces": "the force entries",
    "constraints": "the constraint entries",
    "second_order": "the constraints' second derivatives",
    "mass": "the mass matrix",
    "state": "the energies and the power",
}
FIRST_FAMILIES = ("forces",)
SECOND_FAMILIES = ("constraints", "second_order", "mass", "state")
#: the line on standard error by which a second process says its families are compiled
FAMILIES_DONE = "system entries compiled"


def compile_families(families: Iterable[str]) -> None:
    """Compile (or load) the system's evaluation entries of ``families`` (keys of
    ``FAMILIES``) by evaluating them on the warm-up model, in that order, and nothing else
    of the system's."""
    from solver.kernels import system as ks
    from solver.kernels.by_reference import patterns_struct
    from solver.mechanics.system import MultibodySystem
    from solver.model import model_from_data

    class Unpatterned(MultibodySystem):
        """The warm-up model's arrays and markers, without the patterns (which would
        evaluate every family)."""

        def _pack_patterns(self) -> None:
            pass

    system = Unpatterned(model_from_data(warm_model_data()))
    P, mk = system.arrays, system._markers0
    q = np.ascontiguousarray(system.q0, dtype=float)
    for family in families:
        if family == "forces":
            ks.force_pattern(P, q, mk)
        elif family == "constraints":
            ks.constraint_pattern(P, q, mk)
        elif family == "second_order":
            ks.second_order_pattern(P, q, mk)
        elif family == "mass":
            ks.mass_evaluation(P, q, q, ks.MASS_PATTERN, 0)
        elif family == "state":  # the patterns' types, not their values, choose the code
            none = np.zeros(0, np.int64)
            pt = patterns_struct(ks.Patterns(*[none] * len(ks.Patterns._fields)))
            ks.state_evaluation(P, pt, mk, q, q, 0.0, ks.KINETIC)
        else:
            raise ValueError(f"unknown family of system entries {family!r}")


def default_jobs() -> int:
    """2 where this process may use two cores or more, else 1: the compiling processes of
    :func:`warm` (sharing the system's entries out, two take about as much CPU time as one)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return 2 if cores >= 2 else 1


def warm(
    progress: Callable[[str], None] | None = None,
    force: bool = False,
    parts: Iterable[str] | None = None,
    jobs: int | None = None,
    families: Iterable[str] = (),
) -> float:
    """Compile (or load) the kernels of ``parts`` (default: every part) by the runs of
    :func:`workloads`, skipping the parts already warm for these sources (``force``: run
    them anyway); ``progress`` gets a line per run. With ``jobs`` 2 (default
    :func:`default_jobs`) a second process compiles the system's entries of
    ``SECOND_FAMILIES`` while this one compiles those of ``FIRST_FAMILIES``, each waiting
    for the other's before the parts, and then, when there are parts for both, those of
    ``SECOND_JOB``. ``families`` (the second process's): compile those first, say
    ``FAMILIES_DONE`` on standard error and wait for a line (or the end) on standard
    input before the parts. Returns the seconds taken."""
    from solver.analysis.simulate import simulate
    from solver.kernels import jit
    from solver.model import model_from_data

    start = time.perf_counter()
    jobs = default_jobs() if jobs is None else jobs
    wanted = set(PARTS if parts is None else parts)
    todo = [w for w in workloads() if w[0] in wanted and (force or not cache.is_warm(w[0]))]
    families = tuple(families)
    child = None
    if jit.ENABLED and jobs > 1 and todo and not families:
        second = sorted({w[0] for w in todo} & set(SECOND_JOB), key=PARTS.index)
        if len(second) == len({w[0] for w in todo}):
            second = []  # this process would only wait
        child = _SecondJob(second, force, progress)
        todo = [w for w in todo if w[0] not in second]
        families = FIRST_FAMILIES
    try:
        if families and jit.ENABLED:
            if progress is not None:
                names = ", ".join(FAMILIES[f] for f in families)
                progress(f"compiling the solver: {names} ({time.perf_counter() - start:.0f} s)")
            compile_families(families)
        if child is not None:
            child.families_done()
        elif families:
            print(FAMILIES_DONE, file=sys.stderr, flush=True)
            sys.stdin.readline()
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
    """``python -m solver.compiled --parts … --jobs 1 --families …`` in another process
    (``parts`` may be none: the families only), its progress lines handed to ``progress``
    as they come."""

    def __init__(self, parts: list[str], force: bool, progress) -> None:
        package = str(Path(__file__).resolve().parents[2])  # the directory of ``solver``
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package, env.get("PYTHONPATH")]))
        argv = [sys.executable, "-m", "solver.compiled", "--parts", ",".join(parts)]
        argv += ["--jobs", "1", "--families", ",".join(SECOND_FAMILIES)]
        argv += ["--force"] if force else []
        self.parts = parts
        self.lines: list[str] = []
        self.compiled = threading.Event()  # its families are compiled, or it ended
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.reader = threading.Thread(target=self._read, args=(progress,), daemon=True)
        self.reader.start()

    def _read(self, progress) -> None:
        try:
            for line in self.process.stderr:
                line = line.rstrip("\n")
                self.lines.append(line)
                if line == FAMILIES_DONE:
                    self.compiled.set()
                elif progress is not None and line.startswith("compiling the solver:"):
                    progress(line)
        finally:
            self.compiled.set()

    def families_done(self) -> None:
        """Tell the process that this one's families are compiled (it goes on to its
        parts), and wait until its own are (or it ended)."""
        with contextlib.suppress(OSError):  # it ended already: ``finish`` reports how
            self.process.stdin.write("\n")
            self.process.stdin.close()
        self.compiled.wait()

    def finish(self) -> None:
        """Wait for the process; ``RuntimeError`` with its last lines if it failed."""
        with contextlib.suppress(OSError):  # it may still wait for this one's families
            self.process.stdin.close()
        code = self.process.wait()
        self.reader.join()
        if code != 0:
            tail = "\n".join(self.lines[-5:])
            what = ", ".join(self.parts) or "the system's entries"
            raise RuntimeError(f"compiling {what} failed (exit {code}):\n{tail}")


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
    each process loads them from the cache); ``progress`` gets a line per stage.
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
    families = _option(argv, "--families")
    seconds = warm(
        say,
        force="--force" in argv,
        parts=None if parts is None else [p for p in parts.split(",") if p],
        jobs=None if jobs is None else int(jobs),
        families=() if families is None else [f for f in families.split(",") if f],
    )
    if not quiet:
        print(f"compiled code ready in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
