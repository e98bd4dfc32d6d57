"""Sphere–plane and sphere–sphere contact (``contact``; docs/model_format.md §9; method of Villar
Alegría (2018) §1.8): the model, its building, the committed state and the work.

The law below is evaluated, with its exact derivatives, by the kernels
(:mod:`solver.kernels.contact`, through the system's force evaluation and energies).

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
committed δ̇⁻ (zero when not in contact) that only a commit changes
(``solver.kernels.contact_record.commit``, through :meth:`Contacts.accept` or from the
compiled steps), at accepted states (after every step of the fixed-step formulations;
after every internal step of the adaptive one). An evaluation uses

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
from solver.kernels import contact as law
from solver.kernels import contact_record as record
from solver.kernels.contact import MIN_IMPACT_SPEED
from solver.mechanics.markers import MarkerState
from solver.model import description as d
from solver.model.errors import ModelError, UnsupportedFeature

__all__ = ["MIN_IMPACT_SPEED", "Contacts", "Onset", "check_step", "hertz_stiffness"]

#: the largest stable step is STEP_FACTOR/ω (ω: linearised contact frequency at the
#: expected penetration); an impact then lasts about 4/ω ≈ 10 steps
STEP_FACTOR = 0.4
DEFAULT_EXPONENT = 1.5


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


class Contacts:
    """All contacts of a system: building, the committed state, their output and work.

    The force law is evaluated by the kernels (``solver.kernels.contact``, through the
    system's force evaluation); the committed onset speeds live in :attr:`onset`, the
    array the kernels read (``SystemArrays.cn_onset``), beside the rest of the committed
    state (``solver.kernels.contact_record``)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._markers: list[list[int]] = []
        self._kinds: list[int] = []
        self._rows: list[list[float]] = []
        self._record(0)  # committed δ̇⁻ (m/s; 0: not in contact) and the rest
        self.reset()

    def __len__(self) -> int:
        return len(self.names)

    # ---- building ------------------------------------------------------------------------
    def add(self, ctx, where: str, f: d.Force, bodies: dict) -> None:
        """Add the contact ``f``; ``ctx`` is the system under construction (markers),
        ``bodies`` the model's bodies by name (for the effective mass)."""
        sph = f.sphere
        a_markers = self._side(ctx, where, "sphere", sph.body, sph.center, bodies)
        if f.plane is not None:
            kind, other = law.PLANE, f.plane
            b_markers, offset = self._plane_side(ctx, where, other, bodies)
            normal = np.asarray(other.normal, float)
            normal = normal / np.linalg.norm(normal)
            radius2 = 0.0
            r_star = sph.radius
        else:
            kind, other = law.SPHERE, f.sphere2
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
        row = np.zeros(law.PARAMETERS)
        row[law.RADIUS], row[law.RADIUS2] = sph.radius, radius2
        row[law.NORMAL0 : law.NORMAL0 + 3] = normal
        row[law.OFFSET : law.OFFSET + 3] = offset
        row[law.STIFFNESS], row[law.EXPONENT], row[law.FACTOR] = k, n, a
        row[law.MU], row[law.TOLERANCE], row[law.MASS] = mu, tol, m_eff
        self.names.append(f.name)
        self._markers.append(a_markers + b_markers)
        self._kinds.append(kind)
        self._rows.append(row)

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

    def freeze(self) -> None:
        """Fix the tables (after the marker table is frozen)."""
        m = len(self)
        self.mk = np.array(self._markers, dtype=np.int64).reshape(m, law.SLOTS)
        self.kind = np.array(self._kinds, dtype=np.int64).reshape(m)
        self.par = np.ascontiguousarray(np.reshape(self._rows, (m, law.PARAMETERS)), float)
        self._record(m)
        self.reset()

    def _record(self, m: int) -> None:
        """The committed state's arrays (``solver.kernels.contact_record``), for ``m``
        contacts: the kernels read and write them in place."""
        self.onset = np.zeros(m)
        self.active = np.zeros(m)  # 1.0: touching at the last accepted state
        self.reported = np.zeros(m)  # the δ̇⁻ last checked against the step
        self.history = np.zeros(record.HISTORY)
        self.events = np.zeros((record.events_rows(m), record.EVENT_FIELDS))

    def arrays(self) -> dict[str, np.ndarray]:
        """The kernels' contact fields of ``SystemArrays`` (``cn_onset`` … ``cn_events``
        are the committed state itself: what :meth:`accept` or the compiled steps commit,
        the kernels read; after :meth:`freeze`)."""
        return {
            "cn_mk": self.mk, "cn_kind": self.kind, "cn_par": self.par, "cn_onset": self.onset,
            "cn_active": self.active, "cn_reported": self.reported,
            "cn_history": self.history, "cn_events": self.events,
        }  # fmt: skip

    def _law(self, ms: MarkerState) -> np.ndarray:
        """The law's values (``solver.kernels.contact.OUTPUTS`` columns) of every contact."""
        return law.contact_states(self.mk, self.kind, self.par, self.onset, ms.u, ms.udot)

    # ---- committed state and work ----------------------------------------------------------
    def reset(self) -> None:
        """Forget every contact and the work done: a run starts."""
        for a in (self.onset, self.active, self.reported, self.history, self.events):
            a[...] = 0.0
        self.onsets: list[Onset] = []  # every impact of the run, in order
        self.releases: list[tuple[str, float]] = []  # (name, t) of every separation

    @property
    def _points(self) -> list[tuple[float, float, float]]:
        """The last (at most three) accepted points ``(t, power, work)``, oldest first."""
        h = self.history
        count = int(h[record.COUNT])
        return [
            tuple(h[record.POINTS + 3 * i : record.POINTS + 3 * i + 3].tolist())
            for i in range(count)
        ]

    def power(self, ms: MarkerState) -> float:
        """Power of contact damping and friction (W, ≤ 0)."""
        return float(np.sum(self._law(ms)[:, law.POWER])) if len(self) else 0.0

    def accept(self, ms: MarkerState, t: float) -> list[Onset]:
        """Commit the contact state at an accepted state at time ``t`` and integrate the
        contact work (``solver.kernels.contact_record.commit``); states not later than the
        last accepted one are ignored. Returns the contacts that started here (also logged
        in ``onsets``) and those whose approach speed grew by a quarter since it was last
        reported (``Onset.update``), for the step check."""
        record.commit(
            self.mk, self.kind, self.par, self.onset, self.active, self.reported,
            self.history, self.events, ms.u, ms.udot, float(t),
        )  # fmt: skip
        return self.drain()

    def drain(self) -> list[Onset]:
        """The onsets and growths committed since the last call (logging the onsets in
        ``onsets`` and the releases in ``releases``), in the order they happened."""
        h = self.history
        count = int(h[record.EVENTS])
        if not count:
            return []
        out = []
        for kind, c, t, speed, depth in self.events[:count].tolist():
            i = int(c)
            if kind == record.RELEASED:
                self.releases.append((self.names[i], t))
                continue
            ev = self._onset(i, t, speed, depth, kind == record.GROWN)
            out.append(ev)
            if not ev.update:
                self.onsets.append(ev)
        h[record.EVENTS] = 0.0
        return out

    def quiet(self) -> bool:
        """No contact touching or committed, and no contact power at the last accepted
        states (``solver.kernels.contact_record.quiet``)."""
        return bool(record.quiet(self.active, self.onset, self.history))

    def _onset(self, i: int, t: float, speed: float, depth: float, update=False) -> Onset:
        k = float(self.par[i, law.STIFFNESS])
        n = float(self.par[i, law.EXPONENT])
        m = float(self.par[i, law.MASS])
        if not math.isfinite(m):
            return Onset(self.names[i], t, speed, depth, 0.0, math.inf, update)
        reach = ((n + 1.0) * m * speed * speed / (2.0 * k)) ** (1.0 / (n + 1.0))
        depth = max(reach, depth)
        omega = math.sqrt(n * k * depth ** (n - 1.0) / m) if depth > 0 else 0.0
        step = STEP_FACTOR / omega if omega > 0 else math.inf
        return Onset(self.names[i], t, speed, depth, omega, step, update)

    def work(self, t: float) -> float:
        """Work of contact damping and friction from the start up to ``t`` (J, ≤ 0); inside
        the last interval between accepted states, the integral of their parabola."""
        h = self.history
        count = int(h[record.COUNT])
        if not count:
            return 0.0
        last = record.POINTS + 3 * (count - 1)
        if t >= h[last] or count == 1:
            return float(h[last + 2])
        if t <= h[last - 3]:
            return float(h[last - 1])
        return float(record.work_integral(h, float(t), 0.0, False))

    def state(self, ms: MarkerState) -> dict[str, dict[str, float]]:
        """Per contact name: penetration (m), its rate (m/s) and the normal force (N)."""
        values = self._law(ms)
        keys = {"penetration": law.PENETRATION, "rate": law.RATE, "normal_force": law.NORMAL_FORCE}
        return {
            name: {key: float(values[i, col]) for key, col in keys.items()}
            for i, name in enumerate(self.names)
        }


def _mass(bodies: dict, name: str) -> float:
    b = bodies.get(name)
    mass = getattr(b, "mass", None)
    return math.inf if b is None or mass is None else float(mass)
