"""Rank and left null space (solver.analysis.linalg), as used by the mobility analysis."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis.linalg import rank_and_left_null_space, rank_and_null_spaces

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("shape", [(6, 20), (20, 6), (12, 12)])
@pytest.mark.parametrize("dependent", [0, 1, 3])
def test_left_null_space_matches_the_full_svd(shape, dependent):
    m, n = shape
    a = RNG.standard_normal((m, n))
    for k in range(dependent):  # rows that repeat combinations of others
        a[m - 1 - k] = RNG.standard_normal(m - dependent) @ a[: m - dependent]
    rank, s, left = rank_and_left_null_space(a)
    rank_full, s_full, left_full, _ = rank_and_null_spaces(a)
    assert rank == rank_full == min(m - dependent, n)
    np.testing.assert_allclose(s, s_full, rtol=1e-10, atol=1e-12)
    assert left.shape == left_full.shape == (m, m - rank)
    if left.shape[1]:
        assert np.abs(left.T @ a).max() < 1e-10  # a left null space
        np.testing.assert_allclose(left.T @ left, np.eye(m - rank), atol=1e-10)
        # the same subspace as the full SVD's
        np.testing.assert_allclose(left @ left.T, left_full @ left_full.T, atol=1e-10)


def test_empty_matrix():
    rank, s, left = rank_and_left_null_space(np.zeros((0, 4)))
    assert rank == 0 and len(s) == 0 and left.shape == (0, 0)
