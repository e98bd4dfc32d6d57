"""Euler parameters of a rotation matrix by Shepperd's method, one source for both ways
it runs: compiled as :func:`solver.kernels.rotations.quaternion_into` (the results rows
of natural-coordinate bodies) and as plain Python where a model is built
(:func:`solver.mechanics.rotations.quaternion_from_matrix`: the importers and generators,
which need no Numba).

Shepperd (1978): the largest of ``tr A`` and the diagonal entries chooses the parameter
computed by its square root, the others follow by the off-diagonal sums and differences.
"""

from __future__ import annotations

import numpy as np


def quaternion_into(a, out, o):
    """Euler parameters ``[e0, e1, e2, e3]`` of the rotation matrix ``a`` (3 × 3) into
    ``out[o : o + 4]`` (the largest of the trace and the diagonal entries, the first of
    equal ones, chooses; e0 ≥ 0)."""
    trace = a[0, 0] + a[1, 1] + a[2, 2]
    i, best = 0, trace
    for k in range(3):
        if a[k, k] > best:
            i, best = k + 1, a[k, k]
    if i == 0:
        e0 = 0.5 * np.sqrt(1.0 + trace)
        out[o] = e0
        out[o + 1] = (a[2, 1] - a[1, 2]) / (4 * e0)
        out[o + 2] = (a[0, 2] - a[2, 0]) / (4 * e0)
        out[o + 3] = (a[1, 0] - a[0, 1]) / (4 * e0)
    else:
        j, k = (i % 3) + 1, ((i + 1) % 3) + 1
        ii, jj, kk = i - 1, j - 1, k - 1
        ei = 0.5 * np.sqrt(1.0 + 2 * a[ii, ii] - trace)
        out[o + i] = ei
        out[o] = (a[kk, jj] - a[jj, kk]) / (4 * ei)
        out[o + j] = (a[jj, ii] + a[ii, jj]) / (4 * ei)
        out[o + k] = (a[kk, ii] + a[ii, kk]) / (4 * ei)
    if out[o] < 0.0:
        for m in range(4):
            out[o + m] = -out[o + m]
