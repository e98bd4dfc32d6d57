"""``AncfBodies``: flexible beams (``ancf_beam2d``, ``ancf_cable``, ``ancf_beam3d``) as a BodyKind.

Each beam of the model is meshed into ``elements`` equal elements with shared nodes (the
nodes are consecutive blocks of coordinates, so element k uses nodes k and k + 1). Element
types (García Vallejo (2006) §2.4 and §3.2):

=============== ===================================== ============= =====================
model type      element                               node coords   node vectors
=============== ===================================== ============= =====================
``ancf_beam2d`` Euler–Bernoulli elastic line (default) 4 (planar)    r, r_x
``ancf_beam2d`` Omar–Shabana continuum ("continuum")  6 (planar)    r, r_x, r_y
``ancf_beam2d`` elastic line, strains in the element  4 (planar)    r, r_x
                frame ("euler_bernoulli_linear")
``ancf_cable``  gradient-deficient cable              6             r, r_x
``ancf_beam3d`` Yakoub–Shabana continuum              12            r, r_x, r_y, r_z
=============== ===================================== ============= =====================

The model field ``element`` chooses among them (``FlexibleBody.element``, ``None`` = the
default; the names are ``description.FLEXIBLE_ELEMENTS``). A planar beam lies in z = 0 and moves in that plane: the z
component of gravity and of forces does not act on it.

At t = 0 every node sits on the straight line between the beam's points, with slopes equal
to the beam frame of ``section.beam_frame`` (r_x along the beam, r_y and r_z the section
axes), and has the beam's uniform ``velocity``.

Markers (docs/model_format.md: a joint on a flexible body acts at the node at its point) are LINEAR:

* a point is the node position ``r``;
* a direction ``v`` given at t = 0 is written in the node's initial frame, ``v = a x₀ + b y₀ +
  c z₀``, and carried by the slopes: ``a r_x + b r_y + c r_z`` (Yakoub), ``a r_x + b Ĩ r_x +
  c Z`` (Euler–Bernoulli, planar), ``a r_x + b r_y + c Z`` (Omar). It rotates exactly with
  the node's section (and stretches with it). A cable has no section: ``v`` is carried by
  ``[a I + b (y₀ x₀ᵀ − x₀ y₀ᵀ) + c (z₀ x₀ᵀ − x₀ z₀ᵀ)] r_x``, which turns with the tangent to
  first order (the twist, which a cable does not have, stays frozen). It is exact at a
  clamp and along the tangent; after a finite rotation θ about a normal axis the component
  along that axis is scaled by cos θ. So joints on cable nodes are meant for pins
  (``spherical``) and clamps (``fixed``); use ``ancf_beam3d`` where a joint needs the
  section's orientation through large rotations.

So the existing joints act on nodes: ``spherical`` pins the node, ``fixed`` clamps its
position and slope directions (the slope's length stays free, as in the thesis's clamp
(6.10)), ``revolute`` / ``universal`` / … constrain the node's section vectors, and drivers and
joint torques act through the slopes: a torque about the joint axis on a planar node is
exactly the slope force (6.47)–(6.48).

Nodal coordinates are usually the beam's own columns. A ``share`` joint
(``solver.mechanics.node_sharing``) makes a node vector a rigid body's coordinates (the same
columns in both bodies' maps) or eliminates it as a combination of them; the elements then
read the extended coordinates ``x = [q; D q + c]`` and everything they compute is brought back
to ``q`` by ``columns.Eliminated``.

CSV fields per node k: ``n{k}.x n{k}.y n{k}.z`` (position), ``n{k}.vx n{k}.vy
n{k}.vz`` (velocity), ``n{k}.tx n{k}.ty n{k}.tz`` (the slope r_x = ∂r/∂x, unit along the beam
when unstretched; with positions it gives the cubic centreline between nodes). Planar beams
have z = vz = tz = 0.
"""

from __future__ import annotations

import numpy as np

from solver.lazy_scipy import sparse as sp
from solver.mechanics.bodies.ancf.belt import Belt2D, belt_factors
from solver.mechanics.bodies.ancf.belt_equilibrium import (
    loop_starts_in_equilibrium,
    settle_on_pulleys,
)
from solver.mechanics.bodies.ancf.cable import Cable3D
from solver.mechanics.bodies.ancf.columns import Eliminated
from solver.mechanics.bodies.ancf.element import ElementModel
from solver.mechanics.bodies.ancf.euler_bernoulli import I_TILDE, EulerBernoulli2D
from solver.mechanics.bodies.ancf.euler_bernoulli_linear import EulerBernoulliLinear2D
from solver.mechanics.bodies.ancf.omar import Omar2D
from solver.mechanics.bodies.ancf.section import beam_frame, material_data, section_data
from solver.mechanics.bodies.ancf.yakoub import Yakoub3D
from solver.mechanics.bodies.kind import BodyKind
from solver.mechanics.sparse_pattern import FixedPattern
from solver.model.errors import ModelError, UnsupportedFeature
from solver.model.fields import fmt_vector
from solver.model.loop_path import LoopPath

#: model type → {element name: class}; the first is the default
ELEMENTS: dict[str, dict[str, type[ElementModel]]] = {
    "ancf_beam2d": {
        "euler_bernoulli": EulerBernoulli2D,
        "continuum": Omar2D,
        "euler_bernoulli_linear": EulerBernoulliLinear2D,
        "belt": Belt2D,
    },
    "ancf_cable": {"cable": Cable3D},
    "ancf_beam3d": {"continuum": Yakoub3D},
}

NODE_FIELDS = ("x", "y", "z", "vx", "vy", "vz", "tx", "ty", "tz")


class BlockPattern:
    """Sum of element blocks into one CSR matrix with a fixed pattern, built once; with
    eliminated coordinates (``fold``, a ``columns.Eliminated``) the matrix is ``Tᵀ K T`` over
    ``q``, its entries folded once here (each value lands, weighted, where the combinations
    of its row and column put it)."""

    def __init__(self, col_sets: list[np.ndarray], n: int, fold: Eliminated | None = None) -> None:
        rows, cols = [], []
        for c in col_sets:
            k = c.shape[1]
            rows.append(np.repeat(c, k, axis=1).ravel())
            cols.append(np.tile(c, (1, k)).ravel())
        empty = np.zeros(0, np.int64)
        rows = np.concatenate(rows) if rows else empty
        cols = np.concatenate(cols) if cols else empty
        self._source = self._weight = None
        if fold is not None and fold.count:
            self._source, self._weight, rows, cols = fold.fold_entries(rows, cols)
            n = fold.n
        self.pattern = FixedPattern(rows, cols, (n, n))

    def matrix(self, blocks: list[np.ndarray]) -> sp.csr_matrix:
        vals = np.concatenate([b.ravel() for b in blocks]) if blocks else np.zeros(0)
        if self._source is not None:
            vals = vals[self._source] * self._weight
        return self.pattern.csr(vals)


class Beam:
    """One flexible body: its element model, node layout and frame at t = 0.

    A closed loop (``body.loop``) has as many nodes as elements, evenly spaced along its
    wrap path (``solver.model.loop_path``); its last element ends at node 0 (the nodes are
    shared, so the loop's only linear constraints are eliminated, García Vallejo (2006)
    (7.27)–(7.28)). Its elements are straight and unstressed at the natural length
    ``path/(1 + strain)``, so on the path each slope is ``(1 + strain)`` times the tangent."""

    def __init__(
        self, index: int, body, element: ElementModel, vector_cols: np.ndarray, own_mask=None
    ) -> None:
        self.index = index
        self.body = body
        self.name = body.name
        self.element = element
        self.d = element.d
        self.node_size = element.node_size
        self.n_elements = int(body.elements)
        self.closed = bool(body.closed)
        self.n_nodes = self.n_elements + (0 if self.closed else 1)
        self.vector_cols = vector_cols
        if own_mask is None:
            own_mask = np.ones(vector_cols.shape[:2], bool)
        self.own_mask = own_mask  # (nodes, vectors): the beam's own coordinates
        own = vector_cols[own_mask].reshape(-1)
        self.own = own  # this beam's own columns, in the order of ``own_initial``
        self.offset = int(own[0]) if len(own) else -1
        self.size = self.n_nodes * self.node_size
        if self.closed:
            path = LoopPath(body.loop.circles)
            pos, tan, nrm = path.nodes(self.n_elements)
            self.path = path
            self.length = float(path.length)  # along the loop at t = 0
            self.stretch0 = 1.0 + float(body.loop.strain)
            self.nodes = list(pos)
            ez = np.array([0.0, 0.0, 1.0])
            self.node_frames = [np.column_stack([t, n, ez]) for t, n in zip(tan, nrm, strict=True)]
            self.start = self.end = pos[0].copy()
            self.frame = self.node_frames[0]
        else:
            self.path = None
            self.stretch0 = 1.0
            self.start = np.asarray(body.points[0], float)
            self.end = np.asarray(body.points[1], float)
            self.length = float(np.linalg.norm(self.end - self.start))
            self.frame = beam_frame(self.start, self.end)
            self.nodes = [
                self.start + (self.end - self.start) * i / self.n_elements
                for i in range(self.n_nodes)
            ]
            self.node_frames = [self.frame] * self.n_nodes
        self.cols = np.zeros((0, element.size), np.int64)
        self.all_cols = np.zeros(0, np.int64)

    def finish(self, n: int) -> None:
        """Number the eliminated coordinates after the system's ``n`` (placeholders
        ``-1 - j`` become ``n + j``) and build the element column table (element k joins
        nodes k and k + 1, node 0 again after the last on a closed loop)."""
        vc = self.vector_cols
        self.vector_cols = np.where(vc >= 0, vc, n - 1 - vc)
        self.all_cols = self.vector_cols.reshape(-1)
        self.cols = self.element_table(self.vector_cols)
        self.eliminated = bool((self.all_cols >= n).any())

    def element_table(self, vector_cols: np.ndarray) -> np.ndarray:
        """``(elements, element size)``: the columns of each element's two nodes."""
        per_node = vector_cols.reshape(self.n_nodes, -1)
        k = np.arange(self.n_elements)
        return np.hstack([per_node[k], per_node[(k + 1) % self.n_nodes]])

    def node_cols(self, node: int, vector: int = 0) -> np.ndarray:
        """Columns of nodal vector ``vector`` (0 = r, 1 = r_x, …) of ``node``."""
        return self.vector_cols[node, vector]

    def own_initial(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q0, q̇0)`` of the own columns (``own``): straight, the beam's velocity."""
        d = self.d
        q, qd = [], []
        v = np.asarray(self.body.velocity, float)[:d]
        for k, (node, frame) in enumerate(zip(self.nodes, self.node_frames, strict=True)):
            vecs = {
                "r_x": self.stretch0 * frame[:d, 0],
                "r_y": frame[:d, 1],
                "r_z": frame[:d, 2],
            }
            for i, name in enumerate(self.element.node_vectors):
                if not self.own_mask[k, i]:
                    continue
                q.append(node[:d] if name == "r" else vecs[name])
                qd.append(v if name == "r" else np.zeros(d))
        if not q:
            return np.zeros(0), np.zeros(0)
        return np.concatenate(q), np.concatenate(qd)

    def node_at(self, xyz) -> int | None:
        xyz = np.asarray(xyz, float)
        gaps = [float(np.linalg.norm(xyz - p)) for p in self.nodes]
        k = int(np.argmin(gaps))
        return k if gaps[k] <= 1e-9 * max(self.length, 1.0) else None

    def element_arrays(self, x: np.ndarray) -> np.ndarray:
        """The elements' nodal coordinates ``(elements, m, d)`` from the kind's extended
        coordinates ``x`` (``q`` itself when nothing is eliminated)."""
        el = self.element
        return x[self.cols].reshape(self.n_elements, el.m, el.d)


class AncfBodies(BodyKind):
    """All flexible bodies of one model type (``kind``)."""

    def __init__(self, system, bodies, offset: int) -> None:
        from solver.mechanics.system import BodySlot

        self.kind = bodies[0][1].type
        self.system = system
        self.offset = offset
        self.beams: list[Beam] = []
        sharing = getattr(system, "sharing", None)
        q0, qd0 = [], []
        off = offset
        #: eliminated coordinates: ``(q columns, coefficients, constant)`` each
        self._eliminated_rows: list[tuple] = []
        self._eliminated_by: dict[str, str] = {}  # beam → a joint that eliminates its node
        for index, body in bodies:
            where = f'bodies[{index}] "{body.name}"'
            choices = ELEMENTS[self.kind]
            name = getattr(body, "element", None) or next(iter(choices))
            if name not in choices:
                raise ModelError(
                    where,
                    f'"{name}" is not an element of {self.kind} (one of {", ".join(choices)})',
                    "element",
                )
            args = (
                body.natural_length() / body.elements,
                section_data(body.section),
                material_data(body.material),
            )
            element = Belt2D(*args, belt_factors(body)) if name == "belt" else choices[name](*args)
            vector_cols, own, off = self._vector_columns(body, element, off, sharing)
            beam = Beam(index, body, element, vector_cols, own)
            self.beams.append(beam)
            a, b = beam.own_initial()
            if beam.closed and loop_starts_in_equilibrium(system.model, body):
                a = settle_on_pulleys(beam, system.model, system.gravity, a, where)
            q0.append(a)
            qd0.append(b)
            system.slots[body.name] = BodySlot(
                body.name,
                self.kind,
                len(self.beams) - 1,
                beam.offset if len(beam.own) else offset,
                beam.start.copy(),
                beam.frame.copy(),
                size=max(len(beam.own), 1),
                owner=self,
            )
        # one sliding parameter s per sliding joint on these beams (see ``sliding``)
        self.slide_cols: dict[str, int] = {}
        by_name = {b.name: b for b in self.beams}
        for j in system.model.joints:
            if j.type == "sliding" and j.body1 in by_name:
                beam = by_name[j.body1]
                q0.append([float((np.asarray(j.point, float) - beam.start) @ beam.frame[:, 0])])
                qd0.append([0.0])  # made consistent with the bodies' velocities at t = 0
                self.slide_cols[j.name] = off
                off += 1
        self.size = off - offset
        self.q0 = np.concatenate(q0) if q0 else np.zeros(0)
        self.qd0 = np.concatenate(qd0) if qd0 else np.zeros(0)
        self._n = None
        self._last_node: dict[str, int] = {}
        self._gravity: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.sliding = None

    def _vector_columns(self, body, element, off: int, sharing):
        """The columns of every nodal vector of ``body`` (``Beam.vector_cols``): own
        columns from ``off`` on, a rigid body's columns where a ``share`` joint made the
        vector one of its entities, and placeholders ``-1 - j`` for eliminated coordinates
        (``j`` their number, ``columns.Eliminated``); with the mask of the own vectors."""
        d = element.d
        n_nodes = int(body.elements) + (0 if body.closed else 1)
        nv = len(element.node_vectors)
        out = np.zeros((n_nodes, nv, d), np.int64)
        own = np.zeros((n_nodes, nv), bool)
        for k in range(n_nodes):
            for v in range(nv):
                share = sharing.node_map(body.name, k, v) if sharing is not None else None
                if share is None:
                    out[k, v] = np.arange(off, off + d)
                    own[k, v] = True
                    off += d
                elif len(share.cols) == d and np.array_equal(share.coef, np.eye(d)):
                    out[k, v] = share.cols  # the rigid body's coordinates themselves
                else:
                    for a in range(d):
                        out[k, v, a] = -1 - len(self._eliminated_rows)
                        self._eliminated_rows.append(
                            (share.cols, share.coef[a], float(share.const[a]))
                        )
                    self._eliminated_by.setdefault(body.name, share.joint)
        return out, own, off

    # ---- layout helpers ----------------------------------------------------------------
    @property
    def n(self) -> int:
        """System size (known once every kind is laid out)."""
        if self._n is None:
            self._n = self.system.n
            self.eliminated = Eliminated(self._n, self._eliminated_rows)
            for b in self.beams:
                b.finish(self._n)
            for b in self.beams:  # the compiled kernels evaluate every element
                if b.element.kernel is None:
                    raise TypeError(f"{type(b.element).__name__} names no compiled kernel")
        return self._n

    def beam(self, slot) -> Beam:
        return self.beams[slot.index]

    def _ext(self, q: np.ndarray) -> np.ndarray:
        """The extended coordinates ``[q; D q + c]`` (``q`` when nothing is eliminated)."""
        _ = self.n
        return self.eliminated.extend(q)

    def _ext_rates(self, qd: np.ndarray) -> np.ndarray:
        _ = self.n
        return self.eliminated.rates(qd)

    def columns(self, slot) -> np.ndarray:
        """The columns of ``q`` a beam's coordinates depend on (own, shared and those its
        eliminated coordinates are combinations of), sorted."""
        b = self.beam(slot)
        _ = self.n
        cols = [b.all_cols[b.all_cols < self._n]]
        dep = b.all_cols[b.all_cols >= self._n] - self._n
        if len(dep):
            cols.append(self.eliminated.D[dep].indices)
        return np.unique(np.concatenate(cols))

    def _patterns(self):
        if not hasattr(self, "_pattern"):
            size = self._ext_size()
            self._pattern = BlockPattern([b.cols for b in self.beams], size, self.eliminated)
            # element DOF blocks are (m·d)² with a Kronecker mass M̄ ⊗ I_d
            blocks = []
            for b in self.beams:
                el = b.element
                blk = np.kron(el.mass, np.eye(el.d))
                blocks.append(np.broadcast_to(blk, (b.n_elements,) + blk.shape))
            self._mass = self._pattern.matrix(blocks)
        return self._pattern

    def kernel_elements(self, kernel: str) -> list[tuple[np.ndarray, object]]:
        """``(element columns (N, k), element model)`` of each beam whose elements the
        compiled ``kernel`` evaluates (``"elastic_line"``, ``"continuum"``, ``"cable"``,
        ``"belt"``)."""
        _ = self.n
        return [(b.cols, b.element) for b in self.beams if b.element.kernel == kernel]

    def _ext_size(self) -> int:
        _ = self.n
        return self.eliminated.size

    # ---- markers --------------------------------------------------------------------------
    def point(self, slot, xyz, where: str, field: str) -> int:
        beam = self.beam(slot)
        node = beam.node_at(xyz)
        if node is None:
            raise ModelError(
                where,
                f'{fmt_vector(xyz)} is not a node of flexible body "{beam.name}" (nodes every '
                f"{beam.length / beam.n_elements:g} m from {fmt_vector(beam.start)})",
                field,
            )
        self._last_node[beam.name] = node
        d = beam.d
        coef = np.zeros((3, d))
        coef[:d, :d] = np.eye(d)
        offset = np.zeros(3)
        if d == 2:
            offset[2] = beam.start[2]
        return self._add_linear(beam.node_cols(node, 0), coef, offset, True)

    def _add_linear(self, cols, coef, offset, is_point: bool, table=None) -> int:
        """A marker ``coef @ x[cols] + offset`` over the extended coordinates, added to
        ``table`` (default: the system's) as a marker over ``q`` (eliminated columns
        replaced by their combinations, ``columns.Eliminated.expand``)."""
        from solver.mechanics.markers import GROUND as MK_GROUND

        table = self.system.markers if table is None else table
        qcols, block, const = self.eliminated_view().expand(cols, coef)
        offset = np.asarray(offset, float) + const
        if not qcols:
            return table.add(MK_GROUND, [], offset, is_point)
        return table.add_linear(qcols, block, offset, is_point)

    def eliminated_view(self) -> Eliminated:
        _ = self.n
        return self.eliminated

    def vector(self, slot, xyz, point=None) -> int:
        """A direction at the node at ``point`` (default: the node of the last point marker
        made on this body); see the module docstring for how the slopes carry it."""
        beam = self.beam(slot)
        if point is not None:
            node = beam.node_at(point)
            if node is None:
                raise ModelError(
                    "", f'{fmt_vector(point)} is not a node of flexible body "{beam.name}"'
                )
        else:
            node = self._last_node.get(beam.name, 0)
        v = np.asarray(xyz, float)
        a, b, c = beam.node_frames[node].T @ v
        el = beam.element
        names = el.node_vectors
        offset = np.zeros(3)
        if isinstance(el, Cable3D):
            x0, y0, z0 = beam.frame.T
            coef = (
                a * np.eye(3)
                + b * (np.outer(y0, x0) - np.outer(x0, y0))
                + c * (np.outer(z0, x0) - np.outer(x0, z0))
            )
            cols = beam.node_cols(node, 1)
        elif beam.d == 3:
            cols = np.concatenate([beam.node_cols(node, k) for k in (1, 2, 3)])
            coef = np.hstack([a * np.eye(3), b * np.eye(3), c * np.eye(3)])
        else:
            offset[2] = c
            if "r_y" in names:
                cols = np.concatenate([beam.node_cols(node, 1), beam.node_cols(node, 2)])
                coef = np.zeros((3, 4))
                coef[:2, :2] = a * np.eye(2)
                coef[:2, 2:] = b * np.eye(2)
            else:
                cols = beam.node_cols(node, 1)
                coef = np.zeros((3, 2))
                coef[:2] = a * np.eye(2) + b * I_TILDE
        return self._add_linear(cols, coef, offset, False)

    def build_constraints(self, ctx) -> dict[str, list]:
        """``fixed`` joints at continuum-element nodes, realised here in full.

        The generic ``fixed`` joint keeps the node's point and three directions (``Dot`` of
        body-1 axis i with the node's direction j, (i, j) = (x, y), (y, z), (z, x)). The clamp
        of a continuum element (Yakoub, Omar) fixes the whole section, i.e. every slope
        vector (García Vallejo (2006) §4.5, rigid joint with shared r, r_x, r_y, r_z (4.75); the E1
        results need it): the other pairs (six in space, the three in-plane ones for Omar) are added
        with their initial values δ_ij. Euler–Bernoulli and cable nodes are left to the generic
        joint, which keeps the slope's length free (the thesis's clamp (6.10), E9)."""
        from solver.mechanics.bodies.ancf.sliding import Slider, SlidingJoints
        from solver.mechanics.constraints.primitives import Coincident, Dot

        items: dict[str, list] = {}
        names = {b.name: b for b in self.beams}
        shared = ctx.sharing.joints if getattr(ctx, "sharing", None) is not None else set()
        self.sliding = SlidingJoints()
        for i, j in enumerate(ctx.model.joints):
            if j.name in self.slide_cols:
                where = f'joints[{i}] "{j.name}"'
                self._check_slide(where, names[j.body1])
                marker = ctx.point(j.body2, j.point, where, "point")
                key = f"joint:{j.name}"
                lock = None
                if j.rotation == "locked":  # body2's direction normal to the tangent at t = 0
                    beam = names[j.body1]
                    tangent = (beam.end - beam.start) / np.linalg.norm(beam.end - beam.start)
                    lock = ctx.vector(j.body2, [-tangent[1], tangent[0], 0.0])
                self.sliding.add(
                    Slider(key, j.name, names[j.body1], self.slide_cols[j.name], marker, lock)
                )
                items[key] = []  # rows come from the block (``constraint_blocks``)
        generic = ((0, 1), (1, 2), (2, 0))
        extra3 = ((0, 0), (1, 1), (2, 2), (1, 0), (2, 1), (0, 2))
        extra2 = ((0, 0), (1, 1), (1, 0))
        eye = np.eye(3)
        for i, j in enumerate(ctx.model.joints):
            if j.type != "fixed" or j.point is None or j.name in shared:
                continue
            beams = [names.get(b) for b in (j.body1, j.body2)]
            beams = [b for b in beams if b is not None and "r_y" in b.element.node_vectors]
            if not beams or any(b.node_at(j.point) is None for b in beams):
                continue  # not a continuum node (validation names a point off the nodes)
            where = f'joints[{i}] "{j.name}"'
            key = f"joint:{j.name}"
            pa = ctx.point(j.body1, j.point, where, "point")
            pb = ctx.point(j.body2, j.point, where, "point")
            group = ctx.group(Coincident)
            rows = [(group, group.add((pa, pb)))]
            dot = ctx.group(Dot)
            planar = all(b.d == 2 for b in beams)
            for a, b in generic + (extra2 if planar else extra3):
                va = ctx.vector(j.body1, eye[a], j.point)
                vb = ctx.vector(j.body2, eye[b], j.point)
                rows.append((dot, dot.add((va, vb), float(a == b))))
            items[key] = rows
        return items

    def _check_slide(self, where: str, beam: Beam) -> None:
        """A sliding joint reads its beam's coordinates directly: none may be eliminated."""
        _ = self.n
        if beam.eliminated:
            raise UnsupportedFeature(
                where,
                f'"{beam.name}" has a node whose coordinates joint '
                f'"{self._eliminated_by[beam.name]}" eliminates (a combination of a rigid '
                "body's coordinates); a sliding joint along such a beam is not available in "
                "this version: let that node keep its coordinates (no share) or share it as a "
                "basic point",
                "body1",
            )

    def constraint_blocks(self) -> list:
        return [self.sliding] if self.sliding is not None and self.sliding.sliders else []

    def sliding_parameter(self, q: np.ndarray, joint: str) -> float:
        """Arc length ``s`` (m, undeformed, from the beam's first point) of sliding ``joint``."""
        return float(q[self.slide_cols[joint]])

    # ---- dynamics ---------------------------------------------------------------------------
    # Elements work on the extended coordinates ``x = [q; D q + c]``; their forces and
    # matrices come back to ``q`` through ``Tᵀ · T`` (``columns.Eliminated``).

    def mass(self, q):
        self._patterns()
        return self._mass

    def _gravity_ext(self, gravity) -> np.ndarray:
        """The weights over the extended coordinates."""
        key = tuple(np.asarray(gravity, float))
        if key not in self._gravity:
            size = self._ext_size()
            out = np.zeros(size)
            g = np.asarray(gravity, float)
            for b in self.beams:
                blk = np.kron(b.element.gravity, g[: b.d])
                out += np.bincount(
                    b.cols.ravel(), weights=np.tile(blk, b.n_elements), minlength=size
                )
            self._gravity[key] = (out, self.eliminated.vector(out))
        return self._gravity[key][0]

    def gravity_forces(self, gravity):
        self._gravity_ext(gravity)
        return self._gravity[tuple(np.asarray(gravity, float))][1]

    def distributed_load(self, slot, force_per_length) -> np.ndarray:
        """Generalised force (n) of a uniform load ``f`` (N/m, global) along a beam:
        ``∫ Sᵀ f dx`` per element (used by the ``distributed_load`` force, ``forces.distributed``)."""
        b = self.beam(slot)
        f = np.asarray(force_per_length, float)
        blk = np.kron(b.element.load, f[: b.d])
        size = self._ext_size()
        out = np.bincount(b.cols.ravel(), weights=np.tile(blk, b.n_elements), minlength=size)
        return self.eliminated.vector(out)

    def kinetic_energy(self, q, qd):
        self._patterns()
        v = qd
        return 0.5 * float(v @ (self._mass @ v))

    def gravitational_energy(self, q, gravity):
        return -float(self._gravity_ext(gravity) @ self._ext(q))

    # ---- output --------------------------------------------------------------------------
    def state_fields(self, slot) -> tuple[str, ...]:
        beam = self.beam(slot)
        return tuple(f"n{k}.{f}" for k in range(beam.n_nodes) for f in NODE_FIELDS)

    def state(self, slot, q, qd) -> np.ndarray:
        beam = self.beam(slot)
        x, xd = self._ext(q), self._ext_rates(qd)
        out = np.zeros((beam.n_nodes, 9))
        d = beam.d
        rc, tc = beam.vector_cols[:, 0], beam.vector_cols[:, 1]
        out[:, :d] = x[rc]
        out[:, 3 : 3 + d] = xd[rc]
        out[:, 6 : 6 + d] = x[tc]
        if d == 2:
            out[:, 2] = beam.start[2]
        return out.ravel()

    def coordinates_of(self, slot, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All nodal coordinates of a beam, node by node (the layout of a beam with its own
        columns only), and their rates."""
        beam = self.beam(slot)
        return self._ext(q)[beam.all_cols], self._ext_rates(qd)[beam.all_cols]

    def axial_forces(self, q, slot) -> np.ndarray:
        """Axial force (N) at each node: the element's law at the node's stretch ``|r_x|``."""
        beam = self.beam(slot)
        slopes = self._ext(q)[beam.vector_cols[:, 1]]
        return beam.element.axial_force(np.linalg.norm(slopes, axis=1))

    def node_positions(self, q, slot) -> np.ndarray:
        """Node positions ``(nodes, 3)``."""
        return self.state(slot, q, np.zeros_like(q)).reshape(-1, 9)[:, :3]

    def centreline(self, q, slot, points_per_element: int = 8) -> np.ndarray:
        """Points along the deformed centreline, ``(elements · points_per_element + 1, 3)``,
        from the element shape functions (for drawing the beam as a tube)."""
        beam = self.beam(slot)
        k = max(1, int(points_per_element))
        xi = np.linspace(0.0, 1.0, k + 1)
        s = beam.element.shape_values(xi)  # (k + 1, m)
        E = beam.element_arrays(self._ext(q))  # (N, m, d)
        pts = np.einsum("pi,nia->npa", s, E)
        pts = np.concatenate([pts[:, :-1].reshape(-1, beam.d), pts[-1, -1:]], axis=0)
        out = np.zeros((len(pts), 3))
        out[:, : beam.d] = pts
        if beam.d == 2:
            out[:, 2] = beam.start[2]
        return out
