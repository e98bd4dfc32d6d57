"""Compiled (Numba) kernels of the structural-group method: quadratic rows and the
factorisation and solves of a level's dense group blocks.

**Quadratic rows** (``group_evaluation._QuadraticPart``, ``Φ = κ + gᵀq + ½ qᵀHq``):
``quadratic`` gives the Jacobian values ``g + Hq`` over the entries and ``Φ``, and
``quadratic_gamma`` gives ``γ = −q̇ᵀHq̇`` — the same sums in the same order as the NumPy
``bincount`` formulas (bit-identical results), in one pass each.

**Level solves.** A level of a decomposition (``group_kinematics.LevelSolver``) is a set
of groups; each group is split into *parts* (its irreducible diagonal blocks, in internal
levels), so that the level's Jacobian, with rows and columns ordered part by part, is
block lower triangular with small square diagonal blocks. In compiled loops over the
parts:

* ``factor``: scatter the Jacobian values into the parts' dense blocks (row-major, one
  after the other in a flat array; repeated entries add up) and LU-factorise each block
  in place with partial pivoting (the pivot of largest magnitude, the first on ties, as
  LAPACK's ``getrf``); a block is singular when a pivot column is exactly zero (LAPACK's
  ``info > 0``);
* ``solve``: block forward substitution ``x_p = A_pp⁻¹ (b_p − Σ A_pj x_j)`` part by part
  in the given order (earlier internal levels first), with the off-diagonal entries
  ``A_pj`` (coupling to earlier parts of the same group) read from the Jacobian values.

One factorisation serves every right-hand side at that Jacobian (Newton step; velocity
and R matrix; acceleration) instead of one LAPACK call per batch of equal-size blocks
and right-hand side. Numba is optional: ``AVAILABLE`` is False without it and the callers
use their NumPy paths. Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np

try:  # optional: the NumPy path of group_kinematics serves without it
    from numba import njit
except ImportError:  # pragma: no cover - depends on the installation
    njit = None

AVAILABLE = njit is not None

_OPTS = {"cache": True, "nogil": True, "fastmath": False}


def _quadratic(q, kappa, g, rows, cols, h_entry, h_col, h_val):
    """``(Φ, Jacobian values)``: ``jac = g + Σ_h h_val·q[h_col]`` by entry and
    ``Φ = κ + ½ Σ_e (g + jac)·q[col]`` by row."""
    hq = np.zeros(len(g))
    for i in range(len(h_entry)):
        hq[h_entry[i]] += h_val[i] * q[h_col[i]]
    jac = g + hq
    acc = np.zeros(len(kappa))
    for e in range(len(rows)):
        acc[rows[e]] += (g[e] + jac[e]) * q[cols[e]]
    return kappa + 0.5 * acc, jac


def _quadratic_gamma(qd, n_rows, rows, cols, h_entry, h_col, h_val):
    """``γ = −q̇ᵀHq̇`` by row (length ``n_rows``)."""
    jd = np.zeros(len(rows))
    for i in range(len(h_entry)):
        jd[h_entry[i]] += h_val[i] * qd[h_col[i]]
    acc = np.zeros(n_rows)
    for e in range(len(rows)):
        acc[rows[e]] += jd[e] * qd[cols[e]]
    return np.zeros(n_rows) - acc


def _factor(values, blk_entry, blk_flat, n_flat, p_off, p_size, p_row):
    """``(lu, piv, ok)``: the parts' blocks from ``values`` (``lu[blk_flat[i]] +=
    values[blk_entry[i]]``), each LU-factorised in place; ``piv[p_row[p] + k]`` is the
    row swapped with row ``k`` of part ``p``; ``ok`` False if a block is singular."""
    lu = np.zeros(n_flat)
    for i in range(len(blk_entry)):
        lu[blk_flat[i]] += values[blk_entry[i]]
    piv = np.empty(p_row[-1], np.int64)
    ok = True
    for p in range(len(p_size)):
        s, o, r0 = p_size[p], p_off[p], p_row[p]
        for k in range(s):
            best, big = k, abs(lu[o + k * s + k])
            for i in range(k + 1, s):
                v = abs(lu[o + i * s + k])
                if v > big:
                    best, big = i, v
            piv[r0 + k] = best
            if big == 0.0:
                ok = False
                continue
            if best != k:
                for j in range(s):
                    a, b = o + k * s + j, o + best * s + j
                    lu[a], lu[b] = lu[b], lu[a]
            inv = 1.0 / lu[o + k * s + k]
            for i in range(k + 1, s):
                f = lu[o + i * s + k] * inv
                lu[o + i * s + k] = f
                if f != 0.0:
                    for j in range(k + 1, s):
                        lu[o + i * s + j] -= f * lu[o + k * s + j]
    return lu, piv, ok


def _solve(lu, piv, values, p_off, p_size, p_row, rows, cols, c_ptr, c_entry, c_pos, c_col, rhs):
    """Block forward substitution over the parts (see the module docstring): ``rhs`` over
    the level's local rows (n_rows × k), the result over its columns (n_cols × k)."""
    k = rhs.shape[1]
    out = np.zeros((len(cols), k))
    y = np.empty((int(p_size.max()) if len(p_size) else 0, k))
    for p in range(len(p_size)):
        s, o, r0 = p_size[p], p_off[p], p_row[p]
        for i in range(s):
            for j in range(k):
                y[i, j] = rhs[rows[r0 + i], j]
        for e in range(c_ptr[p], c_ptr[p + 1]):
            v, i, c = values[c_entry[e]], c_pos[e], c_col[e]
            for j in range(k):
                y[i, j] -= v * out[c, j]
        for i in range(s):  # row swaps in factorisation order
            t = piv[r0 + i]
            if t != i:
                for j in range(k):
                    y[i, j], y[t, j] = y[t, j], y[i, j]
        for i in range(1, s):  # unit lower factor
            for m in range(i):
                f = lu[o + i * s + m]
                if f != 0.0:
                    for j in range(k):
                        y[i, j] -= f * y[m, j]
        for i in range(s - 1, -1, -1):  # upper factor
            for m in range(i + 1, s):
                u = lu[o + i * s + m]
                if u != 0.0:
                    for j in range(k):
                        y[i, j] -= u * y[m, j]
            d = lu[o + i * s + i]
            for j in range(k):
                y[i, j] /= d
        for i in range(s):
            for j in range(k):
                out[cols[r0 + i], j] = y[i, j]
    return out


if AVAILABLE:
    quadratic = njit(**_OPTS)(_quadratic)
    quadratic_gamma = njit(**_OPTS)(_quadratic_gamma)
    factor = njit(**_OPTS)(_factor)
    solve = njit(**_OPTS)(_solve)
else:  # pragma: no cover - depends on the installation
    quadratic = quadratic_gamma = factor = solve = None
