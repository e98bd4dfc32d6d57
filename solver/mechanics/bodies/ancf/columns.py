"""Nodal coordinates that are not columns of ``q``: the eliminated ones.

A node vector tied by a ``share`` joint to a rigid body that cannot take it as a basic
entity is a linear combination of the body's coordinates (``node_sharing``): its values are
``x_dep = D q + c`` with a constant matrix ``D`` and constant ``c``. The ANCF elements gather
their coordinates from the *extended* vector

    x = [q; D q + c] = T q + [0; c],   T = [I; D],

whose first ``n`` entries are ``q`` itself (own and shared columns) and whose last entries
are the eliminated ones (columns ``n, n + 1, …`` of ``x``). Everything an element computes
over ``x`` is brought back to ``q`` with the constant ``T`` (García Vallejo (2006) §4.4, the
sequential reduction ``q = T q₀``): forces ``Tᵀ f``, matrices ``Tᵀ K T``, markers
``C x[cols] = C T[cols] q + C c[cols]``. Velocities and accelerations follow with ``T``
alone (``c`` is constant).
"""

from __future__ import annotations

import numpy as np

from solver.lazy_scipy import sparse as sp


class Eliminated:
    """``x = [q; D q + c]`` for ``rows`` = ``[(q columns, coefficients, constant), …]``
    (one per eliminated coordinate), ``n`` = size of ``q``."""

    def __init__(self, n: int, rows: list[tuple[np.ndarray, np.ndarray, float]]) -> None:
        self.n = n
        self.count = len(rows)
        r, c, v = [], [], []
        self.const = np.zeros(self.count)
        for i, (cols, coef, const) in enumerate(rows):
            r.append(np.full(len(cols), i))
            c.append(np.asarray(cols, np.int64))
            v.append(np.asarray(coef, float))
            self.const[i] = const
        empty = np.zeros(0, np.int64)
        self.D = sp.csr_matrix(
            (
                np.concatenate(v) if v else np.zeros(0),
                (np.concatenate(r) if r else empty, np.concatenate(c) if c else empty),
            ),
            shape=(self.count, n),
        )
        self.columns = np.unique(self.D.indices)  # the q columns the eliminated ones read
        # D's entries as flat arrays: row of each, its q column, its weight (numpy folds)
        self._row = np.repeat(np.arange(self.count), np.diff(self.D.indptr))
        self._col = self.D.indices.astype(np.int64)
        self._w = self.D.data.copy()

    @property
    def size(self) -> int:
        """Length of the extended vector."""
        return self.n + self.count

    def _times(self, q: np.ndarray) -> np.ndarray:
        """``D q``."""
        return np.bincount(self._row, weights=self._w * q[self._col], minlength=self.count)

    def extend(self, q: np.ndarray) -> np.ndarray:
        """``[q; D q + c]``."""
        if not self.count:
            return q
        return np.concatenate([q, self._times(q) + self.const])

    def rates(self, qd: np.ndarray) -> np.ndarray:
        """``[q̇; D q̇]``."""
        if not self.count:
            return qd
        return np.concatenate([qd, self._times(qd)])

    def vector(self, f: np.ndarray) -> np.ndarray:
        """``Tᵀ f`` of a vector over the extended coordinates."""
        if not self.count:
            return f
        return f[: self.n] + np.bincount(
            self._col, weights=self._w * f[self.n + self._row], minlength=self.n
        )

    def fold_entries(self, rows: np.ndarray, cols: np.ndarray):
        """The entries of ``Tᵀ K T`` for a matrix ``K`` with values at the extended positions
        ``(rows, cols)``: ``(source entry, weight, row, column)`` such that ``Tᵀ K T`` has
        ``weight · value[source]`` at ``(row, column)`` (duplicates to be summed). Entries
        of ``q`` columns stay where they are; the others spread over the products of their
        row's and column's combinations."""
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        mixed = np.flatnonzero((rows >= self.n) | (cols >= self.n))
        plain = np.flatnonzero((rows < self.n) & (cols < self.n))
        src, w, r, c = [plain], [np.ones(len(plain))], [rows[plain]], [cols[plain]]
        for k in mixed:
            rw, rc = self._support(rows[k])
            cw, cc = self._support(cols[k])
            src.append(np.full(len(rc) * len(cc), k))
            w.append(np.outer(rw, cw).ravel())
            r.append(np.repeat(rc, len(cc)))
            c.append(np.tile(cc, len(rc)))
        return (
            np.concatenate(src).astype(np.int64),
            np.concatenate(w),
            np.concatenate(r).astype(np.int64),
            np.concatenate(c).astype(np.int64),
        )

    def _support(self, x: int) -> tuple[np.ndarray, np.ndarray]:
        """The row of ``T`` of extended index ``x``: (weights, q columns)."""
        if x < self.n:
            return np.ones(1), np.array([x], np.int64)
        lo, hi = self.D.indptr[x - self.n], self.D.indptr[x - self.n + 1]
        return self.D.data[lo:hi], self.D.indices[lo:hi].astype(np.int64)

    def expand(self, cols, coef: np.ndarray) -> tuple[list[int], np.ndarray, np.ndarray]:
        """``coef @ x[cols]`` as ``(q columns, coefficients, constant)``: each eliminated
        column replaced by its combination, repeated columns merged."""
        coef = np.asarray(coef, float).reshape(-1, len(cols))
        weights: dict[int, np.ndarray] = {}
        const = np.zeros(coef.shape[0])
        for i, col in enumerate(cols):
            col = int(col)
            if col < self.n:
                weights[col] = weights.get(col, 0.0) + coef[:, i]
                continue
            row = col - self.n
            const += coef[:, i] * self.const[row]
            lo, hi = self.D.indptr[row], self.D.indptr[row + 1]
            for qc, w in zip(self.D.indices[lo:hi], self.D.data[lo:hi], strict=True):
                weights[int(qc)] = weights.get(int(qc), 0.0) + coef[:, i] * w
        out = sorted(weights)
        block = np.column_stack([weights[c] for c in out]) if out else np.zeros((coef.shape[0], 0))
        return out, block, const
