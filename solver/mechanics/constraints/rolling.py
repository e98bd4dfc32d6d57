"""A rigid disc rolling on a plane: the holonomic contact and the no-slip conditions.

Disc (body 2): centre C, unit axle a, radius R. Plane (body 1): a point O and unit
normal n. The contact point is ``Q = C − R w`` with ``w = (n − c a)/s``, ``c = a·n``,
``s = √(1 − c²)`` (the disc radius pointing at the plane).

* Contact (holonomic, ``DiscOnPlane``): ``Φ = (C − O)·n − R s = 0``.
* No slip (velocity level, ``RollingNoSlip``): the disc's material point at Q has no
  velocity along ``t = (a × n)/s`` (longitudinal, the rolling direction) and/or along
  ``l = n × t`` (lateral): ``e·v_Q = 0`` with ``v_Q = Ċ − R ω × w``. These rows are not
  integrable; they enter the velocity and acceleration problems as ``B q̇ = 0`` and
  ``B q̈ = γ`` with ``γ = −Ḃ q̇``. MUBODYNA's slip options choose the rows:
  ``none`` both, ``lateral`` (lateral slip allowed) the longitudinal row, ``longitudinal``
  the lateral row, ``free`` none. The plane must belong to ground for the no-slip rows.
"""

from __future__ import annotations

import numpy as np

from solver.kernels import primitives as kp
from solver.mechanics.constraints.primitives import Primitive
from solver.mechanics.rotations import cross, e_matrix

#: rows per slip option: (longitudinal, lateral)
SLIP_ROWS = {
    "none": (True, True),
    "lateral": (True, False),
    "longitudinal": (False, True),
    "free": (False, False),
}
#: MUBODYNA's disk joint types (Villar Alegría (2018) §2.2) as slip options. 'z': contact only.
#: 'nz': no
#: slip along n, the disc's normal (the axle): no lateral slip, the wheel may slip along
#: its rolling direction. 'tz': no slip along the tangent t (the rolling direction),
#: lateral slip allowed. 'xyz': no slip at all. (The thesis's rule for the tricycle, one
#: rear wheel 'nz' and the other 'z', holds only with 'nz' refusing lateral slip: two
#: wheels on one axle that both refuse it are redundant, see
#: ``analysis.rolling_consistency``.)
MUBODYNA_DISK = {"z": "free", "nz": "longitudinal", "tz": "lateral", "xyz": "none"}


class DiscOnPlane(Primitive):
    """``Φ = (C − O)·n − R √(1 − (a·n)²)``; ``const`` holds R (``solver.kernels.primitives``)."""

    code = kp.DISC_ON_PLANE
    slots = ("plane_point", "centre", "normal", "axle")
    pairs = ((0, 2), (2, 0), (1, 2), (2, 1), (2, 2), (3, 3), (2, 3), (3, 2))


def _dot(a, b):
    return (a * b).sum(-1)


class RollingNoSlip:
    """No-slip rows ``e·v_Q = 0`` of rolling discs on ground planes, vectorised."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, int, int, float, int]] = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(
        self, centre: int, normal: int, axle: int, pcol0: int, radius: float, lateral: bool
    ) -> int:
        """One row: markers of the centre, the (ground) normal and the axle; the first
        Euler-parameter column of the disc; 0 = longitudinal, 1 = lateral direction."""
        self._rows.append((centre, normal, axle, pcol0, float(radius), int(lateral)))
        return len(self._rows) - 1

    def freeze(self) -> None:
        r = np.array(self._rows, dtype=float).reshape(-1, 6)
        self.centre, self.normal, self.axle = (r[:, k].astype(np.int64) for k in range(3))
        self.pcols = r[:, 3].astype(np.int64)[:, None] + np.arange(4)
        self.radius = r[:, 4]
        self.lateral = r[:, 5].astype(bool)

    def _geometry(self, ms, q, qd):
        n, a = ms.u[self.normal], ms.u[self.axle]
        nd, ad = ms.udot[self.normal], ms.udot[self.axle]
        c = _dot(a, n)
        s = np.sqrt(np.maximum(1.0 - c * c, 1e-300))
        cd = _dot(ad, n) + _dot(a, nd)
        u = n - c[:, None] * a
        ud = nd - cd[:, None] * a - c[:, None] * ad
        sd = _dot(u, ud) / s
        w = u / s[:, None]
        wd = (ud - w * sd[:, None]) / s[:, None]
        m = cross(a, n)
        md = cross(ad, n) + cross(a, nd)
        t = m / s[:, None]
        td = (md - t * sd[:, None]) / s[:, None]
        e = np.where(self.lateral[:, None], cross(n, t), t)
        ed = np.where(self.lateral[:, None], cross(nd, t) + cross(n, td), td)
        p, pd = q[self.pcols], qd[self.pcols]
        emat = e_matrix(p)
        omega = 2.0 * np.einsum("nij,nj->ni", emat, pd)
        return e, ed, w, wd, emat, omega

    def evaluate(self, ms, q, qd, cols):
        """``(rows, columns, values)`` of B and ``γ = −Ḃq̇`` for every row."""
        e, ed, w, wd, emat, omega = self._geometry(ms, q, qd)
        r = self.radius
        k = len(self)
        jc = ms.jac[self.centre]  # (k, 3, K)
        vals_c = np.einsum("ni,nik->nk", e, jc)
        vals_p = 2.0 * r[:, None] * np.einsum("ni,nij->nj", cross(e, w), emat)
        rows = np.arange(k)
        ccols = cols[self.centre]
        rr = np.concatenate([np.repeat(rows, ccols.shape[1]), np.repeat(rows, 4)])
        cc = np.concatenate([ccols.ravel(), self.pcols.ravel()])
        vv = np.concatenate([vals_c.ravel(), vals_p.ravel()])
        keep = cc >= 0
        v_q = ms.udot[self.centre] - r[:, None] * cross(omega, w)
        bdot_qd = _dot(ed, v_q) + _dot(e, ms.jdq[self.centre]) - r * _dot(e, cross(omega, wd))
        return (rr[keep], cc[keep], vv[keep]), -bdot_qd

    # ---- first-order terms for implicit integrators ------------------------------------
    def _direction_derivatives(self, ms):
        """``∂e/∂a``, ``∂w/∂a`` (each ``(k, 3, 3)``) for the ground normal n held fixed."""
        n, a = ms.u[self.normal], ms.u[self.axle]
        c = _dot(a, n)
        s = np.sqrt(np.maximum(1.0 - c * c, 1e-300))
        t = cross(a, n) / s[:, None]
        w = (n - c[:, None] * a) / s[:, None]
        eye = np.eye(3)
        nt = np.einsum("ni,nj->nij", t, n)
        nw = np.einsum("ni,nj->nij", w, n)
        an = np.einsum("ni,nj->nij", a, n)
        k_over = (c / s)[:, None, None]
        dt = (-skew_rows(n) + k_over * nt) / s[:, None, None]
        dw = (-(an + c[:, None, None] * eye) + k_over * nw) / s[:, None, None]
        de = np.where(self.lateral[:, None, None], np.einsum("nij,njk->nik", skew_rows(n), dt), dt)
        return de, dw

    def second_order(self, ms, q, qd, mu, cols, force_jacobian):
        """``∂(Bᵀμ)/∂q`` at fixed μ and ``∂(B q̇)/∂q`` at fixed q̇, as ``(rows, cols, values)``
        triplets (columns ``< 0`` dropped): the terms an implicit integrator's Newton
        matrix needs. ``force_jacobian`` is the markers' ``∂(J_iᵀ f)/∂q`` for fixed f.

        With ``k = e × w``: ``Bᵀμ = μ [J_cᵀ e; 2R E(p)ᵀ k]`` and
        ``B q̇ = e·(J_c q̇) + 2R kᵀ E(p) ṗ``; e, w and k depend on q only through the axle
        a (``∂a/∂q`` = the axle marker's Jacobian), ``E(p)ᵀk = L(k) p`` with
        ``L(k) = [[0, −kᵀ], [k, k̃]]``, and ``∂(E(p)ṗ)/∂p = −E(ṗ)``.
        """
        e, _, w, _, emat, omega = self._geometry(ms, q, qd)
        de_da, dw_da = self._direction_derivatives(ms)
        k = cross(e, w)
        dk_da = -np.einsum("nij,njk->nik", skew_rows(w), de_da) + np.einsum(
            "nij,njk->nik", skew_rows(e), dw_da
        )
        ja = ms.jac[self.axle]  # (k, 3, K) ∂a/∂q over the axle marker's columns
        de = np.einsum("nij,njk->nik", de_da, ja)
        dk = np.einsum("nij,njk->nik", dk_da, ja)
        jc = ms.jac[self.centre]
        r = self.radius
        ccols, acols, pcols = cols[self.centre], cols[self.axle], self.pcols
        nrow = len(self)
        kr, kc, kv = [], [], []

        def put(rows, cs, vals):  # rows (k, A), cs (k, B), vals (k, A, B)
            kr.append(np.broadcast_to(rows[:, :, None], vals.shape).ravel())
            kc.append(np.broadcast_to(cs[:, None, :], vals.shape).ravel())
            kv.append(vals.ravel())

        mue = mu[:, None] * e
        put(ccols, ccols, force_jacobian(self.centre, mue))
        put(ccols, acols, np.einsum("nik,nij->nkj", jc, mu[:, None, None] * de))
        lk = np.zeros((nrow, 4, 4))
        lk[:, 0, 1:] = -k
        lk[:, 1:, 0] = k
        lk[:, 1:, 1:] = skew_rows(k)
        scale = (2.0 * r * mu)[:, None, None]
        put(pcols, pcols, scale * lk)
        put(pcols, acols, scale * np.einsum("nij,nik->njk", emat, dk))
        rows = np.arange(nrow)[:, None]
        dr, dc, dv = [], [], []
        for cs, vals in (
            (ccols, np.einsum("ni,nik->nk", e, ms.jdot[self.centre])),
            (acols, np.einsum("ni,nik->nk", ms.udot[self.centre], de)),
            (acols, r[:, None] * np.einsum("ni,nik->nk", omega, dk)),
            (pcols, -2.0 * r[:, None] * np.einsum("ni,nij->nj", k, e_matrix(qd[pcols]))),
        ):
            dr.append(np.broadcast_to(rows, vals.shape).ravel())
            dc.append(cs.ravel())
            dv.append(vals.ravel())

        def triplets(r_, c_, v_):
            r_, c_, v_ = np.concatenate(r_), np.concatenate(c_), np.concatenate(v_)
            keep = (r_ >= 0) & (c_ >= 0)
            return r_[keep], c_[keep], v_[keep]

        return triplets(kr, kc, kv), triplets(dr, dc, dv)


def skew_rows(v: np.ndarray) -> np.ndarray:
    """``ṽ`` for each row of ``v`` (``(k, 3)`` → ``(k, 3, 3)``), ``ṽ x = v × x``."""
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out
