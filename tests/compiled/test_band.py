"""Band storage, band LU and band Cholesky of the compiled implicit steps (``solver.compiled.band``):
entries land where the dense matrix has them, ``Φ_qᵀ Φ_q`` is the dense Gram product, and
the LU with partial pivoting solves like LAPACK, on matrices whose band only shows after
the renumbering."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis.banded import BandLayout
from solver.analysis.compiled_steps import band_of_patterns
from solver.compiled import band
from solver.kernels.system import Patterns


def _entries(a, repeat=True):
    """Rows, columns and values of the non-zeros of ``a``; with ``repeat`` every diagonal
    entry is split in two (repeated positions add up)."""
    r, c = np.nonzero(a)
    v = a[r, c]
    if repeat:
        d = r == c
        r, c, v = np.r_[r, r[d]], np.r_[c, c[d]], np.r_[v, 0.25 * v[d]]
        v[: len(d)][d] *= 0.75
    return r.astype(np.int64), c.astype(np.int64), v


def _layout(mass, jac):
    """The band layout of an ``n × n`` ``mass`` and an ``m × n`` ``jac`` (no other terms),
    with their entries."""
    none = np.zeros(0, np.int64)
    mr, mc, mv = _entries(mass)
    jr, jc, jv = _entries(jac, repeat=False)
    pt = Patterns(jr, jc, none, none, none, none, mr, mc, none, none, none, none, none, none)
    lay = band_of_patterns(pt, mass.shape[0], jac.shape[0])
    return lay, pt, mv, jv


def _dense(lay, ab):
    return BandLayout(lay.perm, lay.b).dense(ab)


def _scrambled_band(rng, n, half, m=0):
    """A banded ``n × n`` matrix and an ``m × n`` Jacobian of rows over neighbouring
    columns, both with the coordinates shuffled (the band shows only after renumbering)."""
    a = rng.standard_normal((n, n))
    i, j = np.indices((n, n))
    a[np.abs(i - j) > half] = 0.0
    jac = np.zeros((m, n))
    for r in range(m):
        lo = rng.integers(0, max(1, n - half))
        jac[r, lo : lo + half + 1] = rng.standard_normal(min(half + 1, n - lo))
    p = rng.permutation(n)
    return a[np.ix_(p, p)], jac[:, p]


@pytest.mark.parametrize("n, half", [(1, 0), (6, 5), (40, 2), (150, 7)])
def test_lu_solves_like_lapack_in_the_renumbered_band(n, half):
    rng = np.random.default_rng(n)
    a, _ = _scrambled_band(rng, n, half)
    lay, pt, mv, jv = _layout(a, np.zeros((0, n)))
    assert lay.b <= max(2 * half, n - 1)  # the renumbering found a band
    ab = np.zeros(n * lay.ldab)
    band.add_entries(ab, lay.mass_s, mv, 1.0)
    assert np.allclose(_dense(lay, ab), a, rtol=1e-15, atol=0.0)
    piv, ok = band.lu_factor(ab, lay)
    assert ok
    for seed in range(2):  # the factors serve several right-hand sides, which stay intact
        b = np.random.default_rng(seed).standard_normal(n)
        keep = b.copy()
        x = band.lu_solve(ab, piv, lay, b)
        ref = np.linalg.solve(a, keep)
        assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()
        assert np.array_equal(b, keep)


@pytest.mark.parametrize("diagonal", [3.0, 0.0])
def test_lu_of_an_arrow_solves_like_lapack(diagonal):
    """A band with holes and four dense rows and columns (a pulley touching every element of
    a belt), numbered last by the layout (an arrow): the factorisation, which skips the
    zeros of each column of L and row of U, solves like LAPACK, with row interchanges too
    (a weak diagonal brings rows of the dense block up into the band)."""
    rng = np.random.default_rng(7)
    n, half, hubs = 60, 3, 4
    a = rng.standard_normal((n, n))
    i, j = np.indices((n, n))
    a[(np.abs(i - j) > half) & (i < n - hubs) & (j < n - hubs)] = 0.0
    a[rng.random((n, n)) < 0.2] = 0.0  # holes in the band and in the dense part
    a[np.arange(n), np.arange(n)] += diagonal
    p = rng.permutation(n)
    a = a[np.ix_(p, p)]
    lay, _, mv, _ = _layout(a, np.zeros((0, n)))
    assert set(lay.perm[-hubs:]) == set(np.argsort(p)[-hubs:])  # the dense ones last
    ab = np.zeros(n * lay.ldab)
    band.add_entries(ab, lay.mass_s, mv, 1.0)
    piv, ok = band.lu_factor(ab, lay)
    assert ok
    if diagonal == 0.0:
        assert np.any(piv[:n] != np.arange(n))  # rows were interchanged
    b = rng.standard_normal(n)
    ref = np.linalg.solve(a, b)
    x = band.lu_solve(ab, piv, lay, b)
    assert np.abs(x - ref).max() <= 1e-9 * np.abs(ref).max()


def test_lu_pivots_and_reports_singular_matrices():
    a = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 4.0]])  # a[0, 0] = 0
    lay, _, mv, _ = _layout(a, np.zeros((0, 3)))
    ab = np.zeros(3 * lay.ldab)
    band.add_entries(ab, lay.mass_s, mv, 1.0)
    piv, ok = band.lu_factor(ab, lay)
    assert ok
    assert np.allclose(band.lu_solve(ab, piv, lay, np.ones(3)), np.linalg.solve(a, np.ones(3)))
    singular = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    lay, _, mv, _ = _layout(singular, np.zeros((0, 3)))
    ab = np.zeros(3 * lay.ldab)
    band.add_entries(ab, lay.mass_s, mv, 1.0)
    assert not band.lu_factor(ab, lay)[1]


def test_gram_products_and_entry_products():
    rng = np.random.default_rng(11)
    n, m = 60, 35
    a, jac = _scrambled_band(rng, n, 4, m)
    jac[3] = jac[7]  # a repeated row
    lay, pt, mv, jv = _layout(a, jac)
    ab = np.zeros(n * lay.ldab)
    band.add_entries(ab, lay.mass_s, mv, 2.0)
    band.add_gram(ab, lay, jv, 3.5, False)
    ref = 2.0 * a + 3.5 * jac.T @ jac
    assert np.abs(_dense(lay, ab) - ref).max() <= 1e-13 * np.abs(ref).max()
    x, y = rng.standard_normal(n), rng.standard_normal(m)
    got = band.entries_mat_vec(pt.mass_r, pt.mass_c, mv, x, n)
    assert np.allclose(got, a @ x, rtol=1e-13, atol=1e-13)
    assert np.allclose(band.entries_mat_vec(pt.phi_r, pt.phi_c, jv, x, m), jac @ x, atol=1e-13)
    got = band.entries_mat_t_vec(pt.phi_r, pt.phi_c, jv, y, n)
    assert np.allclose(got, jac.T @ y, atol=1e-13)


@pytest.mark.parametrize("n, half", [(1, 0), (9, 8), (120, 6)])
def test_cholesky_solves_symmetric_positive_definite_bands(n, half):
    rng = np.random.default_rng(100 + n)
    a, _ = _scrambled_band(rng, n, half)
    spd = a @ a.T + n * np.eye(n)  # the band of a aᵀ is twice a's: still narrow
    spd[np.abs(spd) < 1e-300] = 0.0
    lay, pt, mv, _ = _layout(spd, np.zeros((0, n)))
    ab = np.zeros(n * lay.ldab)
    band.add_entries(ab, lay.mass_s, mv, 1.0)
    last, ok = band.cholesky_factor(ab, lay)
    assert ok
    b = rng.standard_normal(n)
    out = np.empty(n)
    band.cholesky_solve_into(ab, last, lay.perm, lay.b, b, np.empty(n), out)
    ref = np.linalg.solve(spd, b)
    assert np.abs(out - ref).max() <= 1e-10 * np.abs(ref).max()
    indefinite = spd - 2.0 * np.abs(np.linalg.eigvalsh(spd)).max() * np.eye(n)
    lay, _, mv, _ = _layout(indefinite, np.zeros((0, n)))
    ab = np.zeros(n * lay.ldab)
    band.add_entries(ab, lay.mass_s, mv, 1.0)
    assert not band.cholesky_factor(ab, lay)[1]


@pytest.mark.parametrize("n, half, sparse", [(1, 0, False), (30, 4, True), (120, 6, False)])
def test_a_band_reused_after_its_factors_are_cleared(n, half, sparse):
    """The augmented Lagrangian's steps assemble each matrix into the band of the one
    before: ``clear_lu`` and ``clear_cholesky`` leave the whole band zero (every stored
    entry outside the factors' ranges is zero), and the next factors are those of a band
    assembled into new zeros, to the last bit."""
    rng = np.random.default_rng(7 * n + half)
    a0, jac0 = _scrambled_band(rng, n, half, n // 2)
    lay, pt, _, _ = _layout(a0 + np.eye(n), jac0)  # the pattern of the three matrices
    mats = []
    for _ in range(3):
        a = np.where(a0 != 0.0, rng.standard_normal((n, n)), 0.0) + 4.0 * np.eye(n)
        jac = np.where(jac0 != 0.0, rng.standard_normal(jac0.shape), 0.0)
        if sparse:  # zeros inside the band: skipped columns and rows of the factors
            a[rng.random(a.shape) < 0.5] = 0.0
            a += 4.0 * np.eye(n)
        mats.append((a, jac))
    ab, piv, lower, last = band.no_factors(n, lay.b)
    for a, jac in mats:
        mv = a[pt.mass_r, pt.mass_c] * np.where(pt.mass_r == pt.mass_c, 0.5, 1.0)
        jv = jac[pt.phi_r, pt.phi_c]
        band.clear_lu(ab, piv, n, lay.b)
        assert not ab.any()
        band.add_entries(ab, lay.mass_s, mv, 1.0)
        fresh = ab.copy()
        assert band.lu_factor_band_into(ab, n, lay.b, piv)
        ref_piv, ok = band.lu_factor(fresh, lay)
        assert ok and np.array_equal(ab, fresh) and np.array_equal(piv[: 3 * n], ref_piv[: 3 * n])
        spd_v = np.abs(mv) + np.where(pt.mass_r == pt.mass_c, 2.0 * n, 0.0)
        band.clear_cholesky(lower, last, n, lay.b)
        assert not lower.any()
        band.add_lower_entries(lower, lay.mass_s, spd_v, 1.0, lay.b)
        band.add_gram(lower, lay, jv, 2.5, True)
        full = np.zeros_like(lower)
        band.add_entries(full, lay.mass_s, spd_v, 1.0)
        band.add_gram(full, lay, jv, 2.5, False)
        below = np.arange(len(full)) % lay.ldab >= 2 * lay.b  # on and below the diagonal
        assert np.array_equal(lower[below], full[below])
        assert not lower[~below].any()  # the upper band is not written
        assert band.cholesky_factor_into(lower, n, lay.b, last)
        ref_last, ok = band.cholesky_factor(full, lay)
        assert ok and np.array_equal(last[:n], ref_last[:n])
        assert np.array_equal(lower[below], full[below])
