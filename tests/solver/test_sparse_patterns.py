"""Sparse systems build their matrices on fixed CSR patterns (``system.FixedPattern``): the
same model evaluated dense and sparse must give the same matrices, entry by entry."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import solver.mechanics.system as system_module
from solver.mechanics.system import FixedPattern, MultibodySystem
from solver.model import model_from_data


def chain_with_spring(n: int = 4):
    bodies, joints = [], []
    for i in range(n):
        bodies.append(
            {
                "name": f"bar{i}",
                "mass": 1.0 + 0.1 * i,
                "inertia": [0.05, 0.08 + 0.01 * i, 0.09],
                "position": [i + 0.5, 0.0, 0.0],
            }
        )
        joint = {
            "name": f"S{i}",
            "type": "spherical",
            "body1": "ground" if i == 0 else f"bar{i - 1}",
            "body2": f"bar{i}",
            "point": [float(i), 0.0, 0.0],
        }
        if i % 2 == 0:  # revolute joints too: Dot rows with vector markers
            joint.update(type="revolute", axis=[0.0, 0.3, 1.0])
        joints.append(joint)
    bodies.append({"name": "bob", "type": "point_mass", "mass": 0.5, "position": [n, 0, 0]})
    joints.append(
        {
            "name": "tip",
            "type": "distance",
            "body1": f"bar{n - 1}",
            "body2": "bob",
            "point1": [n - 0.2, 0.0, 0.0],
            "point2": [n, 0.0, 0.0],
        }
    )
    forces = [
        {
            "name": "k",
            "type": "spring_damper",
            "body1": "ground",
            "body2": "bar1",
            "point1": [1.0, 1.0, 0.0],
            "point2": [1.5, 0.0, 0.0],
            "stiffness": 50.0,
            "damping": 2.0,
        }
    ]
    return model_from_data(
        {
            "biela": 1,
            "name": "chain",
            "gravity": [0, 0, -9.81],
            "bodies": bodies,
            "joints": joints,
            "forces": forces,
        }
    )


def dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


@pytest.fixture(scope="module")
def pair():
    model = chain_with_spring()
    small = MultibodySystem(model)
    saved = system_module.SPARSE_THRESHOLD
    system_module.SPARSE_THRESHOLD = 0
    try:
        big = MultibodySystem(model)
    finally:
        system_module.SPARSE_THRESHOLD = saved
    assert not small.sparse and big.sparse
    return small, big


def test_sparse_matrices_equal_dense(pair):
    small, big = pair
    rng = np.random.default_rng(3)
    for _ in range(2):  # the second evaluation reuses the patterns
        q = small.q0 + 0.05 * rng.standard_normal(small.n)
        qd = rng.standard_normal(small.n)
        a = rng.standard_normal(small.n)
        lam = rng.standard_normal(small.m)
        cs, cb = small.constraints(q, qd, 0.3), big.constraints(q, qd, 0.3)
        assert np.allclose(dense(cb.phi_q), cs.phi_q, rtol=0, atol=1e-13)
        assert np.allclose(cb.gamma, cs.gamma, rtol=0, atol=1e-12)
        assert np.allclose(dense(big.mass(q)), small.mass(q), rtol=0, atol=1e-13)
        for x, y in zip(
            big.force_jacobians(q, qd, 0.3), small.force_jacobians(q, qd, 0.3), strict=True
        ):
            assert sp.issparse(x)
            assert np.allclose(dense(x), y, rtol=0, atol=1e-12)
        assert np.allclose(
            dense(big.mass_times_jacobian(q, a)), small.mass_times_jacobian(q, a), atol=1e-12
        )
        for x, y in zip(
            big.constraint_second_order(q, qd, lam, 0.3),
            small.constraint_second_order(q, qd, lam, 0.3),
            strict=True,
        ):
            assert np.allclose(dense(x), y, rtol=0, atol=1e-12)
        k, none = big.constraint_second_order(q, qd, lam, 0.3, velocity=False)
        assert none is None
        assert np.allclose(dense(k), small.constraint_second_order(q, qd, lam, 0.3)[0], atol=1e-12)


def test_fixed_pattern_sums_duplicates():
    rows, cols = np.array([2, 0, 2, 1, 0]), np.array([1, 3, 1, 0, 0])
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    got = FixedPattern(rows, cols, (3, 4)).csr(values)
    want = sp.coo_matrix((values, (rows, cols)), shape=(3, 4)).toarray()
    assert np.array_equal(got.toarray(), want)
    assert got.has_sorted_indices


def test_sliding_joint_second_derivatives_follow_the_element(monkeypatch):
    """An ANCF sliding joint's entries move to the element the slider is on: the sparse
    second derivatives equal the dense ones on either side of element boundaries."""
    from pathlib import Path

    from solver.model import load_model

    model = load_model(Path(__file__).resolve().parents[2] / "examples" / "ancf_sliding_ring.json")
    small = MultibodySystem(model)
    monkeypatch.setattr(system_module, "SPARSE_THRESHOLD", 0)
    big = MultibodySystem(model)
    assert big.sparse and not small.sparse
    slider = small.blocks[0].sliders[0]
    rng = np.random.default_rng(0)
    elements = set()
    for s in (0.3, 0.62, 0.9):
        q = small.q0.copy()
        q[slider.col] = s
        elements.add(int(s // slider.l))  # on the beam: the element of s
        qd, lam = rng.standard_normal(small.n), rng.standard_normal(small.m)
        ks, ds = small.constraint_second_order(q, qd, lam, 0.0)
        kb, db = big.constraint_second_order(q, qd, lam, 0.0)
        np.testing.assert_allclose(kb.toarray(), ks, rtol=0, atol=1e-12)
        np.testing.assert_allclose(db.toarray(), ds, rtol=0, atol=1e-12)
    assert len(elements) == 3
