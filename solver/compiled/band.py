"""Band linear algebra for the compiled implicit steps: matrices assembled from entries
straight into band storage and factorised by a band LU.

The iteration matrices of the implicit formulations (``M + c₁ C + c₂ (K + α Φ_qᵀ Φ_q)``)
couple a coordinate only with the coordinates of the bodies it is jointed to. Under a
renumbering of the coordinates that gathers every entry within ``|i − j| ≤ b`` of the
diagonal (reverse Cuthill–McKee, chosen once per run from the entry patterns:
``solver.analysis.compiled_steps.band_layout``), the LU with partial pivoting costs
``n b (3b)`` instead of ``n³/3`` and the storage ``n (3b + 1)`` instead of ``n²``: small
models keep their full band, chains and meshes a narrow one. The factorisations skip the
zeros of each column of L and row of U (exactly: a product with zero changes nothing), so
that a band wider than its entries need (an ANCF sliding joint's entries span its whole
beam) costs the work of the entries that hold values.

:class:`Band` holds the layout: the renumbering ``perm`` (new → old) and its inverse,
the half-bandwidth ``b`` (the lower and upper bandwidths are both ``b``), and, for each
entry list of the system (``solver.kernels.system.Patterns``), the storage index of
every entry. Storage is LAPACK's general band form with room for the row interchanges'
fill (``gbtrf``), one column after another: entry ``(i, j)`` of the renumbered matrix is
``ab[j ldab + 2b + i − j]`` with ``ldab = 3b + 1``.

The products with ``M`` and ``Φ_q`` loop over their entries (``*_r``, ``*_c``, values;
repeated positions add up), and ``Φ_qᵀ Φ_q`` adds, per row of ``Φ_q``, the products of
its entries (``phi_ptr``/``phi_ord`` group the entries by row).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.kernels.jit import kernel


class Band(NamedTuple):
    """A band layout of a system's ``n × n`` iteration matrices (see the module docstring)."""

    perm: np.ndarray  # (n,) int64: renumbered coordinate → coordinate
    b: int  # half-bandwidth
    ldab: int  # 3b + 1: storage per column
    mass_s: np.ndarray  # storage index of every entry of M
    fk_s: np.ndarray  # … of ∂Q/∂q
    fc_s: np.ndarray  # … of ∂Q/∂q̇
    hk_s: np.ndarray  # … of ∂(Φ_qᵀλ)/∂q
    rb_s: np.ndarray  # … of ∂(M a)/∂q
    #: renumbered column of every entry of ``J = [Φ_q; B]`` (Φ_q's entries, then those of
    #: the no-slip rows B of rolling discs: :class:`Rows`)
    phi_ic: np.ndarray
    phi_ptr: np.ndarray  # (rows + 1,) int64: the entries of row r are phi_ord[ptr[r]:ptr[r+1]]
    phi_ord: np.ndarray


class Rows(NamedTuple):
    """The rows ``J = [Φ_q; B]`` of a band layout (kept apart from :class:`Band`, whose
    arrays every call that takes the layout counts in and out): their entries ``(j_r,
    j_c)``, Φ_q's then the no-slip rows' (their rows after Φ_q's; none without rolling
    discs), and the storage index of every entry of the no-slip rows' ``∂(Bᵀμ)/∂q``
    (``nk_s``) and of every product ``B[k, i] D[k, j]`` (``bd_s``, D = ∂(B q̇)/∂q: by row
    k, B's entries of the row, then D's; ``b_ptr``, ``d_ptr``: the entries of each row)."""

    j_r: np.ndarray
    j_c: np.ndarray
    nk_s: np.ndarray
    bd_s: np.ndarray
    b_ptr: np.ndarray
    d_ptr: np.ndarray


@kernel(full_optimisation=True)
def add_entries(ab, slots, vals, coef):
    """``ab[slots[k]] += coef · vals[k]`` (slots may repeat)."""
    for k in range(slots.shape[0]):
        ab[slots[k]] += coef * vals[k]


@kernel(full_optimisation=True, refcounted=False)
def add_lower_entries(ab, slots, vals, coef, b):
    """:func:`add_entries` for the entries on and below the diagonal (half-bandwidth
    ``b``: a slot's offset in its column, ``2b + i − j``, is at least ``2b``)."""
    ldab = 3 * b + 1
    for k in range(slots.shape[0]):
        if slots[k] % ldab >= 2 * b:
            ab[slots[k]] += coef * vals[k]


@kernel(full_optimisation=True)
def add_gram(ab, lay, vals, weight, lower):
    """``ab += weight · JᵀJ`` (renumbered) from the entry values of ``J`` (Φ_q and the
    no-slip rows, :class:`Rows`): per row,
    the products of its non-zero entries (a rigid marker's rows carry three zeros of the
    identity block each); with ``lower`` only those on and below the diagonal (a matrix
    :func:`cholesky_factor` factorises)."""
    kv = 2 * lay.b
    ldab = lay.ldab
    longest = 0
    for r in range(lay.phi_ptr.shape[0] - 1):
        longest = max(longest, lay.phi_ptr[r + 1] - lay.phi_ptr[r])
    v = np.empty(longest)
    col = np.empty(longest, np.int64)
    for r in range(lay.phi_ptr.shape[0] - 1):
        cnt = 0
        for a in range(lay.phi_ptr[r], lay.phi_ptr[r + 1]):
            e = lay.phi_ord[a]
            if vals[e] != 0.0:
                v[cnt] = vals[e]
                col[cnt] = lay.phi_ic[e]
                cnt += 1
        for a in range(cnt):
            va = weight * v[a]
            ia = col[a]
            for c in range(cnt):
                ib = col[c]
                if ia >= ib or not lower:
                    ab[ib * ldab + kv + ia - ib] += va * v[c]


@kernel(full_optimisation=True)
def add_row_products(ab, rows, bvals, dvals, coef):
    """``ab += coef · Bᵀ D`` (renumbered) from the entry values of ``B`` and ``D`` in the
    order of the :class:`Rows` ``rows``' ``b_ptr`` and ``d_ptr`` (row by row: ``bd_s``)."""
    e = 0
    for k in range(rows.b_ptr.shape[0] - 1):
        for a in range(rows.b_ptr[k], rows.b_ptr[k + 1]):
            va = coef * bvals[a]
            for c in range(rows.d_ptr[k], rows.d_ptr[k + 1]):
                ab[rows.bd_s[e]] += va * dvals[c]
                e += 1


@kernel(inline="always")
def lu_factor(ab, lay):
    """LU with partial pivoting of the stored matrix of the layout ``lay``, in place
    (:func:`lu_factor_band`)."""
    return lu_factor_band(ab, lay.perm.shape[0], lay.b)


@kernel(full_optimisation=True)
def lu_factor_band(ab, n, b):
    """LU with partial pivoting of the stored ``n × n`` matrix of half-bandwidth ``b``, in
    place (LAPACK's ``gbtf2``): ``(piv, ok)``; ``piv[j]`` is the row swapped with row ``j``
    at step ``j``, ``piv[n + j]`` the offset below the diagonal of column j's last non-zero
    multiplier and ``piv[2n + j]`` the first row of column j's non-zeros in U (the solves'
    ranges); ``U[j, j]`` is then ``ab[j (3b + 1) + 2b]``. ``ok`` is false for a singular
    matrix (an exactly zero or NaN pivot column)."""
    piv = np.empty(pivots_size(n, b), np.int64)
    return piv, lu_factor_band_into(ab, n, b, piv)


@kernel(inline="always")
def pivots_size(n, b):
    """The length of the pivots array of :func:`lu_factor_band_into` (``3n`` entries the
    solves read, then ``b + 1`` of scratch)."""
    return 3 * n + b + 1


@kernel(full_optimisation=True, refcounted=False)
def lu_factor_band_into(ab, n, b, piv):
    """:func:`lu_factor_band` with its pivots written into ``piv`` (:func:`pivots_size`
    entries): ``ok``."""
    kl = b
    ku = b
    kv = kl + ku
    ldab = 3 * b + 1
    for j in range(n):
        piv[2 * n + j] = j
    nz = 3 * n  # piv[nz + k]: the rows of a column's non-zero multipliers
    ju = 0  # the last column reached by a row of U so far
    for j in range(n):
        km = min(kl, n - 1 - j)
        base = j * ldab + kv  # (j, j)
        p = 0
        big = abs(ab[base])
        for r in range(1, km + 1):
            v = abs(ab[base + r])
            if v > big:
                big = v
                p = r
        piv[j] = j + p
        if not big > 0.0:
            return False
        ju = max(ju, min(j + ku + p, n - 1))
        if p != 0:
            for c in range(j, ju + 1):
                s = c * ldab + kv + j - c
                tmp = ab[s]
                ab[s] = ab[s + p]
                ab[s + p] = tmp
        cnt = 0
        if km > 0:
            inv = 1.0 / ab[base]
            for r in range(1, km + 1):
                v = ab[base + r] * inv
                ab[base + r] = v
                if v != 0.0:
                    piv[nz + cnt] = r
                    cnt += 1
        piv[n + j] = piv[nz + cnt - 1] if cnt else 0
        for c in range(j + 1, ju + 1):
            s = c * ldab + kv + j - c  # (j, c)
            u = ab[s]
            if u != 0.0:
                if piv[2 * n + c] > j:  # row j is U's first non-zero in column c
                    piv[2 * n + c] = j
                for k in range(cnt):
                    r = piv[nz + k]
                    ab[s + r] -= ab[base + r] * u
    return True


@kernel(full_optimisation=True)
def cholesky_factor(ab, lay):
    """``L Lᵀ`` of the stored symmetric positive definite matrix, in place in its lower
    band (``L[j + r, j]`` where ``A[j + r, j]`` was; the upper band is not read):
    ``(last, ok)``, ``last[j]`` the offset below the diagonal of column j's last non-zero
    (the solves' ranges), ``ok`` false when a pivot is not positive (the matrix is singular
    or indefinite). Half the work of :func:`lu_factor` and no row interchanges."""
    n = lay.perm.shape[0]
    last = np.zeros(last_size(n, lay.b), np.int64)
    return last, cholesky_factor_into(ab, n, lay.b, last)


@kernel(inline="always")
def last_size(n, b):
    """The length of the ``last`` array of :func:`cholesky_factor_into` (``n`` entries the
    solves read, then ``b + 1`` of scratch)."""
    return n + b + 1


@kernel(full_optimisation=True, refcounted=False)
def cholesky_factor_into(ab, n, b, last):
    """:func:`cholesky_factor` of the ``n × n`` matrix of half-bandwidth ``b``, its
    ``last`` written into ``last`` (:func:`last_size` entries): ``ok``."""
    kl = b
    kv = 2 * b
    ldab = 3 * b + 1
    nz = n  # last[nz + k]: the rows of the column's non-zero entries of L
    for j in range(n):
        base = j * ldab + kv
        d = ab[base]
        if not d > 0.0:
            return False
        d = np.sqrt(d)
        ab[base] = d
        inv = 1.0 / d
        km = min(kl, n - 1 - j)
        cnt = 0
        for r in range(1, km + 1):
            v = ab[base + r] * inv
            ab[base + r] = v
            if v != 0.0:
                last[nz + cnt] = r
                cnt += 1
        last[j] = last[nz + cnt - 1] if cnt else 0
        for a in range(cnt):  # the trailing block: A[j + r, j + c] −= L[j + r] L[j + c]
            c = last[nz + a]
            lc = ab[base + c]
            cb = (j + c) * ldab + kv - c  # A[j + r, j + c] = ab[cb + r]
            for k in range(a, cnt):
                r = last[nz + k]
                ab[cb + r] -= ab[base + r] * lc
    return True


@kernel(full_optimisation=True, refcounted=False)
def clear_lu(ab, piv, n, b):
    """Zero the stored factors of :func:`lu_factor_band_into` (its pivots ``piv``: each
    column's entries from U's first non-zero row to L's last non-zero multiplier). Where
    ``ab`` held a matrix assembled into zeros and factorised without failure, every other
    stored entry is zero: ``ab`` is then zero, ready for the next matrix, without clearing
    the whole band. A ``piv`` whose ranges are empty (``piv[n + j] = −1``, ``piv[2n + j] =
    j + 1``: :func:`no_factors`) clears nothing."""
    kv = 2 * b
    ldab = 3 * b + 1
    for c in range(n):
        base = c * ldab + kv - c
        for i in range(piv[2 * n + c], c + piv[n + c] + 1):
            ab[base + i] = 0.0


@kernel(full_optimisation=True, refcounted=False)
def clear_cholesky(ab, last, n, b):
    """Zero the stored factor of :func:`cholesky_factor_into` (``last``: each column's
    entries from the diagonal to its last non-zero), as :func:`clear_lu` (the upper band
    must not have been written; ``last[j] = −1`` clears nothing)."""
    kv = 2 * b
    ldab = 3 * b + 1
    for j in range(n):
        base = j * ldab + kv
        for r in range(last[j] + 1):
            ab[base + r] = 0.0


@kernel(full_optimisation=True)
def no_factors(n, b):
    """``(band, pivots, lower band, last)``: a zero band for :func:`lu_factor_band_into`
    and one for :func:`cholesky_factor_into`, with pivots and ``last`` that
    :func:`clear_lu` and :func:`clear_cholesky` read as nothing to clear."""
    piv = np.zeros(pivots_size(n, b), np.int64)
    last = np.zeros(last_size(n, b), np.int64)
    for j in range(n):
        piv[n + j] = -1
        piv[2 * n + j] = j + 1
        last[j] = -1
    size = n * (3 * b + 1)
    return np.zeros(size), piv, np.zeros(size), last


@kernel(full_optimisation=True)
def cholesky_solve_into(ab, last, perm, b, rhs, work, out):
    """``x`` with ``L Lᵀ x = rhs`` (original numbering) into ``out`` from
    :func:`cholesky_factor`'s ``L`` and ``last`` (``work``: n values of scratch; ``rhs``
    may be ``out``)."""
    n = perm.shape[0]
    kv = 2 * b
    ldab = 3 * b + 1
    x = work
    for i in range(n):
        x[i] = rhs[perm[i]]
    for j in range(n):  # L y = rhs
        base = j * ldab + kv
        xj = x[j] / ab[base]
        x[j] = xj
        if xj != 0.0:
            for r in range(1, last[j] + 1):
                x[j + r] -= ab[base + r] * xj
    for j in range(n - 1, -1, -1):  # Lᵀ x = y
        base = j * ldab + kv
        acc = x[j]
        for r in range(1, last[j] + 1):
            acc -= ab[base + r] * x[j + r]
        x[j] = acc / ab[base]
    for i in range(n):
        out[perm[i]] = x[i]


@kernel(full_optimisation=True)
def lu_solve(ab, piv, lay, rhs):
    """``x`` with ``A x = rhs`` (original numbering) from :func:`lu_factor`'s factors."""
    n = lay.perm.shape[0]
    out = np.empty(n)
    lu_solve_into(ab, piv, lay.perm, lay.b, rhs, np.empty(n), out)
    return out


@kernel(full_optimisation=True)
def lu_solve_into(ab, piv, perm, b, rhs, work, out):
    """:func:`lu_solve` into ``out`` (``work``: n values of scratch), for the layout's
    ``perm`` and half-bandwidth ``b``; ``rhs`` may be ``out``."""
    n = perm.shape[0]
    kv = 2 * b
    ldab = 3 * b + 1
    x = work
    for i in range(n):
        x[i] = rhs[perm[i]]
    for j in range(n):
        p = piv[j]
        if p != j:
            tmp = x[j]
            x[j] = x[p]
            x[p] = tmp
        xj = x[j]
        if xj != 0.0:
            base = j * ldab + kv
            for r in range(1, piv[n + j] + 1):
                x[j + r] -= ab[base + r] * xj
    for j in range(n - 1, -1, -1):
        base = j * ldab + kv
        xj = x[j] / ab[base]
        x[j] = xj
        if xj != 0.0:
            for i in range(piv[2 * n + j], j):
                x[i] -= ab[base + i - j] * xj
    for i in range(n):
        out[perm[i]] = x[i]


@kernel(full_optimisation=True)
def add_mat_vec(rows, cols, vals, x, coef, out):
    """``out += coef · A x`` for the entries ``(rows, cols, vals)`` of ``A``."""
    for k in range(vals.shape[0]):
        out[rows[k]] += coef * vals[k] * x[cols[k]]


@kernel(full_optimisation=True)
def add_mat_t_vec(rows, cols, vals, y, coef, out):
    """``out += coef · Aᵀ y`` for the entries ``(rows, cols, vals)`` of ``A``."""
    for k in range(vals.shape[0]):
        out[cols[k]] += coef * vals[k] * y[rows[k]]


@kernel(full_optimisation=True)
def entries_mat_vec(rows, cols, vals, x, m):
    """``A x`` (``m`` rows) of the entries ``(rows, cols, vals)``."""
    out = np.zeros(m)
    add_mat_vec(rows, cols, vals, x, 1.0, out)
    return out


@kernel(full_optimisation=True)
def entries_mat_t_vec(rows, cols, vals, y, n):
    """``Aᵀ y`` (``n`` columns) of the entries ``(rows, cols, vals)``."""
    out = np.zeros(n)
    add_mat_t_vec(rows, cols, vals, y, 1.0, out)
    return out
