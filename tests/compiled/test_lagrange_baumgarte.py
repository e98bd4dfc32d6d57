"""The compiled right-hand side of ``lagrange_baumgarte``
(``solver.compiled.lagrange_baumgarte``) gives the accelerations, multipliers and power of
the formulation's NumPy saddle-point solve: on a model with every compiled joint, driver,
time function and force element, on a model with contacts, on rolling discs, and on the
redundant Bricard mechanism, whose singular saddle-point matrix it solves by least
squares."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis.compiled_steps import saddle_layout
from solver.analysis.dynamic import initial_state
from solver.analysis.formulations import formulation_class
from solver.analysis.kinematics import all_velocity_rows
from solver.analysis.linalg import saddle_solve
from solver.analysis.power import PowerMeter
from solver.analysis.simulate import settings_with
from solver.analysis.warmup import warm_model_data
from solver.mechanics.system import MultibodySystem
from solver.model import load_model, model_from_data
from tests.compiled.models import EXAMPLES

LB = "lagrange_baumgarte"


def _started(model, **params):
    system = MultibodySystem(model)
    settings = settings_with(model, formulation=LB, dt=1e-3, parameters=params or None)
    formulation = formulation_class(LB)(system, settings)
    state = formulation.start(initial_state(system, settings.tolerance, 25))
    return system, formulation, state


def _numpy(formulation, t, q, qd):
    """The accelerations, multipliers and power from the system's own matrices, by the
    NumPy saddle-point solve (the reference): ``[[M, Jᵀ], [J, −μI]] [q̈; λ] = [Q; γ −
    2α Φ̇ − β² Φ; γ_nh − α B q̇]`` with ``J = [Φ_q; B]``."""
    s = formulation.system
    ms = s.marker_state(q, qd)
    c = s.constraints(q, qd, t, ms)
    a, b = formulation.params["baumgarte_alpha"], formulation.params["baumgarte_beta"]
    rhs = c.gamma - 2.0 * a * (c.phi_q @ qd + c.phi_t) - b * b * c.phi
    rows = c.phi_q
    if s.m_nh:
        rows, _, gamma_all = all_velocity_rows(s, q, qd, t, c=c, ms=ms)
        rhs = np.concatenate([rhs, gamma_all[s.m :] - a * (rows[s.m :] @ qd)])
    mu = formulation._mu
    qdd, lam = saddle_solve(s.mass(q), rows, s.forces(q, qd, t, ms), rhs, mu)
    power = None
    if formulation._power is not None:
        power = PowerMeter(s).power(q, qd, t, ms, c, lam, qdd)
    return qdd, lam, power


def _states(system, state, count, seed):
    """The start and perturbed states around it (off the constraint manifold: the
    Baumgarte terms count)."""
    rng = np.random.default_rng(seed)
    yield state.t, state.q, state.qd
    for k in range(count):
        q = state.q + 1e-3 * rng.standard_normal(system.n)
        qd = state.qd + 0.1 * rng.standard_normal(system.n)
        yield state.t + 0.37 * (k + 1), q, qd


def _agree(formulation, system, state, count=4, seed=0):
    for t, q, qd in _states(system, state, count, seed):
        got = formulation._core.evaluate(t, q, qd)
        qdd, lam, power = _numpy(formulation, t, q, qd)
        scale = max(1.0, np.abs(qdd).max())
        assert np.abs(got[0] - qdd).max() < 1e-9 * scale
        assert np.abs(got[1] - lam).max() < 1e-9 * max(1.0, np.abs(lam).max())
        if power is not None:
            assert got[2] == pytest.approx(power, rel=1e-9, abs=1e-9)


def test_every_compiled_part_like_numpy():
    system, formulation, state = _started(
        model_from_data(warm_model_data()), baumgarte_alpha=3.0, baumgarte_beta=7.0
    )
    assert formulation._power is not None  # drivers and dampers: the work is integrated
    _agree(formulation, system, state)


def _normal_force(system, q, qd):
    """The largest normal force of the contacts (N)."""
    states = system.force_set.contacts.state(system.marker_state(q, qd))
    return max(s["normal_force"] for s in states.values())


def test_contacts():
    """Newton's cradle stepped to its first impact, and states around it."""
    system, formulation, state = _started(load_model(EXAMPLES / "newtons_cradle.json"))
    assert len(system.force_set.contacts)
    while not _normal_force(system, state.q, state.qd) > 0.0:
        assert state.t < 1.0, "no impact within 1 s"
        state = formulation.step(state, 1e-3)
    rng = np.random.default_rng(5)
    for k in range(4):
        q = state.q + 1e-7 * rng.standard_normal(system.n) * (k > 0)
        qd = state.qd + 1e-3 * rng.standard_normal(system.n) * (k > 0)
        assert _normal_force(system, q, qd) > 1.0  # in contact
        got = formulation._core.evaluate(state.t, q, qd)
        qdd, lam, power = _numpy(formulation, state.t, q, qd)
        assert np.abs(got[0] - qdd).max() < 1e-9 * max(1.0, np.abs(qdd).max())
        assert np.abs(got[1] - lam).max() < 1e-9 * max(1.0, np.abs(lam).max())


@pytest.mark.parametrize("regularisation", [0.0, 1e-17])
def test_singular_saddle_point_by_least_squares(regularisation):
    """Bricard's redundant rows without regularisation, or with one too small for the
    LU's pivot test: at a consistent state the kernel's least-squares solve gives the
    NumPy solve's accelerations and minimum-norm multipliers (off the constraint
    manifold the redundant rows disagree, and the two solves weigh them differently)."""
    model = load_model(EXAMPLES / "bricard.json")
    system, formulation, state = _started(model, regularisation=regularisation)
    _agree(formulation, system, state, count=0)


def test_rolling_discs():
    """The tricycle: its no-slip rows in the saddle-point matrix, ``B q̈ = γ_nh − α B q̇``,
    and their multipliers after the joints'."""
    system, formulation, state = _started(load_model(EXAMPLES / "tricycle.json"))
    assert system.m_nh == 3
    assert len(state.lam) == system.m + system.m_nh
    _agree(formulation, system, state)


def test_band_of_independent_pendulums():
    """Newton's cradle's saddle-point matrix (five point masses, each on its string, k = 20)
    renumbers into one block per ball (its coordinates and its string's multiplier):
    half-bandwidth below 4, against 19 in the model's numbering."""
    system = MultibodySystem(load_model(EXAMPLES / "newtons_cradle.json"))
    layout = saddle_layout(system)
    assert 0 < layout[0] < 4
    assert sorted(layout[1:21]) == list(range(20))


def test_sparse_systems_too():
    """A system above the sparse threshold (a 48-link chain, n = 336) renumbers into a
    band like the small ones: the kernel's accelerations are the sparse NumPy solve's."""
    from benchmarks.chain import chain_data

    data = chain_data(48)
    data["bodies"][-1]["velocity"] = [0.0, 0.3, -0.2]
    system, formulation, state = _started(model_from_data(data))
    assert system.sparse
    _agree(formulation, system, state, count=2)
