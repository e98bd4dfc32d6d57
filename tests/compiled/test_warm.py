"""The compiled path's switch (``BIELA_COMPILED``) and its warm-up marker."""

from __future__ import annotations

from solver.analysis import simulate
from solver.analysis.formulations import formulation_class
from solver.compiled import warm
from solver.compiled.frames import compiled_stepper
from solver.mechanics.system import MultibodySystem
from tests.compiled.models import compiled_models

PENDULUM = compiled_models()["pendulum"]


def _stepper():
    settings = simulate.settings_with(
        PENDULUM, analysis="dynamic", formulation="augmented_lagrangian"
    )
    system = MultibodySystem(PENDULUM)
    return compiled_stepper(
        system, settings, formulation_class(settings.formulation)(system, settings)
    )


def test_modes(monkeypatch):
    for value, expected in (
        ("0", "off"),
        ("off", "off"),
        ("1", "on"),
        ("auto", "auto"),
        ("", "auto"),
    ):
        monkeypatch.setenv("BIELA_COMPILED", value)
        assert warm.mode() == expected
    monkeypatch.delenv("BIELA_COMPILED")
    assert warm.mode() == "auto"
    monkeypatch.setenv("BIELA_COMPILED", "1")
    real = warm.importlib.util.find_spec
    monkeypatch.setattr(
        warm.importlib.util, "find_spec", lambda n: None if n == "numba" else real(n)
    )
    assert warm.mode() == "off"  # without Numba: the NumPy paths


def test_auto_runs_numpy_and_warms_in_the_background_while_the_cache_is_cold(monkeypatch):
    started, compiled = [], []
    monkeypatch.setenv("BIELA_COMPILED", "auto")
    monkeypatch.setattr(warm, "is_warm", lambda: False)
    monkeypatch.setattr(warm, "warm_in_background", lambda: started.append(1) or True)
    assert _stepper() is None and started == [1]
    monkeypatch.setattr(warm, "is_warm", lambda: True)
    assert _stepper() is not None and started == [1]
    monkeypatch.setenv("BIELA_COMPILED", "1")
    monkeypatch.setattr(warm, "is_warm", lambda: False)
    monkeypatch.setattr(warm, "warm", lambda: compiled.append(1))
    assert _stepper() is not None and started == [1] and compiled == [1]  # on: compiles here


def test_warm_writes_the_marker_of_these_sources(tmp_path, monkeypatch):
    """Without the marker of these sources, warm() first deletes the cached code (stale
    callers of a changed module would survive otherwise), then writes the marker."""
    cleared = []
    monkeypatch.setattr(warm, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(warm, "clear_cache", lambda: cleared.append(1) or 0)
    assert not warm.is_warm()
    warm.warm()
    assert cleared == [1] and warm.is_warm() and warm.marker().parent == tmp_path
    assert warm.fingerprint() in warm.marker().name
    warm.warm()
    assert cleared == [1]  # warm already: the cache is loaded, not cleared


def test_the_fingerprint_covers_every_compiled_module():
    names = {p.name for p in warm.sources()}
    assert {"evaluate.py", "central_differences.py", "augmented_lagrangian.py"} <= names
    assert {"marker_kernels.py", "rigid_kernels.py", "band_kernels.py", "group_kernels.py"} <= names


def test_the_warm_up_reaches_every_stepper_and_kernel():
    """Its runs compile (or load) the steppers and the kernels of large systems and of the
    structural groups that the solver calls, so that no user run compiles them (functions
    called only from compiled code are loaded with their callers, without a signature of
    their own)."""
    warm.warm()
    missing = warm.unreached()
    for name in (
        "solver.compiled.central_differences.cd_steps",
        "solver.compiled.augmented_lagrangian.al_steps",
        "solver.mechanics.marker_kernels.rigid_markers",
        "solver.mechanics.bodies.rigid_kernels.mass_blocks",
        "solver.analysis.band_kernels.constrained_solve_cholesky",
        "solver.analysis.group_kernels.factor",
        "solver.analysis.group_kernels.solve",
        "solver.analysis.group_kernels.quadratic",
    ):
        assert name not in missing, name
