"""``NaturalBodies``: rigid bodies in natural coordinates (basic points and unit vectors).

The coordinates are the own entities of ``layout.Layout`` (three each; fixed entities
have none). Everything a body needs is linear in them (``frame.Frame``):

* markers: a body-fixed point or direction is ``Σ a_i e_i`` — a ``LINEAR`` marker over the
  columns of the body's own entities, the fixed ones in its constant part; so every joint,
  driver and force element works on these bodies unchanged;
* mass matrix ``Σ_bodies Z ⊗ I₃`` over the own entity columns: constant, assembled once;
* gravity ``Q = m C(x̄_G)ᵀ g``: constant; potential energy ``−m g·r_G(q)``: linear in q;
* no quadratic-velocity forces (M is constant).

Rigid-body constraints, per body over its four entities (García de Jalón and Bayo (1994), García
Vallejo (2006) §2.3.2): the distance of every pair of points (``Distance``), the unit length of
every vector and the angle of every pair of vectors (``Dot``), and the angle of each point-pair
offset
``e_k − e₁`` with each vector (``PointPlane``): six for every set of four entities. A
relation between entities that are all fixed, or that another body already imposes
(shared entities), is left out. The rows are recorded under ``rigid:<body>``.

Joints realised by sharing keep only their remaining rows, built with the
``JointBuilder`` of ``solver.mechanics.constraints.joints`` (the same primitives as
everywhere) and recorded under the joint's own key; the system does not build those
joints again.

CSV state: the centre of mass ``C(x̄_G) e``, the Euler parameters of the
body axes ``A = [a_x a_y a_z]`` (each ``Σ a_i e_i``), the velocity and the angular velocity
``ω = ½ Σ_k a_k × ȧ_k`` — the same 13 fields as reference-point coordinates. The sign of
the Euler parameters follows the previous output of the same body (starting from the
model's orientation), as integrated Euler parameters do.
"""

from __future__ import annotations

import numpy as np

from solver.kernels import states as kst
from solver.lazy_scipy import sparse as sp
from solver.mechanics.bodies.kind import BodyKind
from solver.mechanics.bodies.natural.layout import BodyInfo, Layout
from solver.mechanics.constraints.joints import JointBuilder, normals
from solver.mechanics.constraints.primitives import Distance, Dot, PointPlane
from solver.mechanics.markers import GROUND as MK_GROUND
from solver.mechanics.rotations import quaternion_from_matrix


class NaturalBodies(BodyKind):
    """All rigid bodies of a system in natural coordinates (see the module docstring).

    ``sharing`` (class attribute, default ``True``): let joints share basic points and
    vectors between bodies (``layout``); ``False`` gives every body its own centre of mass
    and three axes and builds every joint from primitives.
    """

    kind = "natural"
    sharing = True
    layout_class = Layout

    def __init__(self, system, bodies, offset: int) -> None:
        from solver.mechanics.system import BodySlot

        self.system = system
        self.offset = offset
        self.check_bodies(bodies)
        names = {b.name for _, b in bodies}
        sharing = getattr(system, "sharing", None)
        self.node_requests = [r for r in sharing.requests if r.rigid in names] if sharing else []
        self.layout = self.layout_class(
            system.model, bodies, share=self.sharing, nodes=self.node_requests
        )
        self.size = self.layout.size
        q0, qd0 = self.layout.initial_coordinates()
        self.q0, self.qd0 = q0, qd0
        self.infos: list[BodyInfo] = list(self.layout.bodies.values())
        for k, info in enumerate(self.infos):
            own = [self._col(e) for e in info.entities if self._col(e) >= 0]
            slot = BodySlot(
                info.name,
                self.kind,
                k,
                min(own) if own else offset,
                info.position0,
                info.rotation0,
                size=max(3 * len(own), 1),
                owner=self,
            )
            system.slots[info.name] = slot
        self._markers: dict[tuple, int] = {}
        self._mass = None
        self._gravity_cache = None
        if self.node_requests:
            self._node_maps(sharing)

    def check_bodies(self, bodies) -> None:
        """Refuse bodies this representation cannot describe (``ModelError``)."""

    # ---- shared nodes ----------------------------------------------------------------------
    def _node_maps(self, sharing) -> None:
        """How each nodal vector offered by a ``share`` joint is represented
        (``node_sharing``): the columns of the entity it became (with the sign of a
        direction that is its opposite), or the combination of the rigid body's entities."""
        from solver.mechanics.node_sharing import NodeMap

        k = self.layout.dim
        for request, item, node in self.layout.node_links:
            info = self.layout.bodies[request.rigid]
            name = request.joint.name
            if node is not None:
                ent = self.layout.entities[self.layout.entity_of_node(node)]
                sign = 1.0 if item.is_point or float(ent.value @ item.value) > 0 else -1.0
                c = self._col(ent.index)
                if c < 0:
                    value = NodeMap(
                        np.zeros(0, np.int64), np.zeros((k, 0)), sign * ent.value[:k], name, True
                    )
                else:
                    cols = np.arange(c, c + k)
                    value = NodeMap(cols, sign * np.eye(k), np.zeros(k), name, sign > 0)
            else:
                coef = (
                    info.frame.point_coefficients(info.local_point(item.value))
                    if item.is_point
                    else info.frame.vector_coefficients(info.local_vector(item.value))
                )
                cols, blocks, const = self._combination(info, coef, item.is_point)
                value = NodeMap(
                    np.asarray(cols, np.int64),
                    np.hstack(blocks)[:k] if blocks else np.zeros((k, 0)),
                    const[:k],
                    name,
                    False,
                )
            sharing.set_map(request, item, value)

    # ---- coordinates ---------------------------------------------------------------------
    def _col(self, entity: int) -> int:
        ent = self.layout.entities[entity]
        return -1 if ent.fixed else self.offset + ent.col

    def _combination(self, info: BodyInfo, coef: np.ndarray, is_point: bool):
        """``Σ coef_i e_i`` over a body's entities as ``(cols, 3×3 blocks, constant)``:
        the columns of its own entities, the fixed ones folded into the constant."""
        cols, blocks = [], []
        const = np.zeros(3)
        for a, e in zip(coef, info.entities, strict=True):
            c = self._col(e)
            if c < 0:
                const += a * self.layout.entities[e].value
            else:
                cols += [c, c + 1, c + 2]
                blocks.append(a * np.eye(3))
        return cols, blocks, const

    def _linear(self, info: BodyInfo, coef: np.ndarray, is_point: bool, table=None) -> int:
        """A marker ``Σ coef_i e_i`` of a body: columns of its own entities, the fixed
        ones folded into the constant part; added to ``table`` (default: the system's)."""
        key = (info.name, is_point, *np.round(coef, 15))
        if table is None and key in self._markers:
            return self._markers[key]
        cols, blocks, const = self._combination(info, coef, is_point)
        mk = self.system.markers if table is None else table
        if cols:
            idx = mk.add_linear(cols, np.hstack(blocks), const, is_point)
        else:
            idx = mk.add(MK_GROUND, [], const, is_point)
        if table is None:
            self._markers[key] = idx
        return idx

    def _entity_marker(self, entity: int) -> int:
        key = ("entity", entity)
        if key not in self._markers:
            ent = self.layout.entities[entity]
            mk = self.system.markers
            if ent.fixed:
                self._markers[key] = mk.add(MK_GROUND, [], ent.value, ent.is_point)
            else:
                c = self._col(entity)
                self._markers[key] = mk.add_linear(
                    [c, c + 1, c + 2], np.eye(3), np.zeros(3), ent.is_point
                )
        return self._markers[key]

    # ---- markers -------------------------------------------------------------------------
    def point(self, slot, xyz, where: str, field: str) -> int:
        info = self.infos[slot.index]
        return self._linear(info, info.frame.point_coefficients(info.local_point(xyz)), True)

    def vector(self, slot, xyz) -> int:
        info = self.infos[slot.index]
        return self._linear(info, info.frame.vector_coefficients(info.local_vector(xyz)), False)

    def linear_marker(self, table, slot, xyz, is_point: bool) -> int:
        """The marker of a body-fixed point or direction (global ``xyz`` at t = 0) added
        to another marker table (for evaluations outside the system)."""
        info = self.infos[slot.index]
        if is_point:
            coef = info.frame.point_coefficients(info.local_point(xyz))
        else:
            coef = info.frame.vector_coefficients(info.local_vector(xyz))
        return self._linear(info, coef, is_point, table)

    # ---- constraints ---------------------------------------------------------------------
    def build_constraints(self, ctx) -> dict[str, list]:
        items: dict[str, list] = {}
        seen: set = set()
        ents = self.layout.entities
        for info in self.infos:
            key = f"rigid:{info.name}"
            items[key] = []

            def add(cls, members, const, relation, key=key):
                if relation in seen or all(ents[e].fixed for e in members):
                    return
                seen.add(relation)
                group = ctx.group(cls)
                markers = tuple(self._entity_marker(e) for e in members)
                items[key].append((group, group.add(markers, const)))

            points = [e for e in info.entities if ents[e].is_point]
            vectors = [e for e in info.entities if not ents[e].is_point]
            for i, a in enumerate(points):
                for b in points[i + 1 :]:
                    length = float(np.linalg.norm(ents[b].value - ents[a].value))
                    add(Distance, (a, b), length, ("D", frozenset((a, b))))
            base = points[0]
            for b in points[1:]:
                for v in vectors:
                    c = float((ents[b].value - ents[base].value) @ ents[v].value)
                    add(PointPlane, (base, b, v), c, ("PV", frozenset((base, b)), v))
            for i, v in enumerate(vectors):
                for w in vectors[i:]:
                    c = float(ents[v].value @ ents[w].value)
                    add(Dot, (v, w), c, ("A", frozenset((v, w))))
        items.update(self._shared_joints(ctx))
        items.update(self._node_joints(ctx))
        return items

    def _node_joints(self, ctx) -> dict[str, list]:
        """The rows that ``share`` joints with flexible-body nodes keep (``node_sharing.rows``)."""
        from solver.mechanics.node_sharing import rows

        builder = JointBuilder(ctx)
        for request in self.node_requests:
            rows(builder, ctx, request, "axis" in request.joint.share)
        return builder.items

    def _shared_joints(self, ctx) -> dict[str, list]:
        """The rows that joints realised by sharing still need (same primitives as
        ``JointBuilder``)."""
        builder = JointBuilder(ctx)
        joints = {j.name: (i, j) for i, j in enumerate(self.system.model.joints)}
        for name, flags in self.layout.shared.items():
            i, j = joints[name]
            key, where = f"joint:{name}", f'joints[{i}] "{name}"'
            b1, b2 = j.body1, j.body2
            builder.items[key] = []
            if "point" in flags and not flags["point"]:
                builder._spherical(key, where, ctx, b1, b2, j)
            if j.type == "revolute" and not flags["axis"]:
                a, n1, n2 = normals(j.axis)
                builder._perpendicular_pair(key, ctx, b1, b2, a, n1, n2)
            elif j.type == "universal":
                a1 = np.asarray(j.axis1, float) / np.linalg.norm(j.axis1)
                a2 = np.asarray(j.axis2, float) / np.linalg.norm(j.axis2)
                builder._add(
                    key, Dot, (ctx.vector(b1, a1), ctx.vector(b2, a2)), const=float(a1 @ a2)
                )
            elif j.type in ("cylindrical", "prismatic"):
                a, n1, n2 = builder._line(key, where, ctx, b1, b2, j)
                if not flags["axis"]:
                    va = ctx.vector(b2, a)
                    builder._add(key, Dot, (ctx.vector(b1, n1), va))
                    builder._add(key, Dot, (ctx.vector(b1, n2), va))
                if j.type == "prismatic" and not flags.get("normal", False):
                    builder._add(key, Dot, (ctx.vector(b1, n1), ctx.vector(b2, n2)))
        return builder.items

    # ---- dynamics ------------------------------------------------------------------------
    def _assemble(self) -> None:
        """Constant mass matrix (sparse, n × n), gravity direction terms, potential."""
        n = self.system.n
        rows, cols, vals = [], [], []
        self._com_cols, self._com_coef, self._com_const = [], [], []
        for info in self.infos:
            z = info.frame.mass_coefficients(info.mass, info.inertia)
            own = [(i, self._col(e)) for i, e in enumerate(info.entities) if self._col(e) >= 0]
            for i, ci in own:
                for j, cj in own:
                    rows.append(ci + np.arange(3))
                    cols.append(cj + np.arange(3))
                    vals.append(np.full(3, z[i, j]))
        if rows:
            r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
        else:
            r = c = np.zeros(0, np.int64)
            v = np.zeros(0)
        self._mass = sp.csr_matrix((v, (r, c)), shape=(n, n))
        # centre of mass: r_G = Σ a_G,i e_i → per body the own columns and a constant part
        self._g_rows, self._g_weights = [], []
        const = []
        for info in self.infos:
            a_g = info.frame.point_coefficients(np.zeros(3))
            part = np.zeros(3)
            for a, e in zip(a_g, info.entities, strict=True):
                c0 = self._col(e)
                if c0 < 0:
                    part += a * self.layout.entities[e].value
                else:
                    self._g_rows.append(c0 + np.arange(3))
                    self._g_weights.append(np.full(3, info.mass * a))
            const.append(info.mass * part)
        self._mr_const = np.sum(const, axis=0) if const else np.zeros(3)  # Σ m (fixed part)
        self._g_rows = np.concatenate(self._g_rows) if self._g_rows else np.zeros(0, np.int64)
        self._g_weights = np.concatenate(self._g_weights) if self._g_weights else np.zeros(0)

    def mass(self, q):
        if self._mass is None:
            self._assemble()
        return self._mass

    def gravity_forces(self, gravity: np.ndarray) -> np.ndarray:
        if self._mass is None:
            self._assemble()
        out = np.zeros(self.system.n)
        g = np.tile(np.asarray(gravity, float), len(self._g_rows) // 3)
        np.add.at(out, self._g_rows, self._g_weights * g)
        return out

    def _moment(self, q: np.ndarray) -> np.ndarray:
        """``Σ m r_G`` over the bodies (3,)."""
        if self._mass is None:
            self._assemble()
        w = (self._g_weights * q[self._g_rows]).reshape(-1, 3).sum(axis=0)
        return w + self._mr_const

    def kinetic_energy(self, q, qd) -> float:
        return float(0.5 * qd @ (self.mass(q) @ qd))

    def gravitational_energy(self, q, gravity: np.ndarray) -> float:
        return -float(self._moment(q) @ np.asarray(gravity, float))

    # ---- output --------------------------------------------------------------------------
    def state_fields(self, slot) -> tuple[str, ...]:
        from solver.results import RIGID_FIELDS

        return RIGID_FIELDS

    def entity_values(self, info: BodyInfo, x: np.ndarray, rates: bool = False) -> np.ndarray:
        """The body's four entities (4×3) from the system vector ``x`` (q, or q̇ when
        ``rates``: fixed entities then have zero rate)."""
        out = np.empty((4, 3))
        for i, e in enumerate(info.entities):
            c = self._col(e)
            if c < 0:
                out[i] = 0.0 if rates else self.layout.entities[e].value
            else:
                out[i] = x[c : c + 3]
        return out

    def _state_entities(self, info: BodyInfo, dim: int) -> tuple[np.ndarray, np.ndarray]:
        """The column in q of each of the body's entities (−1: fixed) and the fixed ones'
        values (their first ``dim`` coordinates), for the state tables."""
        cols, fixed = np.full(4, -1, np.int64), np.zeros((4, 3))
        for i, e in enumerate(info.entities):
            cols[i] = self._col(e)
            if cols[i] < 0:
                fixed[i, :dim] = self.layout.entities[e].value[:dim]
        return cols, fixed

    def state_table(self, slot):
        info = self.infos[slot.index]
        cols, fixed = self._state_entities(info, 3)
        coef = np.zeros(16)
        coef[:4] = info.frame.point_coefficients(np.zeros(3))
        coef[4:] = info.frame.axes_coefficients().ravel()  # row k: body axis k
        return kst.NATURAL_STATE, cols, fixed, coef, quaternion_from_matrix(info.rotation0)
