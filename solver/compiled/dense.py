"""Small dense linear algebra for the compiled steps, as loops (no BLAS or LAPACK call
overhead for the matrices of small models): an LU with partial pivoting whose factors
serve several right-hand sides (working within the bandwidth of banded matrices); the
products are :mod:`solver.kernels.small`'s."""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel


@kernel(full_optimisation=True)
def lu_factor(a):
    """LU of the square ``a`` with partial pivoting, in place: ``(piv, ok)``.

    Banded storage order of LAPACK's ``gbtrf`` within the dense array: with ``kl`` and
    ``ku`` the lower and upper bandwidths of ``a``, the pivot of step k is searched in rows
    ``k … k + kl`` only (rows below are zero in column k, row swaps staying in the band) and
    the upper factor has bandwidth ``ku + kl``; dense matrices simply have ``kl = ku = n − 1``.
    Rows are swapped from column k on, so column k below the diagonal keeps step k's
    multipliers (the solve applies swaps and eliminations in turn). ``piv[k]`` (k < n) is
    the row swapped with row k at step k, ``piv[n] = kl``, ``piv[n + 1] = min(ku + kl,
    n − 1)``. ``ok`` is false for a singular matrix (an exactly zero pivot column: LAPACK's
    ``info > 0``)."""
    n = a.shape[0]
    piv = np.empty(n + 2, np.int64)
    bounds = row_bounds(a)
    kl = 0
    ku = 0
    for i in range(n):
        if bounds[1, i] >= bounds[0, i]:
            kl = max(kl, i - bounds[0, i])
            ku = max(ku, bounds[1, i] - i)
    kul = min(n - 1, ku + kl)
    piv[n] = kl
    piv[n + 1] = kul
    for k in range(n):
        end = min(n, k + kl + 1)
        jend = min(n, k + kul + 1)
        p = k
        big = abs(a[k, k])
        for i in range(k + 1, end):
            v = abs(a[i, k])
            if v > big:
                big = v
                p = i
        piv[k] = p
        if not big > 0.0:  # zero (or NaN) pivot column: singular
            return piv, False
        if p != k:
            for j in range(k, jend):
                tmp = a[k, j]
                a[k, j] = a[p, j]
                a[p, j] = tmp
        inv = 1.0 / a[k, k]
        for i in range(k + 1, end):
            lik = a[i, k]
            if lik != 0.0:
                lik *= inv
                a[i, k] = lik
                for j in range(k + 1, jend):
                    a[i, j] -= lik * a[k, j]
    return piv, True


@kernel(full_optimisation=True)
def lu_solve(lu, piv, b):
    """``x`` with ``A x = b`` from :func:`lu_factor`'s ``(lu, piv)`` (``b`` is not changed)."""
    n = lu.shape[0]
    kl = piv[n]
    kul = piv[n + 1]
    x = b.copy()
    for k in range(n):
        p = piv[k]
        if p != k:
            tmp = x[k]
            x[k] = x[p]
            x[p] = tmp
        xk = x[k]
        if xk != 0.0:
            for i in range(k + 1, min(n, k + kl + 1)):
                x[i] -= lu[i, k] * xk
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, min(n, i + kul + 1)):
            s -= lu[i, j] * x[j]
        x[i] = s / lu[i, i]
    return x


@kernel(full_optimisation=True)
def row_bounds(a):
    """``(2, m)``: the first and last non-zero column of each row of ``a`` (an empty range,
    ``n`` and ``−1``, for a zero row): what :func:`band_mat_vec` and :func:`band_mat_t_vec`
    loop over."""
    m, n = a.shape
    out = np.empty((2, m), np.int64)
    for i in range(m):
        lo = n
        hi = -1
        for j in range(n):  # branch-free min/max reductions (vectorised)
            nz = a[i, j] != 0.0
            lo = min(lo, j if nz else n)
            hi = max(hi, j if nz else -1)
        out[0, i] = lo
        out[1, i] = hi
    return out


@kernel
def min_norm_lstsq(a, b, rcond):
    """The minimum-norm least-squares ``x`` of ``a x = b`` by the SVD of ``a`` (m × n):
    singular values at or below ``rcond σ_max`` count as zero, as in LAPACK's ``gelsd``.
    (NumPy's ``lstsq`` compiled would load Numba's array-math module with the kernel, and
    SciPy's linear algebra with it, for its residuals, which no caller reads.) Raises
    ``LinAlgError`` for a non-finite ``a`` or ``b``, as NumPy's does compiled."""
    m, n = a.shape
    for i in range(m):
        if not np.isfinite(b[i]):
            raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
    x = np.zeros(n)
    if m == 0 or n == 0:
        return x
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    cut = rcond * s[0]
    for k in range(s.shape[0]):
        if s[k] > cut:
            c = 0.0
            for i in range(m):
                c += u[i, k] * b[i]
            c /= s[k]
            for j in range(n):
                x[j] += vt[k, j] * c
    return x
