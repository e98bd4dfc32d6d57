"""Rank and left null space (solver.analysis.linalg), as used by the mobility analysis."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest

from solver.analysis import linalg
from solver.analysis.linalg import (
    LAZY_LU_BUDGET,
    LAZY_SVD_BUDGET,
    SMALL_LU,
    DenseLU,
    SaddleHint,
    rank_and_left_null_space,
    rank_and_null_spaces,
    saddle_solve,
)
from solver.compiled.householder import left_null_space

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("shape", [(6, 20), (20, 6), (12, 12)])
@pytest.mark.parametrize("dependent", [0, 1, 3])
@pytest.mark.parametrize("expected", [False, True])  # the caller expects dependent rows
def test_left_null_space_matches_the_full_svd(shape, dependent, expected):
    m, n = shape
    a = RNG.standard_normal((m, n))
    for k in range(dependent):  # rows that repeat combinations of others
        a[m - 1 - k] = RNG.standard_normal(m - dependent) @ a[: m - dependent]
    rank, s, left = rank_and_left_null_space(a, dependent=expected)
    rank_full, s_full, left_full, _ = rank_and_null_spaces(a)
    assert rank == rank_full == min(m - dependent, n)
    np.testing.assert_allclose(s, s_full, rtol=1e-10, atol=1e-12)
    assert left.shape == left_full.shape == (m, m - rank)
    if left.shape[1]:
        assert np.abs(left.T @ a).max() < 1e-10  # a left null space
        np.testing.assert_allclose(left.T @ left, np.eye(m - rank), atol=1e-10)
        # the same subspace as the full SVD's
        np.testing.assert_allclose(left @ left.T, left_full @ left_full.T, atol=1e-10)


@pytest.mark.parametrize("shape", [(22, 43), (20, 6), (12, 12), (3, 8)])
@pytest.mark.parametrize("dependent", [0, 1, 4])
def test_pivoted_qr_left_null_space_spans_the_svds(shape, dependent):
    m, n = shape
    dependent = min(dependent, m - 1)
    a = RNG.standard_normal((m, n)) * np.logspace(0, 3, n)  # columns of unequal norms
    for k in range(dependent):
        a[m - 1 - k] = RNG.standard_normal(m - dependent) @ a[: m - dependent]
    rank, _, ref, _ = rank_and_null_spaces(a)
    left = left_null_space(a, max(a.shape) * np.finfo(float).eps * 1e3)
    assert left.shape == ref.shape == (m, m - rank)
    if left.shape[1]:
        np.testing.assert_allclose(left.T @ left, np.eye(m - rank), atol=1e-12)
        np.testing.assert_allclose(left @ left.T, ref @ ref.T, atol=1e-10)
    assert left_null_space(np.zeros((3, 5)), 1e-11).shape == (3, 3)


def test_empty_matrix():
    rank, s, left = rank_and_left_null_space(np.zeros((0, 4)))
    assert rank == 0 and len(s) == 0 and left.shape == (0, 0)


def _redundant_saddle(n, k, dependent, spd=True):
    """A mass matrix, constraint rows with ``dependent`` repeated combinations, and a
    consistent right-hand side."""
    b = RNG.standard_normal((n, n))
    m = b @ b.T + n * np.eye(n) if spd else np.diag(np.r_[np.ones(n - 1), 0.0])
    a = RNG.standard_normal((k, n))
    for j in range(dependent):
        a[k - 1 - j] = RNG.standard_normal(k - dependent) @ a[: k - dependent]
    g = a @ RNG.standard_normal(n)  # consistent: in the range of a
    return m, a, RNG.standard_normal(n), g


@pytest.mark.parametrize("dependent", [1, 4])
def test_saddle_solve_with_redundant_rows_gives_the_minimum_norm_multipliers(dependent):
    n, k = 14, 9
    m, a, f, g = _redundant_saddle(n, k, dependent)
    x, lam = saddle_solve(m, a, f, g)
    # the reference: the least-squares (SVD) solve of the whole singular matrix
    kkt = np.block([[m, a.T], [a, np.zeros((k, k))]])
    ref = np.linalg.lstsq(kkt, np.r_[f, g], rcond=1e-13)[0]
    scale = np.abs(ref).max()
    np.testing.assert_allclose(x, ref[:n], atol=1e-9 * scale)
    np.testing.assert_allclose(lam, ref[n:], atol=1e-9 * scale)
    np.testing.assert_allclose(m @ x + a.T @ lam, f, atol=1e-9 * scale)
    np.testing.assert_allclose(a @ x, g, atol=1e-9 * scale)
    _, _, left = rank_and_left_null_space(a)
    assert left.shape[1] == dependent
    assert np.abs(left.T @ lam).max() < 1e-9 * scale  # no share along aᵀ's null space


def test_a_hint_of_dependent_rows_gives_the_same_solves_and_follows_the_rank():
    n, k = 14, 9
    hint = SaddleHint()
    for dependent in (2, 2, 0, 3, 0):  # redundant, again, regular, redundant, regular
        m, a, f, g = _redundant_saddle(n, k, dependent)
        x, lam = saddle_solve(m, a, f, g, hint=hint)
        assert hint.redundant == (dependent > 0)
        ref_x, ref_lam = saddle_solve(m, a, f, g)
        scale = max(np.abs(ref_x).max(), np.abs(ref_lam).max())
        np.testing.assert_allclose(x, ref_x, atol=1e-12 * scale)
        np.testing.assert_allclose(lam, ref_lam, atol=1e-12 * scale)


def test_saddle_solve_with_a_singular_mass_matrix_and_redundant_rows():
    # M not positive definite: the least-squares solve of the whole matrix
    n, k = 6, 4
    m, a, f, g = _redundant_saddle(n, k, 1, spd=False)
    a[0, n - 1] = 1.0  # the massless coordinate is constrained
    a[k - 1] = 2.0 * a[0]
    g = a @ RNG.standard_normal(n)
    x, lam = saddle_solve(m, a, f, g)
    kkt = np.block([[m, a.T], [a, np.zeros((k, k))]])
    ref = np.linalg.lstsq(kkt, np.r_[f, g], rcond=1e-13)[0]
    np.testing.assert_allclose(np.r_[x, lam], ref, atol=1e-9 * np.abs(ref).max())


@pytest.mark.parametrize("n", [1, 7, SMALL_LU, SMALL_LU + 9])
def test_dense_lu_solves_like_numpy_on_both_sides_of_its_switch(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)) + np.diag(rng.uniform(0.1, 1.0, n))
    b = rng.standard_normal(n)
    bs = rng.standard_normal((n, 3))
    lu = DenseLU(a)
    assert lu.ok
    assert np.allclose(lu.solve(b), np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)
    assert np.allclose(lu.solve(bs), np.linalg.solve(a, bs), rtol=1e-9, atol=1e-12)
    # |det A| is the product of the pivots
    assert np.isclose(np.sum(np.log(lu.diagonal)), np.linalg.slogdet(a)[1], rtol=1e-9)


@pytest.mark.parametrize("n", [5, SMALL_LU + 3])
def test_dense_lu_of_a_singular_matrix_is_not_ok(n):
    a = np.random.default_rng(0).standard_normal((n, n))
    a[:, 2] = 0.0
    assert not DenseLU(a).ok


def test_dense_lu_spares_the_import_of_scipy_for_a_few_larger_matrices(monkeypatch):
    """Above ``SMALL_LU`` the compiled LU serves while SciPy's linear algebra is not
    imported, until its factorisations have taken ``LAZY_LU_BUDGET``; then LAPACK's. Both
    solve like NumPy."""
    linalg._lapack_lu()  # (LAPACK's functions at hand: nothing is imported below)
    monkeypatch.delitem(sys.modules, "scipy.linalg")
    monkeypatch.setitem(linalg._lazy_spent, "lu", 0.0)
    rng = np.random.default_rng(3)
    n = SMALL_LU + 40
    a = rng.standard_normal((n, n)) + n * np.eye(n)
    b = rng.standard_normal(n)
    first = DenseLU(a)
    assert first._getrs is None and 0.0 < linalg._lazy_spent["lu"] < LAZY_LU_BUDGET
    assert np.allclose(first.solve(b), np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)
    linalg._lazy_spent["lu"] = LAZY_LU_BUDGET  # the budget spent: LAPACK's from now on
    later = DenseLU(a)
    assert later._getrs is not None
    assert np.allclose(later.solve(b), np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)
    monkeypatch.undo()
    assert "scipy.linalg" in sys.modules
    assert DenseLU(a)._getrs is not None  # SciPy imported: LAPACK's at once


def test_full_svd_spares_the_import_of_scipy_within_its_budget(monkeypatch):
    """``full_svd`` is NumPy's SVD while SciPy's linear algebra is not imported, until it
    has taken ``LAZY_SVD_BUDGET``; then LAPACK's ``gesdd`` called directly. Both give a
    full factorisation of the matrix (a rank-deficient one here)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 9))
    a[4] = a[0] + 2.0 * a[1]  # rank 5: a null space of dimension 4
    calls = []
    lapack_svd = linalg.lapack.dgesdd  # (at hand: nothing is imported below)
    monkeypatch.setattr(
        linalg,
        "lapack",
        SimpleNamespace(dgesdd=lambda *x, **k: calls.append(1) or lapack_svd(*x, **k)),
    )
    scipy_linalg = sys.modules["scipy.linalg"]
    monkeypatch.delitem(sys.modules, "scipy.linalg")
    monkeypatch.setitem(linalg._lazy_spent, "svd", 0.0)

    def check(svd):
        u, s, vt = svd
        assert u.shape == (6, 6) and vt.shape == (9, 9) and s.shape == (6,)
        assert np.allclose((u[:, :6] * s) @ vt[:6], a, atol=1e-12)
        assert np.allclose(vt @ vt.T, np.eye(9), atol=1e-12)
        assert s[5] < 1e-12 * s[0] < s[4]

    check(linalg.full_svd(a))
    assert not calls and 0.0 < linalg._lazy_spent["svd"] < LAZY_SVD_BUDGET
    linalg._lazy_spent["svd"] = LAZY_SVD_BUDGET  # the budget spent: LAPACK's from now on
    check(linalg.full_svd(a))
    assert calls == [1]
    linalg._lazy_spent["svd"] = 0.0
    sys.modules["scipy.linalg"] = scipy_linalg  # SciPy imported: LAPACK's at once
    check(linalg.full_svd(a))
    assert calls == [1, 1]
