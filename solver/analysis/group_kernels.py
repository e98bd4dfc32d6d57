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
and right-hand side. The callers use their NumPy paths when :func:`enabled` says so (the
solver's policy for compiled code). Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import NO, kernel
from solver.mechanics.kernel_cache import compiled_kernels


def enabled() -> bool:
    """Whether the kernels run in this process: the solver's policy for compiled code
    (``kernel_cache.compiled_kernels``: ``BIELA_COMPILED``, or in ``auto`` mode a warm
    cache)."""
    return compiled_kernels()


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


def _angle(q, qd, want_gamma, c, cd, cdd, x, y):
    """Angle rows ``Φ = wrap(atan2(y, x) − c)`` from the quadratic forms ``x`` and ``y``
    (each a tuple ``(κ, g, rows, cols, h_entry, h_col, h_val)``), with the targets
    ``c, ċ, c̈``: ``(Φ, Φ_t, γ (zeros without want_gamma), Jacobian values over x's
    entries then y's)`` — ``group_evaluation._AnglePart``'s formulas."""
    xs, jx = quadratic(q, *x)
    ys, jy = quadratic(q, *y)
    m = len(xs)
    phi, phit, gamma = np.empty(m), np.empty(m), np.zeros(m)
    tx, ty = np.empty(m), np.empty(m)
    for r in range(m):
        r2 = xs[r] * xs[r] + ys[r] * ys[r]
        tx[r], ty[r] = -ys[r] / r2, xs[r] / r2
        a = np.arctan2(ys[r], xs[r]) - c[r]
        phi[r] = (a + np.pi) % (2.0 * np.pi) - np.pi
        phit[r] = -cd[r]
    if want_gamma:
        gx = quadratic_gamma(qd, m, x[2], x[3], x[4], x[5], x[6])
        gy = quadratic_gamma(qd, m, y[2], y[3], y[4], y[5], y[6])
        xd, yd = np.zeros(m), np.zeros(m)
        for e in range(len(jx)):
            xd[x[2][e]] += jx[e] * qd[x[3][e]]
        for e in range(len(jy)):
            yd[y[2][e]] += jy[e] * qd[y[3][e]]
        for r in range(m):
            r4 = (xs[r] * xs[r] + ys[r] * ys[r]) ** 2
            txx = 2 * xs[r] * ys[r] / r4
            tyy = -2 * xs[r] * ys[r] / r4
            txy = (ys[r] * ys[r] - xs[r] * xs[r]) / r4
            quad = -tx[r] * gx[r] - ty[r] * gy[r] + txx * xd[r] * xd[r]
            quad = quad + 2.0 * txy * xd[r] * yd[r]
            quad = quad + tyy * yd[r] * yd[r]
            gamma[r] = -quad + cdd[r]
    values = np.empty(len(jx) + len(jy))
    for e in range(len(jx)):
        values[e] = tx[x[2][e]] * jx[e]
    for e in range(len(jy)):
        values[len(jx) + e] = ty[y[2][e]] * jy[e]
    return phi, phit, gamma, values


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


def _solve(
    lu, piv, values, p_off, p_size, p_row, rows, cols, c_ptr, c_entry, c_pos, c_col, rhs, out
):
    """Block forward substitution over the parts (see the module docstring), one
    right-hand side after the other: ``rhs`` (k × level rows) by local row, the solution
    written into ``out`` (k × anything) at columns ``cols`` (the coupling entries read
    ``out`` at ``c_col``, so both index the same columns)."""
    y = np.empty(int(p_size.max()) if len(p_size) else 0)
    for j in range(rhs.shape[0]):
        b, x = rhs[j], out[j]
        for p in range(len(p_size)):
            s, o, r0 = p_size[p], p_off[p], p_row[p]
            for i in range(s):
                y[i] = b[rows[r0 + i]]
            for e in range(c_ptr[p], c_ptr[p + 1]):
                y[c_pos[e]] -= values[c_entry[e]] * x[c_col[e]]
            for i in range(s):  # row swaps in factorisation order
                t = piv[r0 + i]
                if t != i:
                    y[i], y[t] = y[t], y[i]
            for i in range(1, s):  # unit lower factor
                acc = y[i]
                for m in range(i):
                    acc -= lu[o + i * s + m] * y[m]
                y[i] = acc
            for i in range(s - 1, -1, -1):  # upper factor
                acc = y[i]
                for m in range(i + 1, s):
                    acc -= lu[o + i * s + m] * y[m]
                y[i] = acc / lu[o + i * s + i]
            for i in range(s):
                x[cols[r0 + i]] = y[i]


#: ``newton`` status codes
NEWTON_OK, NEWTON_DIVERGED, NEWTON_SINGULAR = 0, 1, 2


def _rows(q, form, angle_rows):
    """``(Φ, Jacobian values)`` of quadratic rows (``form``) and at most one set of angle
    rows ``(local rows, targets c, x form, y form)`` (none: no local rows), in the layout
    of ``RowSet.evaluate``: the angle rows' Φ at their local rows, their Jacobian values
    after the quadratic rows'."""
    phi, jac = quadratic(q, *form)
    loc, c, x, y = angle_rows
    if len(loc) == 0:
        return phi, jac
    phi_a, _, _, values_a = angle(q, q, NO, c, c, c, x, y)
    for r in range(len(loc)):
        phi[loc[r]] = phi_a[r]
    return phi, np.concatenate((jac, values_a))


def _newton(q, tol, max_iterations, polish, max_polish, form, angle_rows, plan):
    """Newton–Raphson on one level whose rows are quadratic and angle rows (see ``_rows``;
    ``plan``: ``(blk_entry, blk_flat, n_flat, p_off, p_size, p_row, rows, cols, c_ptr,
    c_entry, c_pos, c_col, level_cols)`` of the level), ``q`` updated in place: the loop
    of ``GroupKinematics.position`` step for step (the same stopping rules and the same
    operations). Returns ``(status, iterations, residual, last iteration index, Φ,
    Jacobian values)`` at the last evaluation."""
    blk_entry, blk_flat, n_flat, p_off, p_size, p_row = plan[:6]
    rows, cols, c_ptr, c_entry, c_pos, c_col, level_cols = plan[6:]
    extra, prev, iterations = 0, np.inf, 0
    x = np.zeros((1, len(level_cols)))
    phi, jac = _rows(q, form, angle_rows)
    err = 0.0
    for it in range(max_iterations + 1):
        if it > 0:
            phi, jac = _rows(q, form, angle_rows)
        err = 0.0
        for v in phi:  # max |Φ|, NaN propagating like NumPy's
            a = abs(v)
            if a > err or a != a:
                err = a
        if err <= tol:
            if err <= polish * tol or err > 0.25 * prev or extra == max_polish:
                return NEWTON_OK, iterations, err, it, phi, jac
            extra += 1
        prev = err
        if it == max_iterations or not np.isfinite(err):
            return NEWTON_DIVERGED, iterations, err, it, phi, jac
        lu, piv, ok = factor(jac, blk_entry, blk_flat, n_flat, p_off, p_size, p_row)
        if not ok:
            return NEWTON_SINGULAR, iterations, err, it, phi, jac
        x[0, :] = 0.0
        b = phi.reshape((1, len(phi)))
        solve(lu, piv, jac, p_off, p_size, p_row, rows, cols, c_ptr, c_entry, c_pos, c_col, b, x)
        for c in range(x.shape[1]):
            if not np.isfinite(x[0, c]):
                return NEWTON_SINGULAR, iterations, err, it, phi, jac
        for c in range(x.shape[1]):
            q[level_cols[c]] -= x[0, c]
        iterations += 1
    return NEWTON_DIVERGED, iterations, err, max_iterations, phi, jac


quadratic = kernel(_quadratic)
quadratic_gamma = kernel(_quadratic_gamma)
angle = kernel(_angle)
factor = kernel(_factor)
solve = kernel(_solve)
_rows = kernel(_rows)
newton = kernel(_newton)
