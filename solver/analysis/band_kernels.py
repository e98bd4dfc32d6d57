"""Compiled (Numba, cached on disk) scatter-adds into band storage (``solver.analysis.banded``).

Both add into a flat storage array ``out`` at precomputed slots; the loops replace the
temporaries, gathers and ``bincount`` of the NumPy equivalent (a few hundred microseconds
per matrix of a 256-body chain).
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel


@kernel(full_optimisation=True)
def add_gram_blocks(out, data, entries, slots, weight):  # pragma: no cover - compiled
    """``out[slots[g, i, j]] += weight · Σ_k B_g[k, i] B_g[k, j]`` with the row blocks
    ``B_g[k, i] = data[entries[g, k, i]]`` (``entries``: ``(G, r, K)``, ``slots``:
    ``(G, K, K)``): the Gram product ``weight · Φᵀ Φ`` block by block."""
    n_g, n_r, n_k = entries.shape
    b = np.empty((n_r, n_k))
    for g in range(n_g):
        for k in range(n_r):
            for i in range(n_k):
                b[k, i] = data[entries[g, k, i]]
        for i in range(n_k):
            for j in range(n_k):
                s = 0.0
                for k in range(n_r):
                    s += b[k, i] * b[k, j]
                out[slots[g, i, j]] += weight * s


@kernel(full_optimisation=True)
def add_scaled(out, slots, data, coef):  # pragma: no cover - compiled
    """``out[slots[k]] += coef · data[k]`` (slots may repeat)."""
    for k in range(slots.shape[0]):
        out[slots[k]] += coef * data[k]


@kernel(full_optimisation=True)
def _csr_matvec(ptr, idx, val, x, out, sign):  # pragma: no cover - compiled
    """``out += sign · A x`` for CSR ``A``."""
    for i in range(ptr.shape[0] - 1):
        s = 0.0
        for k in range(ptr[i], ptr[i + 1]):
            s += val[k] * x[idx[k]]
        out[i] += sign * s


@kernel(full_optimisation=True)
def _csr_rmatvec(ptr, idx, val, y, out, sign):  # pragma: no cover - compiled
    """``out += sign · Aᵀ y`` for CSR ``A``."""
    for i in range(ptr.shape[0] - 1):
        yi = sign * y[i]
        for k in range(ptr[i], ptr[i + 1]):
            out[idx[k]] += val[k] * yi


@kernel(full_optimisation=True)
def cholesky_band_solve(c, perm, rhs):  # pragma: no cover - compiled
    """``x`` with ``L Lᵀ x[perm] = rhs[perm]``: ``c`` holds ``L`` in LAPACK's lower band
    storage (``c[i − j, j] = L[i, j]``, as ``pbtrf`` leaves it) of the renumbering
    ``perm`` (new → old)."""
    b = c.shape[0] - 1
    n = c.shape[1]
    y = np.empty(n)
    for i in range(n):
        y[i] = rhs[perm[i]]
    for j in range(n):  # L y = r
        y[j] /= c[0, j]
        yj = y[j]
        for k in range(1, min(b, n - 1 - j) + 1):
            y[j + k] -= c[k, j] * yj
    for j in range(n - 1, -1, -1):  # Lᵀ x = y
        s = y[j]
        for k in range(1, min(b, n - 1 - j) + 1):
            s -= c[k, j] * y[j + k]
        y[j] = s / c[0, j]
    x = np.empty(n)
    for i in range(n):
        x[perm[i]] = y[i]
    return x


@kernel(full_optimisation=True)
def constrained_solve_cholesky(
    c, perm, m_ptr, m_idx, m_val, a_ptr, a_idx, a_val, f, g, alpha, tol, x0, max_iterations
):  # pragma: no cover - compiled
    """``trapezoidal.constrained_solve`` with ``M + α AᵀA`` factorised by a band Cholesky
    (``c``, ``perm``; see :func:`cholesky_band_solve`) and ``M``, ``A`` in CSR arrays:
    the same increments, multiplier updates and stopping rules (``|A x − g|∞ ≤ tol`` or no
    further decrease), in one call. Returns ``(x, σ, iterations)``."""
    n = f.shape[0]
    m = g.shape[0]
    x = x0.copy()
    sigma = np.zeros(m)
    res = -g.copy()
    _csr_matvec(a_ptr, a_idx, a_val, x, res, 1.0)
    prev = np.inf
    r = np.empty(n)
    w = np.empty(m)
    for it in range(1, max_iterations + 1):
        for i in range(n):
            r[i] = f[i]
        _csr_matvec(m_ptr, m_idx, m_val, x, r, -1.0)
        for i in range(m):
            w[i] = sigma[i] + alpha * res[i]
        _csr_rmatvec(a_ptr, a_idx, a_val, w, r, -1.0)
        d = cholesky_band_solve(c, perm, r)
        for i in range(n):
            x[i] += d[i]
        if m == 0:
            return x, sigma, it
        for i in range(m):
            res[i] = -g[i]
        _csr_matvec(a_ptr, a_idx, a_val, x, res, 1.0)
        err = 0.0
        for i in range(m):
            sigma[i] += alpha * res[i]
            err = max(err, abs(res[i]))
        if err <= tol or err >= prev:
            return x, sigma, it
        prev = err
    return x, sigma, max_iterations
