"""The contact force law: sphere on plane and sphere on sphere, with exact derivatives.

The model (penetration, Hunt–Crossley or Lankarani–Nikravesh normal force with the
committed onset speed, regularised Coulomb friction at the contact point) is described in
:mod:`solver.mechanics.forces.contact`, which builds the contacts and keeps their
committed state; this module evaluates it, once, for the time steps and for the tables.

A contact reads 8 markers (``SLOTS``): the origin and the three body axes of side A (the
sphere, origin its centre), then of side B (the plane, origin its point; or the second
sphere, origin its centre). Its row of ``par`` holds ``RADIUS``, ``RADIUS2`` (sphere B),
``NORMAL0`` (3: the plane's unit normal at t = 0, in the axes' combination ``n = Σ n⁰ₖ bₖ``),
``OFFSET`` (3: the plane point's constant offset from its marker), ``STIFFNESS`` K,
``EXPONENT`` n, ``FACTOR`` a (hysteresis), ``MU`` μ, ``TOLERANCE`` ε (m/s) and ``MASS``
(the effective mass, kg).

Derivatives are carried forward: every quantity of the law is an array whose column 0 is
its value and whose columns ``1 … D`` are its derivatives with respect to the contact's
marker values (slot s, component j at column ``1 + 3s + j``) and then marker velocities
(at ``1 + 3·SLOTS + 3s + j``). With ``width = 1`` the same code gives values only. A
scalar is ``(width,)``, a vector ``(3, width)``. Where the law takes a branch (in contact
or not, the larger of two speeds), the derivative is that of the branch taken; ``√x`` and
``xᵖ`` have zero derivative at ``x = 0``. SI units.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.scratch import local

SLOTS = 8
#: derivative inputs: the 8 markers' values, then their velocities
D = 2 * 3 * SLOTS
#: the columns of an evaluation with derivatives
WIDTH = 1 + D
PLANE, SPHERE = 0, 1
RADIUS, RADIUS2, NORMAL0, OFFSET = 0, 1, 2, 5
STIFFNESS, EXPONENT, FACTOR, MU, TOLERANCE, MASS = 8, 9, 10, 11, 12, 13
PARAMETERS = 14
#: m/s: the smallest onset speed used in the damping term (bounds resting-contact damping)
MIN_IMPACT_SPEED = 1e-3
#: what :func:`contact_law` returns per contact, in this order
PENETRATION, RATE, ONSET_ESTIMATE, ELASTIC_FORCE, NORMAL_FORCE, POWER = 0, 1, 2, 3, 4, 5
OUTPUTS = 6


@kernel(full_optimisation=True)
def _seed(out, x, col):
    """``out`` (3, width) ← the vector ``x`` (3,) as an input: derivative 1 at columns
    ``col … col + 2``, 0 at the others (in place: a law evaluation seeds 16 of them)."""
    width = out.shape[1]
    for i in range(3):
        out[i, 0] = x[i]
        for j in range(1, width):
            out[i, j] = 0.0
        if width > 1:
            out[i, col + i] = 1.0


@kernel(full_optimisation=True)
def _constant(x, width):
    out = np.zeros(width)
    out[0] = x
    return out


@kernel(full_optimisation=True)
def _dot(a, b):
    """``a·b`` of two vectors."""
    width = a.shape[1]
    out = np.zeros(width)
    for i in range(3):
        ai, bi = a[i, 0], b[i, 0]
        out[0] += ai * bi
        for j in range(1, width):
            out[j] += ai * b[i, j] + bi * a[i, j]
    return out


@kernel(full_optimisation=True)
def _scaled(v, s):
    """The vector ``v`` times the scalar ``s``."""
    width = v.shape[1]
    out = np.empty((3, width))
    for i in range(3):
        vi = v[i, 0]
        out[i, 0] = vi * s[0]
        for j in range(1, width):
            out[i, j] = v[i, j] * s[0] + vi * s[j]
    return out


@kernel(full_optimisation=True)
def _product(a, b):
    out = np.empty(a.shape[0])
    out[0] = a[0] * b[0]
    for j in range(1, a.shape[0]):
        out[j] = a[j] * b[0] + a[0] * b[j]
    return out


@kernel(full_optimisation=True)
def _quotient(a, b):
    out = np.empty(a.shape[0])
    out[0] = a[0] / b[0]
    for j in range(1, a.shape[0]):
        out[j] = (a[j] - out[0] * b[j]) / b[0]
    return out


@kernel(full_optimisation=True)
def _power(a, p):
    """``aᵖ`` for ``a ≥ 0`` (zero, with zero derivative, where ``a ≤ 0``)."""
    out = np.zeros(a.shape[0])
    if a[0] > 0.0:
        out[0] = a[0] ** p
        slope = p * out[0] / a[0]
        for j in range(1, a.shape[0]):
            out[j] = slope * a[j]
    return out


@kernel(full_optimisation=True)
def _larger(a, b):
    """The larger of two scalars (``a`` on a tie), with its derivative."""
    return a.copy() if a[0] >= b[0] else b.copy()


@kernel(full_optimisation=True)
def contact_law(u, ud, mk, kind, par, committed, width, loads):
    """One contact at the marker values ``u`` and velocities ``ud`` (N, 3) of the whole
    table, its markers ``mk`` (8,), ``kind`` ``PLANE`` or ``SPHERE``, parameters ``par``
    and committed onset speed ``committed`` (m/s; 0 when not in contact).

    Writes the forces on the 8 slots into ``loads`` (8, 3, width), with their
    derivatives when ``width`` is ``WIDTH`` (zeros where a slot takes no force), and
    returns the penetration δ (m), its rate δ̇ (m/s), the onset-speed estimate v* (m/s;
    in contact, δ > 0: 0 out of contact, where nothing reads it), the elastic force
    ``K δⁿ``, the normal force ``F_N`` (N) and the power of damping and friction (W, ≤ 0)."""
    pos = np.empty((SLOTS, 3, width))
    vel = np.empty((SLOTS, 3, width))
    for s in range(SLOTS):
        _seed(pos[s], u[mk[s]], 1 + 3 * s)
        _seed(vel[s], ud[mk[s]], 1 + 3 * SLOTS + 3 * s)
    c, cd, o, od = pos[0], vel[0], pos[4].copy(), vel[4]
    reach = par[RADIUS]  # δ = reach − distance
    if kind == PLANE:
        normal = np.zeros((3, width))
        turn = np.zeros((3, width))  # ṅ
        for k in range(3):
            normal += par[NORMAL0 + k] * pos[5 + k]
            turn += par[NORMAL0 + k] * vel[5 + k]
        for i in range(3):
            o[i, 0] += par[OFFSET + i]
        w = c - o
        delta = -_dot(normal, w)
        rate = -(_dot(turn, w) + _dot(normal, cd - od))
    else:
        w = c - o
        length = _power(_dot(w, w), 0.5)
        normal = _scaled(w, _quotient(_constant(1.0, width), length))
        delta = -length
        reach += par[RADIUS2]
        rate = -_dot(normal, cd - od)
    delta[0] += reach
    loads[:] = 0.0
    if delta[0] <= 0.0:  # no contact: no load (the usual case)
        return delta[0], rate[0], 0.0, 0.0, 0.0, 0.0
    k, n, a = par[STIFFNESS], par[EXPONENT], par[FACTOR]
    zero = np.zeros(width)
    depth = delta
    elastic = k * _power(depth, n)
    approach = rate if rate[0] >= 0.0 else zero
    spring = (2.0 / (n + 1.0)) * k / par[MASS]
    vstar = _power(_product(approach, approach) + spring * _power(depth, n + 1.0), 0.5)
    vstar = _larger(vstar, _constant(MIN_IMPACT_SPEED, width))
    fn = elastic
    if a > 0.0:
        onset = _larger(vstar, _constant(committed, width))
        factor = a * _quotient(rate, onset)
        factor[0] += 1.0  # 1 + a δ̇/δ̇⁻
        fn = _product(elastic, factor)
        if not fn[0] > 0.0:  # a contact only pushes
            fn = zero
    power = -(fn[0] - elastic[0]) * rate[0]
    push = _scaled(normal, fn)
    loads[0] += push
    loads[4] -= push
    if kind == PLANE:  # the normal turns with the plane's axes: n = Σ n⁰ₖ bₖ
        lever = _scaled(w, fn)
        for j in range(3):
            loads[5 + j] += par[NORMAL0 + j] * lever
    mu = par[MU]
    if mu > 0.0:
        arm = -par[RADIUS] * normal  # P − c
        arm_b = w + arm  # the same point P on side B: no net moment
        slip = cd - od
        coef = np.empty((6, width))
        for j in range(3):
            coef[j] = _dot(pos[1 + j], arm)
            coef[3 + j] = _dot(pos[5 + j], arm_b)
            slip += _scaled(vel[1 + j], coef[j]) - _scaled(vel[5 + j], coef[3 + j])
        tangential = slip - _scaled(normal, _dot(normal, slip))
        speed = _power(_dot(tangential, tangential), 0.5)
        limit = _larger(speed, _constant(par[TOLERANCE], width))
        friction = _scaled(tangential, -mu * _quotient(fn, limit))
        loads[0] += friction
        loads[4] -= friction
        for j in range(3):
            loads[1 + j] += _scaled(friction, coef[j])
            loads[5 + j] -= _scaled(friction, coef[3 + j])
        for i in range(3):
            power += friction[i, 0] * slip[i, 0]
    return delta[0], rate[0], vstar[0], elastic[0], fn[0], power


@kernel(full_optimisation=True)
def contact_states(mk, kind, par, committed, u, ud):
    """:func:`contact_law`'s values for every contact (rows ``mk``, ``kind``, ``par``,
    ``committed``) at the marker values ``u``, ``ud``: ``(nc, OUTPUTS)``."""
    out = np.zeros((kind.shape[0], OUTPUTS))
    loads = local((SLOTS, 3, 1))
    for c in range(kind.shape[0]):
        r = contact_law(u, ud, mk[c], kind[c], par[c], committed[c], np.int64(1), loads)
        for j in range(OUTPUTS):
            out[c, j] = r[j]
    return out


@kernel(full_optimisation=True)
def any_penetration(mk, kind, par, committed, u, ud):
    """Whether a contact penetrates (δ > 0; :func:`contact_states`) at the marker values
    ``u``, ``ud``: the state whose contacts the time loop commits (the compiled steps
    stop after such a step and hand it on)."""
    states = contact_states(mk, kind, par, committed, u, ud)
    for c in range(kind.shape[0]):  # noqa: SIM110 (a loop compiles to no temporary array)
        if states[c, PENETRATION] > 0.0:
            return True
    return False
