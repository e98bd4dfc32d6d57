"""Numerical rank of a large sparse constraint Jacobian by blocked QR elimination.

A dense SVD of ``Φ_q`` costs O(n³) time and O(n²) memory: minutes and gigabytes for a few
thousand bodies. Here the columns are grouped by body (an ANCF beam by node, at most
``GROUP_SIZE`` columns per group) and eliminated one group at a time, in a minimum-degree
order of the graph whose edges join the groups that share a row (a chain is eliminated
from its ends, so the work is linear in the number of bodies):

* the *front* of group g is the set of active rows with an entry in g's columns;
* a Householder QR with column pivoting of the front restricted to g's columns,
  ``Qᵀ F_g = [R; 0]``, gives ``r_g`` pivots above the tolerance (g's share of the rank);
* ``Qᵀ`` applied to the rest of the front leaves ``k − r_g`` rows free of g's columns:
  they replace the front in the active set (a row left with no entry above the tolerance
  is a *dependent* row: a combination of the original rows that vanishes).

This is a sparse QR factorisation (Heath's method with local column pivoting), so the
rank is ``Σ r_g`` and every dependent row gives a vector ``y`` of the left null space,
``Φ_qᵀ y ≈ 0``, recovered by applying the stored ``Q`` of the steps it came through in
reverse order; its support names the constraints involved in the redundancy.

The tolerance is ``RELATIVE_TOLERANCE`` times the largest row norm of the matrix (the rows
mix metres and radians like the dense rank's singular values do). The largest and smallest
pivots |R_ii| estimate the extreme singular values (within the usual factors of a
rank-revealing QR), which is what a warning near a singular position needs.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from solver.lazy_scipy import lapack
from solver.lazy_scipy import sparse as sp

GROUP_SIZE = 12
RELATIVE_TOLERANCE = 1e-10
#: coefficients below this fraction of a null vector's largest are dropped while it is
#: carried back through the elimination (keeps the sweep local to the redundancy)
PRUNE = 1e-13


@dataclass
class BlockedRank:
    """Rank, pivot magnitudes and the left-null-space vectors of a sparse matrix."""

    rank: int
    pivots: np.ndarray
    #: one dense vector ``y`` (length = rows) per dependent row, ``Aᵀ y ≈ 0``
    left_null: list[np.ndarray] = field(default_factory=list)


def column_groups(n: int, ranges: list[tuple[int, int]]) -> list[np.ndarray]:
    """Column index groups: each ``[start, stop)`` range split into chunks of at most
    ``GROUP_SIZE``; columns in no range form groups of their own."""
    groups: list[np.ndarray] = []
    covered = np.zeros(n, bool)
    for start, stop in ranges:
        for a in range(start, stop, GROUP_SIZE):
            groups.append(np.arange(a, min(a + GROUP_SIZE, stop)))
        covered[start:stop] = True
    groups += [np.array([c]) for c in np.flatnonzero(~covered)]
    return groups


def minimum_degree_order(row_groups: list[np.ndarray], n_groups: int) -> list[int]:
    """Greedy minimum-degree elimination order of the groups (ties: lowest index)."""
    adj: list[set[int]] = [set() for _ in range(n_groups)]
    for gs in row_groups:
        if len(gs) > 1:
            members = set(gs.tolist())
            for a in members:
                adj[a] |= members
    for a in range(n_groups):
        adj[a].discard(a)
    heap = [(len(adj[g]), g) for g in range(n_groups)]
    heapq.heapify(heap)
    done = np.zeros(n_groups, bool)
    order = []
    while heap:
        deg, g = heapq.heappop(heap)
        if done[g] or deg != len(adj[g]):
            continue
        done[g] = True
        order.append(g)
        nb = adj[g]
        for a in nb:
            adj[a].discard(g)
            adj[a] |= nb
            adj[a].discard(a)
            heapq.heappush(heap, (len(adj[a]), a))
        adj[g] = set()
    return order


def blocked_rank(a, groups: list[np.ndarray], left_null: bool = True) -> BlockedRank:
    """Rank of ``a`` (``m × n``, sparse) by blocked QR over the column ``groups`` (ranges
    of consecutive columns that partition them, each at most a few dozen columns);
    ``left_null``: also the left null vectors.

    Rank decisions are local (Heath's method): a group's pivot is compared with the
    tolerance after the groups eliminated before it, which is reliable for the exact
    dependencies of redundant constraints; the smallest kept pivot only estimates the
    smallest singular value (it can be smaller when the null space spreads over many
    groups, as a mechanism's freedoms do)."""
    a = sp.csr_matrix(a)
    m, n = a.shape
    if m == 0 or a.nnz == 0:
        return BlockedRank(0, np.zeros(0), [_unit(m, i) for i in range(m)] if left_null else [])
    row_norm = np.sqrt(np.asarray(a.multiply(a).sum(axis=1)).ravel())
    tol = RELATIVE_TOLERANCE * float(row_norm.max())
    group_of = np.empty(n, np.int64)
    first = np.empty(len(groups), np.int64)
    for g, cols in enumerate(groups):
        group_of[cols] = g
        first[g] = cols[0]
        if len(cols) != cols[-1] - cols[0] + 1:
            raise ValueError("column groups must be ranges of consecutive columns")
    # rows: original ids 0..m-1, produced rows m, m+1, …
    a = a.copy()
    a.eliminate_zeros()
    counts = np.diff(a.indptr)
    r_cols: list[np.ndarray] = np.split(a.indices, a.indptr[1:-1])
    r_vals: list[np.ndarray] = np.split(a.data, a.indptr[1:-1])
    row_max = np.zeros(m)
    filled = counts > 0
    row_max[filled] = np.maximum.reduceat(np.abs(a.data), a.indptr[:-1][filled])
    pairs = np.unique(np.repeat(np.arange(m), counts) * len(groups) + group_of[a.indices])
    per_row = np.split(pairs % len(groups), np.searchsorted(pairs // len(groups), np.arange(1, m)))
    r_groups: list[set[int]] = [set(g.tolist()) for g in per_row]
    active: list[set[int]] = [set() for _ in groups]
    dependent: list[tuple[int, int]] = []  # (step, local index) or (-1, original row)
    for i in range(m):
        if row_max[i] <= tol:
            dependent.append((-1, i))
            continue
        for g in r_groups[i]:
            active[g].add(i)
    order = minimum_degree_order(per_row, len(groups))
    pos = np.full(n, -1, np.int64)
    pivots: list[np.ndarray] = []
    steps: list[tuple[list[int], np.ndarray]] = []  # (input row ids, Q)
    origin: dict[int, tuple[int, int]] = {}  # produced row id → (step, local index)
    rank = 0
    for g in order:
        ids = sorted(active[g])
        if not ids:
            continue
        g0, ng = int(first[g]), len(groups[g])
        allc = np.unique(np.concatenate([r_cols[i] for i in ids]))
        other = allc[(allc < g0) | (allc >= g0 + ng)]
        pos[g0 : g0 + ng] = np.arange(ng)
        pos[other] = ng + np.arange(len(other))
        front = np.zeros((len(ids), ng + len(other)), order="F")
        for k, i in enumerate(ids):
            front[k, pos[r_cols[i]]] = r_vals[i]
        pos[g0 : g0 + ng] = -1
        pos[other] = -1
        qr, _, tau, _, _ = lapack.dgeqp3(front[:, :ng])
        kk = min(len(ids), ng)
        diag = np.abs(np.diag(qr)[:kk])
        rk = int(np.sum(diag > tol))
        rank += rk
        pivots.append(diag[:rk])
        rest = front[:, ng:]
        if kk and rest.shape[1]:
            rest, _, _ = lapack.dormqr(
                "L", "T", qr[:, :kk], tau[:kk], rest, lwork=max(1, rest.shape[1]) * 64
            )
        step = len(steps)
        if left_null:
            q = np.eye(len(ids))
            if kk:
                q, _, _ = lapack.dormqr("L", "N", qr[:, :kk], tau[:kk], q, lwork=len(ids) * 64)
            steps.append((ids, q))
        else:
            steps.append(([], _EMPTY))
        for i in ids:
            for h in r_groups[i]:
                active[h].discard(i)
        for j in range(rk, len(ids)):
            row = rest[j]
            big = np.abs(row)
            keep = big > PRUNE * tol
            if not keep.any() or big.max() <= tol:
                dependent.append((step, j))
                continue
            new = len(r_cols)
            cols = other[keep]
            gs = set(group_of[cols].tolist())
            r_cols.append(cols)
            r_vals.append(row[keep])
            r_groups.append(gs)
            origin[new] = (step, j)
            for h in gs:
                active[h].add(new)
    piv = np.concatenate(pivots) if pivots else np.zeros(0)
    vectors = [_carry_back(d, steps, origin, m) for d in dependent] if left_null else []
    return BlockedRank(rank, piv, vectors)


_EMPTY = np.zeros((0, 0))


def _unit(m: int, i: int) -> np.ndarray:
    y = np.zeros(m)
    y[i] = 1.0
    return y


def _carry_back(dep, steps, origin, m: int) -> np.ndarray:
    """The left null vector over the original rows of the dependent row ``dep``."""
    step, j = dep
    if step < 0:
        return _unit(m, j)
    y = np.zeros(m)
    pending: dict[int, np.ndarray] = {}
    ids, q = steps[step]
    pending[step] = np.zeros(len(ids))
    pending[step][j] = 1.0
    heap = [-step]
    while heap:
        s = -heapq.heappop(heap)
        c = pending.pop(s)
        ids, q = steps[s]
        coef = q @ c  # combination of the step's input rows
        big = float(np.abs(coef).max())
        for i, v in zip(ids, coef, strict=True):
            if abs(v) <= PRUNE * big:
                continue
            if i < m:
                y[i] += v
                continue
            s2, j2 = origin[i]
            if s2 not in pending:
                pending[s2] = np.zeros(len(steps[s2][0]))
                heapq.heappush(heap, -s2)
            pending[s2][j2] += v
    return y
