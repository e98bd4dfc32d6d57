"""The blocked sparse QR rank behind ``check`` for large models, against the dense SVD."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from solver import check, load_model
from solver.analysis.kinematics import assemble
from solver.analysis.mobility import mobility
from solver.analysis.sparse_rank import blocked_rank, column_groups
from solver.generators.mechanisms import n_four_bar, pendulum_chain
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = [
    "four_bar_spatial",
    "bricard",
    "four_bar_planar",
    "double_four_bar",
    "tricycle",
    "flyball_governor",
    "slider_crank_k10",
    "heavy_top",
    "andrews_squeezer",
    "newtons_cradle",
]


def random_rank_deficient(rng, m, n, rank, density=0.2):
    a = sp.random(m, rank, density=density, random_state=rng) @ sp.random(
        rank, n, density=density, random_state=rng
    )
    return sp.csr_matrix(a)


@pytest.mark.parametrize("seed", range(6))
def test_rank_and_left_null_space_of_random_matrices(seed):
    rng = np.random.default_rng(seed)
    m, n = 40, 60
    a = random_rank_deficient(rng, m, n, 25 + seed).toarray()
    a[rng.integers(0, m)] = a[rng.integers(0, m)] * 2.0  # an exactly repeated row
    a = sp.csr_matrix(a)
    groups = column_groups(n, [(0, 7), (7, 19), (30, 44)])
    res = blocked_rank(a, groups)
    assert res.rank == np.linalg.matrix_rank(a.toarray())
    assert len(res.left_null) == m - res.rank
    y = np.array(res.left_null)
    assert np.abs(y @ a.toarray()).max() < 1e-10 * np.abs(a.toarray()).max()
    assert np.linalg.matrix_rank(y) == m - res.rank  # independent vectors


def test_column_groups_partition_the_columns():
    groups = column_groups(30, [(0, 7), (10, 30)])
    cols = np.concatenate(groups)
    assert sorted(cols.tolist()) == list(range(30))
    assert max(len(g) for g in groups) <= 12


@pytest.mark.parametrize("name", NAMES)
def test_sparse_mobility_agrees_with_the_svd(name):
    model = load_model(EXAMPLES / f"{name}.json")
    system = MultibodySystem(model)
    q = assemble(system, system.q0, 0.0, tol=1e-12).q
    dense, sparse = mobility(system, q, sparse=False), mobility(system, q, sparse=True)
    assert (sparse.dof, sparse.redundant, sparse.rank) == (dense.dof, dense.redundant, dense.rank)
    assert sorted(sparse.redundant_items) == sorted(dense.redundant_items)
    assert [f.describe() for f in sparse.passive] == [f.describe() for f in dense.passive]
    # the pivot estimate of the smallest singular value is of the right order or smaller
    assert sparse.smallest_singular_value <= 10.0 * dense.smallest_singular_value


def test_a_redundant_loop_at_the_end_of_a_long_mechanism():
    """The N-four-bar with 45 loops (637 coordinates: the sparse path) whose last loop is
    closed by a revolute instead of a point-on-line joint: that planar loop of revolutes
    is redundant in 3D. The sparse QR finds the SVD's count and names the joints of the
    last loop only."""
    n = 45
    data = n_four_bar(n)
    close = next(j for j in data["joints"] if j["name"] == f"C{n}")
    close.update(type="revolute")
    model = model_from_data(data)
    system = MultibodySystem(model)
    assert system.sparse
    q = assemble(system, system.q0, 0.0, tol=1e-12).q
    dense, sparse = mobility(system, q, sparse=False), mobility(system, q, sparse=True)
    assert dense.redundant > 0
    assert (sparse.dof, sparse.redundant) == (dense.dof, dense.redundant)
    loop = {f"joint:{j}" for j in (f"O{n - 1}", f"O{n}", f"B{n - 1}", f"C{n}")}
    assert set(sparse.redundant_items) <= loop and f"joint:C{n}" in sparse.redundant_items
    assert sorted(sparse.redundant_items) == sorted(dense.redundant_items)


def test_check_of_a_long_chain_uses_the_sparse_path():
    """A 1000-link chain (7000 coordinates): every link swings, nothing redundant or
    passive (each link's spin about its own axis is held by its revolute joints)."""
    report = check(model_from_data(pendulum_chain(1000)))
    assert report.mobility.coordinates == 7000
    assert (report.dof, report.redundant, report.passive_freedoms) == (1000, 0, [])
