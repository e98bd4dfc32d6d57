"""Constraint primitives: scalar or vector functions of marker values, one instance at a time.

A primitive instance is ``Φ = f(u_1, …, u_s) − c(t)`` of the values ``u`` of its s marker
slots (points and directions, :mod:`solver.kernels.markers`). :func:`evaluate` gives, per
row r: ``Φ_r``, the blocks ``∂f_r/∂u_i`` (one 3-vector per slot) and ``quad_r =
u̇ᵀ f_r,uu u̇``, the velocity-product part of ``Φ̈`` not carried by the markers' ``J̇q̇``;
:func:`hessian` gives ``Σ_r λ_r ∂²f_r/∂u_i∂u_j`` for every slot pair. The system forms

    Φ_q = Σ_i blocks_i J_i,   Φ_t = −ċ,   γ = −Σ_i blocks_i J̇q̇_i − quad + c̈   (Φ_q q̈ = γ).

Types (``TYPES``; rows, slots):

* ``COINCIDENT`` (3; a, b): ``u_b − u_a``;
* ``DOT`` (1; a, b): ``u_a·u_b − c`` (perpendicular directions: c = 0);
* ``POINT_PLANE`` (1; a, b, n): ``(u_b − u_a)·u_n − c`` (a point on a plane; a driven
  displacement along a sliding axis);
* ``DISTANCE`` (1; a, b): ``(d·d − L²)/(2L)``, ``d = u_b − u_a``, c = L (metres: ``∂Φ/∂d``
  is the unit direction where it holds);
* ``ANGLE`` (1; u1, w1, u2): ``wrap(θ − c)``, ``θ = atan2(w1·u2, u1·u2)``, with u1 and
  ``w1 = axis × u1`` fixed in body 1 and u2 in body 2 (= u1 at t = 0); the wrap to
  ``[−π, π)`` keeps Φ continuous through any number of turns;
* ``DISC_ON_PLANE`` (1; o, c, n, a): a disc of radius R = c (centre c, axle a) touching the
  plane through o with normal n: ``(u_c − u_o)·u_n − R √(1 − (u_a·u_n)²)``.
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.scratch import local_zeros

COINCIDENT, DOT, POINT_PLANE, DISTANCE, ANGLE, DISC_ON_PLANE = 0, 1, 2, 3, 4, 5
#: rows and marker slots of each type, indexed by its code
ROWS = np.array([3, 1, 1, 1, 1, 1], np.int64)
SLOTS = np.array([2, 2, 3, 2, 3, 4], np.int64)
MAX_SLOTS = 4


@kernel(refcounted=False, full_optimisation=True)
def wrap_angle(a):
    """``a`` mapped to ``[−π, π)``."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@kernel(refcounted=False, full_optimisation=True)
def _dot(u, i, j):
    return u[i, 0] * u[j, 0] + u[i, 1] * u[j, 1] + u[i, 2] * u[j, 2]


@kernel(refcounted=False, full_optimisation=True)
def _angle_terms(u, i1, iw, i2):
    """``(x, y, θ_x, θ_y, θ_xx, θ_yy, θ_xy)`` of ``θ = atan2(y, x)``, x = u1·u2, y = w1·u2."""
    x = _dot(u, i1, i2)
    y = _dot(u, iw, i2)
    r2 = x * x + y * y
    q = r2 * r2
    return x, y, -y / r2, x / r2, 2.0 * x * y / q, -2.0 * x * y / q, (y * y - x * x) / q


@kernel(refcounted=False, full_optimisation=True)
def _disc_terms(u, io, ic, inn, ia, radius):
    """``(c, s, g1, g2)`` of the disc: ``c = a·n``, ``s = √(1 − c²)``, ``g1 = R c/s`` and
    ``g2 = R/s³`` (first and second derivatives of ``−R s`` with respect to c)."""
    c = _dot(u, ia, inn)
    s = math.sqrt(max(1.0 - c * c, 1e-300))
    return c, s, radius * c / s, radius / (s * s * s)


@kernel(refcounted=False, full_optimisation=True)
def evaluate(typ, marks, row, const, c, u, ud, phi, blk, quad):
    """Instance of type ``typ`` with slot markers ``marks[row]`` and target ``c`` (the constant
    plus the driving function at t; ``const`` alone for the disc radius and the distance):
    writes ``phi[r]``, ``blk[slot, r, :]`` and ``quad[r]`` (zeroed first) and returns the
    row count. ``ud`` may be zero (position-level evaluation: quad is then zero)."""
    for s in range(MAX_SLOTS):
        for r in range(3):
            for j in range(3):
                blk[s, r, j] = 0.0
    for r in range(3):
        phi[r] = 0.0
        quad[r] = 0.0
    if typ == COINCIDENT:
        a, b = marks[row, 0], marks[row, 1]
        for r in range(3):
            phi[r] = u[b, r] - u[a, r]
            blk[0, r, r] = -1.0
            blk[1, r, r] = 1.0
        return 3
    if typ == DOT:
        a, b = marks[row, 0], marks[row, 1]
        phi[0] = _dot(u, a, b) - c
        quad[0] = 2.0 * _dot(ud, a, b)
        for j in range(3):
            blk[0, 0, j] = u[b, j]
            blk[1, 0, j] = u[a, j]
        return 1
    if typ == POINT_PLANE:
        a, b, n = marks[row, 0], marks[row, 1], marks[row, 2]
        acc = 0.0
        qq = 0.0
        for j in range(3):
            d = u[b, j] - u[a, j]
            acc += d * u[n, j]
            qq += (ud[b, j] - ud[a, j]) * ud[n, j]
            blk[0, 0, j] = -u[n, j]
            blk[1, 0, j] = u[n, j]
            blk[2, 0, j] = d
        phi[0] = acc - c
        quad[0] = 2.0 * qq
        return 1
    if typ == DISTANCE:
        a, b = marks[row, 0], marks[row, 1]
        length = const
        dd = 0.0
        vv = 0.0
        for j in range(3):
            d = u[b, j] - u[a, j]
            v = ud[b, j] - ud[a, j]
            dd += d * d
            vv += v * v
            blk[0, 0, j] = -d / length
            blk[1, 0, j] = d / length
        phi[0] = (dd - length * length) / (2.0 * length)
        quad[0] = vv / length
        return 1
    if typ == ANGLE:
        i1, iw, i2 = marks[row, 0], marks[row, 1], marks[row, 2]
        x, y, tx, ty, txx, tyy, txy = _angle_terms(u, i1, iw, i2)
        xd = 0.0
        yd = 0.0
        for j in range(3):
            xd += ud[i1, j] * u[i2, j] + u[i1, j] * ud[i2, j]
            yd += ud[iw, j] * u[i2, j] + u[iw, j] * ud[i2, j]
            blk[0, 0, j] = tx * u[i2, j]
            blk[1, 0, j] = ty * u[i2, j]
            blk[2, 0, j] = tx * u[i1, j] + ty * u[iw, j]
        phi[0] = wrap_angle(math.atan2(y, x) - c)
        quad[0] = (
            2.0 * tx * _dot(ud, i1, i2)
            + 2.0 * ty * _dot(ud, iw, i2)
            + txx * xd * xd
            + 2.0 * txy * xd * yd
            + tyy * yd * yd
        )
        return 1
    # DISC_ON_PLANE
    io, ic, inn, ia = marks[row, 0], marks[row, 1], marks[row, 2], marks[row, 3]
    cc, s, g1, g2 = _disc_terms(u, io, ic, inn, ia, const)
    acc = 0.0
    dn = 0.0
    cdot = 0.0
    an = 0.0
    for j in range(3):
        d = u[ic, j] - u[io, j]
        acc += d * u[inn, j]
        dn += (ud[ic, j] - ud[io, j]) * ud[inn, j]
        cdot += ud[ia, j] * u[inn, j] + u[ia, j] * ud[inn, j]
        an += ud[ia, j] * ud[inn, j]
        blk[0, 0, j] = -u[inn, j]
        blk[1, 0, j] = u[inn, j]
        blk[2, 0, j] = d + g1 * u[ia, j]
        blk[3, 0, j] = g1 * u[inn, j]
    phi[0] = acc - const * s
    quad[0] = 2.0 * dn + g2 * cdot * cdot + 2.0 * g1 * an
    return 1


@kernel(refcounted=False, full_optimisation=True)
def hessian(typ, marks, row, const, u, lam, out):
    """``out[i, j] = Σ_r λ_r ∂²f_r/∂u_i∂u_j`` (3×3 per slot pair i, j; zeroed first) for
    the instance's multipliers ``lam`` (one per row)."""
    for i in range(MAX_SLOTS):
        for j in range(MAX_SLOTS):
            for a in range(3):
                for b in range(3):
                    out[i, j, a, b] = 0.0
    if typ == COINCIDENT:
        return
    lr = lam[0]
    if typ == DOT:
        for a in range(3):
            out[0, 1, a, a] = lr
            out[1, 0, a, a] = lr
        return
    if typ == POINT_PLANE:
        for a in range(3):
            out[0, 2, a, a] = -lr
            out[2, 0, a, a] = -lr
            out[1, 2, a, a] = lr
            out[2, 1, a, a] = lr
        return
    if typ == DISTANCE:
        w = lr / const
        for a in range(3):
            out[0, 0, a, a] = w
            out[1, 1, a, a] = w
            out[0, 1, a, a] = -w
            out[1, 0, a, a] = -w
        return
    if typ == ANGLE:
        i1, iw, i2 = marks[row, 0], marks[row, 1], marks[row, 2]
        x, y, tx, ty, txx, tyy, txy = _angle_terms(u, i1, iw, i2)
        for a in range(3):
            ba = u[i2, a]
            for b in range(3):
                bb = u[i2, b]
                out[0, 0, a, b] = lr * txx * ba * bb
                out[0, 1, a, b] = lr * txy * ba * bb
                out[1, 0, a, b] = lr * txy * ba * bb
                out[1, 1, a, b] = lr * tyy * ba * bb
                h02 = txx * ba * u[i1, b] + txy * ba * u[iw, b]
                h12 = txy * ba * u[i1, b] + tyy * ba * u[iw, b]
                if a == b:
                    h02 += tx
                    h12 += ty
                out[0, 2, a, b] = lr * h02
                out[2, 0, b, a] = lr * h02
                out[1, 2, a, b] = lr * h12
                out[2, 1, b, a] = lr * h12
                out[2, 2, a, b] = lr * (
                    txx * u[i1, a] * u[i1, b]
                    + txy * (u[i1, a] * u[iw, b] + u[iw, a] * u[i1, b])
                    + tyy * u[iw, a] * u[iw, b]
                )
        return
    # DISC_ON_PLANE
    io, ic, inn, ia = marks[row, 0], marks[row, 1], marks[row, 2], marks[row, 3]
    cc, s, g1, g2 = _disc_terms(u, io, ic, inn, ia, const)
    for a in range(3):
        out[0, 2, a, a] = -lr
        out[2, 0, a, a] = -lr
        out[1, 2, a, a] = lr
        out[2, 1, a, a] = lr
        for b in range(3):
            out[2, 2, a, b] = lr * g2 * u[ia, a] * u[ia, b]
            out[3, 3, a, b] = lr * g2 * u[inn, a] * u[inn, b]
            h23 = g2 * u[ia, a] * u[inn, b]
            if a == b:
                h23 += g1
            out[2, 3, a, b] = lr * h23
            out[3, 2, b, a] = lr * h23


@kernel(full_optimisation=True)
def evaluate_many(typ, index, const, c, u, ud):
    """:func:`evaluate` for m instances of one type (slot markers ``index (m, s)``):
    ``(phi (m, r), blocks (m, s, r, 3), quad (m, r))``."""
    m = index.shape[0]
    nr = ROWS[typ]
    ns = SLOTS[typ]
    phi = np.zeros((m, nr))
    blocks = np.zeros((m, ns, nr, 3))
    quad = np.zeros((m, nr))
    ph = local_zeros(3)
    blk = local_zeros((MAX_SLOTS, 3, 3))
    qq = local_zeros(3)
    for i in range(m):
        evaluate(typ, index, i, const[i], c[i], u, ud, ph, blk, qq)
        for r in range(nr):
            phi[i, r] = ph[r]
            quad[i, r] = qq[r]
            for s in range(ns):
                for j in range(3):
                    blocks[i, s, r, j] = blk[s, r, j]
    return phi, blocks, quad


@kernel(full_optimisation=True)
def hessians_many(typ, index, const, u):
    """``∂²f/∂u_i∂u_j`` of m single-row instances (``λ = 1``), ``(m, s, s, 3, 3)``."""
    m = index.shape[0]
    ns = SLOTS[typ]
    out = np.zeros((m, ns, ns, 3, 3))
    h = local_zeros((MAX_SLOTS, MAX_SLOTS, 3, 3))
    one = np.ones(1)
    for i in range(m):
        hessian(typ, index, i, const[i], u, one, h)
        for a in range(ns):
            for b in range(ns):
                for x in range(3):
                    for y in range(3):
                        out[i, a, b, x, y] = h[a, b, x, y]
    return out
