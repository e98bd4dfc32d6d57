"""The body states and output points of a results row, written in one call.

``slots`` lists the bodies whose state the kernel writes, one row ``(code, offset, column)``
each: ``RIGID_STATE`` writes ``[x y z e0 e1 e2 e3 vx vy vz wx wy wz]`` from the seven
coordinates ``[r, p]`` at ``q[offset:]`` (centre of mass, the normalised Euler parameters
``p̂ = p/|p|``, velocity ṙ, global ω = 2 E(p̂) ṗ), ``POINT_STATE`` writes ``[x y z vx vy vz]``;
both from ``row[start + column]`` on. The output points (a marker table of their own,
:mod:`solver.kernels.markers`) follow at ``row[start + points]``: ``[x y z vx vy vz]`` each.
SI units throughout.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.markers import evaluate_markers
from solver.kernels.rotations import omega_into

RIGID_STATE, POINT_STATE = 0, 1


@kernel(full_optimisation=True)
def write_states(slots, points, kind, cols, local, point, coef, q, qd, row, start):
    """Write the states of ``slots`` and the output points of the marker table
    ``(kind, cols, local, point, coef)`` at ``(q, q̇)`` into ``row`` (module docstring)."""
    p = np.empty(4)
    for s in range(slots.shape[0]):
        o, c = slots[s, 1], start + slots[s, 2]
        if slots[s, 0] == RIGID_STATE:
            e0, e1, e2, e3 = q[o + 3], q[o + 4], q[o + 5], q[o + 6]
            norm = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)
            p[0], p[1], p[2], p[3] = e0 / norm, e1 / norm, e2 / norm, e3 / norm
            for i in range(3):
                row[c + i] = q[o + i]
                row[c + 7 + i] = qd[o + i]
            for i in range(4):
                row[c + 3 + i] = p[i]
            omega_into(p, 0, qd[o + 3 : o + 7], row, c + 10)
        else:
            for i in range(3):
                row[c + i] = q[o + i]
                row[c + 3 + i] = qd[o + i]
    if kind.shape[0]:
        values = evaluate_markers(kind, cols, local, point, coef, q, qd, True)
        u, ud = values[0], values[1]
        for k in range(kind.shape[0]):
            c = start + points + 6 * k
            for i in range(3):
                row[c + i] = u[k, i]
                row[c + 3 + i] = ud[k, i]
