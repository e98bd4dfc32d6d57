"""Sphere–plane and sphere–sphere contact (``contact``; docs/model_format.md §9; method of Villar
Alegría (2018) §1.8).

Geometry
--------
Every contact has two sides, each described by four markers: an origin and the body's
three axes (the global x, y, z directions at t = 0, fixed to the body; constant
directions for ground and point masses). Side A is the ``sphere`` (origin: its centre
``c``); side B is the ``plane`` (origin: its point ``o``; normal ``n = Σ n⁰ₖ bₖ`` with
``n⁰`` the normal at t = 0, pointing toward the free side) or ``sphere2`` (origin: its
centre ``c₂``). The penetration ``δ`` and the unit normal ``N`` (the direction that pushes
side A away from side B) are

    plane:   δ = R − n·(c − o),              N = n,
    sphere:  δ = R + R₂ − |c − c₂|,          N = (c − c₂)/|c − c₂|,

and ``δ̇`` is the exact time derivative of δ (for the plane it includes the rotation of
the plane, ``ṅ·(c − o)``).

Normal force (Villar Alegría (2018) eqs. 64–67)
-----------------------------
With ``δ > 0``: ``F_N = K δⁿ (1 + a δ̇/δ̇⁻)``, clamped at zero (a contact only pushes).
``a`` is the dimensionless hysteresis factor of the model and ``δ̇⁻`` the approach speed
at contact onset:

* ``hertz``: ``a = 0`` (purely elastic, restitution 1);
* ``lankarani_nikravesh``: ``a = 3(1 − c_r²)/4`` (Lankarani and Nikravesh), derived for
  c_r near 1: the restitution it actually produces is higher than c_r away from 1
  (0.95 → 0.954, 0.8 → 0.847, 0.5 → 0.725);
* ``hunt_crossley`` (the default): the Hunt–Crossley law ``F = K δⁿ + χ δⁿ δ̇`` with
  ``χ = a K / δ̇⁻`` and ``a`` from the exact restitution relation of that law,
  ``(1 + c_r) a + ln((1 − a c_r)/(1 + a)) = 0`` (integrate ``m δ̇ dδ̇/dδ = −F`` over the
  impact; the relation is independent of K, n and the mass). For c_r → 1 it reduces to
  eq. 66, ``a = 3(1 − c_r)/2``; eq. 66 itself would give a restitution of 0.663 for
  c_r = 0.5, this gives 0.5.

The normal force acts along N through the sphere centre: it is ``−F_N ∂δ/∂q``, so its
elastic part is exactly the gradient of the contact energy ``K δⁿ⁺¹/(n + 1)`` (reported as
elastic energy) and the rest, the damping, has the power ``−(F_N − K δⁿ) δ̇``.

The stiffness K is given or Hertz's ``K = (4/3) E* √R*`` with ``1/E* = (1 − ν₁²)/E₁ +
(1 − ν₂²)/E₂`` and ``R* = R`` (plane) or ``R R₂/(R + R₂)``. Defaults: ``exponent`` 1.5,
``restitution`` 1, ``model`` ``hunt_crossley``.

Friction
--------
Regularised Coulomb friction acts at the contact point ``P = c − R N`` (on both sides, so
action and reaction have no net moment): with ``v_rel`` the velocity of the sphere's material point at P minus that
of side B's material point there, ``v_t`` its tangential part, and ``ε`` the velocity
tolerance,

    F_t = −μ F_N v_t / max(|v_t|, ε)

on side A and ``−F_t`` on side B: full Coulomb friction above ε, proportional to the
sliding speed below it. The velocity of a material point is ``ȯ + Σₖ (aₖ·(P − o)) ȧₖ``
(``ω × (P − o)`` for a rigid body), and the same coefficients carry the force to the axes
markers, so the friction exerts the moment ``(P − o) × F_t`` and spin develops. Its power
is ``F_t·v_rel``.

The onset speed δ̇⁻ (per-contact state)
-----------------------------------------
Every formulation evaluates forces at trial states (Runge–Kutta stages, rejected steps,
Newton iterates), so δ̇⁻ cannot be stored while evaluating. Each contact keeps a
committed δ̇⁻ (zero when not in contact) that only :meth:`Contacts.accept` changes, at
states the time loop has accepted (after every step of the fixed-step formulations; after
every internal step of the adaptive one). An evaluation uses

    δ̇⁻ = max(committed δ̇⁻, v*),   v* = max(√(max(δ̇, 0)² + 2 K δⁿ⁺¹/((n + 1) m_eff)), v_min),

a function of the state (its derivatives are in the Jacobians) and of the committed value.
``v*`` is the approach speed the contact had at δ = 0 if only its spring had acted since
(constant through an undamped compression, decreasing through a damped one), and
``accept`` commits ``max(committed, v*)`` in contact and zero out of it. So:

* a free impact commits its speed at the first accepted state in contact and keeps it:
  the classical model (v* ≈ δ̇ there, since the spring has barely acted);
* the force is continuous at every commit (the same value before and after);
* a contact that starts with no approach speed and is then driven together — touching
  balls of Newton's cradle, a load suddenly put on a resting contact — takes the largest
  approach speed it reaches, instead of a near-zero one that would make it a
  near-rigid damper;
* ``v_min = MIN_IMPACT_SPEED`` bounds the damping of resting contacts.

``m_eff = m_A m_B/(m_A + m_B)`` (body masses; ground infinite) is only an estimate: it
enters v* through the elastic term (only when an accepted state is already deep in the
contact) and the step check.

``accept`` also integrates the contact's power over the accepted states (the parabola
through the last three, third order) into :meth:`Contacts.work`, which the time loop adds
to ``energy.work`` instead of its own output-step integration: an impact lasts far less
than an output step of the adaptive formulation. It logs every impact in
``Contacts.onsets`` and every separation in ``Contacts.releases``.

Step check
----------
At each onset (and when a contact's δ̇⁻ grows by a quarter), :meth:`Contacts.accept`
returns the contact's linearised natural frequency at the expected penetration,
``ω = √(n K δ_maxⁿ⁻¹ / m_eff)`` with ``δ_max`` from ``½ m_eff δ̇⁻² = K δ_maxⁿ⁺¹/(n + 1)``,
and the largest step that resolves the impact, ``STEP_FACTOR/ω``; :func:`check_step`
turns a larger step of a fixed-step formulation into a ``SimulationError`` naming the
contact. The adaptive formulation (``lagrange_baumgarte``) needs no check: its error
control shortens the steps through every impact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.errors import SimulationError
from solver.mechanics.forces import dual
from solver.mechanics.forces.assembly import Accumulator, MarkerLoads, add_marker_loads
from solver.mechanics.forces.dual import Dual
from solver.mechanics.markers import GROUND, Markers, MarkerState
from solver.model import description as d
from solver.model.errors import ModelError, UnsupportedFeature

#: m/s: the smallest onset speed used in the damping term (bounds resting-contact damping)
MIN_IMPACT_SPEED = 1e-3
#: the largest stable step is STEP_FACTOR/ω (ω: linearised contact frequency at the
#: expected penetration); an impact then lasts about 4/ω ≈ 10 steps
STEP_FACTOR = 0.4
DEFAULT_EXPONENT = 1.5
SLOTS = 8  # markers per contact: origin and three axes of side A, then of side B
D = 2 * 3 * SLOTS  # derivative inputs: marker values, then marker velocities


def hertz_stiffness(E1: float, nu1: float, E2: float, nu2: float, radius: float) -> float:
    """``(4/3) E* √R*`` (N/m^1.5) for the effective radius ``radius``."""
    e_star = 1.0 / ((1.0 - nu1 * nu1) / E1 + (1.0 - nu2 * nu2) / E2)
    return 4.0 / 3.0 * e_star * math.sqrt(radius)


def _restitution_gap(a: float, e: float) -> float:
    """Zero when the Hunt–Crossley factor ``a`` gives the restitution ``e``."""
    return (1.0 + e) * a + math.log1p(-a * e) - math.log1p(a)


def hunt_crossley_factor(restitution: float) -> float:
    """The factor ``a`` of ``K δⁿ (1 + a δ̇/δ̇⁻)`` that restitutes exactly ``restitution``."""
    e = float(restitution)  # in (0, 1]
    if e >= 1.0:
        return 0.0
    # the root lies between half eq. 66's factor and 1/e (where the exit force vanishes)
    lo, hi = 0.75 * (1.0 - e), (1.0 - 1e-14) / e
    from scipy.optimize import brentq  # a heavy import, only for models with contacts

    return brentq(_restitution_gap, lo, hi, args=(e,), xtol=1e-15, rtol=1e-14)


def restitution_of(factor: float) -> float:
    """The restitution that ``K δⁿ (1 + a δ̇/δ̇⁻)`` produces for ``a = factor`` (a central
    impact of two free bodies)."""
    a = float(factor)
    if a <= 0.0:
        return 1.0
    from scipy.optimize import brentq

    return brentq(lambda e: _restitution_gap(a, e), 1e-12, min(1.0, 1.0 / a) * (1.0 - 1e-14))


def lankarani_nikravesh_factor(restitution: float) -> float:
    """Lankarani and Nikravesh's ``3(1 − c_r²)/4`` (accurate for c_r near 1)."""
    return 0.75 * (1.0 - restitution * restitution)


@dataclass
class Onset:
    """A contact that started (or, ``update``, whose approach speed grew) at an accepted
    state, and the step it needs."""

    name: str
    t: float
    speed: float  # m/s, approach speed δ̇⁻
    penetration: float  # m, expected largest penetration
    omega: float  # rad/s, linearised natural frequency there
    max_step: float  # s
    update: bool = False


def check_step(onsets: list[Onset], dt: float, formulation: str) -> None:
    """Raise ``SimulationError`` if ``dt`` is too large for a contact that just started."""
    for ev in onsets:
        if dt > ev.max_step:
            raise SimulationError(
                ev.t,
                f'contact "{ev.name}": the step dt = {dt:.3g} s of {formulation} is too large '
                f"for the contact stiffness (impact at {ev.speed:.3g} m/s, natural frequency "
                f"{ev.omega:.3g} rad/s at the expected penetration {ev.penetration:.3g} m); "
                f"the largest stable step is {ev.max_step:.3g} s",
                f"dt ≤ {ev.max_step:.2g} s, or the adaptive formulation lagrange_baumgarte",
            )


class ContactGroup:
    """All contacts with one kind of second surface (``plane`` or ``sphere``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.names: list[str] = []
        self._markers: list[list[int]] = []
        self._rows: list[list[float]] = []

    def __len__(self) -> int:
        return len(self.names)

    def add(self, name, markers, radius, radius2, normal, offset, k, n, a, mu, tol, m_eff):
        self.names.append(name)
        self._markers.append(list(markers))
        self._rows.append([radius, radius2, *normal, *offset, k, n, a, mu, tol, m_eff])

    def freeze(self, markers: Markers) -> None:
        self.markers = markers
        self.idx = np.array(self._markers, dtype=np.int64).reshape(-1, SLOTS)
        rows = np.array(self._rows, float).reshape(-1, 14)
        col = lambda i: rows[:, i : i + 1]  # noqa: E731  (m, 1) columns
        self.radius, self.radius2 = col(0), col(1)
        self.normal0, self.offset = rows[:, 2:5], rows[:, 5:8]
        self.k, self.n, self.a, self.mu, self.tol, self.m_eff = (col(i) for i in range(8, 14))
        self.damped = bool(np.any(self.a > 0))
        self.rough = bool(np.any(self.mu > 0))
        # marker slots that can carry a load: not ground, and used by the force law
        used = {0, 4} | ({5, 6, 7} if self.kind == "plane" else set())
        if self.rough:
            used |= {1, 2, 3, 5, 6, 7}
        moving = [bool(np.any(markers.kind[self.idx[:, s]] != GROUND)) for s in range(SLOTS)]
        self.live = [s for s in range(SLOTS) if s in used and moving[s]]
        eye = np.eye(D)
        self._seed_u = [eye[3 * s : 3 * s + 3][None] for s in range(SLOTS)]
        self._seed_v = [eye[3 * SLOTS + 3 * s : 3 * SLOTS + 3 * s + 3][None] for s in range(SLOTS)]
        self.reset()

    def reset(self) -> None:
        m = len(self)
        self.active = np.zeros((m, 1), bool)
        self.onset_speed = np.zeros((m, 1))  # committed δ̇⁻ (0: not in contact)
        self.reported = np.zeros(m)  # the δ̇⁻ last checked against the step
        self._cache = None

    # ---- the force law ---------------------------------------------------------------------
    def _penetration(self, u: np.ndarray) -> np.ndarray:
        """δ of every contact from the marker values ``u`` (m, 8, 3), values only."""
        if self.kind == "plane":
            nrm = np.einsum("mk,mki->mi", self.normal0, u[:, 5:8])
            w = u[:, 0] - u[:, 4] - self.offset
            return self.radius[:, 0] - np.sum(nrm * w, axis=1)
        length = np.linalg.norm(u[:, 0] - u[:, 4], axis=1)
        return (self.radius + self.radius2)[:, 0] - length

    def _law(self, ms: MarkerState, jacobians: bool):
        """Penetration, rates, forces on the 8 marker slots (duals) and power terms."""
        if not jacobians and self._cache is not None and self._cache[0] is ms:
            return self._cache[1]
        u, ud = ms.u[self.idx], ms.udot[self.idx]  # (m, 8, 3)
        delta = self._penetration(u)
        if not np.any(delta > 0.0):  # no contact: no load (the usual case)
            zero = np.zeros(len(self))
            law = {
                "delta": delta,
                "rate": zero,
                "vstar": zero,
                "elastic": zero,
                "fn": zero,
                "friction": None,
                "vrel": None,
                "loads": [None] * SLOTS,
            }
        elif jacobians:
            law = self._evaluate(u, ud)
        else:
            law = self._values(u, ud)
        if not jacobians:
            self._cache = (ms, law)
        return law

    def _values(self, u: np.ndarray, ud: np.ndarray):
        """The force law of :meth:`_evaluate` in plain arrays (values only: the fast path
        of explicit integrators; the tests hold the two to the same values)."""
        c, cd, o, od = u[:, 0], ud[:, 0], u[:, 4], ud[:, 4]
        loads: list = [None] * SLOTS
        if self.kind == "plane":
            normal = np.einsum("mk,mki->mi", self.normal0, u[:, 5:8])
            turn = np.einsum("mk,mki->mi", self.normal0, ud[:, 5:8])
            o = o + self.offset
            w = c - o
            delta = self.radius[:, 0] - np.sum(normal * w, axis=1)
            rate = -(np.sum(turn * w, axis=1) + np.sum(normal * (cd - od), axis=1))
        else:
            w = c - o
            length = np.linalg.norm(w, axis=1)
            normal = w / length[:, None]
            delta = (self.radius + self.radius2)[:, 0] - length
            rate = -np.sum(normal * (cd - od), axis=1)
        k, n = self.k[:, 0], self.n[:, 0]
        depth = np.maximum(delta, 0.0)
        elastic = k * depth**n
        approach = np.maximum(rate, 0.0)
        spring = (2.0 / (n + 1.0)) * k / self.m_eff[:, 0]
        vstar = np.maximum(np.sqrt(approach**2 + spring * depth ** (n + 1.0)), MIN_IMPACT_SPEED)
        fn = elastic
        if self.damped:
            onset = np.maximum(self.onset_speed[:, 0], vstar)
            fn = np.maximum(elastic * (1.0 + self.a[:, 0] * rate / onset), 0.0)
        loads[0] = fn[:, None] * normal
        loads[4] = -loads[0]
        if self.kind == "plane":
            for j in range(3):
                loads[5 + j] = (fn * self.normal0[:, j])[:, None] * w
        friction = vrel = None
        if self.rough:
            arm = -self.radius * normal  # P − c
            arm_b = c + arm - o
            coef_a = np.einsum("mki,mi->mk", u[:, 1:4], arm)
            coef_b = np.einsum("mki,mi->mk", u[:, 5:8], arm_b)
            vrel = (cd + np.einsum("mk,mki->mi", coef_a, ud[:, 1:4])) - (
                od + np.einsum("mk,mki->mi", coef_b, ud[:, 5:8])
            )
            vt = vrel - normal * np.sum(normal * vrel, axis=1, keepdims=True)
            speed = np.linalg.norm(vt, axis=1)
            friction = vt * (-self.mu[:, 0] * fn / np.maximum(speed, self.tol[:, 0]))[:, None]
            loads[0] = loads[0] + friction
            loads[4] = loads[4] - friction
            for j in range(3):
                loads[1 + j] = coef_a[:, j : j + 1] * friction
                load = -coef_b[:, j : j + 1] * friction
                loads[5 + j] = load if loads[5 + j] is None else loads[5 + j] + load
        return {
            "delta": delta,
            "rate": rate,
            "vstar": vstar,
            "elastic": elastic,
            "fn": fn,
            "friction": friction,
            "vrel": vrel,
            "loads": loads,
        }

    def _evaluate(self, u: np.ndarray, ud: np.ndarray):
        """The force law with exact derivatives (duals) over the 8 marker values and
        velocities; the loads are ``Dual``."""
        pos = [Dual(u[:, s], self._seed_u[s]) for s in range(SLOTS)]
        vel = [Dual(ud[:, s], self._seed_v[s]) for s in range(SLOTS)]
        c, cd = pos[0], vel[0]
        o, od = pos[4], vel[4]
        loads: list = [None] * SLOTS
        if self.kind == "plane":
            n0 = [self.normal0[:, k : k + 1] for k in range(3)]
            nrm = pos[5] * n0[0] + pos[6] * n0[1] + pos[7] * n0[2]
            nrm_d = vel[5] * n0[0] + vel[6] * n0[1] + vel[7] * n0[2]
            o = o + self.offset
            w = c - o
            delta = self.radius - dual.dot(nrm, w)
            rate = -(dual.dot(nrm_d, w) + dual.dot(nrm, cd - od))
            normal = nrm
        else:
            w = c - o
            length = dual.sqrt(dual.dot(w, w))
            normal = w / length
            delta = self.radius + self.radius2 - length
            rate = -dual.dot(normal, cd - od)
        inside = delta.v > 0.0
        depth = dual.where(inside, delta, 0.0)
        elastic = self.k * dual.power(depth, self.n)
        # provisional onset speed v* (a function of the state) unless committed
        approach = dual.maximum(rate, 0.0)
        spring = (2.0 / (self.n + 1.0)) * self.k / self.m_eff
        vstar = dual.sqrt(approach * approach + spring * dual.power(depth, self.n + 1.0))
        vstar = dual.maximum(vstar, MIN_IMPACT_SPEED)
        fn = elastic
        if self.damped:
            onset = dual.maximum(vstar, self.onset_speed)
            fn = elastic * (1.0 + self.a * rate / onset)
            fn = dual.where(fn.v > 0.0, fn, 0.0)
        if self.kind == "plane":
            loads[0] = fn * normal
            loads[4] = -loads[0]
            for k in range(3):
                loads[5 + k] = fn * w * n0[k]
        else:
            loads[0] = fn * normal
            loads[4] = -loads[0]
        friction = None
        vrel = None
        if self.rough:
            arm = normal * (-self.radius)  # P − c
            vel_a = cd
            coef_a = []
            for k in range(3):
                coef_a.append(dual.dot(pos[1 + k], arm))
                vel_a = vel_a + vel[1 + k] * coef_a[k]
            arm_b = c + arm - o  # the same point P on side B: no net moment
            vel_b = od
            coef_b = []
            for k in range(3):
                coef_b.append(dual.dot(pos[5 + k], arm_b))
                vel_b = vel_b + vel[5 + k] * coef_b[k]
            vrel = vel_a - vel_b
            vt = vrel - normal * dual.dot(normal, vrel)
            speed = dual.sqrt(dual.dot(vt, vt))
            friction = vt * (-(self.mu * fn) / dual.maximum(speed, self.tol))
            loads[0] = loads[0] + friction
            loads[4] = loads[4] - friction
            for k in range(3):
                loads[1 + k] = friction * coef_a[k]
                load = -(friction * coef_b[k])
                loads[5 + k] = load if loads[5 + k] is None else loads[5 + k] + load
        return {
            "delta": delta.v[:, 0],
            "rate": rate.v[:, 0],
            "vstar": vstar.v[:, 0],
            "elastic": elastic.v[:, 0],
            "fn": fn.v[:, 0],
            "friction": None if friction is None else friction.v,
            "vrel": None if vrel is None else vrel.v,
            "loads": loads,
        }

    def add_terms(self, acc: Accumulator, ms: MarkerState) -> None:
        law = self._law(ms, acc.jacobians)
        live = self.live
        zero = np.zeros((len(self), 3))
        forces = [law["loads"][s] for s in live]
        loads = MarkerLoads(
            [self.idx[:, s] for s in live],
            [zero if f is None else (f.v if isinstance(f, Dual) else f) for f in forces],
        )
        if acc.jacobians:
            for i, f in enumerate(forces):
                for j, s in enumerate(live):
                    if f is None or f.d is None:
                        blk_u = blk_v = np.zeros((len(self), 3, 3))
                    else:
                        dd = np.broadcast_to(f.d, (len(self), 3, D))
                        blk_u = dd[:, :, 3 * s : 3 * s + 3]
                        blk_v = dd[:, :, 3 * SLOTS + 3 * s : 3 * SLOTS + 3 * s + 3]
                    loads.du[(i, j)] = blk_u
                    loads.dv[(i, j)] = blk_v
        add_marker_loads(acc, self.markers, ms, loads)

    def energy(self, ms: MarkerState) -> float:
        law = self._law(ms, False)
        depth = np.maximum(law["delta"], 0.0)
        n = self.n[:, 0]
        return float(np.sum(self.k[:, 0] * depth ** (n + 1.0) / (n + 1.0)))

    def power(self, ms: MarkerState) -> float:
        law = self._law(ms, False)
        p = -(law["fn"] - law["elastic"]) * law["rate"]
        if law["friction"] is not None:
            p = p + np.sum(law["friction"] * law["vrel"], axis=1)
        return float(np.sum(p))

    def accept(self, ms: MarkerState, t: float) -> tuple[list[Onset], list[str]]:
        """Commit onsets, growing approach speeds and releases at an accepted state:
        ``(onsets, names released)``; the onsets include contacts whose approach speed grew
        by a quarter since it was last reported (``Onset.update``) for the step check."""
        law = self._law(ms, False)
        inside = law["delta"] > 0.0
        active = self.active[:, 0].copy()
        started = np.flatnonzero(inside & ~active)
        ended = np.flatnonzero(active & ~inside)
        speed = np.where(inside, np.maximum(self.onset_speed[:, 0], law["vstar"]), 0.0)
        grown = np.flatnonzero(inside & active & (speed > 1.25 * self.reported))
        self.active[:, 0] = inside
        self.onset_speed[:, 0] = speed
        self.reported[started] = speed[started]
        self.reported[grown] = speed[grown]
        self._cache = None
        onsets = [
            self._onset(int(i), float(t), float(speed[i]), float(law["delta"][i]), i in grown)
            for i in np.concatenate([started, grown])
        ]
        return onsets, [self.names[i] for i in ended]

    def _onset(self, i: int, t: float, speed: float, depth: float, update=False) -> Onset:
        k, n, m = float(self.k[i, 0]), float(self.n[i, 0]), float(self.m_eff[i, 0])
        if not math.isfinite(m):
            return Onset(self.names[i], t, speed, depth, 0.0, math.inf, update)
        reach = ((n + 1.0) * m * speed * speed / (2.0 * k)) ** (1.0 / (n + 1.0))
        depth = max(reach, depth)
        omega = math.sqrt(n * k * depth ** (n - 1.0) / m) if depth > 0 else 0.0
        step = STEP_FACTOR / omega if omega > 0 else math.inf
        return Onset(self.names[i], t, speed, depth, omega, step, update)

    def state(self, ms: MarkerState) -> dict[str, np.ndarray]:
        """Penetration, its rate and the normal force of every contact (for output)."""
        law = self._law(ms, False)
        return {"penetration": law["delta"], "rate": law["rate"], "normal_force": law["fn"]}


class Contacts:
    """All contacts of a system: building, evaluation, committed state and their work."""

    def __init__(self) -> None:
        self.groups = {"plane": ContactGroup("plane"), "sphere": ContactGroup("sphere")}
        self.reset()

    size: int | None = None  # the number of contacts once the force set is frozen

    def __len__(self) -> int:
        return self.size if self.size is not None else sum(len(g) for g in self.groups.values())

    def _all(self):
        return [g for g in self.groups.values() if len(g)]

    # ---- building ------------------------------------------------------------------------
    def add(self, ctx, where: str, f: d.Force, bodies: dict) -> None:
        """Add the contact ``f``; ``ctx`` is the system under construction (markers),
        ``bodies`` the model's bodies by name (for the effective mass)."""
        sph = f.sphere
        a_markers = self._side(ctx, where, "sphere", sph.body, sph.center, bodies)
        if f.plane is not None:
            kind, other = "plane", f.plane
            b_markers, offset = self._plane_side(ctx, where, other, bodies)
            normal = np.asarray(other.normal, float)
            normal = normal / np.linalg.norm(normal)
            radius2 = 0.0
            r_star = sph.radius
        else:
            kind, other = "sphere", f.sphere2
            b_markers = self._side(ctx, where, "sphere2", other.body, other.center, bodies)
            offset = np.zeros(3)
            normal = np.zeros(3)
            radius2 = other.radius
            r_star = sph.radius * radius2 / (sph.radius + radius2)
        model = f.model or "hunt_crossley"
        restitution = 1.0 if f.restitution is None else float(f.restitution)
        if model == "hertz" and restitution < 1.0:
            raise ModelError(
                where,
                f'has no effect with model "hertz" (no damping); use "hunt_crossley" or '
                f'"lankarani_nikravesh" for a restitution of {restitution:g}',
                "restitution",
            )
        if f.materials is not None:
            m = f.materials
            k = hertz_stiffness(m.E1, m.nu1, m.E2, m.nu2, r_star)
        else:
            k = float(f.stiffness)
        if model == "hunt_crossley":
            a = hunt_crossley_factor(restitution)
        elif model == "lankarani_nikravesh":
            a = lankarani_nikravesh_factor(restitution)
        else:
            a = 0.0
        n = DEFAULT_EXPONENT if f.exponent is None else float(f.exponent)
        mu = f.friction.mu if f.friction is not None else 0.0
        tol = f.friction.velocity_tolerance if f.friction is not None else 1.0
        m_eff = 1.0 / (1.0 / _mass(bodies, sph.body) + 1.0 / _mass(bodies, other.body))
        self.groups[kind].add(
            f.name,
            a_markers + b_markers,
            sph.radius,
            radius2,
            normal,
            offset,
            k,
            n,
            a,
            mu,
            tol,
            m_eff,
        )

    @staticmethod
    def _axes(ctx, body: str, moving: bool) -> list[int]:
        eye = np.eye(3)
        return [ctx.vector(body if moving else d.GROUND, eye[k]) for k in range(3)]

    def _side(self, ctx, where, field, body, center, bodies) -> list[int]:
        """Centre and axes of a sphere on ``body``."""
        b = bodies.get(body)
        if isinstance(b, d.FlexibleBody):
            raise UnsupportedFeature(
                where, "contact spheres on flexible bodies are not supported", f"{field}.body"
            )
        origin = ctx.point(body, center, where, f"{field}.center")
        return [origin, *self._axes(ctx, body, isinstance(b, d.RigidBody))]

    def _plane_side(self, ctx, where, plane, bodies):
        """Point and axes of a plane on ``body``, and the plane point's constant offset from
        the marker (a point mass carries the plane at its own position)."""
        b = bodies.get(plane.body)
        if isinstance(b, d.FlexibleBody):
            raise UnsupportedFeature(
                where, "contact planes on flexible bodies are not supported", "plane.body"
            )
        offset = np.zeros(3)
        point = np.asarray(plane.point, float)
        if isinstance(b, d.PointMass):
            offset = point - np.asarray(b.position, float)
            point = np.asarray(b.position, float)
        origin = ctx.point(plane.body, point, where, "plane.point")
        return [origin, *self._axes(ctx, plane.body, isinstance(b, d.RigidBody))], offset

    def freeze(self, markers: Markers) -> None:
        for g in self._all():
            g.freeze(markers)

    # ---- evaluation ------------------------------------------------------------------------
    def add_terms(self, acc: Accumulator, ms: MarkerState) -> None:
        for g in self._all():
            g.add_terms(acc, ms)

    def energy(self, ms: MarkerState) -> float:
        """Elastic energy of the contact springs, ``Σ K δⁿ⁺¹/(n + 1)``."""
        return sum(g.energy(ms) for g in self._all())

    def power(self, ms: MarkerState) -> float:
        """Power of contact damping and friction (W, ≤ 0)."""
        return sum(g.power(ms) for g in self._all())

    # ---- committed state and work ----------------------------------------------------------
    def reset(self) -> None:
        """Forget every contact and the work done: a run starts."""
        for g in self.groups.values():
            if len(g) and hasattr(g, "active"):
                g.reset()
        self._points: list[tuple[float, float, float]] = []  # last three (t, power, work)
        self.onsets: list[Onset] = []  # every impact of the run, in order
        self.releases: list[tuple[str, float]] = []  # (name, t) of every separation

    def accept(self, ms: MarkerState, t: float) -> list[Onset]:
        """Commit the contact state at an accepted state at time ``t`` and integrate the
        contact work; states not later than the last accepted one are ignored. Returns the
        contacts that started here (also logged in ``onsets``)."""
        pts = self._points
        if pts and t <= pts[-1][0]:
            return []
        onsets = []
        for g in self._all():
            started, ended = g.accept(ms, t)
            onsets += started
            self.releases += [(name, t) for name in ended]
        self.onsets.extend(ev for ev in onsets if not ev.update)
        power = self.power(ms)
        work = self._integral(t, power) if pts else 0.0
        self._points = (pts + [(t, power, work)])[-3:]
        return onsets

    def _integral(self, t: float, power: float | None = None) -> float:
        """Work at ``t`` after the last-but-one point: ∫ of the parabola through the last
        three powers (``power`` at ``t`` is the newest one if given; else the last three
        points are used as they are)."""
        pts = self._points if power is None else self._points[-2:] + [(t, power, 0.0)]
        if len(pts) == 1:
            return pts[0][2]
        (t1, p1, w1), (t2, p2, _) = pts[-2], pts[-1]
        h, x = t2 - t1, t - t1
        slope = (p2 - p1) / h
        work = w1 + p1 * x + 0.5 * slope * x * x
        if len(pts) == 3 and (p1 or p2 or pts[0][1]):
            t0, p0, _ = pts[0]
            curve = (slope - (p1 - p0) / (t1 - t0)) / (t2 - t0)
            work += curve * (x**3 / 3.0 - 0.5 * h * x * x)
        return work

    def work(self, t: float) -> float:
        """Work of contact damping and friction from the start up to ``t`` (J, ≤ 0); inside
        the last interval between accepted states, the integral of their parabola."""
        pts = self._points
        if not pts:
            return 0.0
        if t >= pts[-1][0] or len(pts) == 1:
            return pts[-1][2]
        if t <= pts[-2][0]:
            return pts[-2][2]
        return self._integral(t)

    def state(self, ms: MarkerState) -> dict[str, dict[str, float]]:
        """Per contact name: penetration (m), its rate (m/s) and the normal force (N)."""
        out = {}
        for g in self._all():
            vals = g.state(ms)
            for i, name in enumerate(g.names):
                out[name] = {k: float(v[i]) for k, v in vals.items()}
        return out


def _mass(bodies: dict, name: str) -> float:
    b = bodies.get(name)
    mass = getattr(b, "mass", None)
    return math.inf if b is None or mass is None else float(mass)
