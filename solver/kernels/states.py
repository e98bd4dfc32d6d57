"""The body states and output points of a results row, written in one call.

``slots`` lists the bodies whose state the kernel writes, one row ``(code, offset, column)``
each: ``RIGID_STATE`` writes ``[x y z e0 e1 e2 e3 vx vy vz wx wy wz]`` from the seven
coordinates ``[r, p]`` at ``q[offset:]`` (centre of mass, the normalised Euler parameters
``p̂ = p/|p|``, velocity ṙ, global ω = 2 E(p̂) ṗ), ``POINT_STATE`` writes ``[x y z vx vy vz]``;
both from ``row[start + column]`` on. ``NATURAL_STATE`` and ``PLANAR_STATE`` write the
rigid bodies' thirteen columns of a natural-coordinate body from its entities: row
``offset`` of the tables ``natural = (cols, fixed, coef, last)`` gives the column in q of
each entity (−1: fixed, its value ``fixed[offset, entity]``), the coefficients ``coef``
(spatial: the centre of mass's four ``a_g``, then the three body axes' four each, the
axes being the columns of the rotation matrix, whose Euler parameters are taken by
Shepperd's method; planar: the complex ``a_g`` and x axis ``a_x`` of two entities as
``re, im`` pairs, then the body's z), and ``last`` the Euler parameters last written,
whose sign the new ones keep (updated here). The output points (a marker table of their own,
:mod:`solver.kernels.markers`) follow at ``row[start + points]``: ``[x y z vx vy vz]`` each.
SI units throughout.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.markers import evaluate_markers
from solver.kernels.rotations import omega_into, quaternion_into
from solver.kernels.scratch import local

RIGID_STATE, POINT_STATE, NATURAL_STATE, PLANAR_STATE = 0, 1, 2, 3


@kernel(full_optimisation=True)
def write_states(slots, natural, points, kind, cols, local_, point, coef, q, qd, row, start):
    """Write the states of ``slots`` (with the ``natural`` tables) and the output points of
    the marker table ``(kind, cols, local_, point, coef)`` at ``(q, q̇)`` into ``row``
    (module docstring)."""
    p = np.empty(4)
    for s in range(slots.shape[0]):
        o, c = slots[s, 1], start + slots[s, 2]
        if slots[s, 0] == NATURAL_STATE:
            _natural_state(natural, o, q, qd, row, c)
        elif slots[s, 0] == PLANAR_STATE:
            _planar_state(natural, o, q, qd, row, c)
        elif slots[s, 0] == RIGID_STATE:
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
        values = evaluate_markers(kind, cols, local_, point, coef, q, qd, True)
        u, ud = values[0], values[1]
        for k in range(kind.shape[0]):
            c = start + points + 6 * k
            for i in range(3):
                row[c + i] = u[k, i]
                row[c + 3 + i] = ud[k, i]


@kernel(full_optimisation=True)
def _entities_into(natural, b, count, dim, q, qd, e, ed):
    """The values and rates of body ``b``'s first ``count`` entities of ``dim`` coordinates
    into the rows of ``e`` and ``ed`` (their other columns zero)."""
    ent_cols, fixed = natural[0], natural[1]
    for j in range(count):
        col = ent_cols[b, j]
        for i in range(3):
            if i >= dim:
                e[j, i] = ed[j, i] = 0.0
            elif col < 0:
                e[j, i], ed[j, i] = fixed[b, j, i], 0.0
            else:
                e[j, i], ed[j, i] = q[col + i], qd[col + i]


@kernel(full_optimisation=True)
def _keep_sign(last, b, row, c):
    """The Euler parameters at ``row[c : c + 4]`` with the sign of ``last[b]``, kept there."""
    if (
        row[c] * last[b, 0] + row[c + 1] * last[b, 1] + row[c + 2] * last[b, 2]
        + row[c + 3] * last[b, 3] < 0.0
    ):  # fmt: skip
        for i in range(4):
            row[c + i] = -row[c + i]
    for i in range(4):
        last[b, i] = row[c + i]


@kernel(full_optimisation=True)
def _natural_state(natural, b, q, qd, row, c):
    """A spatial natural-coordinate body's state (module docstring)."""
    coef, last = natural[2], natural[3]
    e, ed = local((4, 3)), local((4, 3))
    _entities_into(natural, b, np.int64(4), np.int64(3), q, qd, e, ed)
    for i in range(3):  # r_G = Σ a_g,j e_j, and its rate
        x = v = 0.0
        for j in range(4):
            x += coef[b, j] * e[j, i]
            v += coef[b, j] * ed[j, i]
        row[c + i], row[c + 7 + i] = x, v
    rot, rot_d = local((3, 3)), local((3, 3))
    for k in range(3):  # column k: body axis k
        for i in range(3):
            x = v = 0.0
            for j in range(4):
                x += coef[b, 4 + 4 * k + j] * e[j, i]
                v += coef[b, 4 + 4 * k + j] * ed[j, i]
            rot[i, k], rot_d[i, k] = x, v
    quaternion_into(rot, row, c + 3)
    _keep_sign(last, b, row, c + 3)
    for i in range(3):  # ω = ½ Σ_k u_k × u̇_k
        row[c + 10 + i] = 0.0
    for k in range(3):
        row[c + 10] += rot[1, k] * rot_d[2, k] - rot[2, k] * rot_d[1, k]
        row[c + 11] += rot[2, k] * rot_d[0, k] - rot[0, k] * rot_d[2, k]
        row[c + 12] += rot[0, k] * rot_d[1, k] - rot[1, k] * rot_d[0, k]
    for i in range(3):
        row[c + 10 + i] *= 0.5


@kernel(full_optimisation=True)
def _combine(coef, b, first, e):
    """``Σ_k a_k (e_k,x + i e_k,y)`` of two complex coefficients at ``coef[b, first:]``
    (``re, im`` pairs) over the entities ``e`` (rows): ``(re, im)``."""
    re = im = 0.0
    for k in range(2):
        ar, ai = coef[b, first + 2 * k], coef[b, first + 2 * k + 1]
        re += ar * e[k, 0] - ai * e[k, 1]
        im += ai * e[k, 0] + ar * e[k, 1]
    return re, im


@kernel(full_optimisation=True)
def _planar_state(natural, b, q, qd, row, c):
    """A planar natural-coordinate body's state (module docstring): in the xy plane, its
    rotation about z, at the body's z."""
    coef = natural[2]
    e, ed = local((2, 3)), local((2, 3))
    _entities_into(natural, b, np.int64(2), np.int64(2), q, qd, e, ed)
    ux, uy = _combine(coef, b, np.int64(4), e)
    uxd, uyd = _combine(coef, b, np.int64(4), ed)
    half = 0.5 * np.arctan2(uy, ux)
    row[c + 3], row[c + 4], row[c + 5], row[c + 6] = np.cos(half), 0.0, 0.0, np.sin(half)
    _keep_sign(natural[3], b, row, c + 3)
    row[c], row[c + 1] = _combine(coef, b, np.int64(0), e)
    row[c + 2] = coef[b, 8]
    row[c + 7], row[c + 8] = _combine(coef, b, np.int64(0), ed)
    row[c + 9] = row[c + 10] = row[c + 11] = 0.0
    row[c + 12] = (ux * uyd - uy * uxd) / (ux * ux + uy * uy)
