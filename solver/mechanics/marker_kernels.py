"""Compiled (Numba, cached on disk) evaluation of the rigid-body markers of a ``Markers``
table: one loop over the markers instead of a dozen batched NumPy products (a quarter of a
millisecond per evaluation for the 512 markers of a 256-body chain).

Rigid marker ``k`` (row ``rows[k]`` of the table) on a body with coordinates
``q[cols[k]] = [r, p]``: ``S(p, s̄)`` (3×4, linear in p) is ``Σₑ pₑ W[k, e]`` with the
constant ``W[k] = [S(e₀, s̄), …, S(e₃, s̄)]`` (4 × 12), and

    u = ½ S(p, s̄) p + r (points; directions without r),   J[:, 3:7] = S(p, s̄),
    u̇ = S(p, s̄) ṗ + ṙ,   J̇q̇ = S(ṗ, s̄) ṗ.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def rigid_markers(q, qd, rows, cols, w, point, u, udot, jac, jdq, sjd):  # pragma: no cover
    """Fill ``u``, ``u̇``, ``J[:, :, 3:7]`` and ``J̇q̇`` at ``rows`` and ``sjd[k] = S(ṗ, s̄)``
    (``point[k]``: 1.0 for a point, 0.0 for a direction)."""
    sj = np.empty((3, 4))
    for k in range(rows.shape[0]):
        i = rows[k]
        c = cols[k]
        for a in range(3):
            for b in range(4):
                s = 0.0
                sd = 0.0
                for e in range(4):
                    s += q[c[3 + e]] * w[k, e, 4 * a + b]
                    sd += qd[c[3 + e]] * w[k, e, 4 * a + b]
                sj[a, b] = s
                sjd[k, a, b] = sd
                jac[i, a, 3 + b] = s
        for a in range(3):
            up = 0.0
            ud = 0.0
            jd = 0.0
            for b in range(4):
                up += sj[a, b] * q[c[3 + b]]
                ud += sj[a, b] * qd[c[3 + b]]
                jd += sjd[k, a, b] * qd[c[3 + b]]
            u[i, a] = 0.5 * up + point[k] * q[c[a]]
            udot[i, a] = ud + point[k] * qd[c[a]]
            jdq[i, a] = jd
