"""The compiled kernels give the NumPy system's values, at arbitrary (q, q̇): Euler
parameters off the unit sphere and velocities off the constraint manifold included."""

from __future__ import annotations

import numpy as np
import pytest

from solver.compiled import evaluate as ev
from solver.compiled.packing import Packed, pack
from solver.mechanics.system import MultibodySystem
from tests.compiled.models import compiled_models

MODELS = compiled_models()


def _state(system, seed):
    rng = np.random.default_rng(seed)
    q = system.q0 + 0.1 * rng.standard_normal(system.n)
    qd = rng.standard_normal(system.n)
    return q, qd


@pytest.fixture(scope="module", params=sorted(MODELS))
def case(request):
    system = MultibodySystem(MODELS[request.param])
    packed = pack(system)
    assert isinstance(packed, Packed), packed
    return system, packed


def test_mass_forces_and_energies(case):
    system, P = case
    q, qd = _state(system, 1)
    assert np.allclose(ev.mass_matrix(P, q), system.mass(q), rtol=1e-13, atol=1e-13)
    assert np.allclose(ev.forces(P, q, qd), system.forces(q, qd, 0.0), rtol=1e-13, atol=1e-12)
    kq, kqd = system.force_jacobians(q, qd, 0.0)
    ckq, ckqd = ev.force_jacobians(P, q, qd)
    assert np.allclose(ckq, kq, atol=1e-12) and np.allclose(ckqd, kqd, atol=1e-12)
    a = np.random.default_rng(2).standard_normal(system.n)
    assert np.allclose(
        ev.mass_times_jacobian(P, q, a), system.mass_times_jacobian(q, a), atol=1e-12
    )
    assert ev.kinetic_energy(P, q, qd) == pytest.approx(system.kinetic_energy(q, qd), rel=1e-13)
    assert ev.potential_energy(P, q) == pytest.approx(system.gravitational_energy(q), rel=1e-13)


def test_constraints(case):
    system, P = case
    q, qd = _state(system, 3)
    ref = system.constraints(q, qd, 0.0)
    phi, phiq, phit, gamma = ev.constraints(P, q, qd)
    assert np.allclose(phi, ref.phi, atol=1e-13)
    assert np.allclose(phiq, ref.phi_q, atol=1e-13)
    assert np.allclose(phit, ref.phi_t, atol=0)
    assert np.allclose(gamma, ref.gamma, atol=1e-11)
    phi2, phiq2 = ev.position_constraints(P, q)
    assert np.array_equal(phi2, phi) and np.array_equal(phiq2, phiq)


def test_constraint_hessian_matches_the_system_and_finite_differences(case):
    system, P = case
    q, qd = _state(system, 4)
    lam = np.random.default_rng(5).standard_normal(system.m)
    k = ev.constraint_hessian(P, q, lam)
    ref, _ = system.constraint_second_order(q, qd, lam, 0.0, velocity=False)
    assert np.allclose(k, ref, atol=1e-12)
    # ∂(Φ_qᵀλ)/∂q by central differences of the compiled Φ_q
    eps = 1e-6
    fd = np.empty_like(k)
    for j in range(system.n):
        dq = np.zeros(system.n)
        dq[j] = eps
        hi = ev.position_constraints(P, q + dq)[1].T @ lam
        lo = ev.position_constraints(P, q - dq)[1].T @ lam
        fd[:, j] = (hi - lo) / (2 * eps)
    assert np.allclose(k, fd, atol=1e-7 * max(1.0, np.abs(k).max()))


def test_gamma_is_the_velocity_product_of_the_constraints(case):
    """γ = −(Φ_q q̇)_q q̇ (no drivers): d/dt of Φ_q q̇ along q̇ by finite differences."""
    system, P = case
    q, qd = _state(system, 6)
    _, _, _, gamma = ev.constraints(P, q, qd)
    eps = 1e-6
    hi = ev.position_constraints(P, q + eps * qd)[1] @ qd
    lo = ev.position_constraints(P, q - eps * qd)[1] @ qd
    assert np.allclose(gamma, -(hi - lo) / (2 * eps), atol=1e-6 * max(1.0, np.abs(gamma).max()))
