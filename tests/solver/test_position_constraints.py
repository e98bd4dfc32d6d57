"""``MultibodySystem.position_constraints`` (Φ and Φ_q without velocity terms, the lean path
of position-level Newton iterations) equals ``constraints`` on every example model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from solver.mechanics.system import MultibodySystem
from solver.model import load_model

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))


def dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_position_constraints_equal_constraints(path):
    model = load_model(path)
    system = MultibodySystem(model)
    if system.m == 0:
        pytest.skip("no constraints")
    rng = np.random.default_rng(7)
    for t in (0.0, 0.37):
        q = system.q0 + 1e-2 * rng.standard_normal(system.n)
        qd = rng.standard_normal(system.n)
        phi, phi_q = system.position_constraints(q, t)
        c = system.constraints(q, qd, t)
        assert np.allclose(phi, c.phi, rtol=0, atol=1e-14)
        assert np.allclose(dense(phi_q), dense(c.phi_q), rtol=0, atol=1e-14)
        again = system.position_constraints(q, t)  # now from the kept evaluation
        assert np.array_equal(again[0], c.phi)
