"""The compiled evaluation of rigid markers (solver.mechanics.marker_kernels) against the
NumPy one, whose values, Jacobians and velocity products tests/solver/test_constraints.py
checks by finite differences."""

from __future__ import annotations

import numpy as np

import solver.mechanics.markers as markers_module
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from tests.solver.test_constraints import every_joint_model, random_state

FIELDS = ("u", "udot", "jac", "jdq", "jdot")


def _both(monkeypatch, markers, q, qd, threshold):
    """NumPy's evaluation, then the compiled one (both forced, whatever the process's
    compiled-code policy decided)."""
    monkeypatch.setattr(markers_module, "compiled_kernels", lambda: False)
    ref = markers._evaluate(q, qd)
    monkeypatch.setattr(markers_module, "compiled_kernels", lambda: True)
    monkeypatch.setattr(markers_module, "COMPILED_MIN_RIGID", threshold)
    return ref, markers._evaluate(q, qd)


def test_compiled_rigid_markers_equal_numpy_markers(monkeypatch):
    """Every joint type (points and directions on rigid bodies, point masses, ground): the
    compiled loop, forced on for this small model, gives NumPy's u, u̇, J, J̇q̇ and ∂u̇/∂q."""
    system = MultibodySystem(model_from_data(every_joint_model()))
    markers = system.markers
    assert len(markers.rigid) and len(markers.ground) and not markers.is_point.all()
    for _ in range(2):
        q, qd, _ = random_state(system)
        ref, got = _both(monkeypatch, markers, q, qd, 0)
        for name in FIELDS:
            np.testing.assert_allclose(getattr(got, name), getattr(ref, name), atol=1e-13)


def test_large_systems_use_the_compiled_loop(monkeypatch):
    from benchmarks.chain import chain_model

    system = MultibodySystem(chain_model(64))
    assert len(system.markers.rigid) >= markers_module.COMPILED_MIN_RIGID
    rng = np.random.default_rng(3)
    q = system.q0 + 0.1 * rng.standard_normal(system.n)
    qd = rng.standard_normal(system.n)
    ref, got = _both(monkeypatch, system.markers, q, qd, markers_module.COMPILED_MIN_RIGID)
    for name in FIELDS:
        np.testing.assert_allclose(getattr(got, name), getattr(ref, name), atol=1e-12)
