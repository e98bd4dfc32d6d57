"""Compressed-row matrices for the compiled steps' products with sparse iteration matrices.

A matrix is the tuple ``(ptr, idx, val, cols)``: the non-zero entries of row r are
``val[ptr[r]:ptr[r+1]]`` in the columns ``idx[…]``; ``cols`` the number of columns.
The null-space steps keep their derivative matrices (``K``, ``C``, ``Ḣ``, ``Ḧ``) so
over several iterations and steps: their products cost their non-zeros, not ``n²``.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel


@kernel
def compress(a):
    """The compressed rows of the dense ``a`` (its non-zero entries)."""
    rows, cols = a.shape
    ptr = np.zeros(rows + 1, np.int64)
    nz = 0
    for r in range(rows):
        for c in range(cols):
            if a[r, c] != 0.0:
                nz += 1
        ptr[r + 1] = nz
    idx = np.empty(nz, np.int64)
    val = np.empty(nz)
    e = 0
    for r in range(rows):
        for c in range(cols):
            if a[r, c] != 0.0:
                idx[e] = c
                val[e] = a[r, c]
                e += 1
    return ptr, idx, val, np.int64(cols)


@kernel
def zeros(rows, cols):
    """A ``rows × cols`` zero matrix, compressed."""
    return np.zeros(rows + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.int64(cols)


@kernel
def rows_vec(a, x):
    """``A x``."""
    ptr, idx, val = a[0], a[1], a[2]
    out = np.empty(ptr.shape[0] - 1)
    for r in range(out.shape[0]):
        s = 0.0
        for e in range(ptr[r], ptr[r + 1]):
            s += val[e] * x[idx[e]]
        out[r] = s
    return out


@kernel
def rows_mat(a, x):
    """``A X`` (``X`` with the columns of ``A`` as rows)."""
    ptr, idx, val = a[0], a[1], a[2]
    d = x.shape[1]
    out = np.zeros((ptr.shape[0] - 1, d))
    for r in range(out.shape[0]):
        for e in range(ptr[r], ptr[r + 1]):
            v = val[e]
            c = idx[e]
            for j in range(d):
                out[r, j] += v * x[c, j]
    return out


@kernel
def entries_mat(rows, cols, vals, x, m):
    """``A X`` (``m`` rows) of the entries ``(rows, cols, vals)`` (positions may repeat)."""
    d = x.shape[1]
    out = np.zeros((m, d))
    for k in range(vals.shape[0]):
        v = vals[k]
        if v != 0.0:
            r = rows[k]
            c = cols[k]
            for j in range(d):
                out[r, j] += v * x[c, j]
    return out
