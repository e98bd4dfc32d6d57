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
import scipy.sparse as sp


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
        self.T = sp.vstack([sp.identity(n, format="csr"), self.D]).tocsr()
        self.columns = np.unique(self.D.indices)  # the q columns the eliminated ones read

    @property
    def size(self) -> int:
        """Length of the extended vector."""
        return self.n + self.count

    def extend(self, q: np.ndarray) -> np.ndarray:
        """``[q; D q + c]``."""
        if not self.count:
            return q
        return np.concatenate([q, self.D @ q + self.const])

    def rates(self, qd: np.ndarray) -> np.ndarray:
        """``[q̇; D q̇]``."""
        if not self.count:
            return qd
        return np.concatenate([qd, self.D @ qd])

    def vector(self, f: np.ndarray) -> np.ndarray:
        """``Tᵀ f`` of a vector over the extended coordinates."""
        if not self.count:
            return f
        return f[: self.n] + self.D.T @ f[self.n :]

    def matrix(self, k):
        """``Tᵀ K T`` of a sparse matrix over the extended coordinates (CSR)."""
        if k is None or not self.count:
            return k
        return (self.T.T @ k @ self.T).tocsr()

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
