"""Compiled (Numba, cached on disk) scatter-adds into band storage (``solver.analysis.banded``).

Both add into a flat storage array ``out`` at precomputed slots; the loops replace the
temporaries, gathers and ``bincount`` of the NumPy equivalent (a few hundred microseconds
per matrix of a 256-body chain).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_OPTS = {"cache": True, "nogil": True}


@njit(**_OPTS)
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


@njit(**_OPTS)
def add_scaled(out, slots, data, coef):  # pragma: no cover - compiled
    """``out[slots[k]] += coef · data[k]`` (slots may repeat)."""
    for k in range(slots.shape[0]):
        out[slots[k]] += coef * data[k]
