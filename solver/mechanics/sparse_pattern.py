"""A sparse matrix pattern fixed once: values at known ``(row, column)`` positions."""

from __future__ import annotations

import numpy as np

from solver.lazy_scipy import sparse as sp


class FixedPattern:
    """CSR storage of values at fixed ``(row, column)`` positions, duplicates summed.

    The map from entries to CSR slots is computed once; each ``csr(values)`` then costs
    one ``add.at`` (a gather when no two entries share a position) and a constructor that
    finds indices already sorted (no COO sort). The matrices share this pattern's index
    arrays (consumers can recognise the pattern by identity): never modify them in place.
    """

    def __init__(
        self, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int], keep=None
    ) -> None:
        """``keep`` (optional, boolean over the entries): only those entries are stored;
        ``csr(values)`` then takes the values of all entries and ignores the others."""
        n = shape[1]
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        kept = np.arange(len(rows)) if keep is None else np.flatnonzero(keep)
        key = rows[kept] * n + cols[kept]
        unique, slot = np.unique(key, return_inverse=True)
        index = np.int32 if max(len(unique), n, shape[0]) < 2**31 - 1 else np.int64
        self.indices = (unique % n).astype(index)
        self.indptr = np.searchsorted(unique // n, np.arange(shape[0] + 1)).astype(index)
        self.shape = shape
        self.size = len(rows)
        self._take = None
        if len(unique) == len(key):  # distinct positions: data = values[take]
            self._take = kept[np.argsort(slot)]
        # else: summed with add.at; an entry not kept goes to a spare last slot
        self.slot = np.full(len(rows), len(unique), np.int64)
        self.slot[kept] = slot

    def csr(self, values: np.ndarray) -> sp.csr_matrix:
        if self._take is not None:
            data = np.asarray(values, float)[self._take]
        else:  # ufunc.at: the order of bincount's sums, at half its cost here
            data = np.zeros(len(self.indices) + 1)
            np.add.at(data, self.slot, values)
            data = data[:-1]
        return sp.csr_matrix((data, self.indices, self.indptr), shape=self.shape, copy=False)
