"""Reverse Cuthill–McKee renumbering of a symmetric sparsity pattern.

Cuthill and McKee (1969) number a connected graph level by level, breadth first from a
node of low degree, each node's unnumbered neighbours in increasing degree; reversing
that order (George, 1971) gives the same bandwidth and less fill in a band or envelope
factorisation. Here each connected part starts from its node of lowest degree (ties: the
lowest index), and neighbours of equal degree keep their order in the pattern.

The patterns are those of the iteration matrices (a few entries per coordinate), so a
plain breadth-first search over Python lists is fast enough (about a microsecond per
entry) and keeps SciPy's sparse modules, a tenth of a second to import, out of a small
run's start-up.
"""

from __future__ import annotations

import numpy as np


def reverse_cuthill_mckee(ptr: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The renumbering ``perm`` (new → old) of the symmetric pattern whose row ``i`` holds
    the columns ``cols[ptr[i]:ptr[i + 1]]`` (compressed rows, ``n = len(ptr) − 1``; the
    diagonal may be there or not)."""
    n = len(ptr) - 1
    bounds = np.asarray(ptr, np.int64).tolist()
    neighbours = np.asarray(cols, np.int64).tolist()
    degree = np.diff(np.asarray(ptr, np.int64))
    by_degree = degree.tolist().__getitem__
    seen = bytearray(n)
    order: list[int] = []
    for seed in np.argsort(degree, kind="stable").tolist():
        if seen[seed]:
            continue
        seen[seed] = 1
        order.append(seed)
        head = len(order) - 1
        while head < len(order):
            i = order[head]
            head += 1
            fresh = []
            for j in neighbours[bounds[i] : bounds[i + 1]]:
                if not seen[j]:
                    seen[j] = 1
                    fresh.append(j)
            fresh.sort(key=by_degree)  # stable: equal degrees keep the pattern's order
            order.extend(fresh)
    return np.array(order[::-1], dtype=np.int64)
