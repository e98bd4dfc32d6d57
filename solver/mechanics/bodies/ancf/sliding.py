"""``sliding`` joints: a point of body2 slides along the centreline of a flexible body1
(García Vallejo (2006) §4.6, "sliding spherical": the three relative rotations stay free).

The arc length ``s`` (m) on the *undeformed* beam, measured from its first point, is one
extra coordinate of the system (no inertia, no applied force; García Vallejo (2006) eq. (4.101)).
The point is on element ``j = ⌊s/l⌋`` (clipped to the beam) at ``ξ = s/l − j`` and the joint reads
(4.102)–(4.104)

    Φ = r_P(q) − S(ξ) e_j = 0        (3 rows; a planar beam's z row is r_P,z − z₀),

so the contact element changes as ``s`` crosses a node (the centreline is C¹ there). With
``r' = ∂r/∂s = S_x e_j`` and ``r'' = S_xx e_j``, the exact derivatives are

* ``Φ_q = [J_P, −S(ξ), −r']`` over (body2's columns, element j, s) (4.105)–(4.106);
* ``γ = −J̇_P q̇ + 2 ṡ S_x ė_j + ṡ² r''`` (``Φ_q q̈ = γ``);
* ``∂(Φ_qᵀλ)/∂q``: body2's marker term, ``−λ_a s'_i`` in (e_{j,ia}, s) and (s, e_{j,ia}),
  ``−λ·r''`` in (s, s);
* ``∂(Φ_q q̇)/∂q``: ``∂u̇_P/∂q``, ``−ṡ s'_i`` in e_{j,ia}, ``−S_x ė_j − ṡ r''`` in s.

The reaction ``−Φ_qᵀλ`` on s is ``λ·r'``: the constraint force is normal to the centreline
(frictionless).

``rotation = "locked"`` (planar beams, rigid body2; the fixed-angle slider of García Vallejo
(2006) §5.1.2, the tangent-triad angle constraint of §4.6) adds one row that holds body2's
angle to the centreline's tangent at its initial value: with ``u = A₂ ū`` the body-2 direction
that is normal to the tangent at t = 0,

    Φ₄ = l u · r' = u · ∂r/∂ξ = 0        (m; l: the element length),

homogeneous in r' (no normalisation, and not degenerate: u is perpendicular to r', not
parallel). The factor l scales the row like the point rows: the gradient of ``u·r'`` with
respect to the element's nodal positions is that of the shape functions' slopes, O(1/l)
(a norm of 14 on elements of 0.083 m, where the point rows' are 1 to 2), and a penalty on
such a row (the augmented Lagrangian's α Φ_qᵀΦ_q) is two orders stiffer than on the
others, which slows that formulation's Newton iteration; the gradient of ``u·∂r/∂ξ`` is
O(1). Its derivatives (below for ``u·r'``, all times l), with ``r''' = S_xxx e`` and ``ṙ' = S_x ė + ṡ r''``:
``Φ₄_q = [r'ᵀ J_u, u·S_x, u·r'']``; ``γ₄ = −(J̇_u q̇·r' + 2 u̇·ṙ' + u·(2ṡ S_xx ė + ṡ² r'''))``;
``∂(Φ₄_qᵀμ)/∂q`` has the marker term of ``μ r'`` on body 2 and the mixed blocks
``μ J_uᵀ S_x`` (body 2, element), ``μ J_uᵀ r''`` (body 2, s), ``μ u·S_xx`` (element, s) and
``μ u·r'''`` (s, s); ``∂(Φ₄_q q̇)/∂q = [r'ᵀ ∂u̇/∂q + ṙ'ᵀ J_u, u̇·S_x + ṡ u·S_xx,
r''·u̇ + u·S_xx ė + ṡ u·r''']``. The factor divides the row's multiplier by l and leaves its
reaction ``−Φ₄_qᵀ μ`` as it is. Leaving the beam by more than half an element stops the run with a
``SimulationError`` naming the joint (inside that margin the end element is extrapolated).

The Jacobian pattern of a joint spans all of its beam's coordinates (zero outside the
current element), so it is fixed for the whole run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.errors import SimulationError
from solver.mechanics.bodies.ancf.shapes import hermite


@dataclass
class BlockEval:
    """A constraint block at ``(q, q̇, t)``: residual, Jacobian values in ``pattern`` order,
    ``Φ_t`` and ``γ``."""

    phi: np.ndarray
    vals: np.ndarray
    phit: np.ndarray
    gamma: np.ndarray


class Slider:
    """One sliding joint: body2's point marker ``marker`` on ``beam``; ``s`` at ``col``;
    ``lock``: body2's direction marker normal to the centreline at t = 0 (locked rotation)
    or ``None`` (rotations free)."""

    def __init__(
        self, key: str, name: str, beam, col: int, marker: int, lock: int | None = None
    ) -> None:
        self.key, self.name, self.beam, self.col, self.marker = key, name, beam, col, marker
        self.lock = lock
        self.rows = 3 + (lock is not None)
        self.el = beam.element
        self.l = beam.length / beam.n_elements
        self.z0 = float(beam.start[2])

    def locate(self, s: float, t: float) -> tuple[int, float]:
        b = self.beam
        if not -0.5 * self.l <= s <= b.length + 0.5 * self.l:
            raise SimulationError(
                t,
                f'the point of sliding joint "{self.name}" left flexible body "{b.name}" '
                f"(s = {s:.6g} m; the beam is {b.length:g} m long)",
                "keep the slider on the beam (shorter run, stops or a longer beam)",
            )
        j = int(np.clip(np.floor(s / self.l), 0, b.n_elements - 1))
        return j, s / self.l - j

    def shapes(self, xi: float) -> tuple[np.ndarray, ...]:
        """``s_i`` and its first three x-derivatives on the axis at ``ξ`` (each ``(m,)``)."""
        return tuple(
            self.el._line_functions(hermite(np.array([xi]), self.l, k))[0] for k in range(4)
        )


class SlidingJoints:
    """All sliding joints on the beams of one ``AncfBodies`` (a constraint block).

    The system places the block's rows at ``row0`` and calls ``evaluate`` and
    ``second_order``; ``pattern`` gives the (local row, column) of every Jacobian value.
    """

    def __init__(self, markers) -> None:
        self.markers = markers
        self.sliders: list[Slider] = []
        self.start: list[int] = []  # first local row of each slider
        self.row0 = 0

    def add(self, slider: Slider) -> None:
        self.start.append(self.rows)
        self.sliders.append(slider)

    @property
    def rows(self) -> int:
        return sum(sl.rows for sl in self.sliders)

    def items(self) -> dict[str, np.ndarray]:
        return {
            sl.key: r + np.arange(sl.rows) for r, sl in zip(self.start, self.sliders, strict=True)
        }

    def _cols(self, sl: Slider) -> np.ndarray:
        return np.concatenate([self.markers.cols[sl.marker], sl.beam.all_cols, [sl.col]])

    def pattern(self) -> tuple[np.ndarray, np.ndarray]:
        rows, cols = [], []
        for r0, sl in zip(self.start, self.sliders, strict=True):
            c = self._cols(sl)
            rows.append(np.repeat(r0 + np.arange(sl.rows), len(c)))
            cols.append(np.tile(c, sl.rows))
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(rows), np.concatenate(cols)

    def _state(self, sl: Slider, q, qd, t):
        j, xi = sl.locate(float(q[sl.col]), t)
        cols = sl.beam.cols[j]
        d, m = sl.el.d, sl.el.m
        e, ed = q[cols].reshape(m, d), qd[cols].reshape(m, d)
        return j, cols, e, ed, sl.shapes(xi)

    def evaluate(self, ms, q: np.ndarray, qd: np.ndarray, t: float) -> BlockEval:
        phi = np.zeros(self.rows)
        gamma = np.zeros(self.rows)
        vals = []
        kk = self.markers.K
        for r0, sl in zip(self.start, self.sliders, strict=True):
            j, _, e, ed, (h0, h1, h2, h3) = self._state(sl, q, qd, t)
            d, b, sd = sl.el.d, sl.beam, float(qd[sl.col])
            r = np.full(3, sl.z0)
            r[:d] = e.T @ h0
            rs = np.zeros(3)
            rs[:d] = e.T @ h1
            acc = np.zeros(3)
            acc[:d] = 2.0 * sd * (ed.T @ h1) + sd * sd * (e.T @ h2)
            phi[r0 : r0 + 3] = ms.u[sl.marker] - r
            gamma[r0 : r0 + 3] = acc - ms.jdq[sl.marker]
            blk = np.zeros((sl.rows, kk + b.size + 1))
            blk[:3, :kk] = ms.jac[sl.marker]
            start = kk + j * b.node_size
            el_blk = -np.kron(h0[None, :], np.eye(d))  # (d, m·d), e = E.ravel() order
            blk[:d, start : start + sl.el.size] = el_blk
            blk[:3, -1] = -rs
            if sl.lock is not None:  # l u · r' = 0
                u, ud, ll = ms.u[sl.lock][:d], ms.udot[sl.lock][:d], sl.l
                rss, rsss = e.T @ h2, e.T @ h3
                rsd = ed.T @ h1 + sd * rss  # ṙ'
                phi[r0 + 3] = ll * (u @ rs[:d])
                gamma[r0 + 3] = -ll * (
                    ms.jdq[sl.lock][:d] @ rs[:d]
                    + 2.0 * ud @ rsd
                    + u @ (2.0 * sd * (ed.T @ h2) + sd * sd * rsss)
                )
                blk[3, :kk] = ll * (rs[:d] @ ms.jac[sl.lock][:d])
                blk[3, start : start + sl.el.size] = ll * np.kron(h1, u)
                blk[3, -1] = ll * (u @ rss)
            vals.append(blk.ravel())
        v = np.concatenate(vals) if vals else np.zeros(0)
        return BlockEval(phi, v, np.zeros(self.rows), gamma)

    def second_order(self, ms, q: np.ndarray, qd: np.ndarray, lam: np.ndarray, t: float):
        """``((r, c, v) of ∂(Φ_qᵀλ)/∂q, (local row, c, v) of ∂(Φ_q q̇)/∂q)``."""
        kr, kc, kv, dr, dc, dv = [], [], [], [], [], []
        mcols = self.markers.cols
        for r0, sl in zip(self.start, self.sliders, strict=True):
            lk = lam[r0 : r0 + 3]
            j, cols, e, ed, (h0, h1, h2, h3) = self._state(sl, q, qd, t)
            d, sd, sc = sl.el.d, float(qd[sl.col]), sl.col
            pc = mcols[sl.marker]
            # body2's point: ∂(J_Pᵀλ)/∂q and ∂(J_P q̇)/∂q
            kblk = self.markers.force_jacobian([sl.marker], lk[None])[0]
            kr.append(np.repeat(pc, len(pc)))
            kc.append(np.tile(pc, len(pc)))
            kv.append(kblk.ravel())
            dr.append(np.repeat(r0 + np.arange(3), len(pc)))
            dc.append(np.tile(pc, 3))
            dv.append(ms.jdot[sl.marker].ravel())
            # −λ·S(ξ(s)) e: mixed (e, s) and (s, s) terms
            mixed = -np.outer(h1, lk[:d]).ravel()  # over cols (E.ravel() order)
            kr += [cols, np.full(len(cols), sc), [sc]]
            kc += [np.full(len(cols), sc), cols, [sc]]
            kv += [mixed, mixed, [-float(lk[:d] @ (e.T @ h2))]]
            # ∂(−S ė − ṡ S_x e)/∂(e, s), rows a < d
            rows_e = np.tile(np.arange(d), len(h1))  # component a of each column
            dr += [r0 + rows_e, r0 + np.arange(d)]
            dc += [cols, np.full(d, sc)]
            dv += [-sd * np.repeat(h1, d), -(ed.T @ h1) - sd * (e.T @ h2)]
            if sl.lock is not None:
                # the terms of u·r' with its multiplier l μ (the row is l u·r')
                terms = (sl, ms, r0, sl.l * lam[r0 + 3], cols, e, ed, sd, (h1, h2, h3))
                self._lock_second_order(*terms, (kr, kc, kv), (dr, dc, dv))
        cat = (lambda x: np.concatenate([np.asarray(a).ravel() for a in x])) if kr else None
        if cat is None:
            empty = np.zeros(0)
            return (empty, empty, empty), (empty, empty, empty)
        return (cat(kr), cat(kc), cat(kv)), (cat(dr), cat(dc), cat(dv))

    def _lock_second_order(self, sl, ms, r0, mu, cols, e, ed, sd, hs, k_out, d_out) -> None:
        """The locked-rotation row's terms of ``∂(Φ_qᵀλ)/∂q`` and ``∂(Φ_q q̇)/∂q`` (``mu``: the
        multiplier of ``u·r'``; the row is ``l u·r'``, so its ``∂(Φ_q q̇)/∂q`` is l times
        that of ``u·r'``)."""
        h1, h2, h3 = hs
        kr, kc, kv = k_out
        dr, dc, dv = d_out
        d, sc = sl.el.d, sl.col
        pc = self.markers.cols[sl.lock]
        ju = ms.jac[sl.lock][:d]  # (d, K)
        u, ud = ms.u[sl.lock][:d], ms.udot[sl.lock][:d]
        rs, rss, rsss = e.T @ h1, e.T @ h2, e.T @ h3
        rsd = ed.T @ h1 + sd * rss
        f = np.zeros(3)
        f[:d] = mu * rs
        body = self.markers.force_jacobian([sl.lock], f[None])[0]  # ∂(J_uᵀ μ r')/∂q
        sx = np.kron(h1[None, :], np.eye(d))  # ∂r'/∂e, (d, m·d)
        be = mu * ju.T @ sx  # (K, m·d)
        bs = mu * ju.T @ rss  # (K,)
        es = mu * np.kron(h2, u)  # (m·d,)
        kr += [np.repeat(pc, len(pc)), np.repeat(pc, len(cols)), np.repeat(cols, len(pc))]
        kc += [np.tile(pc, len(pc)), np.tile(cols, len(pc)), np.tile(pc, len(cols))]
        kv += [body.ravel(), be.ravel(), be.T.ravel()]
        kr += [pc, np.full(len(pc), sc), cols, np.full(len(cols), sc), [sc]]
        kc += [np.full(len(pc), sc), pc, np.full(len(cols), sc), cols, [sc]]
        kv += [bs, bs, es, es, [mu * (u @ rsss)]]
        # ∂(r'·u̇ + u·ṙ')/∂q
        row = r0 + 3
        dr += [np.full(len(pc), row), np.full(len(cols), row), [row]]
        dc += [pc, cols, [sc]]
        ll = sl.l
        dv += [
            ll * (rs @ ms.jdot[sl.lock][:d] + rsd @ ju),
            ll * (np.kron(h1, ud) + sd * np.kron(h2, u)),
            [ll * (rss @ ud + u @ (ed.T @ h2) + sd * (u @ rsss))],
        ]
