"""The compiled per-body blocks of many rigid bodies (solver.mechanics.bodies.rigid_kernels)
against the NumPy ones, which tests/solver/test_constraints.py checks against the kinetic
energy (mass matrix, quadratic-velocity forces) and finite differences."""

from __future__ import annotations

import numpy as np

import solver.mechanics.bodies.rigid as rigid_module
from solver.mechanics.bodies.rigid import RigidBodies


def test_compiled_blocks_equal_numpy_blocks(monkeypatch):
    rng = np.random.default_rng(11)
    n = rigid_module.COMPILED_MIN_BODIES + 6
    a = rng.standard_normal((n, 3, 3))
    inertia = a @ np.swapaxes(a, 1, 2) + np.eye(3)  # full symmetric positive definite
    bodies = RigidBodies(7 * np.arange(n), rng.uniform(0.5, 2.0, n), inertia)
    q, qd, acc = (rng.standard_normal(7 * n) for _ in range(3))  # p not normalised: general

    def all_blocks():
        return [
            bodies.mass_blocks(q),
            bodies.mass_times_jacobian(q, acc),
            bodies.quadratic_forces(q, qd),
            *bodies.quadratic_forces_jacobians(q, qd),
        ]

    monkeypatch.setattr(rigid_module, "compiled_kernels", lambda: False)  # forced either way
    ref = all_blocks()
    monkeypatch.setattr(rigid_module, "compiled_kernels", lambda: True)
    got = all_blocks()
    for g, r in zip(got, ref, strict=True):
        assert g.shape == r.shape
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-12 * np.abs(r).max())
