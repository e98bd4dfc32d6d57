"""The compiled system kernels against finite differences of themselves and against the
identities every multibody system satisfies (energy = ½ q̇ᵀMq̇, power = Q·q̇), on models
with every joint, driver and compiled force element."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from solver.kernels import system as ks
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from tests.solver.test_forces import BODIES, CASES, JOINTS

H = 1e-6


def _models() -> dict:
    """Three bodies on revolute, cylindrical and prismatic joints, each driven (expression,
    smooth step, polynomial, table), with every compiled force element of the force tests;
    in reference-point and in natural coordinates."""
    forces = []
    for case in CASES.values():
        for f in case:
            forces.append({**f, "name": f"F{len(forces)}"})
    drivers = [
        {"name": "D1", "joint": "Rg", "function": {"expression": "0.3*sin(2*t) + 0.1*t**2"}},
        {"name": "D2", "joint": "Pg", "function": {"polynomial": [0, 0.1, -0.2]}},
        {"name": "D3", "joint": "Cab", "coordinate": "angle",
         "function": {"smooth_step": {"t0": 0, "f0": 0, "t1": 1, "f1": 0.5}}},
        {"name": "D4", "joint": "Cab", "function": {"table": [[0, 0], [0.2, 0.05], [1, 0.1]]}},
    ]  # fmt: skip
    base = {
        "biela": 1,
        "name": "kernels",
        "gravity": [0.5, -9.81, 0.3],
        "bodies": copy.deepcopy(BODIES),
        "joints": copy.deepcopy(JOINTS),
        "drivers": drivers,
        "forces": forces,
    }
    natural = copy.deepcopy(base) | {"solver": {"coordinates": "natural"}}
    return {"reference_point": base, "natural": natural}


MODELS = _models()


def _state(system, seed):
    """A state near the initial one (the kernels need no consistent state)."""
    rng = np.random.default_rng(seed)
    q = system.q0 + 1e-2 * rng.standard_normal(system.n)
    return q, rng.standard_normal(system.n), rng.standard_normal(system.m), 0.37


def _dense(m):
    return m if isinstance(m, np.ndarray) else m.toarray()


def _fd(f, x, h=H):
    """Central differences of ``f`` (vector or matrix valued) along each coordinate."""
    cols = []
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.stack(cols, axis=-1)


def _close(a, b, rtol=1e-6):
    scale = max(1.0, float(np.abs(b).max()) if np.size(b) else 1.0)
    assert np.abs(np.asarray(a) - np.asarray(b)).max() <= rtol * scale


@pytest.fixture(scope="module", params=sorted(MODELS))
def system(request):
    s = MultibodySystem(model_from_data(copy.deepcopy(MODELS[request.param])))
    return s


def test_constraint_jacobian_time_derivative_and_gamma(system):
    q, qd, _, t = _state(system, 1)
    c = system.constraints(q, qd, t)
    _close(_dense(c.phi_q), _fd(lambda x: system.constraints(x, qd, t).phi, q))
    _close(
        c.phi_t,
        (system.constraints(q, qd, t + H).phi - system.constraints(q, qd, t - H).phi) / (2 * H),
    )
    # γ = −d²Φ/ds² along (q + s q̇, t + s) at s = 0 (with q̈ = 0)
    path = lambda s: system.constraints(q + s * qd, qd, t + s).phi  # noqa: E731
    h = 1e-4
    second = (path(h) - 2 * path(0.0) + path(-h)) / h**2
    _close(c.gamma, -second, rtol=1e-5)


def test_constraint_second_derivatives(system):
    q, qd, lam, t = _state(system, 2)
    k, d = system.constraint_second_order(q, qd, lam, t)
    _close(_dense(k), _fd(lambda x: _dense(system.constraints(x, qd, t).phi_q).T @ lam, q))
    _close(_dense(d), _fd(lambda x: _dense(system.constraints(x, qd, t).phi_q) @ qd, q))


def test_mass_forces_and_their_jacobians(system):
    q, qd, _, t = _state(system, 3)
    a = np.random.default_rng(4).standard_normal(system.n)
    _close(_dense(system.mass_times_jacobian(q, a)), _fd(lambda x: _dense(system.mass(x)) @ a, q))
    kq, kqd = system.force_jacobians(q, qd, t)
    _close(_dense(kq), _fd(lambda x: system.forces(x, qd, t), q))
    _close(_dense(kqd), _fd(lambda v: system.forces(q, v, t), qd))
    m = _dense(system.mass(q))
    assert system.kinetic_energy(q, qd) == pytest.approx(0.5 * qd @ m @ qd, rel=1e-12)


def test_power_of_the_force_elements_is_their_forces_times_the_velocities(system):
    """``P = (Q − Q_conservative − Q_quadratic)·q̇``: the force elements' non-conservative
    part, found as the forces minus those of the same model without damping and actuation."""
    q, qd, _, t = _state(system, 5)
    total = system.forces(q, qd, t, inertial=False) - system.gravity_forces()
    grad_v = _fd(lambda x: system.elastic_energy(x), q, h=1e-6)
    system.force_set.reset()
    nonconservative = total + grad_v  # Q_elastic = −∂V/∂q
    assert system.nonconservative_power(q, qd, t) == pytest.approx(
        nonconservative @ qd, rel=1e-6, abs=1e-8
    )


def test_patterns_do_not_depend_on_the_state(system):
    q, _, _, _ = _state(system, 6)
    fresh = ks.patterns(system.arrays, q, system.markers.evaluate(q, q).arrays)
    for a, b in zip(fresh, system.packed_patterns, strict=True):
        np.testing.assert_array_equal(a, b)


def _power_markers_hold(system, seed):
    """The force elements' power from the velocities of ``power_markers`` alone equals the
    power from those of every marker, at two velocities."""
    from solver.kernels.jit import YES

    q, qd, _, t = _state(system, seed)
    P = system.arrays
    mk = ks.markers(P, q, qd, YES)
    read = ks.power_markers(P)
    every = np.arange(mk.u.shape[0])
    for v in (qd, 0.1 - 2.0 * qd):
        whole = ks.nonconservative_power(P, ks.with_velocities(P, mk, v, every), q, v, t)
        assert whole != 0.0
        assert ks.nonconservative_power(P, ks.with_velocities(P, mk, v, read), q, v, t) == whole
    assert 0 < len(read) < len(every)


def test_the_power_reads_the_velocities_of_the_power_markers_only(system):
    _power_markers_hold(system, 7)


def test_the_pulley_contacts_power_reads_the_power_markers_only():
    from pathlib import Path

    from solver import load_model

    example = Path(__file__).resolve().parents[2] / "examples" / "belt_drive.json"
    _power_markers_hold(MultibodySystem(load_model(example)), 8)
