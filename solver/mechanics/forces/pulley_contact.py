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

The law, its exact derivatives (carried forward over the coordinates of each point's
markers), the energy and the power are evaluated by the kernels
(:mod:`solver.kernels.pulley`, through the system's force evaluation and energies); this
module builds the contact points and reads the law's values for the outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.kernels import pulley as pl
from solver.mechanics.bodies.ancf.shapes import gauss, hermite
from solver.mechanics.markers import Markers, MarkerState
from solver.model import description as d

SLOTS = pl.SLOTS  # markers per contact point: the belt's point, the pulley's centre and axes
DEFAULT_GAUSS_POINTS = 5


@dataclass
class ContactPoint:
    """Where one contact point sits: its contact, element and arc coordinate."""

    contact: int
    element: int
    x: float  # m, along the undeformed belt from node 0


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
        self.par = np.array(self._rows, float).reshape(-1, pl.PARAMETERS)
        self.weight = self.par[:, pl.WEIGHT]
        self.radius = self.par[:, pl.RADIUS]
        self.contact = np.array([p.contact for p in self.points], dtype=np.int64)
        self.x = np.array([p.x for p in self.points], float)
        self.contact_names = list(dict.fromkeys(self.names))
        for s in range(2, SLOTS):  # a pulley's markers are all on its body
            if not np.array_equal(markers.cols[self.idx[:, s]], markers.cols[self.idx[:, 1]]):
                raise ValueError("pulley markers on different bodies")
        self._cache = None
        # groups of consecutive points on one element and one pulley: (first, count)
        element = np.array([p.element for p in self.points], dtype=np.int64)
        new = np.ones(len(self), bool)
        new[1:] = (self.contact[1:] != self.contact[:-1]) | (element[1:] != element[:-1])
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, len(self)))
        self.groups = np.stack([starts, counts], axis=1).astype(np.int64).reshape(-1, 2)
        # the kernels sum the pulley's loads over a group: its markers are the same there
        pulley = self.idx[:, 1:]
        if len(self) and np.any(pulley != np.repeat(pulley[starts], counts, axis=0)):
            raise ValueError("a group of pulley contact points with different pulley markers")

    def arrays(self) -> dict[str, np.ndarray]:
        """The kernels' pulley fields of ``SystemArrays`` (after :meth:`freeze`)."""
        return {
            "pc_mk": np.ascontiguousarray(self.idx, np.int64),
            "pc_par": np.ascontiguousarray(self.par, float),
            "pc_group": np.ascontiguousarray(self.groups, np.int64),
        }

    def _law(self, ms: MarkerState) -> dict:
        """The law's values at every point (``solver.kernels.pulley.OUTPUTS``; zero out of
        contact but the depth), by name, and the points in contact ``act``."""
        if self._cache is not None and self._cache[0] is ms:
            return self._cache[1]
        out = pl.pulley_states(self.idx, self.par, ms.u, ms.udot)
        values = {
            "depth": out[:, pl.DEPTH],
            "rate": out[:, pl.RATE],
            "normal": out[:, pl.NORMAL],
            "elastic": out[:, pl.ELASTIC],
            "friction": out[:, pl.FRICTION],
            "slip": out[:, pl.SLIP],
            "saturated": out[:, pl.SATURATED] > 0.0,
            "power": out[:, pl.POWER],
        }
        values["act"] = np.flatnonzero(values["depth"] > 0.0)
        self._cache = (ms, values)
        return values

    # ---- outputs -------------------------------------------------------------------------
    OUTPUT_FIELDS = ("normal", "friction", "torque", "contact_length", "slip_length", "depth")

    def summary(self, ms: MarkerState) -> dict[str, dict[str, float]]:
        """Per contact: resultant normal force (N), friction force along the pulley's
        counter-clockwise tangent on the belt (N), the belt's torque on the pulley about
        +z (N·m), the length of undeformed belt in contact and in saturated (gross) slip
        (m), and the largest penetration (m)."""
        law = self._law(ms)
        w = self.weight
        inside = law["depth"] > 0.0
        out = {}
        for i, name in enumerate(self.contact_names):
            sel = self.contact == i
            ws = w[sel]
            out[name] = {
                "normal": float(ws @ law["normal"][sel]),
                "friction": float(ws @ law["friction"][sel]),
                "torque": float(-(ws * self.radius[sel]) @ law["friction"][sel]),
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
        law = self._law(ms)
        sel = self.contact == self.contact_names.index(name)
        keys = ("depth", "normal", "friction", "slip", "saturated")
        return {"x": self.x[sel], **{k: law[k][sel] for k in keys}}
