"""When the Numba kernels of large systems run, and how their compiled code gets cached.

The kernels (:mod:`solver.mechanics.marker_kernels`, :mod:`solver.mechanics.bodies.rigid_kernels`,
:mod:`solver.analysis.band_kernels`) take tens of seconds to compile the first time and load
from Numba's on-disk cache in a fraction of a second afterwards. Like the compiled steppers
(:mod:`solver.compiled.warm`), they follow ``BIELA_COMPILED``: ``0`` never (NumPy paths),
``1`` always (compiling in the run if needed), unset or ``auto``: when a marker file says
they are cached, else the NumPy paths while a detached process compiles them
(:func:`warm`, also ``python -m solver.warm_kernels``) for the next runs. The decision is
taken once per process (:func:`compiled_kernels`).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the solver package
#: the kernel modules (their sources and the library versions make the fingerprint)
SOURCES = (
    "mechanics/marker_kernels.py",
    "mechanics/bodies/rigid_kernels.py",
    "analysis/band_kernels.py",
)
#: a warm-up started less than this long ago (s) is still running
LOCK_AGE = 600.0
_decision: bool | None = None


def _mode() -> str:
    value = os.environ.get("BIELA_COMPILED", "auto").strip().lower()
    if value in ("0", "false", "no", "off"):
        return "off"
    if value in ("1", "true", "yes", "on"):
        return "on"
    return "auto"


def fingerprint() -> str:
    from importlib.metadata import version

    h = hashlib.sha1()
    h.update(f"{version('numba')} {version('numpy')} {sys.version} {sys.platform}".encode())
    for name in SOURCES:
        h.update((ROOT / name).read_bytes())
    return h.hexdigest()[:16]


def marker() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "biela" / f"biela-kernels-{fingerprint()}.ok"


def compiled_kernels() -> bool:
    """Whether this process runs the compiled kernels (decided on the first call)."""
    global _decision
    if _decision is None:
        mode = _mode()
        if mode != "auto":
            _decision = mode == "on"
        else:
            try:
                _decision = marker().exists()
            except OSError:
                _decision = False
            if not _decision:
                warm_in_background()
    return _decision


def _chain_data(n: int) -> dict:
    """A horizontal chain of ``n`` 1 m, 1 kg bars joined by spherical joints."""
    bodies = [
        {"name": f"b{i}", "mass": 1.0, "inertia": [1e-4, 0.08, 0.08], "position": [i + 0.5, 0, 0]}
        for i in range(n)
    ]
    joints = [
        {
            "name": f"S{i}",
            "type": "spherical",
            "body1": "ground" if i == 0 else f"b{i - 1}",
            "body2": f"b{i}",
            "point": [float(i), 0, 0],
        }
        for i in range(n)
    ]
    return {"biela": 1, "name": "kernel warm-up", "gravity": [0, 0, -9.81], "bodies": bodies,
            "joints": joints}  # fmt: skip


def warm() -> float:
    """Compile (or load) every kernel with the argument types of a run — a 64-bar spherical
    chain (sparse, banded, 64 bodies) with augmented_lagrangian for a few steps — and write
    the marker. Returns the seconds taken."""
    import solver.mechanics.kernel_cache as this  # the module the solver asks (not __main__)
    from solver.analysis import band_kernels, simulate
    from solver.mechanics import marker_kernels
    from solver.mechanics.bodies import rigid_kernels
    from solver.model import model_from_data

    start = time.perf_counter()
    previous, this._decision = this._decision, True
    try:
        result = simulate.simulate(
            model_from_data(_chain_data(64)),
            analysis="dynamic",
            formulation="augmented_lagrangian",
            dt=1e-3,
            t_end=0.003,
        )
        if result.status != "ok":
            raise RuntimeError(f"kernel warm-up run: {result.message}")
    finally:
        this._decision = previous
    kernels = (
        marker_kernels.rigid_markers,
        rigid_kernels.mass_blocks,
        rigid_kernels.mass_times_jacobian,
        rigid_kernels.quadratic_forces,
        rigid_kernels.quadratic_forces_jacobians,
        band_kernels.add_gram_blocks,
        band_kernels.add_scaled,
        band_kernels.constrained_solve_cholesky,
    )
    missing = [k.__name__ for k in kernels if not k.signatures]
    if missing:
        raise RuntimeError(f"kernel warm-up run did not reach {', '.join(missing)}")
    path = marker()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"warmed in {time.perf_counter() - start:.1f} s\n")
    return time.perf_counter() - start


def warm_in_background() -> bool:
    """Start :func:`warm` in a detached process, unless one started recently. Returns
    whether one was started."""
    try:
        path = marker()
        lock = path.with_suffix(".lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime < LOCK_AGE:
            return False
        lock.write_text(str(os.getpid()))
        subprocess.Popen(
            [sys.executable, "-c", "from solver.mechanics.kernel_cache import main; main()"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "BIELA_COMPILED": "1"},
        )
        return True
    except OSError:
        return False


def main() -> int:
    """Warm the kernels (the background process's entry)."""
    warm()
    return 0
