"""The LU and QR paths of the compiled null-space steps give what the SVD gives: the null
space of a full-rank ``Φ_q`` (as a subspace, orthonormal in the weights' metric), the
minimum-norm solutions, the multipliers' least squares, guaranteed bounds of the extreme
singular values; and they leave to the SVD every matrix whose rank rules they cannot
settle."""

from __future__ import annotations

import numpy as np
import pytest

from solver.compiled import householder as hh
from solver.compiled import null_space as cns
from solver.compiled import pivoted_lu as plu


def _matrix(rng, m, n, cond=1.0):
    """A random m × n matrix of full row rank with condition number ``cond``."""
    u, _ = np.linalg.qr(rng.standard_normal((m, m)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    s = np.geomspace(1.0, 1.0 / cond, m)
    return (u * s) @ v[:m]


def assert_same_null_space(h, null, pm, ref_null, ref_pm, w):
    """The columns of ``null`` span the null space of the full-rank ``h`` (n − m of them),
    orthonormal in the metric W², ``pm`` is their left inverse, and both give the
    reference's projector."""
    k = h.shape[1] - h.shape[0]
    assert np.allclose(h @ null, 0.0, atol=1e-12)
    assert np.allclose(null.T @ (w**2 * null.T).T, np.eye(k), atol=1e-12)
    assert np.allclose(pm @ null, np.eye(k), atol=1e-12)
    assert np.allclose(null @ pm, ref_null @ ref_pm, atol=1e-12)


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
    assert_same_null_space(h, null, pm, ref_null, ref_pm, w)
    # minimum-norm solutions (vector and columns) and the multipliers' least squares
    none = np.zeros((0, 0))
    sp = (cns.QR, b, tau, inv, none, np.zeros(0), none, cns._no_lu(), none)
    ref = (cns.SVD, b, tau, inv, u, s, v, cns._no_lu(), none)
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


def _sparse(rng, m, n, cond, density=0.3):
    """A random sparse m × n matrix of full row rank (a dominant diagonal) and condition
    about ``cond``; its entries as ``(rows, cols, values)`` with some positions split in
    two entries (the packed patterns repeat positions)."""
    h = _matrix(rng, m, n, cond)
    h[rng.random((m, n)) > density] = 0.0
    h += np.eye(m, n) * rng.uniform(1.0, 2.0, m)[:, None]
    r, c = np.nonzero(h)
    v = h[r, c]
    split = rng.random(len(v)) < 0.3
    r = np.concatenate([r, r[split]])
    c = np.concatenate([c, c[split]])
    v = np.concatenate([v - 0.25 * split * v, 0.25 * v[split]])
    return h, r.astype(np.int64), c.astype(np.int64), v


def _lu_spaces(r, c, v, m, n, *rest):
    """``lu_spaces`` of the entries ``(r, c, v)`` of an m × n matrix, on their patterns."""
    return cns.lu_spaces(r, c, v, plu.entry_patterns(r, c, m, n), m, n, *rest)


@pytest.mark.parametrize(("m", "n"), [(1, 1), (3, 7), (12, 14), (13, 14), (48, 49), (6, 6)])
def test_lu_spaces_match_the_svd(m, n):
    rng = np.random.default_rng(m * 10 + n)
    h, r, c, v = _sparse(rng, m, n, 5.0)
    w = rng.uniform(0.5, 2.0, n)
    phi = 1e-9 * rng.standard_normal(m)
    ok, null, pm, b, f, y = _lu_spaces(r, c, v, m, n, phi, m, 1e-5, -1, w)
    assert ok
    ref_null, ref_pm, u, s, vv, rank, here = cns.spaces(h, phi, m, 1e-5, -1, w)
    assert rank == here == m
    assert_same_null_space(h, null, pm, ref_null, ref_pm, w)
    none = np.zeros((0, 0))
    sp = (cns.LU, b, np.zeros(0), none, none, np.zeros(0), none, f, y)
    ref = (cns.SVD, b, np.zeros(0), none, u, s, vv, cns._no_lu(), none)
    ys = rng.standard_normal((m, 3))
    g = rng.standard_normal(n)
    x = cns._pinv_vec(sp, w, ys[:, 0].copy())
    assert np.allclose(x, cns._pinv_vec(ref, w, ys[:, 0].copy()), atol=1e-12)
    assert np.allclose(h @ x, ys[:, 0], atol=1e-12)
    assert np.allclose(cns._pinv_mat(sp, w, ys), cns._pinv_mat(ref, w, ys), atol=1e-12)
    assert np.allclose(cns._lsq_t(sp, w, g), cns._lsq_t(ref, w, g), atol=1e-12)


def _assert_same_factors(f, g):
    """Compressed LU factors ``(step, order, diag, lo_ptr, lo_idx, lo_val, up_ptr, up_idx,
    up_val)`` equal to the bit (the lists within their ranges: longer arrays hold more)."""
    for k in (0, 1, 2, 3, 6):
        assert np.array_equal(f[k], g[k])
    nl, nu = f[3][-1], f[6][-1]
    for k, end in ((4, nl), (5, nl), (7, nu), (8, nu)):
        assert np.array_equal(f[k][:end], g[k][:end])


def test_lu_spaces_on_kept_patterns_equal_those_on_fresh_ones():
    """The steps keep the rows' patterns over a run, the LU adding its fill: with values
    that change the pivots and the fill from call to call, and a call whose LU fails
    halfway (a row of zeros), every result equals the one on fresh patterns to the bit."""
    rng = np.random.default_rng(21)
    m, n = 30, 34
    _, r, c, v0 = _sparse(rng, m, n, 10.0, 0.15)
    w = rng.uniform(0.5, 2.0, n)
    kept = plu.entry_patterns(r, c, m, n)
    start = kept[1].copy()
    for call in range(6):
        v = v0 * rng.uniform(0.2, 5.0, len(r)) * rng.choice([-1.0, 1.0], len(r))
        if call == 2:
            v[r == 7] = 0.0  # no pivot in row 7: the LU stops there
        args = (m, n, 1e-9 * rng.standard_normal(m), m, 1e-5, -1, w)
        got = cns.lu_spaces(r, c, v, kept, *args)
        want = _lu_spaces(r, c, v, *args)
        assert got[0] == want[0] == (call != 2)
        for a, b in zip(got[1:4] + got[5:], want[1:4] + want[5:], strict=True):
            assert np.array_equal(a, b)
        _assert_same_factors(got[4], want[4])
    assert kept[1].sum() > start.sum()  # (the fill was kept)


def _factors(b):
    """``lu_columns`` of ``b`` in place on the patterns of its non-zeros, and its factors'
    lists: ``(ok, step, order, f)``."""
    r, c = np.nonzero(b)
    cols, cnt, seen = plu.entry_patterns(r, c, *b.shape)
    ok, step, order = plu.lu_columns(b, cols, cnt, seen)
    return ok, step, order, (step, order, *plu.lu_lists(b, step, cols, cnt))


@pytest.mark.parametrize("cond", [1.0, 1e3, 1e8])
def test_lu_singular_value_bound_holds(cond):
    rng = np.random.default_rng(5)
    for m, n in [(4, 9), (12, 14), (30, 31), (20, 20)]:
        for density in (0.2, 1.0):
            h, r, c, v = _sparse(rng, m, n, cond, density)
            b = h.copy()
            ok, step, order, f = _factors(b)
            assert ok
            assert sorted(order) == list(range(n))
            lower = plu.sigma_min_bound(f)
            assert 0.0 < lower <= np.linalg.svd(h, compute_uv=False)[-1] * (1 + 1e-9)


@pytest.mark.parametrize(("m", "n", "density"), [(12, 14, 0.3), (48, 49, 0.1), (20, 31, 1.0)])
def test_lu_on_patterns_is_the_lu_of_the_whole_rows(m, n, density):
    """On the rows' patterns (their entries, with exact zeros among them, and the fill) the
    factorisation takes the same pivots and does the same arithmetic as over whole rows:
    equal to the bit. Ties between equal magnitudes go to the first column, as in a scan."""
    rng = np.random.default_rng(m + n)
    h, r, c, v = _sparse(rng, m, n, 10.0, density)
    h[0, 1:4] = h[0, 0]  # a tie in the first pivot's search
    k = int(np.argmax(np.bincount(r, minlength=m)))  # the row with the most entries
    h[k, [j for j in c[r == k] if j != k][:2]] = 0.0  # exact zeros held by its entries
    r = np.concatenate([r, [0, 0, 0]])
    c = np.concatenate([c, [1, 2, 3]])
    whole = h.copy()
    every = np.repeat(np.arange(m), n), np.tile(np.arange(n), m)
    ok_w, step_w, order_w = plu.lu_columns(whole, *plu.entry_patterns(*every, m, n))
    b = h.copy()
    cols, cnt, seen = plu.entry_patterns(r, c, m, n)
    ok, step, order = plu.lu_columns(b, cols, cnt, seen)
    assert ok and ok_w
    assert np.array_equal(step, step_w) and np.array_equal(order, order_w)
    assert np.array_equal(b, whole)
    assert cnt.sum() < m * n or density == 1.0  # (the patterns are not the whole rows)
    diag, lo_ptr, lo_idx, lo_val, up_ptr, up_idx, up_val = plu.lu_lists(b, step, cols, cnt)
    whole_lists = plu.lu_lists(whole, step_w, *plu.entry_patterns(*every, m, n)[:2])
    assert np.array_equal(diag, whole_lists[0])
    assert np.array_equal(lo_ptr, whole_lists[1]) and np.array_equal(up_ptr, whole_lists[4])
    nl, nu = lo_ptr[-1], up_ptr[-1]
    assert np.array_equal(lo_idx[:nl], whole_lists[2][:nl])
    assert np.array_equal(lo_val[:nl], whole_lists[3][:nl])
    assert np.array_equal(up_idx[:nu], whole_lists[5][:nu])
    assert np.array_equal(up_val[:nu], whole_lists[6][:nu])


def test_lu_factors_the_matrix():
    rng = np.random.default_rng(9)
    h, r, c, v = _sparse(rng, 7, 11, 10.0)
    b = h.copy()
    ok, step, order, f = _factors(b)
    m, n = h.shape
    lower = np.zeros((n, m))
    upper = np.zeros((m, m))
    for k in range(m):
        for i in range(n):
            if step[i] > k:
                lower[i, k] = b[k, i]
            elif step[i] == k:
                lower[i, k] = 1.0
                upper[k, k] = b[k, i]
            else:
                upper[step[i], k] = b[k, i]
    assert np.abs(lower).max() <= 1.0  # partial pivoting
    assert np.allclose(lower @ upper, h.T, atol=1e-13)
    y = plu.null_basis(f, n)
    assert np.allclose(h @ y, 0.0, atol=1e-13)
    assert np.allclose(y.T @ y, np.eye(n - m), atol=1e-13)
    rhs = rng.standard_normal(m)
    x = plu.particular(f, rhs)
    assert np.allclose(h @ x, rhs, atol=1e-12)
    assert np.all(x[order[m:]] == 0.0)
    lam = rng.standard_normal(m)
    assert np.allclose(plu.pivot_solve_t(f, h.T @ lam), lam, atol=1e-12)


def test_lu_leaves_rank_questions_to_the_others():
    rng = np.random.default_rng(13)
    w = np.ones(7)
    h, r, c, v = _sparse(rng, 4, 7, 3.0)
    phi = np.zeros(4)
    assert _lu_spaces(r, c, v, 4, 7, phi, 4, 1e-5, -1, w)[0]
    red = np.vstack([h, h[:1] + h[1:2]])  # 5 rows of rank 4
    rr, cc = np.nonzero(red)
    args = (rr.astype(np.int64), cc.astype(np.int64), red[rr, cc], 5, 7, np.zeros(5))
    assert not _lu_spaces(*args, 4, 0.0, -1, w)[0]
    assert not _lu_spaces(r, c, v, 4, 7, phi, 3, 1e-5, -1, w)[0]  # rank 3 at the start
    assert not _lu_spaces(r, c, v, 4, 7, phi, 4, 0.0, 3, w)[0]  # the step keeps 3
    assert not _lu_spaces(r, c, v, 4, 7, np.full(4, 10.0), 4, 0.0, -1, w)[0]  # far off
    near = h.copy()
    near[3] = near[2] + 1e-9 * near[3]  # conditioned below the floor
    rr, cc = np.nonzero(near)
    args = (rr.astype(np.int64), cc.astype(np.int64), near[rr, cc], 4, 7, phi)
    assert not _lu_spaces(*args, 4, 1e-5, -1, w)[0]
    wide = rng.standard_normal((8, 7))
    rr, cc = np.nonzero(wide)
    args = (rr.astype(np.int64), cc.astype(np.int64), wide[rr, cc], 8, 7, np.zeros(8))
    assert not _lu_spaces(*args, 8, 0.0, -1, w)[0]
    none = np.zeros(0, np.int64)
    assert not _lu_spaces(none, none, np.zeros(0), 0, 7, np.zeros(0), 0, 0.0, -1, w)[0]


def test_the_iterations_distance_is_its_measure_and_keeps_a_nan():
    rng = np.random.default_rng(3)
    x, v, a, x1, v1, a1 = (rng.normal(size=5) for _ in range(6))
    h = 1e-3
    want = np.abs(x - x1).max() + h * np.abs(v - v1).max() + h * h * np.abs(a - a1).max()
    assert cns._distance(x, v, a, x1, v1, a1, h) == pytest.approx(want, rel=1e-15)
    for arr in (x1, v1, a1):  # a non-finite iterate is not converged
        arr[2] = np.nan
        assert np.isnan(cns._distance(x, v, a, x1, v1, a1, h))
        arr[2] = 0.0
