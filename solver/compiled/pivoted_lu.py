"""LU with partial pivoting of a wide, sparse constraint Jacobian, for the compiled
null-space steps.

For an m × n matrix ``B`` with m ≤ n (a weighted ``Φ_q``), :func:`lu_columns` factors
``Bᵀ = Π L U`` in place: at step k the coordinate with the largest ``|B[k, i]|`` among
those not chosen yet becomes the pivot (``order[k]``; ``step[i]`` is the step of
coordinate i, m + s for the s-th coordinate never chosen: the independent ones). ``U`` is
m × m upper triangular, ``L`` n × m unit lower trapezoidal in the pivots' order, with
``|L| ≤ 1``. After the factorisation ``B[k, i]`` holds ``L[i, k]`` for ``step[i] > k``,
``U[k, k]`` for ``step[i] = k`` and ``U[step[i], k]`` for ``step[i] < k``. The elimination
skips the zeros of each row and column (exactly: a product with zero changes nothing), and
visits only the columns each row may hold (its entries' and its fill, :func:`entry_patterns`),
so that the sparse Jacobian of a mechanism costs its fill, not ``m n`` per row.

:func:`lu_lists` compresses the factors row by row (``lo``: the entries of ``L``, by
coordinate; ``up``: those of ``U``, by step) for the solves:
:func:`null_basis` (``Lᵀ y = 0`` with unit independent coordinates, orthonormalised),
:func:`particular` (``B y = r`` with the independent coordinates zero) and
:func:`pivot_solve_t` (``Bᵀ λ = c`` on the pivot coordinates, for a consistent ``c``);
:func:`sigma_min_bound` bounds the smallest singular value of ``B`` from below (a
guaranteed bound, through the comparison matrices of the triangular factors) so that a
caller can check the rank decisions of an SVD before taking this path.
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.small import largest


@kernel(full_optimisation=True)
def entry_patterns(pr, pc, m, n):
    """The columns of each row of an m × n matrix given by its entries ``(pr, pc)``
    (repeated entries once): ``(cols, cnt, seen)``, row k's columns ``cols[k, :cnt[k]]``
    in increasing order, ``seen[k, i]`` whether column i is among them. :func:`lu_columns`
    adds its fill to them."""
    cols = np.empty((m, n), np.int64)
    cnt = np.zeros(m, np.int64)
    seen = np.zeros((m, n), np.bool_)
    for e in range(pr.shape[0]):
        r = pr[e]
        c = pc[e]
        if not seen[r, c]:
            seen[r, c] = True
            cols[r, cnt[r]] = c
            cnt[r] += 1
    sort_patterns(cols, cnt)
    return cols, cnt, seen


@kernel(inline="always")
def sort_patterns(cols, cnt):
    """Each row's columns ``cols[k, :cnt[k]]`` in increasing order, in place."""
    for k in range(cnt.shape[0]):
        _sort_row(cols, k, cnt[k])


@kernel(inline="always")
def _sort_row(cols, k, count):
    """``cols[k, :count]`` in increasing order (insertion sort: a row holds a few columns)."""
    for a in range(1, count):
        c = cols[k, a]
        j = a - 1
        while j >= 0 and cols[k, j] > c:
            cols[k, j + 1] = cols[k, j]
            j -= 1
        cols[k, j + 1] = c


@kernel(full_optimisation=True)
def lu_columns(b, cols, cnt, seen):
    """LU with partial pivoting of ``bᵀ`` in place (``b`` m × n, see the module
    docstring); ``(cols, cnt, seen)`` of :func:`entry_patterns` hold each row's columns that
    may be non-zero (at least those that are), and get the fill. Only those are searched
    and updated: the same pivots (the first largest ``|b[k, i]|``, as a scan of the whole
    row finds it) and the same arithmetic as over the whole rows, at the cost of the
    non-zeros. Returns ``(ok, step, order)``; ``ok`` false for a zero or non-finite pivot
    (the rank is in question)."""
    m, n = b.shape
    step = np.full(n, -1, np.int64)
    order = np.empty(n, np.int64)
    idx = np.empty(n, np.int64)
    for k in range(m):
        best = 0.0
        p = -1
        for e in range(cnt[k]):
            i = cols[k, e]
            if step[i] < 0:
                a = abs(b[k, i])
                if a > best or (a == best and a > 0.0 and i < p):
                    best = a
                    p = i
        if p < 0 or not math.isfinite(best):
            return False, step, order
        step[p] = k
        order[k] = p
        inv = 1.0 / b[k, p]
        count = 0
        for e in range(cnt[k]):
            i = cols[k, e]
            if step[i] < 0 and b[k, i] != 0.0:
                b[k, i] *= inv
                idx[count] = i
                count += 1
        if count:
            for j in range(k + 1, m):
                u = b[j, p]
                if u != 0.0:
                    for c in range(count):
                        i = idx[c]
                        b[j, i] -= u * b[k, i]
                        if not seen[j, i]:
                            seen[j, i] = True
                            cols[j, cnt[j]] = i
                            cnt[j] += 1
    s = m
    for i in range(n):
        if step[i] < 0:
            step[i] = s
            order[s] = i
            s += 1
    return True, step, order


@kernel(full_optimisation=True)
def lu_lists(b, step, cols, cnt):
    """The factors of :func:`lu_columns` compressed by rows: ``(diag, lo_ptr, lo_idx,
    lo_val, up_ptr, up_idx, up_val)``; row k's ``lo`` entries are ``L[i, k]`` (index i, a
    coordinate of a later step), its ``up`` entries ``U[j, k]`` (index j < k, a step), in
    increasing order of the coordinate i (``cols``, ``cnt``: the rows' columns after the
    factorisation, sorted here); the index and value arrays are longer than their ``ptr``
    ranges."""
    m = b.shape[0]
    sort_patterns(cols, cnt)
    total = 0
    for k in range(m):
        total += cnt[k]
    diag = np.empty(m)
    lo_ptr = np.zeros(m + 1, np.int64)
    up_ptr = np.zeros(m + 1, np.int64)
    lo_idx = np.empty(total, np.int64)
    lo_val = np.empty(total)
    up_idx = np.empty(total, np.int64)
    up_val = np.empty(total)
    nl = nu = 0
    for k in range(m):
        for e in range(cnt[k]):
            i = cols[k, e]
            v = b[k, i]
            if v != 0.0:
                s = step[i]
                if s > k:
                    lo_idx[nl] = i
                    lo_val[nl] = v
                    nl += 1
                elif s < k:
                    up_idx[nu] = s
                    up_val[nu] = v
                    nu += 1
                else:
                    diag[k] = v
        lo_ptr[k + 1] = nl
        up_ptr[k + 1] = nu
    return diag, lo_ptr, lo_idx, lo_val, up_ptr, up_idx, up_val


@kernel(inline="always")
def _back_lt(f, y, z):
    """``y`` at the pivot coordinates from ``Lᵀ y = z`` (the other coordinates of ``y`` set)."""
    order, diag, lo_ptr, lo_idx, lo_val = f[1], f[2], f[3], f[4], f[5]
    for k in range(diag.shape[0] - 1, -1, -1):
        acc = z[k]
        for e in range(lo_ptr[k], lo_ptr[k + 1]):
            acc -= lo_val[e] * y[lo_idx[e]]
        y[order[k]] = acc


@kernel(full_optimisation=True)
def orthonormal_columns(y):
    """The columns of ``y`` orthonormalised in place (modified Gram–Schmidt, twice)."""
    n, d = y.shape
    for j in range(d):
        for _ in range(2):
            for i in range(j):
                s = 0.0
                for r in range(n):
                    s += y[r, i] * y[r, j]
                for r in range(n):
                    y[r, j] -= s * y[r, i]
        s = 0.0
        for r in range(n):
            s += y[r, j] * y[r, j]
        s = 1.0 / math.sqrt(s)
        for r in range(n):
            y[r, j] *= s


@kernel(full_optimisation=True)
def null_basis(f, n):
    """An orthonormal basis (n × d) of the null space of ``B`` (``f``: ``(step, order,
    diag, lo_ptr, lo_idx, lo_val, up_ptr, up_idx, up_val)``): ``Lᵀ y = 0`` with each
    independent coordinate 1 in turn. Its columns have a unit entry, so they are well
    conditioned before the orthonormalisation."""
    m = f[2].shape[0]
    d = n - m
    y = np.zeros((n, d))
    col = np.zeros(n)
    zero = np.zeros(m)
    for s in range(d):
        col[:] = 0.0
        col[f[1][m + s]] = 1.0
        _back_lt(f, col, zero)
        for i in range(n):
            y[i, s] = col[i]
    orthonormal_columns(y)
    return y


@kernel(full_optimisation=True)
def particular(f, r):
    """A solution ``y`` of ``B y = r`` with the independent coordinates zero
    (``Uᵀ z = r``, then ``Lᵀ y = z``)."""
    y = np.empty(f[0].shape[0])
    particular_into(f, r, np.empty(f[2].shape[0]), y)
    return y


@kernel(full_optimisation=True, refcounted=False)
def particular_into(f, r, z, y):
    """:func:`particular` into ``y`` (n, overwritten) with ``z`` (m) as scratch: no array
    made, so that the factors' nine arrays are not counted in and out at each call."""
    diag, up_ptr, up_idx, up_val = f[2], f[6], f[7], f[8]
    m = diag.shape[0]
    for k in range(m):
        acc = r[k]
        for e in range(up_ptr[k], up_ptr[k + 1]):
            acc -= up_val[e] * z[up_idx[e]]
        z[k] = acc / diag[k]
    for i in range(y.shape[0]):
        y[i] = 0.0
    _back_lt(f, y, z)


@kernel(full_optimisation=True)
def pivot_solve_t(f, c):
    """``λ`` with ``(Bᵀ λ)_i = c_i`` at the pivot coordinates i (``L₁ U λ = c`` in the
    pivots' order): the solution of ``Bᵀ λ = c`` for ``c`` in the range of ``Bᵀ``."""
    step, order, diag, lo_ptr, lo_idx, lo_val, up_ptr, up_idx, up_val = f
    m = diag.shape[0]
    u = np.empty(m)
    for k in range(m):
        u[k] = c[order[k]]
    for j in range(m):  # L₁ u = c, by columns of L₁
        uj = u[j]
        if uj != 0.0:
            for e in range(lo_ptr[j], lo_ptr[j + 1]):
                s = step[lo_idx[e]]
                if s < m:
                    u[s] -= lo_val[e] * uj
    for j in range(m - 1, -1, -1):  # U λ = u, by columns of U
        u[j] /= diag[j]
        lj = u[j]
        if lj != 0.0:
            for e in range(up_ptr[j], up_ptr[j + 1]):
                u[up_idx[e]] -= up_val[e] * lj
    return u


@kernel(full_optimisation=True)
def sigma_min_bound(f):
    """A lower bound of the smallest singular value of ``B`` (m × n, m ≤ n):
    ``σ_min(B) ≥ σ_min(L₁ U) ≥ 1 / √(‖A⁻¹‖₁ ‖A⁻¹‖_∞)`` with ``A = L₁ U`` and ``|A⁻¹| ≤
    M(U)⁻¹ M(L₁)⁻¹`` entry by entry (``M(T)``: the comparison matrix of a triangular ``T``,
    |diagonal| and −|off-diagonal entries|, whose inverse is non-negative and bounds
    ``|T⁻¹|``), so that each norm is two triangular solves with ones."""
    step, order, diag, lo_ptr, lo_idx, lo_val, up_ptr, up_idx, up_val = f
    m = diag.shape[0]
    if m == 0:
        return math.inf
    x = np.ones(m)
    for j in range(m):  # M(L₁) x = 1, by columns
        xj = x[j]
        for e in range(lo_ptr[j], lo_ptr[j + 1]):
            s = step[lo_idx[e]]
            if s < m:
                x[s] += abs(lo_val[e]) * xj
    for j in range(m - 1, -1, -1):  # M(U) z = x, by columns: ‖A⁻¹‖_∞ ≤ max z
        x[j] /= abs(diag[j])
        xj = x[j]
        for e in range(up_ptr[j], up_ptr[j + 1]):
            x[up_idx[e]] += abs(up_val[e]) * xj
    a_inf = largest(x)
    for k in range(m):  # M(U)ᵀ y = 1
        acc = 1.0
        for e in range(up_ptr[k], up_ptr[k + 1]):
            acc += abs(up_val[e]) * x[up_idx[e]]
        x[k] = acc / abs(diag[k])
    for k in range(m - 1, -1, -1):  # M(L₁)ᵀ z = y: ‖A⁻¹‖₁ ≤ max z
        acc = x[k]
        for e in range(lo_ptr[k], lo_ptr[k + 1]):
            s = step[lo_idx[e]]
            if s < m:
                acc += abs(lo_val[e]) * x[s]
        x[k] = acc
    a_one = largest(x)
    return 1.0 / math.sqrt(a_inf * a_one)
