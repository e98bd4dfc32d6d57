"""Integration coordinates ``y`` with a chosen orientation set, mapped onto the system's ``q``.

``MultibodySystem`` works in ``q`` (rigid body ``[r, p]``, Euler parameters). A formulation
that integrates with another orientation set (``solver.mechanics.orientation_sets``) uses
``y``: each rigid body ``[r, o]`` (3 + k), every other coordinate unchanged. The map
``q(y)`` replaces ``o`` by the unit quaternion ``p(o)``, so constraints, forces, energies
and outputs are evaluated by the system unchanged:

* ``Φ(y) = Φ(q(y))``, ``Φ_y = Φ_q P`` with ``P = ∂q/∂y`` (the Euler-parameter norm rows are
  identically zero for a 3-parameter set and are dropped: ``rows``);
* ``M_y = Pᵀ M(q) P`` (for a body: ``B̄ᵀ J B̄`` with ``B̄ = 2G(p)∂p/∂o``, ω̄ = B̄ ȯ);
* applied forces ``Pᵀ Q(q, P ẏ)`` (virtual work), and the inertial velocity force of each
  body ``−B̄ᵀ(J c̄ + ω̄ × J ω̄)`` with ``c̄ = 2G(p) ∂²p/∂o²[ȯ, ȯ]`` (``ω̄̇ = B̄ ö + c̄``);
* ``q̇ = P ẏ``, ``q̈ = P ÿ + ∂²q/∂y²[ẏ, ẏ]``.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.orientation_sets import OrientationSet
from solver.mechanics.rotations import g_matrix, skew


class OrientationChart:
    """The coordinates ``y`` of a system with orientation set ``oset``."""

    def __init__(self, system, oset: OrientationSet) -> None:
        self.system = system
        self.oset = oset
        k = oset.size
        rigid = system.rigid
        n = system.n
        is_p = np.zeros(n, bool)
        if len(rigid):
            is_p[rigid.cols[:, 3:].ravel()] = True
        # y layout: q's order, each body's 4 Euler parameters replaced by k parameters
        ymap, oc = [], []
        q_to_y = np.full(n, -1, np.int64)
        last_r = set(int(c) for c in rigid.cols[:, 2]) if len(rigid) else set()
        j = 0
        for i in range(n):
            if is_p[i]:
                continue
            q_to_y[i] = j
            ymap.append(i)
            j += 1
            if i in last_r:
                oc.append(np.arange(j, j + k))
                j += k
        self.ny = j
        self.lin_q = np.array(ymap, np.int64)  # q columns carried over unchanged
        self.lin_y = q_to_y[self.lin_q]
        self.ocols = np.array(oc, np.int64).reshape(-1, k)  # y columns of each body's o
        self.pcols = rigid.cols[:, 3:] if len(rigid) else np.zeros((0, 4), np.int64)
        self.names = [name for name, s in system.slots.items() if s.kind == "rigid"]
        keep = np.ones(system.m, bool)
        if k != 4 and len(rigid):
            keep[system.norm_row0 :] = False
        self.rows = np.flatnonzero(keep)

    # ---- maps ----------------------------------------------------------------------------
    def to_q(self, y: np.ndarray) -> np.ndarray:
        q = np.empty(self.system.n)
        q[self.lin_q] = y[self.lin_y]
        if len(self.ocols):
            q[self.pcols] = self.oset.quaternion(y[self.ocols])
        return q

    def jacobian(self, y: np.ndarray) -> np.ndarray:
        """``P = ∂q/∂y``, dense ``n × n_y``."""
        out = np.zeros((self.system.n, self.ny))
        out[self.lin_q, self.lin_y] = 1.0
        if len(self.ocols):
            pj = self.oset.quaternion_jacobian(y[self.ocols])
            out[self.pcols[:, :, None], self.ocols[:, None, :]] = pj
        return out

    def velocities(self, y, yd, ydd=None):
        """``(q̇, q̈)`` from ``(ẏ, ÿ)`` (q̈ only when ``ydd`` is given)."""
        pj = self.jacobian(y)
        qd = pj @ yd
        if ydd is None:
            return qd, None
        qdd = pj @ ydd
        if len(self.ocols):
            o, od = y[self.ocols], yd[self.ocols]
            hs = self.oset.quaternion_hessian(o)
            qdd[self.pcols] += np.einsum("nakl,nk,nl->na", hs, od, od)
        return qd, qdd

    def from_q(self, q: np.ndarray, qd: np.ndarray):
        """``(y, ẏ)`` of a state; the angular velocity of each body is kept exactly."""
        y = np.empty(self.ny)
        yd = np.empty(self.ny)
        y[self.lin_y] = q[self.lin_q]
        yd[self.lin_y] = qd[self.lin_q]
        if len(self.ocols):
            p = q[self.pcols]
            p = p / np.linalg.norm(p, axis=1, keepdims=True)
            with np.errstate(all="ignore"):
                o = self.oset.from_quaternion(p)
            y[self.ocols] = o
            omega_bar = 2.0 * np.einsum("nij,nj->ni", g_matrix(p), qd[self.pcols])
            with np.errstate(all="ignore"):
                bbar = self.body_omega_jacobian(o)
            # at a set's singularity (Gibbs or Rodrigues parameters at a rotation of π) the
            # map is infinite: NaN rates, for the caller's singularity check to name the body
            yd[self.ocols] = np.stack(
                [
                    np.linalg.lstsq(b, w, rcond=None)[0]
                    if np.isfinite(b).all() and np.isfinite(o_).all()
                    else np.full(o_.shape, np.nan)
                    for b, w, o_ in zip(bbar, omega_bar, o, strict=True)
                ]
            )
        return y, yd

    def body_omega_jacobian(self, o: np.ndarray) -> np.ndarray:
        """``B̄ = ∂ω̄/∂ȯ = 2G(p)∂p/∂o`` (body frame), ``(n, 3, k)``."""
        p = self.oset.quaternion(o)
        return 2.0 * np.einsum("nia,nak->nik", g_matrix(p), self.oset.quaternion_jacobian(o))

    def measure(self, y: np.ndarray) -> np.ndarray:
        """Each rigid body's distance to the set's singularity (1 far, 0 at it)."""
        if not len(self.ocols):
            return np.ones(0)
        return self.oset.measure(y[self.ocols])

    # ---- dynamics -------------------------------------------------------------------------
    def inertial_force(self, y: np.ndarray, yd: np.ndarray, with_jacobian: bool = True):
        """Per body ``−B̄ᵀ(J c̄ + ω̄ × Jω̄)`` and its Jacobian w.r.t. ȯ: ``(n, k)``, ``(n, k, k)``."""
        return self.inertial_model(y)(yd, with_jacobian)

    def inertial_model(self, y: np.ndarray):
        """``inertial_force`` at fixed positions y as a function of ẏ (the position-only
        factors computed once)."""
        o = y[self.ocols]
        inertia = self.system.rigid.inertia
        p = self.oset.quaternion(o)
        g = g_matrix(p)
        bbar = 2.0 * np.einsum("nia,nak->nik", g, self.oset.quaternion_jacobian(o))
        bbar_t = np.ascontiguousarray(np.swapaxes(bbar, 1, 2))
        gh = 2.0 * np.einsum("nia,nakl->nikl", g, self.oset.quaternion_hessian(o))
        jb = inertia @ bbar
        quadratic = bool(np.any(gh))

        def force(yd: np.ndarray, with_jacobian: bool = True):
            od = yd[self.ocols]
            w = np.einsum("nik,nk->ni", bbar, od)
            jw = np.einsum("nij,nj->ni", inertia, w)
            torque = np.cross(w, jw)
            if quadratic:
                dc = np.einsum("nikl,nk->nil", gh, od)  # ½ ∂c̄/∂ȯ; c̄ = dc ȯ
                torque = torque + np.einsum("nij,njl,nl->ni", inertia, dc, od)
            out = -np.einsum("nki,ni->nk", bbar_t, torque)
            if not with_jacobian:
                return out, None
            dt = np.einsum("nij,njl->nil", skew(w), jb) - np.einsum("nij,njl->nil", skew(jw), bbar)
            if quadratic:
                dt = dt + 2.0 * inertia @ dc
            return out, -bbar_t @ dt

        return force
