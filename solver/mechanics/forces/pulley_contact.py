"""``pulley_contact``: penalty contact with trilinear friction between a planar belt and a
rigid pulley (García Vallejo (2006) §7.3, eqs. (7.18)–(7.26); the friction law of Leamy and
Wasfy).

The contact is evaluated at Gauss points of every element of the belt's centreline (the
thesis evaluates it on the midline, not on the belt's inner face, so the stiff transverse
mode of the section is not excited), with no contact search: every point is checked
against the circle. With ``r`` such a point (a linear marker of the element's nodal
coordinates), the pulley's centre ``o`` and radius R, in the plane z = 0:

    ρ = |r − o|,   n = (r − o)/ρ,   d = R − ρ,   ḋ = −n·(ṙ − ȯ),
    f_n = max(k_p d + c_p ḋ, 0) n                     (d > 0; (7.18)–(7.20))

per unit length of the undeformed belt: the thesis's (7.18), clamped at zero here so that
a contact opening faster than k_p d/c_p does not pull.
The friction acts along ``t = Ĩ n`` (counter-clockwise about +z, (7.22)):

    v_t = t·(ṙ − v_P),   f_t = −sign(v_t) min(v_s |v_t|, μ |f_n|) t      ((7.21), Fig. 7.3)

with ``v_P`` the velocity of the pulley's material point ``P = o + R n`` under the belt,
``ȯ + Σ_k (a_k·R n) ȧ_k`` over the pulley's axes ``a_k`` (``ω R t`` for a pulley turning at
ω about its fixed centre, (7.24)). The trilinear law is Coulomb's with the jump replaced by
the slope ``v_s`` (N·s/m²) for |v_t| < μ|f_n|/v_s.

The belt receives ``∫ Sᵀ (f_n + f_t) dx`` (7.26) (Gauss quadrature with ``gauss_points``
per element, default 5; the thesis finds no change from 5 to 11); the pulley receives the
opposite force at P, so its moment about the centre is ``−R ∫ f_t·t dx`` about +z. The
thesis's (7.25) takes the arm ``R − d`` (the midline point) while its (7.24) takes the
velocity at R; here both use R, so that the friction's power is exactly ``f_t·v_t`` (the
difference is of order d/R).

Energy and power: the elastic part ``k_p d`` is the gradient of ``Σ W k_p d²/2`` (reported as
elastic energy); the rest of ``f_n`` and the friction do the power
``W [−(|f_n| − k_p d) ḋ + f_t·t v_t] ≤ 0``.

The force law is written once with ``dual.Dual`` (exact derivatives with respect to the
five markers' values and velocities), so the Jacobians are exact; they are carried to the
coordinates point by point (``PulleyContacts.add_terms``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.mechanics.bodies.ancf.shapes import gauss, hermite
from solver.mechanics.forces import dual
from solver.mechanics.forces.assembly import Accumulator
from solver.mechanics.forces.dual import Dual
from solver.mechanics.markers import GROUND, Markers, MarkerState
from solver.model import description as d

SLOTS = 5  # markers per contact point: the belt's point, the pulley's centre and axes
D = 2 * 3 * SLOTS  # derivative inputs: marker values, then marker velocities
DEFAULT_GAUSS_POINTS = 5
PLANE = np.array([[1.0, 1.0, 0.0]])


@dataclass
class ContactPoint:
    """Where one contact point sits: its contact, element and arc coordinate."""

    contact: int
    element: int
    x: float  # m, along the undeformed belt from node 0


def _perp(n: Dual) -> Dual:
    """``Ĩ n = (−n_y, n_x, 0)`` of an in-plane vector."""
    v = np.stack([-n.v[:, 1], n.v[:, 0], np.zeros(len(n.v))], axis=1)
    dd = None
    if n.d is not None:
        dd = np.stack([-n.d[:, 1], n.d[:, 0], np.zeros_like(n.d[:, 0])], axis=1)
    return Dual(v, dd)


class PulleyContacts:
    """All pulley contacts of a system, one row per contact point."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.belts: list[str] = []
        self._markers: list[list[int]] = []
        self._rows: list[list[float]] = []
        self.points: list[ContactPoint] = []

    def __len__(self) -> int:
        return len(self.names)

    # ---- building ------------------------------------------------------------------------
    def add(self, ctx, where: str, f: d.Force) -> None:
        """The contact points of ``f`` (markers on the belt's centreline and the pulley)."""
        slot = ctx.slots[f.belt]
        kind = slot.owner
        beam = kind.beam(slot)
        el = beam.element
        pulley = f.pulley
        centre = ctx.point(pulley.body, pulley.center, where, "pulley.center")
        eye = np.eye(3)
        axes = [ctx.vector(pulley.body, eye[k]) for k in range(3)]
        xi, w = gauss(f.gauss_points or DEFAULT_GAUSS_POINTS)
        shape = el._line_functions(hermite(xi, el.length))  # (G, m)
        used = np.flatnonzero(np.any(shape != 0.0, axis=0))  # the centreline's slots
        friction = f.friction
        mu = friction.mu if friction is not None else 0.0
        slope = friction.slope if friction is not None else 0.0
        damping = f.damping or 0.0
        index = len(set(self.names))
        z = float(beam.start[2])
        _ = kind.n  # the element column table is built once the system's size is known
        for e in range(beam.n_elements):
            ecols = beam.cols[e].reshape(el.m, el.d)
            cols = ecols[used].ravel()
            for g in range(len(xi)):
                coef = np.zeros((3, len(cols)))
                for k, s in enumerate(shape[g, used]):
                    for a in range(el.d):
                        coef[a, k * el.d + a] = s
                point = kind._add_linear(cols, coef, (0.0, 0.0, z), True, table=ctx.markers)
                self.names.append(f.name)
                self.belts.append(f.belt)
                self._markers.append([point, centre, *axes])
                weight = w[g] * el.length
                self._rows.append([weight, pulley.radius, f.stiffness, damping, mu, slope])
                self.points.append(ContactPoint(index, e, (e + xi[g]) * el.length))

    def freeze(self, markers: Markers) -> None:
        self.markers = markers
        self.idx = np.array(self._markers, dtype=np.int64).reshape(-1, SLOTS)
        rows = np.array(self._rows, float).reshape(-1, 6)
        col = lambda i: rows[:, i : i + 1]  # noqa: E731  (m, 1) columns
        self.weight, self.radius, self.k, self.c, self.mu, self.slope = (col(i) for i in range(6))
        self.contact = np.array([p.contact for p in self.points], dtype=np.int64)
        self.x = np.array([p.x for p in self.points], float)
        self.contact_names = list(dict.fromkeys(self.names))
        self.moving_pulley = bool(np.any(markers.kind[self.idx[:, 1]] != GROUND))
        self.cols = np.hstack([markers.cols[self.idx[:, 0]], markers.cols[self.idx[:, 1]]])
        for s in range(2, SLOTS):  # a pulley's markers are all on its body
            if not np.array_equal(markers.cols[self.idx[:, s]], markers.cols[self.idx[:, 1]]):
                raise ValueError("pulley markers on different bodies")
        eye = np.eye(D)
        self._seed_u = [eye[3 * s : 3 * s + 3][None] for s in range(SLOTS)]
        self._seed_v = [eye[3 * SLOTS + 3 * s : 3 * SLOTS + 3 * s + 3][None] for s in range(SLOTS)]
        self._cache = None

    # ---- the force law ---------------------------------------------------------------------
    def _law(self, ms: MarkerState, jacobians: bool) -> dict:
        """The law at every point: the points in contact ``act``, the loads on their slots
        (``Dual``, with derivatives when ``jacobians``) and, at every point, the
        quantities of the outputs (zero out of contact)."""
        if not jacobians and self._cache is not None and self._cache[0] is ms:
            return self._cache[1]
        u_all = ms.u[self.idx]  # (m, 5, 3)
        gap = (u_all[:, 0] - u_all[:, 1]) * PLANE
        depth_all = self.radius[:, 0] - np.sqrt(np.einsum("mi,mi->m", gap, gap))
        act = np.flatnonzero(depth_all > 0.0)
        m = len(self)
        law = {"act": act, "depth": depth_all, "loads": None}
        for key in ("rate", "normal", "elastic", "friction", "slip"):
            law[key] = np.zeros(m)
        law["saturated"] = np.zeros(m, bool)
        if len(act):
            self._contact_law(law, act, u_all[act], ms.udot[self.idx[act]], jacobians)
        if not jacobians:
            self._cache = (ms, law)
        return law

    def _contact_law(self, law: dict, act, u, ud, jacobians: bool) -> None:
        """The force law at the points ``act`` in contact (marker values ``u``, velocities
        ``ud``, ``(a, 5, 3)``), into ``law``."""
        if jacobians:
            pos = [Dual(u[:, s], self._seed_u[s]) for s in range(SLOTS)]
            vel = [Dual(ud[:, s], self._seed_v[s]) for s in range(SLOTS)]
        else:
            pos = [Dual(u[:, s]) for s in range(SLOTS)]
            vel = [Dual(ud[:, s]) for s in range(SLOTS)]
        radius, k, c = self.radius[act], self.k[act], self.c[act]
        mu, slope, weight = self.mu[act], self.slope[act], self.weight[act]
        r, rd, o, od = pos[0], vel[0], pos[1], vel[1]
        w = (r - o) * PLANE
        rho = dual.sqrt(dual.dot(w, w))
        n = w / rho
        depth = radius - rho
        rate = -dual.dot(n, rd - od)
        push = k * depth + c * rate
        fn = dual.where(push.v > 0.0, push, 0.0)
        t = _perp(n)
        arm = n * radius  # P − o
        vp = od
        coef = []
        for j in range(3):
            coef.append(dual.dot(pos[2 + j], arm))
            vp = vp + vel[2 + j] * coef[j]
        vt = dual.dot(t, rd - vp)
        limit = fn * mu
        stick = vt * (-slope)
        ft = dual.where(stick.v > limit.v, limit, dual.where(stick.v < -limit.v, -limit, stick))
        force = (n * fn + t * ft) * weight  # on the belt, N
        loads: list = [force, -force]
        for j in range(3):
            loads.append(-(force * coef[j]))
        law["loads"] = loads
        law["rate"][act] = rate.v[:, 0]
        law["normal"][act] = fn.v[:, 0]  # N/m
        law["elastic"][act] = k[:, 0] * depth.v[:, 0]  # N/m
        law["friction"][act] = ft.v[:, 0]  # N/m along t
        law["slip"][act] = vt.v[:, 0]  # m/s
        law["saturated"][act] = (np.abs(ft.v[:, 0]) >= limit.v[:, 0]) & (limit.v[:, 0] > 0)

    def add_terms(self, acc: Accumulator, ms: MarkerState) -> None:
        """``Q`` and its Jacobians, point by point over the belt's and the pulley's
        columns ``x = [q_belt, q_pulley]`` (``2K``, K the marker table's width): with
        ``J`` the five markers' Jacobians stacked ``(15 × 2K)`` and ``J̇'`` their ``∂u̇/∂q``,
        ``Q_x = Jᵀ F``, ``∂Q_x/∂x = Jᵀ (F_u J + F_u̇ J̇') + ∂(Jᵀ F)/∂x|_F``, ``∂Q_x/∂ẋ = Jᵀ F_u̇ J``.
        Only the points in contact carry load; the Jacobian blocks of the others are zero
        (every point keeps its block, so the sparsity pattern is fixed)."""
        law = self._law(ms, acc.jacobians)
        act = law["act"]
        if len(act):
            kk = self.markers.K
            idx = self.idx[act]
            big = self._stack(ms.jac[idx], kk)
            force = np.concatenate([f.v for f in law["loads"]], axis=1)  # (a, 15)
            acc.add_vector(self.cols[act], np.einsum("mik,mi->mk", big, force))
        if not acc.jacobians:
            return
        m, size = len(self), 2 * self.markers.K
        kq = np.zeros((m, size, size))
        kqd = np.zeros((m, size, size))
        if len(act):
            bigdot = self._stack(ms.jdot[idx], kk)
            a = len(act)
            deriv = np.concatenate(
                [np.broadcast_to(f.d, (a, 3, D)) for f in law["loads"]], axis=1
            )  # (a, 15, 30)
            du, dv = deriv[:, :, : 3 * SLOTS], deriv[:, :, 3 * SLOTS :]
            big_t = np.swapaxes(big, 1, 2)
            block = big_t @ (du @ big + dv @ bigdot)
            if self.moving_pulley:  # the pulley's markers turn with its orientation
                for s in range(1, SLOTS):
                    block[:, kk:, kk:] += self.markers.force_jacobian(idx[:, s], law["loads"][s].v)
            kq[act] = block
            kqd[act] = big_t @ dv @ big
        acc.add_kq(self.cols, self.cols, kq)
        acc.add_kqd(self.cols, self.cols, kqd)

    @staticmethod
    def _stack(jac: np.ndarray, kk: int) -> np.ndarray:
        """The five markers' ``(a, 5, 3, K)`` Jacobians as one ``(a, 15, 2K)`` over
        ``[q_belt, q_pulley]``."""
        a = jac.shape[0]
        big = np.zeros((a, 3 * SLOTS, 2 * kk))
        big[:, 0:3, :kk] = jac[:, 0]
        big[:, 3:, kk:] = jac[:, 1:].reshape(a, 3 * (SLOTS - 1), kk)
        return big

    def energy(self, ms: MarkerState) -> float:
        """``Σ W k_p d²/2`` over the points in contact (J)."""
        law = self._law(ms, False)
        depth = np.maximum(law["depth"], 0.0)
        return float(0.5 * np.sum(self.weight[:, 0] * self.k[:, 0] * depth * depth))

    def power(self, ms: MarkerState) -> float:
        """Power of the penetration-rate term and the friction (W, ≤ 0)."""
        law = self._law(ms, False)
        p = -(law["normal"] - law["elastic"]) * law["rate"] + law["friction"] * law["slip"]
        return float(np.sum(self.weight[:, 0] * p))

    # ---- outputs -------------------------------------------------------------------------
    OUTPUT_FIELDS = ("normal", "friction", "torque", "contact_length", "slip_length", "depth")

    def summary(self, ms: MarkerState) -> dict[str, dict[str, float]]:
        """Per contact: resultant normal force (N), friction force along the pulley's
        counter-clockwise tangent on the belt (N), the belt's torque on the pulley about
        +z (N·m), the length of undeformed belt in contact and in saturated (gross) slip
        (m), and the largest penetration (m)."""
        law = self._law(ms, False)
        w = self.weight[:, 0]
        inside = law["depth"] > 0.0
        out = {}
        for i, name in enumerate(self.contact_names):
            sel = self.contact == i
            ws = w[sel]
            out[name] = {
                "normal": float(ws @ law["normal"][sel]),
                "friction": float(ws @ law["friction"][sel]),
                "torque": float(-(ws * self.radius[sel, 0]) @ law["friction"][sel]),
                "contact_length": float(ws @ inside[sel]),
                "slip_length": float(ws @ law["saturated"][sel]),
                "depth": float(max(0.0, law["depth"][sel].max())),
            }
        return out

    def names_index(self, rows, name: str) -> np.ndarray:
        """Whether each of the points ``rows`` belongs to contact ``name``."""
        return self.contact[np.asarray(rows)] == self.contact_names.index(name)

    def distribution(self, ms: MarkerState, name: str) -> dict[str, np.ndarray]:
        """Along the belt, at the contact points of ``name``: ``x`` (m of undeformed belt
        from node 0), ``depth`` (m), ``normal`` and ``friction`` (N/m; friction along the
        pulley's counter-clockwise tangent, on the belt), ``slip`` (m/s) and ``saturated``."""
        law = self._law(ms, False)
        sel = self.contact == self.contact_names.index(name)
        keys = ("depth", "normal", "friction", "slip", "saturated")
        return {"x": self.x[sel], **{k: law[k][sel] for k in keys}}
