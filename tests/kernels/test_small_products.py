"""The loop products of ``solver.kernels.small`` equal NumPy's, small (loops) and large
(BLAS) alike, with zero entries and on non-contiguous views."""

from __future__ import annotations

import numpy as np
import pytest

from solver.kernels import small


@pytest.mark.parametrize(("m", "k", "n"), [(3, 3, 4), (7, 5, 2), (1, 9, 1), (60, 40, 30)])
def test_matrix_products_equal_numpy(m, k, n):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = rng.standard_normal((m, k))
    a[rng.random((m, k)) < 0.3] = 0.0  # skipped entries
    b = rng.standard_normal((k, n))
    at = np.ascontiguousarray(a.T)  # k × m: Aᵀ B with A = at
    x, y = rng.standard_normal(k), rng.standard_normal(m)
    assert np.allclose(small.mat_mat(a, b), a @ b, rtol=1e-13, atol=1e-13)
    assert np.allclose(small.mat_t_mat(at, b), a @ b, rtol=1e-13, atol=1e-13)
    assert np.allclose(small.mat_vec(a, x), a @ x, rtol=1e-13, atol=1e-13)
    assert np.allclose(small.mat_t_vec(a, y), a.T @ y, rtol=1e-13, atol=1e-13)
    assert small.dot(x, x) == pytest.approx(x @ x, rel=1e-13)


def test_products_of_views():
    rng = np.random.default_rng(1)
    big = rng.standard_normal((8, 10))
    a, b = big[1:6, ::2], big[::2, 3:7]  # 5×5 and 4×4: strided views
    assert np.allclose(small.mat_mat(a[:4, :4], b), a[:4, :4] @ b, rtol=1e-13, atol=1e-13)
    assert np.allclose(small.mat_t_mat(b, b), b.T @ b, rtol=1e-13, atol=1e-13)
    assert np.allclose(small.mat_vec(a, big[0, ::2]), a @ big[0, ::2], rtol=1e-13, atol=1e-13)


def test_reductions_equal_numpy_and_propagate_nan():
    x = np.array([0.5, -3.0, 2.0, -0.25])
    assert small.max_abs(x) == 3.0 and small.max_abs(x[:0]) == 0.0
    assert small.largest(x) == 2.0 and small.largest(-np.abs(x)) == -0.25
    assert small.largest(x[:0]) == -np.inf
    assert small.all_finite(x) and small.all_finite_matrix(np.outer(x, x))
    for where in (0, 2, 3):  # a NaN anywhere, an infinity
        bad = x.copy()
        bad[where] = np.nan
        assert np.isnan(small.max_abs(bad)) and np.isnan(small.largest(bad))
        assert not small.all_finite(bad)
        bad[where] = -np.inf
        assert small.max_abs(bad) == np.inf and not small.all_finite(bad)
        matrix = np.outer(x, x)
        matrix[where, 3 - where] = np.inf
        assert not small.all_finite_matrix(matrix)
