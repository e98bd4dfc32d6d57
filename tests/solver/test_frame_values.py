"""``MultibodySystem.frame_values``, the time loop's record of a state in one kernel call,
gives what the separate evaluations give: the three energies and the constraint errors."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis.warmup import warm_model_data
from solver.mechanics.system import MultibodySystem
from solver.model import load_model, model_from_data
from tests.compiled.models import EXAMPLES, flexible_data


@pytest.mark.parametrize(
    "model",
    [
        lambda: model_from_data(warm_model_data()),
        lambda: model_from_data(flexible_data()),
        lambda: load_model(EXAMPLES / "newtons_cradle.json"),
        lambda: load_model(EXAMPLES / "tricycle.json"),
        lambda: load_model(EXAMPLES / "ancf_sliding_ring.json"),
    ],
    ids=["rigid", "flexible", "contacts", "rolling", "sliding"],
)
def test_frame_values_like_the_separate_evaluations(model):
    system = MultibodySystem(model())
    rng = np.random.default_rng(2)
    for k in range(4):
        q = system.q0 + 1e-2 * rng.standard_normal(system.n)
        qd = rng.standard_normal(system.n)
        t = 0.3 * k
        ms = system.marker_state(q, qd)
        c = system.constraints(q, qd, t, ms)
        ref = (
            system.kinetic_energy(q, qd),
            system.gravitational_energy(q),
            system.elastic_energy(q, ms),
            float(np.abs(c.phi).max()),
            float(np.abs(c.phi_q @ qd + c.phi_t).max()),
        )
        if system.m_nh:  # the no-slip rows' B q̇ as well
            b, _ = system.velocity_constraints(q, qd, t, ms)
            ref = (*ref[:4], max(ref[4], float(np.abs(b @ qd).max())))
            assert np.abs(b @ qd).max() > 1e-3
        got = system.frame_values(q, qd, t, ms)
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)
        assert ref[3] > 1e-4 and ref[4] > 1e-3  # off the constraints: errors that count
