"""Linear algebra shared by the analyses: minimum-norm and saddle-point solves that
tolerate redundant (linearly dependent) constraint rows, dense or sparse."""

from __future__ import annotations

import functools
import sys
import time

import numpy as np

from solver.compiled.dense import lu_factor, lu_solve
from solver.compiled.householder import left_null_space
from solver.lazy_scipy import issparse, lapack
from solver.lazy_scipy import linalg as sla
from solver.lazy_scipy import sparse as sp
from solver.lazy_scipy import sparse_linalg as spla

#: the largest order of a dense matrix that :class:`DenseLU` factorises with the compiled
#: steps' own LU rather than LAPACK's: up to it, about as fast (at most twice LAPACK's time
#: near it, as fast below 30), and no SciPy to import for the small matrices of a run's
#: start (a tenth of a second of a short run)
SMALL_LU = 64
#: seconds of compiled LU factorisations above ``SMALL_LU`` a process may spend before
#: :class:`DenseLU` imports SciPy for LAPACK's, while nothing else has imported it: the few
#: solves of a run's start (2 ms at order 192, 13 ms at 400 on a 2-core machine, against
#: 0.7 and 2.5 ms with LAPACK) cost less than the import (0.1–0.25 s), a run of many such
#: solves gets LAPACK's speed after at most this much time
LAZY_LU_BUDGET = 0.1
#: the same for the dense SVDs of :func:`full_svd`: NumPy's ``svd`` (its wrapper costs more
#: than LAPACK's ``gesdd`` called directly on a small Jacobian) while nothing has imported
#: SciPy, within this many seconds of them (a central-difference run's start: one SVD)
LAZY_SVD_BUDGET = 0.1
_lazy_spent = {"lu": 0.0, "svd": 0.0}  # the time spent so far without SciPy (s)


def _without_scipy(what: str, budget: float) -> bool:
    """Whether ``what`` (a key of ``_lazy_spent``) is still done without SciPy."""
    return "scipy.linalg" not in sys.modules and _lazy_spent[what] < budget


def _compiled_lu(order: int) -> bool:
    """Whether :class:`DenseLU` factorises a matrix of this order with the compiled LU."""
    return order <= SMALL_LU or _without_scipy("lu", LAZY_LU_BUDGET)


@functools.cache
def _lapack_lu():
    """LAPACK's ``(getrf, getrs)`` for float64."""
    return sla.get_lapack_funcs(("getrf", "getrs"), (np.zeros(1),))


class DenseLU:
    """LU with partial pivoting of a dense square matrix: ``solve(b)`` for a vector or the
    columns of a matrix. Up to order ``SMALL_LU`` the compiled steps' own
    (``solver.compiled.dense``), above it LAPACK's ``getrf``/``getrs`` (or the compiled one
    while SciPy is not imported, within ``LAZY_LU_BUDGET``). ``ok`` is false
    for a singular matrix (an exactly zero pivot: LAPACK's ``info > 0``); ``diagonal``
    holds ``|U_ii|``."""

    def __init__(self, a) -> None:
        a = np.asarray(a, dtype=np.float64)
        if _compiled_lu(a.shape[0]):
            start = time.perf_counter()
            self._lu = np.array(a, order="C")  # factorised in place
            self._piv, ok = lu_factor(self._lu)
            self._getrs = None
            if a.shape[0] > SMALL_LU:
                _lazy_spent["lu"] += time.perf_counter() - start
        else:
            getrf, self._getrs = _lapack_lu()
            self._lu, self._piv, info = getrf(a, overwrite_a=False)
            ok = info == 0
        self.ok = bool(ok)
        self.diagonal = np.abs(np.diag(self._lu))

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self._getrs is not None:
            x, info = self._getrs(self._lu, self._piv, b)
            if info != 0:
                raise np.linalg.LinAlgError("bad argument to getrs")
            return x
        b = np.asarray(b, dtype=np.float64)
        if b.ndim == 1:
            return lu_solve(self._lu, self._piv, np.ascontiguousarray(b))
        x = np.empty(b.shape)
        for j in range(b.shape[1]):
            x[:, j] = lu_solve(self._lu, self._piv, np.ascontiguousarray(b[:, j]))
        return x


def dense(a) -> np.ndarray:
    return a.toarray() if issparse(a) else np.asarray(a)


def min_norm_solve(a, b: np.ndarray, reg: float = 1e-12) -> np.ndarray:
    """The minimum-norm least-squares ``x`` of ``a x = b``.

    Dense: LAPACK ``gelsd`` through NumPy (SVD based; rank-deficient rows are fine). Sparse: the
    regularised normal form ``x = aᵀ (a aᵀ + ε I)⁻¹ b`` with a sparse LU.
    """
    if issparse(a):
        a = sp.csr_matrix(a)
        aat = (a @ a.T).tocsc()
        eps = reg * max(1.0, float(abs(aat).max()))
        lu = spla.splu(aat + eps * sp.identity(aat.shape[0], format="csc"))
        return a.T @ lu.solve(b)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):  # as SciPy's lstsq checks
        raise ValueError("array must not contain infs or NaNs")
    x, *_ = np.linalg.lstsq(a, b, rcond=1e-12)
    return x


class SaddleHint:
    """What the last of a series of saddle-point solves found (the outputs of a run, one
    state after another): ``redundant``, its constraint rows dependent, so that the next
    dense solve starts with the form for dependent rows instead of an LU that would fail."""

    __slots__ = ("redundant",)

    def __init__(self) -> None:
        self.redundant = False


def saddle_solve(m, a, f: np.ndarray, g: np.ndarray, mu: float = 0.0, hint=None):
    """Solve ``[[M, aᵀ], [a, −μ I]] [x; λ] = [f; g]`` for ``x`` and a ``λ`` (μ = 0: the
    saddle-point system itself); ``hint``: a :class:`SaddleHint` the solve reads and
    updates.

    With redundant rows in ``a`` the matrix is singular; ``x`` is still unique when the
    constraints are consistent, and λ is the minimum-norm one (that of the least-squares
    solve).
    μ > 0 (units 1/mass) is Tikhonov regularisation: a constraint direction whose singular
    value σ in the mass metric is well above √μ is enforced to a relative ``μ/σ²``, one
    near a singular position (σ → 0) only in proportion to σ²/μ, so ``x`` stays bounded
    where the exact solve would divide by σ.
    """
    n, k = len(f), len(g)
    if issparse(m) or issparse(a):
        corner = -mu * sp.identity(k, format="csr") if mu > 0.0 else None
        kkt = sp.bmat(
            [[sp.csr_matrix(m), sp.csr_matrix(a).T], [sp.csr_matrix(a), corner]], format="csc"
        )
        rhs = np.concatenate([f, g])
        try:
            sol = spla.spsolve(kkt, rhs)
            if np.all(np.isfinite(sol)):
                return sol[:n], sol[n:]
        except RuntimeError:
            pass
        sol = spla.lsqr(kkt, rhs, atol=1e-14, btol=1e-14, iter_lim=20 * (n + k))[0]
        return sol[:n], sol[n:]
    kkt = np.zeros((n + k, n + k))
    kkt[:n, :n] = m
    kkt[:n, n:] = np.asarray(a).T
    kkt[n:, :n] = a
    if mu > 0.0:
        kkt[range(n, n + k), range(n, n + k)] = -mu
    rhs = np.concatenate([f, g])
    sol = None
    tried = hint is not None and hint.redundant and mu == 0.0
    if tried:  # dependent rows last time: the LU of the matrix would fail again
        sol = _redundant_saddle(kkt, np.asarray(a), rhs, n)
    redundant = sol is not None
    if sol is None:
        sol = _lu_solve(kkt, rhs)
    if sol is None and mu == 0.0 and not tried:
        sol = _redundant_saddle(kkt, np.asarray(a), rhs, n)
        redundant = sol is not None
    if hint is not None:
        hint.redundant = redundant
    if sol is None:
        sol, *_ = sla.lstsq(kkt, rhs, lapack_driver="gelsd", cond=1e-13)
    return sol[:n], sol[n:]


def _lu_solve(a: np.ndarray, b: np.ndarray, rcond: float = 1e-13):
    """``a x = b`` by LU, or ``None`` when the pivots show ``a`` (numerically) singular
    (redundant constraints, a singular position): ``|U_ii|`` below ``rcond`` times the
    largest."""
    lu = DenseLU(a)
    d = lu.diagonal
    if lu.ok and d.min() > rcond * d.max():
        return lu.solve(b)
    return None


def _redundant_saddle(kkt: np.ndarray, a: np.ndarray, rhs: np.ndarray, n: int):
    """The saddle-point solve when ``a`` has dependent rows, or ``None`` when it has not.

    With ``U₀`` an orthonormal basis of the null space of ``aᵀ`` (the pivoted QR of ``a``,
    ``solver.compiled.householder.left_null_space``; its rank tolerance that of
    :func:`rank_and_left_null_space`), the matrix ``[[M, aᵀ], [a, −U₀U₀ᵀ]]`` is regular
    wherever the saddle-point matrix is regular but for those rows, and its solution has
    ``U₀ᵀλ = −U₀ᵀg`` (0 for consistent constraints): the same ``x`` and the minimum-norm
    λ, those of the least-squares solve of the singular matrix, at the cost of a QR of
    ``a`` and an LU instead of an SVD of the whole matrix.
    """
    if a.size == 0:
        return None
    ratio = max(a.shape) * np.finfo(float).eps * 1e3  # (_rank_tolerance's, relative)
    u0 = left_null_space(np.ascontiguousarray(a, dtype=np.float64), ratio)
    if u0.shape[1] == 0:
        return None
    kkt = kkt.copy()
    kkt[n:, n:] -= u0 @ u0.T
    return _lu_solve(kkt, rhs)


def _rank_tolerance(shape, s: np.ndarray) -> float:
    return max(shape) * np.finfo(float).eps * (s[0] if len(s) else 0.0) * 1e3


def rank_and_left_null_space(a, dependent: bool = False):
    """``(rank, singular values, left null space U₀)`` of ``a``: the singular values alone
    first (several times cheaper than the full SVD of a wide matrix), the singular vectors
    only when ``a`` has dependent rows (at once when the caller expects them:
    ``dependent``), and never the right null space."""
    a = dense(a)
    if a.size == 0:
        return 0, np.zeros(0), np.eye(a.shape[0])
    if not dependent:
        s = np.linalg.svd(a, compute_uv=False)
        rank = int(np.sum(s > _rank_tolerance(a.shape, s)))
        if rank == a.shape[0]:
            return rank, s, np.zeros((a.shape[0], 0))
    u, s, _ = np.linalg.svd(a, full_matrices=a.shape[0] > a.shape[1])
    rank = int(np.sum(s > _rank_tolerance(a.shape, s)))
    return rank, s, u[:, rank:]


def rank_and_null_spaces(a, tol: float | None = None):
    """``(rank, singular values, left null space U₀, right null space V₀)`` of ``a`` (SVD)."""
    a = dense(a)
    if a.size == 0:
        return 0, np.zeros(0), np.eye(a.shape[0]), np.eye(a.shape[1])
    u, s, vt = np.linalg.svd(a)
    if tol is None:
        tol = _rank_tolerance(a.shape, s)
    rank = int(np.sum(s > tol))
    return rank, s, u[:, rank:], vt[rank:].T


def full_svd(a: np.ndarray):
    """``(U, σ, Vᵀ)`` of a dense matrix, all singular vectors: LAPACK ``gesdd`` called
    directly (NumPy's wrapper costs more than the SVD of a small Jacobian); NumPy's
    ``svd`` when it reports a failure (it raises ``LinAlgError``), and while SciPy is not
    imported, within ``LAZY_SVD_BUDGET``."""
    if _without_scipy("svd", LAZY_SVD_BUDGET):
        start = time.perf_counter()
        try:
            return np.linalg.svd(a, full_matrices=True)
        finally:
            _lazy_spent["svd"] += time.perf_counter() - start
    u, sv, vt, info = lapack.dgesdd(a, compute_uv=1, full_matrices=1)
    if info != 0:
        return np.linalg.svd(a, full_matrices=True)
    return u, sv, vt
