"""The belt-on-pulley contact law at one point of a belt's centreline, with exact derivatives.

The model (penalty normal force per unit length of belt, trilinear friction, the pulley's
surface velocity) is described in :mod:`solver.mechanics.forces.pulley_contact`, which builds
the contact points; this module evaluates it, once, for the time steps, the energies and
the tables.

A contact point reads 5 markers (``SLOTS``): the belt's point r, the pulley's centre o and
its three axes. Its row of ``par`` holds ``WEIGHT`` W (m of undeformed belt), ``RADIUS`` R,
``STIFFNESS`` k_p (N/m²), ``DAMPING`` c_p (N·s/m²), ``MU`` μ and ``SLOPE`` v_s (N·s/m²).

Derivatives are carried forward as in :mod:`solver.kernels.contact` (column 0 the value,
then the derivatives: a scalar is ``(width,)``, a vector ``(3, width)``), here with respect
to the coordinates the point's markers depend on: the caller seeds each marker's value with
its Jacobian and its velocity with ``∂u̇/∂q`` (columns ``1 … span``) and the Jacobian again
(columns ``1 + span … 2 span``, the velocities), so that the loads come out with their
derivatives over q and q̇ directly. Where the law takes a branch (pushing or not, sticking
or sliding) the derivative is that of the branch taken. SI units.
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.contact import _constant, _dot, _power, _quotient, _scaled
from solver.kernels.jit import kernel

SLOTS = 5
WEIGHT, RADIUS, STIFFNESS, DAMPING, MU, SLOPE = 0, 1, 2, 3, 4, 5
PARAMETERS = 6
#: what :func:`pulley_law` writes per point, in this order: depth d (m), its rate ḋ (m/s),
#: normal force f_n, its elastic part k_p d and the friction f_t along t (N/m), the slip
#: v_t (m/s), 1 where the friction is saturated, the power of damping and friction (W)
DEPTH, RATE, NORMAL, ELASTIC, FRICTION, SLIP, SATURATED, POWER = 0, 1, 2, 3, 4, 5, 6, 7
OUTPUTS = 8


@kernel
def depth_of(u, mk, radius):
    """``R − |r − o|`` in the plane z = 0 (markers ``mk``: the point, the centre)."""
    dx = u[mk[0], 0] - u[mk[1], 0]
    dy = u[mk[0], 1] - u[mk[1], 1]
    return radius - math.sqrt(dx * dx + dy * dy)


@kernel
def pulley_law(pos, vel, par, loads, out):
    """One point: the markers' values ``pos`` and velocities ``vel`` ``(5, 3, width)``
    (seeded by the caller), parameters ``par``. Writes the loads on the 5 markers into
    ``loads`` ``(5, 3, width)`` (N, with their derivatives; zero out of contact) and the
    point's values into ``out`` (``OUTPUTS``; zero out of contact but the depth):

        w = (r − o) in the plane,  ρ = |w|,  n = w/ρ,  d = R − ρ,  ḋ = −n·(ṙ − ȯ),
        f_n = max(k_p d + c_p ḋ, 0),  t = Ĩ n,  v_t = t·(ṙ − ȯ − Σ_k (a_k·R n) ȧ_k),
        f_t = −v_s v_t clamped to ±μ f_n,  F = W (f_n n + f_t t) on r,
        −F on o and −(a_k·R n) F on the axis a_k."""
    width = pos.shape[2]
    loads[:] = 0.0
    out[:] = 0.0
    w = pos[0] - pos[1]
    w[2] = 0.0
    rho = _power(_dot(w, w), 0.5)
    depth = -rho
    depth[0] += par[RADIUS]
    out[DEPTH] = depth[0]
    if depth[0] <= 0.0:
        return
    k, c, mu, slope, weight = par[STIFFNESS], par[DAMPING], par[MU], par[SLOPE], par[WEIGHT]
    n = _scaled(w, _quotient(_constant(1.0, width), rho))
    rate = -_dot(n, vel[0] - vel[1])
    push = k * depth + c * rate
    fn = push if push[0] > 0.0 else np.zeros(width)
    t = np.zeros((3, width))
    t[0] = -n[1]
    t[1] = n[0]
    arm = par[RADIUS] * n  # P − o
    slip = vel[0] - vel[1]
    coef = np.empty((3, width))
    for j in range(3):
        coef[j] = _dot(pos[2 + j], arm)
        slip -= _scaled(vel[2 + j], coef[j])
    vt = _dot(t, slip)
    limit = mu * fn
    stick = -slope * vt
    if stick[0] > limit[0]:
        ft = limit
    elif stick[0] < -limit[0]:
        ft = -limit
    else:
        ft = stick
    force = weight * (_scaled(n, fn) + _scaled(t, ft))
    loads[0] += force
    loads[1] -= force
    for j in range(3):
        loads[2 + j] -= _scaled(force, coef[j])
    out[RATE] = rate[0]
    out[NORMAL] = fn[0]
    out[ELASTIC] = k * depth[0]
    out[FRICTION] = ft[0]
    out[SLIP] = vt[0]
    out[SATURATED] = 1.0 if abs(ft[0]) >= limit[0] and limit[0] > 0.0 else 0.0
    out[POWER] = weight * (-(fn[0] - k * depth[0]) * rate[0] + ft[0] * vt[0])


@kernel
def pulley_states(mk, par, u, ud):
    """:func:`pulley_law`'s values at every point (rows ``mk``, ``par``) at the marker
    values ``u`` and velocities ``ud``: ``(points, OUTPUTS)``."""
    npts = mk.shape[0]
    out = np.zeros((npts, OUTPUTS))
    pos = np.zeros((SLOTS, 3, 1))
    vel = np.zeros((SLOTS, 3, 1))
    loads = np.empty((SLOTS, 3, 1))
    for i in range(npts):
        for s in range(SLOTS):
            for a in range(3):
                pos[s, a, 0] = u[mk[i, s], a]
                vel[s, a, 0] = ud[mk[i, s], a]
        pulley_law(pos, vel, par[i], loads, out[i])
    return out
