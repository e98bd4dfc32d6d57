"""Compile the solver's Numba code once and keep it: ``python -m solver.compiled``.

Numba compiles a function the first time it is called (a minute or more for everything)
and caches the machine code on disk (``cache=True``, next to the sources in
``__pycache__``, or in Numba's user cache directory when that is not writable); later
processes load it in well under a second. :func:`warm` makes the runs of
:func:`_workloads` — the compiled steppers on a small model of every primitive and body
type, a 64-bar chain for the kernels of large sparse systems, a slider-crank on
structural groups (the argument types, and so the compiled signatures, are the same for
every model) — and then writes a marker file named after a fingerprint of every compiled
module (:func:`sources`) and the Numba, NumPy and Python versions.

``BIELA_COMPILED`` (environment) chooses the path of a run: ``0`` never compiled; ``1``
always (compiling in the run if needed); unset or ``auto``: compiled when the marker says
the cache is warm, else the NumPy path, while a background process warms the cache
(:func:`warm_in_background`) for the next runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent  # solver/


def sources() -> list[Path]:
    """Every module of the solver that compiles functions with Numba (the name ``njit``
    appears in it), and ``packing.py``, whose layout they read."""
    found = {HERE / "packing.py"}
    for path in PACKAGE.rglob("*.py"):
        try:
            if "njit" in path.read_text(encoding="utf-8"):
                found.add(path)
        except OSError:
            continue
    return sorted(found)


#: a warm-up started less than this long ago (s) is still running, not stale
LOCK_AGE = 600.0
_warming = False


def warming() -> bool:
    """Whether this process is inside :func:`warm`."""
    return _warming


def fingerprint() -> str:
    from importlib.metadata import version

    h = hashlib.sha1()
    h.update(f"{version('numba')} {version('numpy')} {sys.version} {sys.platform}".encode())
    for path in sources():
        h.update(str(path.relative_to(PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """Where Numba caches the compiled modules' code (and so where the marker lives)."""
    try:
        from solver.compiled import evaluate

        return Path(evaluate.mass_matrix._cache._cache_path)
    except Exception:  # Numba's internals moved: a directory of our own
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        return Path(base) / "biela"


def marker() -> Path:
    return cache_dir() / f"biela-warm-{fingerprint()}.ok"


def is_warm() -> bool:
    try:
        return marker().exists()
    except OSError:
        return False


def mode() -> str:
    """``"off"``, ``"on"`` or ``"auto"`` from ``BIELA_COMPILED``; ``"off"`` whatever it says
    when Numba is not installed (the NumPy paths need nothing else)."""
    value = os.environ.get("BIELA_COMPILED", "auto").strip().lower()
    if value in ("0", "false", "no", "off") or importlib.util.find_spec("numba") is None:
        return "off"
    if value in ("1", "true", "yes", "on"):
        return "on"
    return "auto"


def warm_model_data() -> dict:
    """A small model with rigid bodies (one with a general inertia), a point mass, ground,
    and joints of every compiled primitive (Coincident, Dot, PointPlane, Distance)."""
    return {
        "biela": 1,
        "name": "warm-up",
        "gravity": [0, -9.81, 0],
        "bodies": [
            {"name": "a", "mass": 1.0, "inertia": [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.3]],
             "position": [0.5, 0, 0], "angular_velocity": [0, 0, 1]},
            {"name": "b", "mass": 1.0, "inertia": [0.1, 0.1, 0.1], "position": [1.0, 0.5, 0]},
            {"name": "p", "type": "point_mass", "mass": 0.5, "position": [1.5, 0, 0]},
        ],
        "joints": [
            {"name": "R", "type": "revolute", "body1": "ground", "body2": "a",
             "point": [0, 0, 0], "axis": [0, 0, 1]},
            {"name": "C", "type": "cylindrical", "body1": "a", "body2": "b",
             "point": [1.0, 0, 0], "axis": [0, 1, 0]},
            {"name": "D", "type": "distance", "body1": "b", "body2": "p",
             "point1": [1.0, 0.5, 0], "point2": [1.5, 0, 0]},
        ],
    }  # fmt: skip


def clear_cache() -> int:
    """Delete Numba's cache files of the compiled modules; returns how many. Numba checks
    only each function's own source file, so a cached stepper would keep running the old
    code of a changed ``evaluate.py``: every change of the fingerprint starts afresh."""
    count = 0
    for old in list(cache_dir().glob("biela-warm-*.ok")):  # markers of earlier sources
        with contextlib.suppress(OSError):
            old.unlink()
    for folder, stem in _cache_files():
        for pattern in (f"{stem}.*.nbi", f"{stem}.*.nbc"):
            for path in folder.glob(pattern):
                try:
                    path.unlink()
                    count += 1
                except OSError:
                    pass
    return count


def _cache_files() -> list[tuple[Path, str]]:
    """``(folder, file stem)`` of each compiled module's Numba cache files (Numba names
    them ``<module file stem>.<function>-<line>.py<ver>.nbi/.nbc``)."""

    out = []
    for path in sources():
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = importlib.import_module(".".join(rel.parts))
        for value in vars(module).values():
            cache = getattr(value, "_cache", None)
            folder = getattr(cache, "_cache_path", None)
            if folder and getattr(value, "__module__", None) == module.__name__:
                out.append((Path(folder), path.stem))
                break
    return out


def _chain_data(n: int) -> dict:
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


def _workloads():
    """``(what, model data, simulate keywords)`` of the warm-up runs: together they call
    every compiled function with the argument types of a real run."""
    from solver.generators.slider_crank import slider_crank_model

    dense = warm_model_data()
    for formulation in ("central_differences", "augmented_lagrangian"):
        yield (f"dense steps ({formulation})", dense,
               {"formulation": formulation, "dt": 1e-3, "t_end": 0.003})  # fmt: skip
    yield ("sparse kernels (64-bar chain)", _chain_data(64),
           {"formulation": "augmented_lagrangian", "dt": 1e-3, "t_end": 0.003})  # fmt: skip
    groups = {"group_method": "structural_groups"}
    yield ("structural groups, kinematics", slider_crank_model(2, driven=True),
           {"analysis": "kinematic", "coordinates": "natural", "dt": 0.01, "t_end": 0.03,
            "parameters": groups})  # fmt: skip
    yield ("structural groups, R matrix", slider_crank_model(2),
           {"formulation": "null_space", "coordinates": "natural", "dt": 0.005, "t_end": 0.015,
            "parameters": {**groups, "method": "r_matrix"}})  # fmt: skip


def unreached() -> list[str]:
    """Compiled functions of the solver that have no compiled signature in this process
    (after :func:`warm`: functions its runs do not reach)."""

    out = []
    for path in sources():
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = importlib.import_module(".".join(rel.parts))
        for name, value in vars(module).items():
            mine = getattr(value, "__module__", "") == module.__name__
            if mine and hasattr(value, "signatures") and not value.signatures:
                out.append(f"{module.__name__}.{name}")
    return out


def warm() -> float:
    """Compile every compiled function afresh (cached code of other sources is deleted
    first) or, with the marker of these sources present, load it, by the runs of
    :func:`_workloads`; then write the marker. Returns the seconds taken."""
    from solver.analysis import simulate
    from solver.model import model_from_data

    global _warming
    start = time.perf_counter()
    if not is_warm():
        clear_cache()
    _warming = True
    previous = os.environ.get("BIELA_COMPILED")
    os.environ["BIELA_COMPILED"] = "1"
    try:
        for what, data, kw in _workloads():
            result = simulate.simulate(model_from_data(data), **{"analysis": "dynamic", **kw})
            if result.status != "ok":
                raise RuntimeError(f"warm-up run ({what}): {result.message}")
    finally:
        _warming = False
        if previous is None:
            os.environ.pop("BIELA_COMPILED", None)
        else:
            os.environ["BIELA_COMPILED"] = previous
    path = marker()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"warmed in {time.perf_counter() - start:.1f} s\n")
    return time.perf_counter() - start


def warm_in_background() -> bool:
    """Start ``python -m solver.compiled`` detached, unless one started recently.
    Returns whether one was started."""
    try:
        lock = cache_dir() / f"biela-warming-{fingerprint()}.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime < LOCK_AGE:
            return False
        lock.write_text(str(os.getpid()))
        subprocess.Popen(
            [sys.executable, "-m", "solver.compiled", "--quiet"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "BIELA_COMPILED": "1"},
        )
        return True
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    seconds = warm()
    if "--quiet" not in argv:
        print(f"compiled code ready in {seconds:.1f} s (cache: {cache_dir()})")
    return 0
