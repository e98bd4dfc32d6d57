"""Markers: points and directions fixed to bodies, the values every joint and force reads.

A marker table has N markers of four kinds (``kind``):

* ``GROUND``: a fixed global point or direction, ``u = local``;
* ``RIGID``: on a rigid body in reference-point coordinates ``[r, p]`` (columns
  ``cols[k, :7]``): a point ``u = r + ½ S(p, s̄) p`` (``= r + A(p) s̄`` in the homogeneous
  quadratic form, ``local = s̄``) or, with ``point[k] = 0``, a direction ``½ S(p, s̄) p``;
  ``J = [I₃ | S(p, s̄)]`` (directions ``[0 | S]``), ``J̇q̇ = S(ṗ, s̄) ṗ`` and
  ``∂u̇/∂q = [0 | S(ṗ, s̄)]``;
* ``POINT_MASS``: the three coordinates of a point mass, ``J = I₃``;
* ``LINEAR``: an affine function of its columns, ``u = C q[cols] + local`` with the
  constant 3×K matrix ``coef[k]`` (natural coordinates, ANCF nodes): ``J = C``, ``J̇q̇ = 0``.

Arrays: ``cols (N, K)`` column indices (−1 padded; K ≥ 7), ``local (N, 3)``,
``point (N,)`` 1 for a point, 0 for a direction, ``coef (N, 3, K)``. Results:
``u (N, 3)``, ``ud (N, 3)`` (``u̇``), ``jac (N, 3, K)`` (``∂u/∂q`` over ``cols``),
``jdq (N, 3)`` (``J̇q̇``) and ``sjd (N, 3, 4)`` (``S(ṗ, s̄)`` of rigid markers: ``∂u̇/∂q`` in
their Euler-parameter columns).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.rotations import force_hessian, s_entries, s_row

GROUND, RIGID, POINT_MASS, LINEAR = 0, 1, 2, 3


class MarkerValues(NamedTuple):
    """A marker table evaluated at ``(q, q̇)`` (see the module docstring)."""

    u: np.ndarray
    ud: np.ndarray
    jac: np.ndarray
    jdq: np.ndarray
    sjd: np.ndarray


@kernel(full_optimisation=True)
def evaluate_markers(kind, cols, local, point, coef, q, qd, velocity):
    """Every marker at ``(q, q̇)`` (:class:`MarkerValues`; without ``velocity`` the
    velocity terms are zero). One loop, no call per marker: a call passing the ten arrays
    costs more than a marker (each array argument is counted in and out)."""
    n = kind.shape[0]
    ncol = cols.shape[1]
    u = np.zeros((n, 3))
    ud = np.zeros((n, 3))
    jac = np.zeros((n, 3, ncol))
    jdq = np.zeros((n, 3))
    sjd = np.zeros((n, 3, 4))
    for k in range(n):
        kk = kind[k]
        if kk == RIGID:
            o = cols[k, 0]
            x, y, z = local[k, 0], local[k, 1], local[k, 2]
            p0, p1, p2, p3 = q[o + 3], q[o + 4], q[o + 5], q[o + 6]
            sa, sb, sc, sd = s_entries(p0, p1, p2, p3, x, y, z)
            pt = point[k]
            v0 = v1 = v2 = v3 = ta = tb = tc = td = 0.0
            if velocity:
                v0, v1, v2, v3 = qd[o + 3], qd[o + 4], qd[o + 5], qd[o + 6]
                ta, tb, tc, td = s_entries(v0, v1, v2, v3, x, y, z)
            for i in range(3):
                s0, s1, s2, s3 = s_row(sa, sb, sc, sd, i)
                jac[k, i, 3] = s0
                jac[k, i, 4] = s1
                jac[k, i, 5] = s2
                jac[k, i, 6] = s3
                u[k, i] = 0.5 * (s0 * p0 + s1 * p1 + s2 * p2 + s3 * p3) + (q[o + i] if pt else 0.0)
                if pt:
                    jac[k, i, i] = 1.0
                if velocity:
                    t0, t1, t2, t3 = s_row(ta, tb, tc, td, i)
                    sjd[k, i, 0] = t0
                    sjd[k, i, 1] = t1
                    sjd[k, i, 2] = t2
                    sjd[k, i, 3] = t3
                    ud[k, i] = (s0 * v0 + s1 * v1 + s2 * v2 + s3 * v3) + (qd[o + i] if pt else 0.0)
                    jdq[k, i] = t0 * v0 + t1 * v1 + t2 * v2 + t3 * v3
        elif kk == POINT_MASS:
            for i in range(3):
                c = cols[k, i]
                u[k, i] = q[c]
                jac[k, i, i] = 1.0
                if velocity:
                    ud[k, i] = qd[c]
        elif kk == LINEAR:
            for i in range(3):
                acc = local[k, i]
                accd = 0.0
                for j in range(ncol):
                    c = cols[k, j]
                    if c < 0:
                        continue
                    w = coef[k, i, j]
                    jac[k, i, j] = w
                    acc += w * q[c]
                    accd += w * qd[c]
                u[k, i] = acc
                if velocity:
                    ud[k, i] = accd
        else:
            for i in range(3):
                u[k, i] = local[k, i]
    return MarkerValues(u, ud, jac, jdq, sjd)


@kernel(full_optimisation=True)
def force_jacobians(kind, local, idx, f, ncol):
    """``∂(J_iᵀ f_i)/∂q`` for markers ``idx`` and fixed global forces ``f`` ``(m, 3)``, over
    each marker's columns ``(m, ncol, ncol)``: the 4×4 block ``∂(S(p, s̄)ᵀ f)/∂p`` in the
    Euler-parameter columns of rigid markers, zero for the others (their J is constant)."""
    m = idx.shape[0]
    out = np.zeros((m, ncol, ncol))
    for i in range(m):
        k = idx[i]
        if kind[k] == RIGID:
            out[i, 3:7, 3:7] = force_hessian(local[k], f[i])
    return out
