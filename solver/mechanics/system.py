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

from solver.kernels import system as ks
from solver.lazy_scipy import sparse as sp
from solver.mechanics.bodies.point_mass import PointMasses
from solver.mechanics.bodies.rigid import RigidBodies
from solver.mechanics.constraints.joints import JointBuilder
from solver.mechanics.constraints.primitives import PRIMITIVES
from solver.mechanics.constraints.rolling import RollingNoSlip
from solver.mechanics.item_functions import check_functions, checked_driver, model_functions
from solver.mechanics.markers import GROUND as MK_GROUND
from solver.mechanics.markers import POINT_MASS as MK_POINT_MASS
from solver.mechanics.markers import RIGID as MK_RIGID
from solver.mechanics.markers import Markers, MarkerState
from solver.mechanics.node_sharing import NodeSharing
from solver.mechanics.rotations import pdot_from_omega, rotate, rotation_matrix
from solver.mechanics.sparse_pattern import FixedPattern
from solver.mechanics.state_columns import StateColumns
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


class _Pattern:
    """A fixed list of matrix entries ``(rows, cols)`` (``keep``: the entries to use, the
    others being of ground columns) and the matrix of their values, dense or CSR
    (repeated positions add up)."""

    def __init__(self, rows, cols, keep, shape, sparse: bool) -> None:
        self.count = len(rows)
        self.shape = shape
        self.sparse = sparse
        self.keep = None if keep is None or keep.all() else keep
        if self.keep is not None:
            rows, cols = rows[self.keep], cols[self.keep]
        self.rows, self.cols = rows, cols
        self._flat = rows * shape[1] + cols
        self._csr = FixedPattern(rows, cols, shape) if sparse else None

    def build(self, vals: np.ndarray):
        if self.keep is not None:
            vals = vals[self.keep]
        if self._csr is not None:
            return self._csr.csr(vals)
        size = self.shape[0] * self.shape[1]
        return np.bincount(self._flat, weights=vals, minlength=size).reshape(self.shape)


def _f64(x) -> np.ndarray:
    """``x`` as the kernels take it: a writable C-contiguous float64 array (a read-only
    array would make Numba compile the kernel once more)."""
    a = np.ascontiguousarray(x, dtype=float)
    return a if a.flags.writeable else a.copy()


def _build(parts, shape, sparse: bool):
    """The matrix of ``(rows, cols, values)`` triplets (columns < 0 dropped; repeated
    positions add up), dense or CSR."""
    r = np.concatenate([p[0] for p in parts])
    c = np.concatenate([p[1] for p in parts])
    v = np.concatenate([p[2] for p in parts])
    keep = (r >= 0) & (c >= 0)
    if not keep.all():
        r, c, v = r[keep], c[keep], v[keep]
    if sparse:
        return sp.csr_matrix((v, (r, c)), shape=shape)
    return np.bincount(r * shape[1] + c, weights=v, minlength=shape[0] * shape[1]).reshape(shape)


class MultibodySystem:
    """Coordinates, constraints and forces of a model (reference-point coordinates)."""

    def __init__(self, model: d.Model, coordinates: str | None = None) -> None:
        self.model = model
        self.coordinates = coordinates or model.solver.coordinates
        self.gravity = np.asarray(model.gravity, float)
        self.sharing = NodeSharing(model, self.coordinates)  # ``share`` joints (nodes)
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
        self.item_functions = model_functions(model)
        self._pack()

    def check_functions(self, t0: float, t1: float) -> None:
        """Raise ``NonFiniteFunction`` naming the driver or force whose time function is
        NaN, infinite or too large between ``t0`` and ``t1`` (s); the cause of a failed
        step that the compiled evaluation, which does not check them, only sees as one."""
        check_functions(self.item_functions, t0, t1)

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
            if isinstance(b, d.RigidBody) and self.coordinates in ("natural", "natural_planar"):
                others.setdefault(self.coordinates, []).append((i, b))
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
        for name, bodies in self.sharing.order(others):
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
        pattern = self.no_slip_patterns[0]
        r = ks.no_slip_evaluation(
            self.arrays, ms.arrays, _f64(q), _f64(qd), self._zero_nh, False, ks.VALUES,
            pattern.count, 0,
        )  # fmt: skip
        return pattern.build(r[4]), r[0]

    def velocity_second_order(self, q: np.ndarray, qd: np.ndarray, mu: np.ndarray, ms=None):
        """``(∂(Bᵀμ)/∂q, ∂(B q̇)/∂q)`` of the no-slip rows, ``n × n`` and ``m_nh × n`` (dense
        or sparse like ``Φ_q``), exact: the first at fixed multipliers μ, the second at
        fixed q̇ (the terms an implicit integrator's Newton matrix needs)."""
        ms = ms or self.markers.evaluate(q, qd)
        _, pk, pd = self.no_slip_patterns
        r = ks.no_slip_evaluation(
            self.arrays, ms.arrays, _f64(q), _f64(qd), _f64(mu), True, ks.VALUES,
            pk.count, pd.count,
        )  # fmt: skip
        return pk.build(r[4]), pd.build(r[7])

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
        for b in self.blocks:  # rows a body kind adds (ANCF sliding joints)
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
        self._norm_cols = self.rigid.cols[:, 3:]
        self._zero_n = np.zeros(self.n)  # handed to the kernels: writable like every array

    # ---- evaluation ------------------------------------------------------------------
    # The equations are the compiled kernels of ``solver.kernels.system`` over the arrays
    # of ``packing.pack``.

    def _pack(self) -> None:
        """The kernels' arrays and the fixed entry patterns of every matrix (built once,
        at the end of the construction)."""
        self._pack_arrays()
        self._pack_patterns()

    def _pack_arrays(self) -> None:
        """The kernels' arrays, what they hold, and the markers at q0."""
        from solver.kernels.by_reference import system_struct
        from solver.mechanics.packing import pack

        self.packed = pack(self)  # read in Python
        self.arrays = system_struct(self.packed)  # passed to the kernels
        pk = self.packed
        lines = np.concatenate([pk.ln_gamma[pk.ln_set], pk.cb_gamma[pk.cb_set]])
        continua = pk.ct_damped[pk.ct_set]
        #: the kernels' own forces beyond gravity and the force set: flexible elements
        #: (elastic forces), and whether some of them are damped (non-conservative power)
        self.kernel_elements = len(lines) + len(continua) + len(pk.bl_set) > 0
        self.kernel_damping = bool(np.any(lines > 0.0) or np.any(continua))
        fs = self.force_set
        springs = len(pk.sp_mk) + len(pk.jt_mk)
        conservative = (
            len(fs) - len(fs.contacts) == springs  # only springs and joint springs
            and not np.any(pk.sp_par[:, 1]) and not np.any(pk.sp_func >= 0)  # undamped, no actuator
            and not np.any(pk.jt_par[:, 1]) and not np.any(pk.jt_func >= 0)
        )  # fmt: skip
        #: whether some force element does non-conservative work (dampers, actuators, force
        #: and torque functions, applied loads, damped flexible elements): the steps then
        #: integrate its power (``solver.kernels.system.nonconservative_power``); contacts
        #: integrate their own work
        self.nonconservative = self.kernel_damping or not conservative
        #: whether ``Q`` is the weights alone (no force element, no flexible element)
        self.gravity_only = len(self.force_set) == 0 and not self.kernel_elements
        q0 = np.ascontiguousarray(self.q0, dtype=float)
        #: markers at q0, passed where a kernel entry takes markers it does not read
        self._markers0 = self.markers.evaluate(q0, q0).arrays

    def _pack_patterns(self) -> None:
        """The fixed entry patterns of every matrix (evaluated at q0 by the kernels)."""
        from solver.kernels.by_reference import patterns_struct

        q0 = np.ascontiguousarray(self.q0, dtype=float)
        pt = ks.patterns(self.arrays, q0, self._markers0)
        self.packed_patterns = pt  # read in Python
        self.patterns = patterns_struct(pt)  # passed to the kernels
        r, c = pt.phi_r, pt.phi_c
        self._n_phi = len(r)
        keep = c >= 0
        self._phi_pattern = _Pattern(r, c, keep, (self.m, self.n), self.sparse)
        self._zero_nh = np.zeros(self.m_nh)
        #: the patterns of the no-slip rows' ``B``, ``∂(Bᵀμ)/∂q``, ``∂(B q̇)/∂q`` (or ``None``)
        self.no_slip_patterns = self._no_slip_pattern(q0)
        self._n_second = (len(pt.hk_r), len(pt.hd_r))
        self._second_patterns = (pt.hk_r, pt.hk_c, pt.hd_r, pt.hd_c)
        nn = (self.n, self.n)
        self._mass_pattern = _Pattern(pt.mass_r, pt.mass_c, None, nn, self.sparse)
        self._force_patterns = (
            _Pattern(pt.fk_r, pt.fk_c, None, nn, self.sparse),
            _Pattern(pt.fc_r, pt.fc_c, None, nn, self.sparse),
        )
        self._rigid_pattern = _Pattern(pt.rb_r, pt.rb_c, None, nn, self.sparse)

    def _no_slip_pattern(self, q0: np.ndarray):
        """The patterns of ``B``, ``∂(Bᵀμ)/∂q`` and ``∂(B q̇)/∂q`` (``None`` without
        no-slip rows)."""
        if not self.m_nh:
            return None
        out = []
        for second, shapes in (
            (False, [(self.m_nh, self.n)]),
            (True, [(self.n, self.n), (self.m_nh, self.n)]),
        ):
            args = (self.arrays, self._markers0, q0, q0, self._zero_nh, second)
            counts = ks.no_slip_evaluation(*args, ks.COUNT, 0, 0)[8:]
            r = ks.no_slip_evaluation(*args, ks.PATTERN, *counts)
            for (rows, cols), shape in zip(((r[2], r[3]), (r[5], r[6])), shapes, strict=False):
                out.append(_Pattern(rows, cols, None, shape, self.sparse))
        return tuple(out)

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
        if last is not None and last[0] == key:
            return last[1]
        same_q = last is not None and last[0][0] == key[0] and last[0][2] == key[2]
        self.check_blocks(q, t)
        qd = self._zero_n if qd is None else qd
        ms = ms or self.markers.evaluate(q, qd)
        q = _f64(q)
        qd = _f64(qd)
        phi, phit, gamma, _, _, vals, _ = ks.constraint_evaluation(
            self.arrays, ms.arrays, q, qd, float(t), ks.VALUES, self._n_phi
        )
        phi_q = last[1].phi_q if same_q else self._phi_pattern.build(vals)
        out = ConstraintEval(phi, phi_q, phit, gamma)
        self._last_constraints = (key, out)
        return out

    def position_constraints(self, q: np.ndarray, t: float = 0.0):
        """``(Φ, Φ_q)`` at ``(q, t)`` alone — what a position-level Newton iteration needs
        (no velocities: neither Φ_t nor γ are formed). Equal to ``constraints(q, ·, t)``'s."""
        last = self.__dict__.get("_last_constraints")
        if last is not None and last[0][0] == q.tobytes() and last[0][2] == float(t):
            return last[1].phi, last[1].phi_q  # Φ and Φ_q do not depend on q̇
        self.check_blocks(q, t)
        ms = self.markers.positions(q)
        q = _f64(q)
        phi, _, _, _, _, vals, _ = ks.constraint_evaluation(
            self.arrays, ms.arrays, q, q, float(t), ks.VALUES, self._n_phi
        )  # the markers without velocities: Φ_t and γ are not used
        return phi, self._phi_pattern.build(vals)

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
        self.check_blocks(q, t)
        ms = ms or self.markers.evaluate(q, qd)
        lam = _f64(lam)
        q = _f64(q)
        qd = _f64(qd)
        nk, nd = self._n_second
        r = ks.second_order_evaluation(
            self.arrays, ms.arrays, q, qd, float(t), lam, velocity, ks.VALUES, nk, nd
        )
        kv, dv = r[2], r[5]
        kr, kc, dr, dc = self._second_patterns
        k = _build([(kr, kc, kv)], (self.n, self.n), self.sparse)
        return k, (_build([(dr, dc, dv)], (self.m, self.n), self.sparse) if velocity else None)

    def check_blocks(self, q: np.ndarray, t: float) -> None:
        """The run's ``SimulationError`` for a state the kinds' constraint blocks cannot
        take (an ANCF sliding joint's point off its beam)."""
        for b in self.blocks:
            b.check(q, t)

    def mass(self, q: np.ndarray, copy: bool = True):
        """Mass matrix ``M(q)`` (``copy=False``: the kept matrix itself, for callers that
        only read it)."""
        key = q.tobytes()
        last = self.__dict__.get("_last_mass")
        if last is not None and last[0] == key:  # the same q again (a step's end, the loop)
            return last[1].copy() if copy else last[1]
        q = _f64(q)
        count = self._mass_pattern.count
        vals = ks.mass_evaluation(self.arrays, q, q, ks.MASS_VALUES, count)[2]
        out = self._mass_pattern.build(vals)
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

    def _applied(self, q, qd, t, ms, jacobians: bool, inertial: bool):
        """``(Q, ∂Q/∂q entries, ∂Q/∂q̇ entries)`` of the kernels."""
        q = _f64(q)
        qd = _f64(qd)
        pk, pc = self._force_patterns
        nk, nc = (pk.count, pc.count) if jacobians else (0, 0)
        r = ks.force_evaluation(
            self.arrays, ms.arrays, q, qd, float(t), inertial, ks.VALUES, nk, nc
        )
        return r[0], r[3], r[6]

    def forces(
        self,
        q: np.ndarray,
        qd: np.ndarray,
        t: float,
        ms: MarkerState | None = None,
        inertial: bool = True,
    ) -> np.ndarray:
        """Generalised forces ``Q``: gravity, force elements and (unless ``inertial`` is
        false) the rigid bodies' quadratic-velocity terms."""
        ms = ms or self.markers.evaluate(q, qd)
        return self._applied(q, qd, t, ms, False, inertial)[0]

    def force_jacobians(
        self,
        q: np.ndarray,
        qd: np.ndarray,
        t: float,
        ms: MarkerState | None = None,
        inertial: bool = True,
    ):
        """``(∂Q/∂q, ∂Q/∂q̇)`` of :meth:`forces`, dense or sparse like ``mass``."""
        ms = ms or self.markers.evaluate(q, qd)
        _, kv, cv = self._applied(q, qd, t, ms, True, inertial)
        pk, pc = self._force_patterns
        return pk.build(kv), pc.build(cv)

    def elastic_forces(self, q: np.ndarray, t: float = 0.0, jacobian: bool = False):
        """The flexible elements' own forces at rest, ``Q_int(q)`` (n), and ``∂Q_int/∂q``
        (dense or sparse like ``mass``; ``None`` unless ``jacobian``): the forces of
        :meth:`forces` at ``q̇ = 0`` without gravity and force elements, which a load
        stepping keeps whole while it scales the loads."""
        if "_unloaded" not in self.__dict__:
            from solver.kernels.by_reference import system_struct
            from solver.mechanics.packing import without_loads

            arrays = system_struct(without_loads(self.packed))
            q0 = np.ascontiguousarray(self.q0, dtype=float)
            kr, kc, cr, _ = ks.force_pattern(arrays, q0, self._markers0)
            pattern = _Pattern(kr, kc, None, (self.n, self.n), self.sparse)
            self._unloaded = (arrays, pattern, len(cr))
        arrays, pattern, nc = self._unloaded
        q = _f64(q)
        nk, nc = (pattern.count, nc) if jacobian else (0, 0)  # both or none: the kernel's rule
        # the markers at q0: without loads no force reads them (the elements read q)
        r = ks.force_evaluation(
            arrays, self._markers0, q, self._zero_n, float(t), ks.NO, ks.VALUES, nk, nc
        )
        return r[0], pattern.build(r[3]) if jacobian else None

    def mass_times_jacobian(self, q: np.ndarray, a: np.ndarray):
        """``∂(M(q) a)/∂q`` (a fixed), for Newton iterations of implicit methods (the mass
        of the body kinds is constant)."""
        q = _f64(q)
        a = _f64(a)
        vals = ks.mass_evaluation(self.arrays, q, a, ks.MASS_TIMES_JACOBIAN, 0)[2]
        return self._rigid_pattern.build(vals)

    def joint_angles(self, ms: MarkerState) -> np.ndarray:
        """Continuous relative angles of the rotational springs and joint torques (rad), in
        order (each evaluation follows the turns; ``force_set.reset()`` returns to 0)."""
        return ks.joint_angles(self.arrays, ms.arrays)

    # ---- energies ---------------------------------------------------------------------
    def _energy(self, mk, q, qd, t: float, what) -> float:
        return float(ks.state_evaluation(self.arrays, self.patterns, mk, q, qd, t, what)[0])

    def kinetic_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        q = _f64(q)
        return self._energy(self._markers0, q, _f64(qd), 0.0, ks.KINETIC)

    def gravitational_energy(self, q: np.ndarray) -> float:
        q = _f64(q)
        return self._energy(self._markers0, q, q, 0.0, ks.GRAVITATIONAL)

    def frame_values(self, q: np.ndarray, qd: np.ndarray, t: float, ms: MarkerState):
        """``(kinetic, gravitational, elastic)`` energies (J) and ``(max |Φ|, max |Φ_q q̇ +
        Φ_t|)`` (with no-slip rows, ``max |B q̇|`` too) at a state (markers ``ms`` at
        ``(q, q̇)``), in one kernel call."""
        q64, qd64 = _f64(q), _f64(qd)
        kin, pot, ela, err, verr = ks.state_evaluation(
            self.arrays, self.patterns, ms.arrays, q64, qd64, float(t), ks.FRAME
        )
        return float(kin), float(pot), float(ela), float(err), float(verr)

    def elastic_energy(self, q: np.ndarray, ms: MarkerState | None = None) -> float:
        ms = ms or self.markers.evaluate(q, np.zeros_like(q))
        q64 = _f64(q)
        return self._energy(ms.arrays, q64, q64, 0.0, ks.ELASTIC)

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
        return self.element_power(q, qd, t, ms, contacts)

    def element_power(
        self,
        q: np.ndarray,
        qd: np.ndarray,
        t: float,
        ms: MarkerState | None = None,
        contacts: bool = True,
    ) -> float:
        """Power of the non-conservative force elements (W): actuators, dampers, applied
        loads and (unless ``contacts`` is false) contact losses; not the body kinds'
        internal damping."""
        ms = ms or self.markers.evaluate(q, qd)
        q = _f64(q)
        qd = _f64(qd)
        power = self._energy(ms.arrays, q, qd, float(t), ks.POWER)
        if contacts:
            power += self.force_set.contact_power(ms)
        return power

    # ---- outputs ---------------------------------------------------------------------
    @property
    def state_columns(self) -> StateColumns:
        """Where a results row holds the body states and output points (made once)."""
        made = self.__dict__.get("_state_columns")
        if made is None:
            made = self._state_columns = StateColumns(self)
        return made

    def body_state(self, q: np.ndarray, qd: np.ndarray) -> dict[str, np.ndarray]:
        """Per body: ``[x y z e0 e1 e2 e3 vx vy vz wx wy wz]`` (rigid) or ``[x y z vx vy vz]``.

        ω is global, ``2 E(p̂) ṗ`` with the normalised p̂ (:mod:`solver.mechanics.state_columns`).
        """
        return self.state_columns.body_state(q, qd)

    def output_points(
        self, q: np.ndarray, qd: np.ndarray, ms: MarkerState | None = None
    ) -> np.ndarray:
        """Position and velocity of each output point, ``(n_outputs, 6)``."""
        idx = np.asarray(self.output_markers, dtype=np.int64)
        if not len(idx):
            return np.zeros((0, 6))
        if ms is None:
            return np.hstack(self.markers.values_of(idx, q, qd))
        return np.hstack([ms.u[idx], ms.udot[idx]])

    def state_fields(self, body: str) -> tuple[str, ...]:
        """CSV column suffixes of ``body``."""
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
