"""Householder QR of a constraint Jacobian, as loops, for the compiled null-space steps.

For an m × n matrix ``B`` with m ≤ n, :func:`qr_rows` factors ``Bᵀ = Q R`` (Q n × n
orthogonal, a product of m Householder reflectors; R m × m upper triangular), so that
``B = L Q₁ᵀ`` with ``L = Rᵀ`` lower triangular and ``Q₁`` the first m columns of Q. When
``B`` has full row rank, the last n − m columns of Q are an orthonormal basis of its null
space and ``Q₁ L⁻¹`` is its pseudo-inverse ``B⁺``: what an SVD gives, at a fraction of its
cost for the small matrices of the compiled steps (no LAPACK call, no U or V to form).
:func:`sigma_bounds` bounds the extreme singular values of ``B`` from ``L`` and ``L⁻¹``
(guaranteed bounds, not estimates), so that a caller can check that the rank decisions an
SVD would take are those of full row rank before taking this path. With column pivoting
(:func:`pivoted_qr_rows`), the same reflectors reveal the rank of a matrix with dependent
rows: :func:`left_null_space` serves the saddle-point solves of the outputs.

Storage: rows of the C-ordered ``B`` are the columns of ``Bᵀ``, so every loop runs along a
row (contiguous). After :func:`qr_rows`, ``b[j, k]`` for k ≤ j holds ``L[j, k]`` and
``b[k, i]`` for i > k the reflector k's vector ``v`` (``v[k] = 1`` implied), as in LAPACK's
``geqrf`` for ``Bᵀ``: reflector k is ``I − τ_k v vᵀ``.
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.small import largest


@kernel(inline="always")
def _row_dot(b, r, k, x, start):
    """``Σ_{i ≥ start} b[r, i] x[k, i]`` (four partial sums: not bound by the latency of
    one chain of additions)."""
    n = b.shape[1]
    s0 = s1 = s2 = s3 = 0.0
    i = start
    while i + 4 <= n:
        s0 += b[r, i] * x[k, i]
        s1 += b[r, i + 1] * x[k, i + 1]
        s2 += b[r, i + 2] * x[k, i + 2]
        s3 += b[r, i + 3] * x[k, i + 3]
        i += 4
    while i < n:
        s0 += b[r, i] * x[k, i]
        i += 1
    return (s0 + s1) + (s2 + s3)


@kernel(inline="always")
def _eliminate(b, tau, k):
    """Reflector ``k``: ``bᵀ``'s column k zeroed below the diagonal, the reflector applied
    to the columns after it (rows ``k + 1 …`` of ``b``)."""
    m, n = b.shape
    norm2 = _row_dot(b, k, k, b, k + 1)
    x0 = b[k, k]
    if norm2 == 0.0:  # already triangular in this column: H = I
        return
    beta = -math.copysign(math.sqrt(x0 * x0 + norm2), x0)
    tk = (beta - x0) / beta
    tau[k] = tk
    scale = 1.0 / (x0 - beta)
    for i in range(k + 1, n):
        b[k, i] *= scale
    b[k, k] = beta
    for j in range(k + 1, m):  # the reflector on the remaining columns of bᵀ
        s = (b[j, k] + _row_dot(b, k, j, b, k + 1)) * tk
        if s != 0.0:
            b[j, k] -= s
            for i in range(k + 1, n):
                b[j, i] -= s * b[k, i]


@kernel(full_optimisation=True)
def qr_rows(b):
    """Householder QR of ``bᵀ`` in place (``b`` m × n, m ≤ n; see the module docstring);
    returns the reflectors' ``τ`` (m)."""
    tau = np.zeros(b.shape[0])
    for k in range(b.shape[0]):
        _eliminate(b, tau, k)
    return tau


@kernel(full_optimisation=True)
def pivoted_qr_rows(b, ratio):
    """:func:`qr_rows` with column pivoting of ``bᵀ`` (any m, n): before step k the row of
    ``b`` whose part from column k on has the largest norm is swapped into row k; the
    steps stop where that norm (``|R_kk|``) is not above ``ratio`` times the first.
    Returns ``(τ, rank)``: the steps taken, ``bᵀ Π = Q R`` with Q's first ``rank`` columns
    a basis of the range of ``bᵀ``."""
    m, n = b.shape
    tau = np.zeros(m)
    top = 0.0
    for k in range(min(m, n)):
        best, big = k, -1.0
        for j in range(k, m):  # the remaining norms, anew (no downdating error)
            s = _row_dot(b, j, j, b, k)
            if s > big:
                best, big = j, s
        norm = math.sqrt(big)
        if k == 0:
            top = norm
        if not norm > ratio * top:
            return tau, k
        if best != k:
            for i in range(n):
                tmp = b[k, i]
                b[k, i] = b[best, i]
                b[best, i] = tmp
        _eliminate(b, tau, k)
    return tau, min(m, n)


@kernel(full_optimisation=True)
def left_null_space(a, ratio):
    """An orthonormal basis ``U₀`` (k × (k − rank)) of the left null space of ``a``
    (k × n: ``aᵀ U₀ = 0``): the last columns of Q in the pivoted QR ``a Π = Q R``
    (:func:`pivoted_qr_rows` of ``aᵀ``), the rank being the steps whose ``|R_jj|`` is above
    ``ratio`` times the first. Several times cheaper than the SVD of a small wide matrix,
    with the same rank where the singular values have a clear gap (redundant rows), since
    ``|R₀₀| ≤ σ₁ ≤ √n |R₀₀|``."""
    k = a.shape[0]
    b = np.ascontiguousarray(a.T)
    tau, rank = pivoted_qr_rows(b, ratio)
    u0 = np.zeros((k, k - rank))
    x = np.empty(k)
    for j in range(rank, k):
        x[:] = 0.0
        x[j] = 1.0
        apply_q(b, tau, x)
        u0[:, j - rank] = x
    return u0


@kernel(inline="always")
def _reflect(b, tau, k, x):
    """``x ← (I − τ_k v_k v_kᵀ) x`` in place."""
    n = b.shape[1]
    s = x[k]
    for i in range(k + 1, n):
        s += b[k, i] * x[i]
    s *= tau[k]
    x[k] -= s
    for i in range(k + 1, n):
        x[i] -= s * b[k, i]


@kernel(full_optimisation=True)
def apply_q(b, tau, x):
    """``Q x`` in place (x of length n)."""
    for k in range(b.shape[0] - 1, -1, -1):
        if tau[k] != 0.0:
            _reflect(b, tau, k, x)


@kernel(full_optimisation=True)
def apply_qt(b, tau, x):
    """``Qᵀ x`` in place (x of length n)."""
    for k in range(b.shape[0]):
        if tau[k] != 0.0:
            _reflect(b, tau, k, x)


@kernel(full_optimisation=True)
def lower_inverse(b):
    """``L⁻¹`` (m × m lower triangular, dense) of the factored ``b``; ``ok`` false for a
    zero (or non-finite) diagonal entry."""
    m = b.shape[0]
    inv = np.zeros((m, m))
    for i in range(m):  # row i from the rows above: L[i, :i+1] L⁻¹[:i+1, :] = e_iᵀ
        d = b[i, i]
        if not (abs(d) > 0.0 and math.isfinite(d)):
            return inv, False
        for k in range(i):
            lik = b[i, k]
            if lik != 0.0:
                for j in range(k + 1):
                    inv[i, j] -= lik * inv[k, j]
        for j in range(i):
            inv[i, j] /= d
        inv[i, i] = 1.0 / d
    return inv, True


@kernel(full_optimisation=True)
def _two_norm_bound(a, lower):
    """An upper bound of ``‖A‖₂`` for a triangular ``a`` (``lower``: only ``a[i, k]`` with
    k ≤ i are read, else k ≥ i): the smaller of ``‖A‖_F`` and ``√(‖A‖₁‖A‖_∞)``."""
    m = a.shape[0]
    fro = 0.0
    rows = 0.0
    cols = np.zeros(m)
    for i in range(m):
        r = 0.0
        lo = 0 if lower else i
        hi = i + 1 if lower else m
        for k in range(lo, hi):
            v = a[i, k]
            fro += v * v
            r += abs(v)
            cols[k] += abs(v)
        rows = max(rows, r)
    return min(math.sqrt(fro), math.sqrt(rows * largest(cols))) if m else 0.0


@kernel(full_optimisation=True)
def sigma_bounds(b, inv):
    """``(upper bound of σ_max, lower bound of σ_min)`` of the factored ``b`` (its
    singular values are those of ``L``), from ``L`` and ``inv = L⁻¹``."""
    upper = _two_norm_bound(b, True)
    inv_norm = _two_norm_bound(inv, True)
    return upper, (1.0 / inv_norm if inv_norm > 0.0 else 0.0)
