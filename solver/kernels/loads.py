"""Force elements as marker loads: the forces on each marker slot and their derivatives.

An element instance puts a force ``F_a`` (3-vector, global) on each of its marker slots
a. For the Jacobians of the generalised forces it also gives ``∂F_a/∂u_b`` and
``∂F_a/∂u̇_b`` (3×3 per slot pair) and, for a force given in body axes, ``∂F_a/∂p`` (3×4
over the Euler parameters of slot a's rigid body). :mod:`solver.kernels.system` turns
them into ``Q = Σ J_aᵀ F_a`` and its exact Jacobians.

Elements (all SI; ``elastic`` energy, ``power`` of the non-conservative part):

* spring-damper-actuator between points 1 and 2 (the MUBODYNA convention): with
  ``d = P2 − P1``, ``l = |d|``, ``e = d/l``, ``l̇ = e·ḋ``, the force on point 2 is
  ``F2 = −k d + (k l0 − c l̇ + a(t)) e`` (``−k (l − l0) − c l̇ + a`` along e; the vector form
  is smooth through l = 0 when l0 = 0; below ``TINY`` e is zero), ``F1 = −F2``;
  elastic ``½ k (l − l0)²``, power ``(a − c l̇) l̇``;
* joint torque about a joint axis (``rotational_spring_damper``, ``joint_torque``): with
  the relative angle θ of :mod:`solver.kernels.primitives` (``ANGLE``), continuous over
  turns, ``τ = −k (θ − θ0) − c θ̇ + τ(t)`` and ``F_a = τ ∂θ/∂u_a``; elastic
  ``½ k (θ − θ0)²``, power ``(τ(t) − c θ̇) θ̇``;
* joint force along a sliding axis a (body 1) between the joint points:
  ``s = (P2 − P1)·a``, ``F = f(t) ∂s/∂u``; power ``f ṡ``;
* point force ``f`` at a point (global, or body axes ``f = A(p) f̄``); power ``f·Ṗ``.
"""

from __future__ import annotations

import math

from solver.kernels.jit import kernel
from solver.kernels.primitives import wrap_angle
from solver.kernels.scratch import local_zeros
from solver.kernels.small import mat_vec

TINY = 1e-12  # m: below this spring length the line of action is undefined


@kernel(refcounted=False, full_optimisation=True)
def spring(u, ud, i1, i2, k, c, l0, a, force, du, dv, jacobians):
    """Spring-damper-actuator between markers ``i1`` and ``i2`` with actuator force ``a``:
    slot forces ``force[0:2]``; with ``jacobians`` ``du``, ``dv`` over slot pairs (zeroed
    first). Returns ``(l, l̇)``."""
    d0 = u[i2, 0] - u[i1, 0]
    d1 = u[i2, 1] - u[i1, 1]
    d2 = u[i2, 2] - u[i1, 2]
    v0 = ud[i2, 0] - ud[i1, 0]
    v1 = ud[i2, 1] - ud[i1, 1]
    v2 = ud[i2, 2] - ud[i1, 2]
    length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    inv = 1.0 / length if length > TINY else 0.0
    e0, e1, e2 = d0 * inv, d1 * inv, d2 * inv
    ldot = e0 * v0 + e1 * v1 + e2 * v2
    g = k * l0 - c * ldot + a
    f0 = -k * d0 + g * e0
    f1 = -k * d1 + g * e1
    f2 = -k * d2 + g * e2
    force[0, 0], force[0, 1], force[0, 2] = -f0, -f1, -f2
    force[1, 0], force[1, 1], force[1, 2] = f0, f1, f2
    if jacobians:
        e = (e0, e1, e2)
        # ∂l̇/∂d = (I − e eᵀ) v / l
        dldot = (inv * (v0 - e0 * ldot), inv * (v1 - e1 * ldot), inv * (v2 - e2 * ldot))
        for i in range(3):
            for j in range(3):
                pij = ((1.0 if i == j else 0.0) - e[i] * e[j]) * inv  # ∂e/∂d
                dd = (-k if i == j else 0.0) - c * e[i] * dldot[j] + g * pij  # ∂F2/∂d
                dvv = -c * e[i] * e[j]  # ∂F2/∂ḋ
                du[0, 0, i, j] = dd
                du[0, 1, i, j] = -dd
                du[1, 0, i, j] = -dd
                du[1, 1, i, j] = dd
                dv[0, 0, i, j] = dvv
                dv[0, 1, i, j] = -dvv
                dv[1, 0, i, j] = -dvv
                dv[1, 1, i, j] = dvv
    return length, ldot


@kernel(full_optimisation=True)
def joint_angle(u, ud, i1, iw, i2, grad, hess, with_hessian):
    """The relative angle of the markers ``(u1, w1, u2)`` (see ``primitives.ANGLE``):
    returns ``(θ_raw ∈ (−π, π], θ̇)``, fills ``grad (9,)`` = ``∂θ/∂(u1, w1, u2)`` and, with
    ``with_hessian``, ``hess (9, 9)`` = its second derivatives."""
    x = 0.0
    y = 0.0
    xd = 0.0
    yd = 0.0
    for j in range(3):
        x += u[i1, j] * u[i2, j]
        y += u[iw, j] * u[i2, j]
        xd += ud[i1, j] * u[i2, j] + u[i1, j] * ud[i2, j]
        yd += ud[iw, j] * u[i2, j] + u[iw, j] * ud[i2, j]
    r2 = x * x + y * y
    tx, ty = -y / r2, x / r2
    for j in range(3):
        grad[j] = tx * u[i2, j]
        grad[3 + j] = ty * u[i2, j]
        grad[6 + j] = tx * u[i1, j] + ty * u[iw, j]
    if with_hessian:
        txx = 2.0 * x * y / (r2 * r2)
        txy = (y * y - x * x) / (r2 * r2)
        gx = local_zeros(9)  # ∂x/∂(u1, w1, u2)
        gy = local_zeros(9)  # ∂y/∂(u1, w1, u2)
        for j in range(3):
            gx[j] = u[i2, j]
            gx[6 + j] = u[i1, j]
            gy[3 + j] = u[i2, j]
            gy[6 + j] = u[iw, j]
        for a in range(9):
            for b in range(9):
                hess[a, b] = txx * (gx[a] * gx[b] - gy[a] * gy[b]) + txy * (
                    gx[a] * gy[b] + gy[a] * gx[b]
                )
        for j in range(3):
            hess[j, 6 + j] += tx  # x = u1·u2
            hess[6 + j, j] += tx
            hess[3 + j, 6 + j] += ty  # y = w1·u2
            hess[6 + j, 3 + j] += ty
    return math.atan2(y, x), tx * xd + ty * yd


@kernel(full_optimisation=True)
def joint_torque(u, ud, i1, iw, i2, theta, k, c, theta0, tau_t, force, du, dv, jacobians):
    """Torque ``τ = −k (θ − θ0) − c θ̇ + τ(t)`` about a joint axis at the continuous angle
    ``theta`` (the caller unwraps the raw angle): slot forces ``τ ∂θ/∂u_a`` and, with
    ``jacobians``, ``du``, ``dv`` over the three slots. Returns ``θ̇``."""
    grad = local_zeros(9)
    hess = local_zeros((9, 9))
    _, rate = joint_angle(u, ud, i1, iw, i2, grad, hess, jacobians)
    tau = -k * (theta - theta0) - c * rate + tau_t
    for a in range(3):
        for j in range(3):
            force[a, j] = tau * grad[3 * a + j]
    if jacobians:
        idx = (i1, iw, i2)
        udot = local_zeros(9)
        for a in range(3):
            for j in range(3):
                udot[3 * a + j] = ud[idx[a], j]
        drate = mat_vec(hess, udot)  # ∂θ̇/∂(u1, w1, u2)
        for a in range(3):
            for b in range(3):
                for i in range(3):
                    for j in range(3):
                        ga = grad[3 * a + i]
                        dtau = -k * grad[3 * b + j] - c * drate[3 * b + j]
                        du[a, b, i, j] = tau * hess[3 * a + i, 3 * b + j] + ga * dtau
                        dv[a, b, i, j] = -c * ga * grad[3 * b + j]
    return rate


@kernel(full_optimisation=True)
def unwrap(last, raw):
    """The angle on the branch of ``raw`` nearest to ``last`` (continuity over turns)."""
    return last + wrap_angle(raw - last)


@kernel(full_optimisation=True)
def joint_force(u, ud, i1, i2, ia, f, force, du):
    """Force ``f`` along the axis marker ``ia`` (body 1) between the joint points ``i1`` and
    ``i2``: slot forces ``[−f a, f a, f d]`` and their constant ``du`` (zeroed first).
    Returns ``ṡ``."""
    sdot = 0.0
    for j in range(3):
        d = u[i2, j] - u[i1, j]
        force[0, j] = -f * u[ia, j]
        force[1, j] = f * u[ia, j]
        force[2, j] = f * d
        sdot += (ud[i2, j] - ud[i1, j]) * u[ia, j] + d * ud[ia, j]
    for j in range(3):
        du[0, 2, j, j] = -f
        du[1, 2, j, j] = f
        du[2, 0, j, j] = -f
        du[2, 1, j, j] = f
    return sdot
