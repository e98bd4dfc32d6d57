"""The belt-on-pulley contact law at one point of a belt's centreline, with exact derivatives.

The model (penalty normal force per unit length of belt, trilinear friction, the pulley's
surface velocity) is described in :mod:`solver.mechanics.forces.pulley_contact`, which builds
the contact points; this module evaluates it, once, for the time steps, the energies and
the tables.

A contact point reads 5 markers (``SLOTS``): the belt's point r, the pulley's centre o and
its three axes. Its row of ``par`` holds ``WEIGHT`` W (m of undeformed belt), ``RADIUS`` R,
``STIFFNESS`` k_p (N/m²), ``DAMPING`` c_p (N·s/m²), ``MU`` μ and ``SLOPE`` v_s (N·s/m²).

Derivatives are carried forward: every quantity of the law has its value and a row of
``D`` derivatives, with respect to the coordinates the point's markers depend on (then
their rates). The caller seeds each marker's value and velocity with their derivatives
(``dx``: the Jacobian for a value; ``∂u̇/∂q``, then the Jacobian, for a velocity), and the
loads come out with their derivatives over q and q̇ directly (``D = 0``: values only).
Everything lies in the plane z = 0 (the normal, the tangent and the loads; the axes enter
through their in-plane components), so the law runs on x and y alone. Where the law takes
a branch (pushing or not, sticking or sliding) the derivative is that of the branch taken.
SI units.
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.scratch import local, local_zeros

SLOTS = 5
WEIGHT, RADIUS, STIFFNESS, DAMPING, MU, SLOPE = 0, 1, 2, 3, 4, 5
PARAMETERS = 6
#: what :func:`pulley_law` writes per point, in this order: depth d (m), its rate ḋ (m/s),
#: normal force f_n, its elastic part k_p d and the friction f_t along t (N/m), the slip
#: v_t (m/s), 1 where the friction is saturated, the power of damping and friction (W)
DEPTH, RATE, NORMAL, ELASTIC, FRICTION, SLIP, SATURATED, POWER = 0, 1, 2, 3, 4, 5, 6, 7
OUTPUTS = 8


#: rows of the law's inputs ``x``: the five markers' values, then their velocities
R_, O_, AXES, RD, OD, AXES_D = 0, 1, 2, 5, 6, 7
INPUTS = 10


@kernel(full_optimisation=True, refcounted=False)
def depth_of(u, mk, i, radius):
    """``R − |r − o|`` in the plane z = 0 of point ``i`` (its markers ``mk[i]``: the point,
    the centre; called for every point of every pass, so it takes the tables whole)."""
    dx = u[mk[i, 0], 0] - u[mk[i, 1], 0]
    dy = u[mk[i, 0], 1] - u[mk[i, 1], 1]
    return radius - math.sqrt(dx * dx + dy * dy)


@kernel(full_optimisation=True)
def pulley_law(x, dx, par, lv, dl, out, cf):
    """One point: the markers' in-plane values and velocities ``x`` ``(INPUTS, 2)`` and
    their derivatives ``dx`` ``(INPUTS, 2, D)``, parameters ``par``. Writes the in-plane
    loads on the 5 markers into ``lv`` ``(5, 2)`` (N; zero out of contact) with their
    derivatives into ``dl`` ``(5, 2, D)``, and the point's values into ``out``
    (``OUTPUTS``; zero out of contact but the depth); ``cf`` ``(6,)`` is scratch:

        w = r − o,  ρ = |w|,  n = w/ρ,  d = R − ρ,  ḋ = −n·(ṙ − ȯ),
        f_n = max(k_p d + c_p ḋ, 0),  t = Ĩ n,  v_t = t·(ṙ − ȯ − Σ_k (a_k·R n) ȧ_k),
        f_t = −v_s v_t clamped to ±μ f_n,  F = W (f_n n + f_t t) on r,
        −F on o and −(a_k·R n) F on the axis a_k."""
    D = dx.shape[2]
    lv[:] = 0.0
    dl[:] = 0.0
    out[:] = 0.0
    w0 = x[R_, 0] - x[O_, 0]
    w1 = x[R_, 1] - x[O_, 1]
    rho = math.sqrt(w0 * w0 + w1 * w1)
    radius = par[RADIUS]
    depth = radius - rho
    out[DEPTH] = depth
    if depth <= 0.0:
        return
    k, c, mu, slope, weight = par[STIFFNESS], par[DAMPING], par[MU], par[SLOPE], par[WEIGHT]
    irho = 1.0 / rho
    n0, n1 = w0 * irho, w1 * irho
    rel0 = x[RD, 0] - x[OD, 0]
    rel1 = x[RD, 1] - x[OD, 1]
    rate = -(n0 * rel0 + n1 * rel1)
    push = k * depth + c * rate
    pushing = push > 0.0
    fn = push if pushing else 0.0
    t0, t1 = -n1, n0
    arm0, arm1 = radius * n0, radius * n1  # P − o
    slip0, slip1 = rel0, rel1
    for j in range(3):
        cf[j] = x[AXES + j, 0] * arm0 + x[AXES + j, 1] * arm1
        slip0 -= x[AXES_D + j, 0] * cf[j]
        slip1 -= x[AXES_D + j, 1] * cf[j]
    vt = t0 * slip0 + t1 * slip1
    limit = mu * fn
    stick = -slope * vt
    branch = 1 if stick > limit else (-1 if stick < -limit else 0)
    ft = limit if branch == 1 else (-limit if branch == -1 else stick)
    f0 = weight * (fn * n0 + ft * t0)
    f1 = weight * (fn * n1 + ft * t1)
    lv[0, 0], lv[0, 1] = f0, f1
    lv[1, 0], lv[1, 1] = -f0, -f1
    for j in range(3):
        lv[2 + j, 0] = -cf[j] * f0
        lv[2 + j, 1] = -cf[j] * f1
    out[RATE] = rate
    out[NORMAL] = fn
    out[ELASTIC] = k * depth
    out[FRICTION] = ft
    out[SLIP] = vt
    out[SATURATED] = 1.0 if abs(ft) >= limit and limit > 0.0 else 0.0
    out[POWER] = weight * (-(fn - k * depth) * rate + ft * vt)
    for z in range(D):
        dw0 = dx[R_, 0, z] - dx[O_, 0, z]
        dw1 = dx[R_, 1, z] - dx[O_, 1, z]
        drho = n0 * dw0 + n1 * dw1
        dn0 = (dw0 - n0 * drho) * irho
        dn1 = (dw1 - n1 * drho) * irho
        drel0 = dx[RD, 0, z] - dx[OD, 0, z]
        drel1 = dx[RD, 1, z] - dx[OD, 1, z]
        drate = -(dn0 * rel0 + n0 * drel0 + dn1 * rel1 + n1 * drel1)
        dfn = (-k * drho + c * drate) if pushing else 0.0
        dt0, dt1 = -dn1, dn0
        darm0, darm1 = radius * dn0, radius * dn1
        dslip0, dslip1 = drel0, drel1
        for j in range(3):
            dc = (
                dx[AXES + j, 0, z] * arm0 + x[AXES + j, 0] * darm0
                + dx[AXES + j, 1, z] * arm1 + x[AXES + j, 1] * darm1
            )  # fmt: skip
            cf[3 + j] = dc
            dslip0 -= dx[AXES_D + j, 0, z] * cf[j] + x[AXES_D + j, 0] * dc
            dslip1 -= dx[AXES_D + j, 1, z] * cf[j] + x[AXES_D + j, 1] * dc
        dvt = dt0 * slip0 + t0 * dslip0 + dt1 * slip1 + t1 * dslip1
        if branch == 1:
            dft = mu * dfn
        elif branch == -1:
            dft = -mu * dfn
        else:
            dft = -slope * dvt
        df0 = weight * (dfn * n0 + fn * dn0 + dft * t0 + ft * dt0)
        df1 = weight * (dfn * n1 + fn * dn1 + dft * t1 + ft * dt1)
        dl[0, 0, z], dl[0, 1, z] = df0, df1
        dl[1, 0, z], dl[1, 1, z] = -df0, -df1
        for j in range(3):
            dl[2 + j, 0, z] = -(cf[3 + j] * f0 + cf[j] * df0)
            dl[2 + j, 1, z] = -(cf[3 + j] * f1 + cf[j] * df1)


@kernel(full_optimisation=True)
def pulley_states(mk, par, u, ud):
    """:func:`pulley_law`'s values at every point (rows ``mk``, ``par``) at the marker
    values ``u`` and velocities ``ud``: ``(points, OUTPUTS)``."""
    npts = mk.shape[0]
    out = np.zeros((npts, OUTPUTS))
    x = local_zeros((INPUTS, 2))
    dx = local_zeros((INPUTS, 2, 0))
    lv = local((SLOTS, 2))
    dl = local((SLOTS, 2, 0))
    cf = local(6)
    for i in range(npts):
        for s in range(SLOTS):
            for a in range(2):
                x[s, a] = u[mk[i, s], a]
                x[SLOTS + s, a] = ud[mk[i, s], a]
        pulley_law(x, dx, par[i], lv, dl, out[i], cf)
    return out
