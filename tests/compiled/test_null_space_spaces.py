"""The QR path of the compiled null-space steps gives what the SVD gives: the null space of
a full-rank ``Φ_q`` (as a subspace, orthonormal in the weights' metric), the minimum-norm
solutions, the multipliers' least squares, guaranteed bounds of the extreme singular
values; and it leaves to the SVD every matrix whose rank rules it cannot settle."""

from __future__ import annotations

import numpy as np
import pytest

from solver.compiled import householder as hh
from solver.compiled import null_space as cns


def _matrix(rng, m, n, cond=1.0):
    """A random m × n matrix of full row rank with condition number ``cond``."""
    u, _ = np.linalg.qr(rng.standard_normal((m, m)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    s = np.geomspace(1.0, 1.0 / cond, m)
    return (u * s) @ v[:m]


@pytest.mark.parametrize(("m", "n"), [(1, 1), (3, 7), (12, 14), (13, 14), (48, 49), (6, 6)])
def test_qr_spaces_match_the_svd(m, n):
    rng = np.random.default_rng(m * 100 + n)
    h = _matrix(rng, m, n, cond=30.0)
    w = rng.uniform(0.5, 2.0, n)
    phi = 1e-9 * rng.standard_normal(m)
    ok, null, pm, b, tau, inv = cns.qr_spaces(h, phi, m, 1e-5, -1, w)
    assert ok
    ref_null, ref_pm, u, s, v, r, here = cns.spaces(h, phi, m, 1e-5, -1, w)
    assert r == here == m
    # the same subspace, orthonormal in the metric W², P its left inverse
    assert np.allclose(h @ null, 0.0, atol=1e-12)
    assert np.allclose(null.T @ (w**2 * null.T).T, np.eye(n - m), atol=1e-12)
    assert np.allclose(pm @ null, np.eye(n - m), atol=1e-12)
    assert np.allclose(null @ pm, ref_null @ ref_pm, atol=1e-12)
    # minimum-norm solutions (vector and columns) and the multipliers' least squares
    sp = (True, b, tau, inv, np.zeros((0, 0)), np.zeros(0), np.zeros((0, 0)))
    ref = (False, b, tau, inv, u, s, v)
    y = rng.standard_normal(m)
    ys = rng.standard_normal((m, 3))
    g = rng.standard_normal(n)
    assert np.allclose(cns._pinv_vec(sp, w, y), cns._pinv_vec(ref, w, y), atol=1e-12)
    assert np.allclose(cns._pinv_mat(sp, w, ys), cns._pinv_mat(ref, w, ys), atol=1e-12)
    assert np.allclose(cns._lsq_t(sp, w, g), cns._lsq_t(ref, w, g), atol=1e-12)
    x = cns._pinv_vec(sp, w, y)
    assert np.allclose(h @ x, y, atol=1e-12)
    assert np.allclose(x, np.linalg.pinv(h / w) @ y / w, atol=1e-12)


@pytest.mark.parametrize("cond", [1.0, 1e3, 1e8])
def test_singular_value_bounds_hold(cond):
    rng = np.random.default_rng(7)
    for m, n in [(4, 9), (12, 14), (30, 31)]:
        h = _matrix(rng, m, n, cond)
        b = h.copy()
        hh.qr_rows(b)
        inv, ok = hh.lower_inverse(b)
        assert ok
        upper, lower = hh.sigma_bounds(b, inv)
        s = np.linalg.svd(h, compute_uv=False)
        assert s[0] <= upper * (1 + 1e-12) and upper <= np.sqrt(m) * s[0] * (1 + 1e-12)
        assert lower <= s[-1] * (1 + 1e-6) and lower >= s[-1] / np.sqrt(m) * (1 - 1e-6)


def test_q_is_orthogonal_and_factors_the_matrix():
    rng = np.random.default_rng(3)
    h = rng.standard_normal((5, 8))
    b = h.copy()
    tau = hh.qr_rows(b)
    q = np.eye(8)
    for j in range(8):
        hh.apply_q(b, tau, q[:, j])
    assert np.allclose(q.T @ q, np.eye(8), atol=1e-14)
    lower = np.tril(b[:, :5])
    assert np.allclose(lower @ q[:, :5].T, h, atol=1e-13)
    x = rng.standard_normal(8)
    y = x.copy()
    hh.apply_qt(b, tau, y)
    assert np.allclose(y, q.T @ x, atol=1e-14)


def test_rank_questions_are_left_to_the_svd():
    rng = np.random.default_rng(11)
    w = np.ones(7)
    h = _matrix(rng, 4, 7)
    phi = np.zeros(4)
    assert cns.qr_spaces(h, phi, 4, 1e-5, -1, w)[0]
    redundant = np.vstack([h, h[:1] + h[1:2]])  # 5 rows of rank 4
    assert not cns.qr_spaces(redundant, np.zeros(5), 4, 0.0, -1, w)[0]
    assert not cns.qr_spaces(h, phi, 3, 1e-5, -1, w)[0]  # the rank at the start was 3
    assert not cns.qr_spaces(h, phi, 4, 0.0, 3, w)[0]  # the step keeps 3
    assert not cns.qr_spaces(_matrix(rng, 4, 7, 1e7), phi, 4, 1e-5, -1, w)[0]  # below floor
    assert not cns.qr_spaces(h, np.full(4, 0.1), 4, 0.0, -1, w)[0]  # far off the manifold
    assert not cns.qr_spaces(rng.standard_normal((8, 7)), np.zeros(8), 8, 0.0, -1, w)[0]
    assert not cns.qr_spaces(np.zeros((0, 7)), np.zeros(0), 0, 0.0, -1, w)[0]
