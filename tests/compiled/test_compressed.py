"""The compressed-row products of the compiled null-space steps equal the dense ones."""

from __future__ import annotations

import numpy as np

from solver.compiled import compressed as cz


def test_compressed_products_equal_the_dense_ones():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 9))
    a[rng.random(a.shape) < 0.6] = 0.0
    a[2] = 0.0  # an empty row
    c = cz.compress(a)
    assert c[1].shape[0] == np.count_nonzero(a) and c[3] == 9
    x = rng.standard_normal(9)
    xs = rng.standard_normal((9, 3))
    assert np.allclose(cz.rows_vec(c, x), a @ x, atol=1e-14)
    assert np.allclose(cz.rows_mat(c, xs), a @ xs, atol=1e-14)
    z = cz.zeros(6, 9)
    assert np.all(cz.rows_vec(z, x) == 0.0) and cz.rows_mat(z, xs).shape == (6, 3)
    r, k = np.nonzero(np.ones((6, 9)))
    r = np.concatenate([r, r[:5]]).astype(np.int64)  # repeated positions add up
    k = np.concatenate([k, k[:5]]).astype(np.int64)
    v = np.concatenate([a.ravel(), np.arange(5.0)])
    dense = a.copy()
    dense[0, :5] += np.arange(5.0)
    assert np.allclose(cz.entries_mat(r, k, v, xs, 6), dense @ xs, atol=1e-14)
