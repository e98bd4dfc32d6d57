"""Products of small dense matrices and vectors, as loops.

Numba computes ``A @ B`` with a BLAS call (checks, a workspace, the call): for the 3×3 and
3×4 blocks of rigid bodies and the matrices of small models that costs more than the
arithmetic. These loops skip zero entries of the left factor where that is cheap to test;
:func:`mat_mat` and :func:`mat_t_mat` hand large products (more than ``BLAS_WORK``
multiply–adds) to BLAS.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel

#: multiply–adds above which a matrix product goes to BLAS
BLAS_WORK = 40000


@kernel(full_optimisation=True)
def mat_vec(a, x):
    """``A x`` (dense; four partial sums per row, so that the loop is not bound by the
    latency of one chain of additions; no BLAS call overhead for small systems)."""
    m, n = a.shape
    out = np.zeros(m)
    n4 = n - n % 4
    for i in range(m):
        s0 = s1 = s2 = s3 = 0.0
        for j in range(0, n4, 4):
            s0 += a[i, j] * x[j]
            s1 += a[i, j + 1] * x[j + 1]
            s2 += a[i, j + 2] * x[j + 2]
            s3 += a[i, j + 3] * x[j + 3]
        for j in range(n4, n):
            s0 += a[i, j] * x[j]
        out[i] = (s0 + s1) + (s2 + s3)
    return out


@kernel(full_optimisation=True)
def mat_t_vec(a, y):
    """``Aᵀ y``, skipping the zero entries of ``y``."""
    m, n = a.shape
    out = np.zeros(n)
    for i in range(m):
        yi = y[i]
        if yi != 0.0:
            for j in range(n):
                out[j] += a[i, j] * yi
    return out


@kernel(full_optimisation=True)
def dot(x, y):
    """``x · y`` of two vectors of equal length."""
    out = 0.0
    for i in range(x.shape[0]):
        out += x[i] * y[i]
    return out


@kernel(full_optimisation=True)
def mat_mat(a, b):
    """``A B``."""
    m, k = a.shape
    n = b.shape[1]
    if m * k * n > BLAS_WORK:
        return np.ascontiguousarray(a) @ np.ascontiguousarray(b)
    out = np.zeros((m, n))
    for i in range(m):
        for p in range(k):
            aip = a[i, p]
            if aip != 0.0:
                for j in range(n):
                    out[i, j] += aip * b[p, j]
    return out


@kernel(full_optimisation=True)
def mat_t_mat(a, b):
    """``Aᵀ B``."""
    k, m = a.shape
    n = b.shape[1]
    if m * k * n > BLAS_WORK:
        return np.ascontiguousarray(a.T) @ np.ascontiguousarray(b)
    out = np.zeros((m, n))
    for p in range(k):
        for i in range(m):
            api = a[p, i]
            if api != 0.0:
                for j in range(n):
                    out[i, j] += api * b[p, j]
    return out


# Reductions as loops: NumPy's (``np.abs(x).max()``, ``np.all``, ``np.sum``, ``lstsq``) in
# a kernel make Numba load its array-math module with the kernel, which imports SciPy's
# linear algebra (0.1 s of a run's start-up), and make temporary arrays.


@kernel
def max_abs(x):
    """``max |x|`` (0 for an empty vector)."""
    out = 0.0
    for v in x:
        a = abs(v)
        if a > out or a != a:  # NaN propagates
            out = a
    return out


@kernel(full_optimisation=True, refcounted=False)
def largest(x):
    """``max x_i`` of a vector (−∞ for an empty one; NaN if any entry is NaN)."""
    out = -np.inf
    for i in range(x.shape[0]):
        v = x[i]
        if v > out or v != v:
            out = v
    return out


@kernel
def all_finite(x):
    """No NaN or infinity in ``x``."""
    for v in x:  # noqa: SIM110 (a loop compiles to no temporary array)
        if not np.isfinite(v):
            return False
    return True


@kernel(full_optimisation=True, refcounted=False)
def all_finite_matrix(a):
    """No NaN or infinity in the matrix ``a``."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if not np.isfinite(a[i, j]):
                return False
    return True
