"""The numerical multibody system built from a model description.

``MultibodySystem(model)`` lays out the coordinates ``q`` (rigid body: ``[r, p]``, 7;
point mass: ``r``, 3), builds markers, constraint primitives (joints, drivers, Euler
parameter norms) and force elements, and evaluates

* ``constraints(q, q̇, t)`` → ``Φ``, ``Φ_q``, ``Φ_t``, ``γ`` (``Φ_q q̈ = γ``);
* ``mass(q)`` → ``M``; ``forces(q, q̇, t)`` → ``Q`` (applied + quadratic-velocity);
* ``force_jacobians`` → ``∂Q/∂q``, ``∂Q/∂q̇``; energies and non-conservative power.

Matrices are dense below ``SPARSE_THRESHOLD`` coordinates and ``scipy.sparse`` CSR above.
Constraint rows are grouped by primitive type so each type is evaluated in one
vectorised call, whatever the number of joints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from solver.mechanics.bodies.point_mass import PointMasses
from solver.mechanics.bodies.rigid import RigidBodies
from solver.mechanics.constraints.joints import JointBuilder
from solver.mechanics.constraints.primitives import PRIMITIVES
from solver.mechanics.constraints.rolling import RollingNoSlip
from solver.mechanics.item_functions import checked_driver
from solver.mechanics.markers import GROUND as MK_GROUND
from solver.mechanics.markers import POINT_MASS as MK_POINT_MASS
from solver.mechanics.markers import RIGID as MK_RIGID
from solver.mechanics.markers import Markers, MarkerState
from solver.mechanics.rotations import cross, pdot_from_omega, rotate, rotation_matrix
from solver.mechanics.sparse_pattern import FixedPattern
from solver.model import description as d
from solver.model.errors import ModelError
from solver.model.fields import fmt_vector

SPARSE_THRESHOLD = 300


@dataclass
class BodySlot:
    """Where a body lives in q and its frame at t = 0."""

    name: str
    kind: str  # "rigid" | "point_mass" | a BodyKind's name
    index: int  # within its kind
    offset: int
    position0: np.ndarray
    rotation0: np.ndarray  # body→global at t = 0 (identity for point masses)
    size: int = 0
    owner: object = None  # the BodyKind of a non-built-in body

    def __post_init__(self) -> None:
        if not self.size:
            self.size = 7 if self.kind == "rigid" else 3


@dataclass
class ConstraintEval:
    phi: np.ndarray
    phi_q: np.ndarray | sp.csr_matrix
    phi_t: np.ndarray
    gamma: np.ndarray


class MultibodySystem:
    """Coordinates, constraints and forces of a model (reference-point coordinates)."""

    def __init__(self, model: d.Model, coordinates: str | None = None) -> None:
        self.model = model
        self.coordinates = coordinates or model.solver.coordinates
        self.gravity = np.asarray(model.gravity, float)
        self._layout(model)
        self.markers = Markers()
        self._groups: dict[type, object] = {}
        self.rolling = RollingNoSlip()
        self.velocity_rows: dict[str, list[int]] = {}
        builder = JointBuilder(self)
        for kind in self.kinds:
            builder.items.update(kind.build_constraints(self))
        joints = {j.name: j for j in model.joints}
        for i, j in enumerate(model.joints):
            if f"joint:{j.name}" not in builder.items:  # a kind may realise it (sharing)
                builder.joint(i, j)
        for i, drv in enumerate(model.drivers):
            builder.driver(i, checked_driver(i, drv), joints[drv.joint])
        from solver.mechanics.forces import ForceSet

        self.force_set = ForceSet(model, self)
        self.output_markers = [
            self.point(o.body, o.point, f'outputs[{i}] "{o.name}"', "point")
            for i, o in enumerate(model.outputs)
        ]
        self.markers.freeze()
        self.rolling.freeze()
        self.m_nh = len(self.rolling)
        order = {cls: k for k, cls in enumerate(PRIMITIVES)}
        self.groups = sorted(self._groups.values(), key=lambda g: order.get(type(g), len(order)))
        for g in self.groups:
            g.freeze()
        self.blocks = [b for kind in self.kinds for b in kind.constraint_blocks()]
        self._rows(builder.items)
        self.force_set.freeze()

    # ---- layout -------------------------------------------------------------------
    def _layout(self, model: d.Model) -> None:
        from solver.mechanics.bodies.kind import kind_class

        self.slots: dict[str, BodySlot] = {}
        offset = 0
        rigid_off, rigid_m, rigid_j, pm_off, pm_m = [], [], [], [], []
        q0, qd0 = [], []
        others: dict[str, list] = {}
        for i, b in enumerate(model.bodies):
            if isinstance(b, d.FlexibleBody):
                others.setdefault(b.type, []).append((i, b))
                continue
            if isinstance(b, d.RigidBody) and self.coordinates == "natural":
                others.setdefault("natural", []).append((i, b))
                continue
            pos = np.asarray(b.position, float)
            if isinstance(b, d.RigidBody):
                p = np.asarray(b.orientation, float)
                p = p / np.linalg.norm(p)
                slot = BodySlot(b.name, "rigid", len(rigid_off), offset, pos, rotation_matrix(p))
                rigid_off.append(offset)
                rigid_m.append(b.mass)
                rigid_j.append(np.asarray(b.inertia, float))
                q0 += [*pos, *p]
                qd0 += [*b.velocity, *pdot_from_omega(p, np.asarray(b.angular_velocity, float))]
            else:
                slot = BodySlot(b.name, "point_mass", len(pm_off), offset, pos, np.eye(3))
                pm_off.append(offset)
                pm_m.append(b.mass)
                q0 += list(pos)
                qd0 += list(b.velocity)
            self.slots[b.name] = slot
            offset += slot.size
        self.rigid = RigidBodies(rigid_off, rigid_m, np.array(rigid_j).reshape(-1, 3, 3))
        self.point_masses = PointMasses(pm_off, pm_m)
        self.kinds = []
        for name, bodies in others.items():
            i, b = bodies[0]
            kind = kind_class(name, f'bodies[{i}] "{b.name}"')(self, bodies, offset)
            self.kinds.append(kind)
            offset += kind.size
            q0 += list(kind.q0)
            qd0 += list(kind.qd0)
        order = [b.name for b in model.bodies if b.name in self.slots]
        self.slots = {**{k: self.slots[k] for k in order}, **self.slots}  # model order
        self.n = offset
        self.q0 = np.array(q0, float)
        self.qd0 = np.array(qd0, float)
        self.sparse = self.n > SPARSE_THRESHOLD

    # ---- markers (the builder context) -----------------------------------------------
    def group(self, cls):
        if cls not in self._groups:
            self._groups[cls] = cls()
        return self._groups[cls]

    def add_rolling_row(self, key, centre, normal, axle, body, radius, lateral) -> None:
        """A velocity-level no-slip row of a rolling disc (see ``constraints.rolling``)."""
        slot = self.slots[body]
        row = self.rolling.add(centre, normal, axle, slot.offset + 3, radius, lateral)
        self.velocity_rows.setdefault(key, []).append(row)

    def velocity_constraints(self, q: np.ndarray, qd: np.ndarray, t: float = 0.0, ms=None):
        """Non-holonomic rows ``B q̇ = 0`` and their ``γ`` (``B q̈ = γ``); ``B`` is
        ``m_nh × n`` (dense or sparse like ``Φ_q``)."""
        if not self.m_nh:
            empty = sp.csr_matrix((0, self.n)) if self.sparse else np.zeros((0, self.n))
            return empty, np.zeros(0)
        ms = ms or self.markers.evaluate(q, qd)
        (r, c, v), gamma = self.rolling.evaluate(ms, q, qd, self.markers.cols)
        if self.sparse:
            return sp.csr_matrix((v, (r, c)), shape=(self.m_nh, self.n)), gamma
        b = np.zeros((self.m_nh, self.n))
        np.add.at(b, (r, c), v)
        return b, gamma

    def centre(self, body: str) -> np.ndarray:
        return np.zeros(3) if body == d.GROUND else self.slots[body].position0

    def point(self, body: str, xyz, where: str = "", field: str = "point") -> int:
        """A marker at global point ``xyz`` (t = 0) fixed to ``body``."""
        xyz = np.asarray(xyz, float)
        if body == d.GROUND:
            return self.markers.add(MK_GROUND, [], xyz, True)
        s = self.slots[body]
        if s.owner is not None:
            return s.owner.point(s, xyz, where, field)
        if s.kind == "point_mass":
            if np.linalg.norm(xyz - s.position0) > 1e-9 * max(1.0, np.linalg.norm(xyz)):
                raise ModelError(
                    where,
                    f'{fmt_vector(xyz)} is not at point mass "{body}" (at {fmt_vector(s.position0)}); '
                    "a point mass can only be joined at its own position",
                    field,
                )
            return self.markers.add(MK_POINT_MASS, range(s.offset, s.offset + 3), np.zeros(3), True)
        local = s.rotation0.T @ (xyz - s.position0)
        return self.markers.add(MK_RIGID, range(s.offset, s.offset + 7), local, True)

    def vector(self, body: str, xyz, point=None) -> int:
        """A marker for the global direction ``xyz`` (t = 0) fixed to ``body``; ``point`` is
        where it acts (a flexible body carries it at the node there)."""
        xyz = np.asarray(xyz, float)
        if body == d.GROUND:
            return self.markers.add(MK_GROUND, [], xyz, False)
        s = self.slots[body]
        if s.owner is not None:
            if point is not None and s.kind in d.FLEXIBLE_TYPES:
                return s.owner.vector(s, xyz, point)
            return s.owner.vector(s, xyz)
        if s.kind != "rigid":
            raise ModelError(
                "", f'body "{body}" has no orientation (a point mass) to fix a direction to'
            )
        return self.markers.add(MK_RIGID, range(s.offset, s.offset + 7), s.rotation0.T @ xyz, False)

    # ---- constraint rows ---------------------------------------------------------------
    def _rows(self, items) -> None:
        row = 0
        self.group_rows = []
        for g in self.groups:
            self.group_rows.append(row)
            row += g.rows * len(g)
        for b in self.blocks:  # rows a body kind evaluates itself (ANCF sliding joints)
            b.row0 = row
            row += b.rows
        self.n_norm = len(self.rigid)
        self.norm_row0 = row
        self.m = row + self.n_norm
        starts = {id(g): r for g, r in zip(self.groups, self.group_rows, strict=True)}
        self.item_rows: dict[str, np.ndarray] = {}
        for key, pairs in items.items():
            rows = [starts[id(g)] + k * g.rows + np.arange(g.rows) for g, k in pairs]
            self.item_rows[key] = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        for b in self.blocks:
            for key, local in b.items().items():
                self.item_rows[key] = b.row0 + local
        self.row_owner = np.empty(self.m, dtype=object)
        for key, rows in self.item_rows.items():
            self.row_owner[rows] = key
        for name, slot in self.slots.items():
            if slot.kind == "rigid":
                self.row_owner[self.norm_row0 + slot.index] = f"norm:{name}"
        # sparsity pattern of Φ_q (fixed): rows and columns of every entry
        pat_r, pat_c = [], []
        for g, r0 in zip(self.groups, self.group_rows, strict=True):
            rows = r0 + np.arange(len(g) * g.rows).reshape(len(g), g.rows)
            for idx in g.index:
                cols = self.markers.cols[idx]
                pat_r.append(
                    np.broadcast_to(rows[:, :, None], rows.shape + (cols.shape[1],)).ravel()
                )
                pat_c.append(
                    np.broadcast_to(cols[:, None, :], rows.shape + (cols.shape[1],)).ravel()
                )
        for b in self.blocks:
            r, c = b.pattern()
            pat_r.append(b.row0 + r)
            pat_c.append(c)
        pc = self.rigid.cols[:, 3:]
        pat_r.append(np.repeat(self.norm_row0 + np.arange(self.n_norm), 4))
        pat_c.append(pc.ravel())
        r = np.concatenate(pat_r) if pat_r else np.zeros(0, np.int64)
        c = np.concatenate(pat_c) if pat_c else np.zeros(0, np.int64)
        self._keep = c >= 0
        self._keep_all = bool(self._keep.all())
        self._norm_cols = pc
        self._zero_n = np.zeros(self.n)
        self._zero_n.flags.writeable = False
        self._pat = (r[self._keep], c[self._keep])
        self._pat_all = (np.where(self._keep, r, 0), np.where(self._keep, c, 0))
        self._flat = self._pat[0] * self.n + self._pat[1]

    # ---- evaluation ------------------------------------------------------------------
    def marker_state(self, q: np.ndarray, qd: np.ndarray | None = None) -> MarkerState:
        return self.markers.evaluate(q, np.zeros_like(q) if qd is None else qd)

    def constraints(
        self,
        q: np.ndarray,
        qd: np.ndarray | None = None,
        t: float = 0.0,
        ms: MarkerState | None = None,
    ) -> ConstraintEval:
        """``Φ``, ``Φ_q``, ``Φ_t`` and ``γ`` at ``(q, q̇, t)``.

        The last evaluation is kept: asking again at the same ``(q, q̇, t)`` (a formulation's
        converged state, then the time loop's outputs) returns it without work, and at the
        same ``(q, t)`` with other velocities (a projection's γ) its ``Φ_q`` is reused. Callers
        must not modify the arrays of the result.
        """
        key = (q.tobytes(), b"" if qd is None else qd.tobytes(), float(t))
        last = self.__dict__.get("_last_constraints")
        if last is not None and last[0] == key and not self.blocks:
            return last[1]
        same_q = (
            last is not None and not self.blocks and last[0][0] == key[0] and last[0][2] == key[2]
        )
        qd = self._zero_n if qd is None else qd
        ms = ms or self.markers.evaluate(q, qd)
        phi = np.empty(self.m)
        phit = np.zeros(self.m)
        gamma = np.empty(self.m)
        vals = []
        for g, r0 in zip(self.groups, self.group_rows, strict=True):
            g_phi, g_phit, g_gamma, g_vals = g.assemble(ms, t)
            n = len(g) * g.rows
            phi[r0 : r0 + n] = g_phi.ravel()
            phit[r0 : r0 + n] = g_phit.ravel()
            gamma[r0 : r0 + n] = g_gamma.ravel()
            vals += g_vals
        for b in self.blocks:
            ev = b.evaluate(ms, q, qd, t)
            rows = slice(b.row0, b.row0 + b.rows)
            phi[rows], phit[rows], gamma[rows] = ev.phi, ev.phit, ev.gamma
            vals.append(ev.vals)
        if self.n_norm:
            pc = self._norm_cols
            p, pd = q[pc], qd[pc]
            k = self.norm_row0
            phi[k:] = np.einsum("ij,ij->i", p, p) - 1.0
            gamma[k:] = -2.0 * np.einsum("ij,ij->i", pd, pd)
            vals.append((2.0 * p).ravel())
        phi_q = last[1].phi_q if same_q else self._jacobian(vals)  # Φ_q depends on (q, t) only
        out = ConstraintEval(phi, phi_q, phit, gamma)
        self._last_constraints = (key, out)
        return out

    def _jacobian(self, vals: list) -> np.ndarray | sp.csr_matrix:
        """``Φ_q`` from the entries of every group, block and norm row (in pattern order)."""
        v = np.concatenate(vals) if vals else np.zeros(0)
        if self.sparse:  # the entries of ground columns are dropped by the pattern
            if "_pat_csr" not in self.__dict__:
                self._pat_csr = FixedPattern(*self._pat_all, (self.m, self.n), self._keep)
            return self._pat_csr.csr(v)
        if not self._keep_all:
            v = v[self._keep]
        return np.bincount(self._flat, weights=v, minlength=self.m * self.n).reshape(self.m, self.n)

    def position_constraints(self, q: np.ndarray, t: float = 0.0):
        """``(Φ, Φ_q)`` at ``(q, t)`` alone — what a position-level Newton iteration needs
        (no velocities: neither Φ_t nor γ are formed). Equal to ``constraints(q, ·, t)``'s."""
        if self.blocks:
            c = self.constraints(q, None, t)
            return c.phi, c.phi_q
        last = self.__dict__.get("_last_constraints")
        if last is not None and last[0][0] == q.tobytes() and last[0][2] == float(t):
            return last[1].phi, last[1].phi_q  # Φ and Φ_q do not depend on q̇
        ms = self.markers.positions(q)
        phi = np.empty(self.m)
        vals = []
        for g, r0 in zip(self.groups, self.group_rows, strict=True):
            g_phi, g_vals = g.position_rows(ms, t)
            phi[r0 : r0 + len(g) * g.rows] = g_phi.ravel()
            vals += g_vals
        if self.n_norm:
            p = q[self._norm_cols]
            phi[self.norm_row0 :] = np.einsum("ij,ij->i", p, p) - 1.0
            vals.append((2.0 * p).ravel())
        return phi, self._jacobian(vals)

    def _slot_flags(self, g) -> list[tuple[bool, bool]]:
        """Per slot of a primitive group: (any marker moves with a body, any is on a rigid
        body). A ground slot has J = 0 and J̇ = 0; only rigid markers have a J that depends
        on q (``force_jacobian``) and a non-zero J̇."""
        flags = self.__dict__.setdefault("_flags", {})
        if id(g) not in flags:
            kind = self.markers.kind
            flags[id(g)] = [
                (bool(np.any(kind[i] != MK_GROUND)), bool(np.any(kind[i] == MK_RIGID)))
                for i in g.index
            ]
        return flags[id(g)]

    def constraint_second_order(
        self,
        q: np.ndarray,
        qd: np.ndarray,
        lam: np.ndarray,
        t: float = 0.0,
        ms=None,
        velocity: bool = True,
    ):
        """``(∂(Φ_qᵀλ)/∂q, ∂(Φ_q q̇)/∂q)``: ``n×n`` and ``m×n``, exact (the second is
        ``None`` when ``velocity`` is false: not computed).

        With ``Φ_r = f_r(u(q))``: ``∇Φ_r = Σ_i g_ri J_i`` (``g_ri = ∂f_r/∂u_i``), so
        ``Σ_r λ_r ∇²Φ_r = Σ_ij J_iᵀ (Σ_r λ_r f_r,ij) J_j + Σ_i ∂(J_iᵀ Σ_r λ_r g_ri)/∂q`` and
        row r of ``∂(Φ_q q̇)/∂q`` is ``Σ_ij u̇_iᵀ f_r,ij J_j + Σ_i g_riᵀ ∂u̇_i/∂q``.
        Time enters only through ``c(t)``, which the second derivatives do not see.
        """
        ms = ms or self.markers.evaluate(q, qd)
        cols = self.markers.cols
        kr, kc, kv, dr, dc, dv = [], [], [], [], [], []
        # the index arrays of every block depend only on the system: built once per site
        patterns = self.__dict__.setdefault("_second_order_patterns", {})

        def indices(key, ri, cj, shape):
            hit = patterns.get(key)
            if hit is None or hit[0] != shape:
                hit = patterns[key] = (
                    shape,
                    np.broadcast_to(ri[:, :, None], shape).ravel(),
                    np.broadcast_to(cj[:, None, :], shape).ravel(),
                )
            return hit[1], hit[2]

        def put_k(key, ci, cj, blocks):  # (m, K, K) blocks over marker columns ci, cj (m, K)
            r_, c_ = indices(("k", *key), ci, cj, blocks.shape)
            kr.append(r_), kc.append(c_), kv.append(blocks.ravel())

        def put_d(key, rows, cj, blocks):  # (m, r, K) blocks, rows (m, r), columns cj (m, K)
            r_, c_ = indices(("d", *key), rows, cj, blocks.shape)
            dr.append(r_), dc.append(c_), dv.append(blocks.ravel())

        for g, r0 in zip(self.groups, self.group_rows, strict=True):
            m, r = len(g), g.rows
            rows = r0 + np.arange(m * r).reshape(m, r)
            lam_g = lam[r0 : r0 + m * r].reshape(m, r)
            flags = self._slot_flags(g)
            for (i, j), h in g.hessians(ms).items():
                if not (flags[i][0] and flags[j][0]):
                    continue  # a ground slot: J_j, or J_i and u̇_i, are zero
                ii, jj = g.index[i], g.index[j]
                if h.shape != (m, r, 3, 3):
                    h = np.broadcast_to(h, (m, r, 3, 3))
                # batched products (a fraction of the cost of the equivalent einsums)
                w = np.matmul(lam_g[:, None, :], h.reshape(m, r, 9)).reshape(m, 3, 3)
                key = (r0, i, j)
                ji, jj_ = ms.jac[ii], ms.jac[jj]
                k_ij = np.matmul(np.matmul(np.swapaxes(ji, 1, 2), w), jj_)
                put_k(key, cols[ii], cols[jj], k_ij)
                if velocity:
                    ud = ms.udot[ii][:, None, None, :]
                    d_ij = np.matmul(np.matmul(ud, h), jj_[:, None])[:, :, 0]
                    put_d(key, rows, cols[jj], d_ij)
            if not any(rigid for _, rigid in flags):
                continue  # constant J of every slot: no further terms
            blocks = g.evaluate(ms, t).blocks if velocity else None
            for i, force in enumerate(g.slot_forces(ms, t, lam_g, blocks)):
                if not flags[i][1]:
                    continue
                ii = g.index[i]
                put_k((r0, i), cols[ii], cols[ii], self.markers.force_jacobian(ii, force))
                if velocity:
                    put_d((r0, i), rows, cols[ii], np.matmul(blocks[i], ms.jdot[ii]))
        for b in self.blocks:
            (r, c, v), (r2, c2, v2) = b.second_order(ms, q, qd, lam[b.row0 : b.row0 + b.rows], t)
            kr.append(r), kc.append(c), kv.append(v)
            if velocity:
                dr.append(b.row0 + r2), dc.append(c2), dv.append(v2)
        if len(self.rigid):
            pc = self.rigid.cols[:, 3:]
            lam_n = lam[self.norm_row0 :]
            put_k(("norm",), pc, pc, 2.0 * lam_n[:, None, None] * np.eye(4))
            if velocity:
                nrows = self.norm_row0 + np.arange(self.n_norm)
                dr.append(np.repeat(nrows, 4))
                dc.append(pc.ravel())
                dv.append((2.0 * qd[pc]).ravel())

        def build(r, c, v, shape):
            if not r:
                return sp.csr_matrix(shape) if self.sparse else np.zeros(shape)
            v = np.concatenate(v)
            # the entries' positions are the same at every call, unless a body kind's
            # blocks move them (an ANCF sliding joint's columns follow its element)
            if self.sparse and not self.blocks:
                key = ("csr", shape, len(v))
                hit = patterns.get(key)
                if hit is None:
                    r, c = np.concatenate(r), np.concatenate(c)
                    keep = (r >= 0) & (c >= 0)
                    hit = patterns[key] = FixedPattern(
                        np.where(keep, r, 0), np.where(keep, c, 0), shape, keep
                    )
                return hit.csr(v)
            r, c = np.concatenate(r), np.concatenate(c)
            keep = (r >= 0) & (c >= 0)
            if self.sparse:
                return sp.csr_matrix((v[keep], (r[keep], c[keep])), shape=shape)
            flat = r[keep] * shape[1] + c[keep]  # small system: sum duplicates densely
            return np.bincount(flat, v[keep], shape[0] * shape[1]).reshape(shape)

        k = build(kr, kc, kv, (self.n, self.n))
        return k, (build(dr, dc, dv, (self.m, self.n)) if velocity else None)

    def _mass_pattern(self):
        """Row/column indices of every mass-matrix entry: rigid blocks (7×7), then point
        masses (3×3); built once."""
        rows, cols = [], []
        for colsets in (self.rigid.cols, self.point_masses.cols):
            if len(colsets):
                rows.append(np.repeat(colsets, colsets.shape[1], axis=1).ravel())
                cols.append(np.tile(colsets, (1, colsets.shape[1])).ravel())
        r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
        self._mpat = (r, c, r * self.n + c, self.point_masses.mass_blocks().ravel())

    def mass(self, q: np.ndarray, copy: bool = True):
        """Mass matrix ``M(q)`` (``copy=False``: the kept matrix itself, for callers that
        only read it)."""
        if not hasattr(self, "_mpat"):
            self._mass_pattern()
        r, c, flat, pm_vals = self._mpat
        key = q.tobytes()
        last = self.__dict__.get("_last_mass")
        if last is not None and last[0] == key:  # the same q again (a step's end, the loop)
            return last[1].copy() if copy else last[1]
        vals = pm_vals
        if len(self.rigid):
            vals = np.concatenate([self.rigid.mass_blocks(q).ravel(), pm_vals])
        if self.sparse:
            if "_mpat_csr" not in self.__dict__:
                self._mpat_csr = FixedPattern(r, c, (self.n, self.n))
            out = self._mpat_csr.csr(vals)
            for kind in self.kinds:
                out = out + kind.mass(q)
            out = out.tocsr()
            self._last_mass = (key, out)
            return out.copy() if copy else out
        out = np.zeros(self.n * self.n)
        out[flat] = vals  # blocks never overlap
        out = out.reshape(self.n, self.n)
        for kind in self.kinds:
            out += kind.mass(q).toarray()
        self._last_mass = (key, out)
        return out.copy() if copy else out

    def gravity_forces(self) -> np.ndarray:
        """The weights ``m g`` as generalised forces (constant: built once, copied)."""
        if "_gravity_forces" not in self.__dict__:
            self._gravity_forces = self._weights()
        return self._gravity_forces.copy()

    def _weights(self) -> np.ndarray:
        out = np.zeros(self.n)
        if len(self.rigid):
            out[self.rigid.cols[:, :3]] = self.rigid.mass[:, None] * self.gravity
        if len(self.point_masses):
            out[self.point_masses.cols] = self.point_masses.mass[:, None] * self.gravity
        for kind in self.kinds:
            out += kind.gravity_forces(self.gravity)
        return out

    def forces(
        self, q: np.ndarray, qd: np.ndarray, t: float, ms: MarkerState | None = None
    ) -> np.ndarray:
        """Generalised forces ``Q``: gravity, force elements, quadratic-velocity terms."""
        out = self.gravity_forces()
        if len(self.force_set):
            ms = ms or self.markers.evaluate(q, qd)
            out += self.force_set.generalized(ms, q, qd, t)
        if len(self.rigid):  # bodies' columns never overlap: a plain scatter-add
            out[self.rigid.cols] += self.rigid.quadratic_forces(q, qd)
        for kind in self.kinds:
            extra = kind.applied(q, qd, t)
            if extra is not None:
                out += extra
        return out

    def force_jacobians(
        self, q: np.ndarray, qd: np.ndarray, t: float, ms: MarkerState | None = None
    ):
        """``(∂Q/∂q, ∂Q/∂q̇)``, dense or sparse like ``mass``."""
        ms = ms or self.markers.evaluate(q, qd)
        if not self.sparse:
            return self._dense_force_jacobians(q, qd, t, ms)
        kq = kqd = None
        if len(self.force_set):
            kq, kqd = self.force_set.jacobians(ms, q, qd, t)
        if len(self.rigid):
            dq, dqd = self.rigid.quadratic_forces_jacobians(q, qd)
            pat = self._rigid_block_pattern()
            dq, dqd = pat.csr(dq.ravel()), pat.csr(dqd.ravel())
            kq = dq if kq is None else kq + dq
            kqd = dqd if kqd is None else kqd + dqd
        if kq is None:
            kq, kqd = self.force_set.jacobians(ms, q, qd, t)
        for kind in self.kinds:
            jq, jqd = kind.applied_jacobians(q, qd, t)
            if jq is not None:
                kq = kq + jq
            if jqd is not None:
                kqd = kqd + jqd
        # sparse here (small systems returned above): CSR already when built here
        csr = lambda a: a if sp.isspmatrix_csr(a) else sp.csr_matrix(a)  # noqa: E731
        return csr(kq), csr(kqd)

    def _dense_force_jacobians(self, q, qd, t, ms):
        """``force_jacobians`` of a small system: dense arrays, no sparse intermediates."""
        n = self.n
        if len(self.force_set):
            kq, kqd = (m.toarray() for m in self.force_set.jacobians(ms, q, qd, t))
        else:
            kq, kqd = np.zeros((n, n)), np.zeros((n, n))
        if len(self.rigid):
            dq, dqd = self.rigid.quadratic_forces_jacobians(q, qd)
            c = self.rigid.cols
            ix = (c[:, :, None], c[:, None, :])  # bodies' blocks never overlap
            kq[ix] += dq
            kqd[ix] += dqd
        for kind in self.kinds:
            jq, jqd = kind.applied_jacobians(q, qd, t)
            if jq is not None:
                kq += jq.toarray() if sp.issparse(jq) else jq
            if jqd is not None:
                kqd += jqd.toarray() if sp.issparse(jqd) else jqd
        return kq, kqd

    def _rigid_block_pattern(self) -> FixedPattern:
        """The 7×7 blocks of the rigid bodies (sparse systems), built once."""
        if "_rigid_csr" not in self.__dict__:
            c = self.rigid.cols
            r, cc = np.repeat(c, 7, axis=1).ravel(), np.tile(c, (1, 7)).ravel()
            self._rigid_csr = FixedPattern(r, cc, (self.n, self.n))
        return self._rigid_csr

    def mass_times_jacobian(self, q: np.ndarray, a: np.ndarray):
        """``∂(M(q) a)/∂q`` (a fixed), for Newton iterations of implicit methods."""
        c = self.rigid.cols
        if not self.sparse:
            out = np.zeros((self.n, self.n))
            if len(self.rigid):
                out[c[:, :, None], c[:, None, :]] = self.rigid.mass_times_jacobian(q, a)
            for kind in self.kinds:
                extra = kind.mass_times_jacobian(q, a)
                if extra is not None:
                    out += extra.toarray() if sp.issparse(extra) else extra
            return out
        blocks = self.rigid.mass_times_jacobian(q, a)
        mat = self._rigid_block_pattern().csr(blocks.ravel())
        for kind in self.kinds:
            extra = kind.mass_times_jacobian(q, a)
            if extra is not None:
                mat = mat + extra
        return mat.tocsr() if self.sparse else mat.toarray()

    # ---- energies ---------------------------------------------------------------------
    def _energy_terms(self):
        """Translational columns of rigid bodies and point masses, the mass and the weight
        ``m g`` per column (built once: the energies are asked at every step)."""
        terms = self.__dict__.get("_energy")
        if terms is None:
            parts = [(c.cols[:, :3], c.mass) for c in (self.rigid, self.point_masses) if len(c)]
            parts = parts or [(np.zeros((0, 3), np.int64), np.zeros(0))]
            cols = np.concatenate([c.ravel() for c, _ in parts])
            mass = np.concatenate([np.repeat(m, 3) for _, m in parts])
            weight = np.concatenate([(m[:, None] * self.gravity).ravel() for _, m in parts])
            terms = self._energy = (cols, mass, weight)
        return terms

    def kinetic_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        cols, mass, _ = self._energy_terms()
        v = qd[cols]
        t = 0.5 * float(v @ (mass * v))
        if len(self.rigid):
            t += self.rigid.rotational_energy(q, qd)
        return t + sum(kind.kinetic_energy(q, qd) for kind in self.kinds) if self.kinds else t

    def gravitational_energy(self, q: np.ndarray) -> float:
        cols, _, weight = self._energy_terms()
        v = -float(weight @ q[cols])
        if not self.kinds:
            return v
        return v + sum(kind.gravitational_energy(q, self.gravity) for kind in self.kinds)

    def elastic_energy(self, q: np.ndarray, ms: MarkerState | None = None) -> float:
        if not (len(self.force_set) or self.kinds):
            return 0.0
        ms = ms or self.markers.evaluate(q, np.zeros_like(q))
        return self.force_set.elastic_energy(ms, q) + sum(
            kind.elastic_energy(q) for kind in self.kinds
        )

    def nonconservative_power(
        self,
        q: np.ndarray,
        qd: np.ndarray,
        t: float,
        ms: MarkerState | None = None,
        contacts: bool = True,
    ) -> float:
        """Power of actuators, dampers, applied loads and (unless ``contacts`` is false)
        contact losses (W)."""
        if not (len(self.force_set) or self.kinds):
            return 0.0
        ms = ms or self.markers.evaluate(q, qd)
        power = self.force_set.nonconservative_power(ms, q, qd, t, contacts)
        return power + sum(kind.dissipated_power(q, qd) for kind in self.kinds)

    # ---- outputs ---------------------------------------------------------------------
    def body_state(self, q: np.ndarray, qd: np.ndarray) -> dict[str, np.ndarray]:
        """Per body: ``[x y z e0 e1 e2 e3 vx vy vz wx wy wz]`` (rigid) or ``[x y z vx vy vz]``.

        ω is global, ``2 E(p̂) ṗ`` with the normalised p̂; all rigid bodies at once.
        """
        out = {}
        rows = None
        if len(self.rigid):
            blk, dblk = q[self.rigid.cols], qd[self.rigid.cols]
            p = blk[:, 3:] / np.linalg.norm(blk[:, 3:], axis=1, keepdims=True)
            pd = dblk[:, 3:]
            w = 2.0 * (-pd[:, :1] * p[:, 1:] + p[:, :1] * pd[:, 1:] + cross(p[:, 1:], pd[:, 1:]))
            rows = np.hstack([blk[:, :3], p, dblk[:, :3], w])
        for name, s in self.slots.items():
            if s.owner is not None:
                out[name] = s.owner.state(s, q, qd)
            elif s.kind == "rigid":
                out[name] = rows[s.index]
            else:
                out[name] = np.concatenate(
                    [q[s.offset : s.offset + 3], qd[s.offset : s.offset + 3]]
                )
        return out

    def output_points(
        self, q: np.ndarray, qd: np.ndarray, ms: MarkerState | None = None
    ) -> np.ndarray:
        """Position and velocity of each output point, ``(n_outputs, 6)``."""
        ms = ms or self.markers.evaluate(q, qd)
        idx = np.asarray(self.output_markers, dtype=np.int64)
        return np.hstack([ms.u[idx], ms.udot[idx]]) if len(idx) else np.zeros((0, 6))

    def state_fields(self, body: str) -> tuple[str, ...]:
        """CSV column suffixes of ``body`` (DESIGN §2)."""
        from solver.results import POINT_FIELDS, RIGID_FIELDS

        s = self.slots[body]
        if s.owner is not None:
            return s.owner.state_fields(s)
        return RIGID_FIELDS if s.kind == "rigid" else POINT_FIELDS

    def rotation(self, q: np.ndarray, body: str) -> np.ndarray:
        s = self.slots[body]
        if s.kind != "rigid":
            return np.eye(3)
        p = q[s.offset + 3 : s.offset + 7]
        return rotation_matrix(p / np.linalg.norm(p))

    def global_point(self, q: np.ndarray, body: str, local) -> np.ndarray:
        s = self.slots[body]
        if s.kind != "rigid":
            return q[s.offset : s.offset + 3].copy()
        p = q[s.offset + 3 : s.offset + 7]
        return q[s.offset : s.offset + 3] + rotate(p[None], np.asarray(local, float)[None])[0]

    def joint_of_row(self, row: int) -> str:
        """``"joint:J3"``, ``"driver:motor"`` or ``"norm:crank"`` for a constraint row."""
        return str(self.row_owner[row])
