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

CSV fields per node k: ``n{k}.x n{k}.y n{k}.z`` (position), ``n{k}.vx n{k}.vy
n{k}.vz`` (velocity), ``n{k}.tx n{k}.ty n{k}.tz`` (the slope r_x = ∂r/∂x, unit along the beam
when unstretched; with positions it gives the cubic centreline between nodes). Planar beams
have z = vz = tz = 0.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from solver.mechanics.bodies.ancf.cable import Cable3D
from solver.mechanics.bodies.ancf.element import ElementModel
from solver.mechanics.bodies.ancf.euler_bernoulli import I_TILDE, EulerBernoulli2D
from solver.mechanics.bodies.ancf.euler_bernoulli_linear import EulerBernoulliLinear2D
from solver.mechanics.bodies.ancf.omar import Omar2D
from solver.mechanics.bodies.ancf.section import beam_frame, material_data, section_data
from solver.mechanics.bodies.ancf.yakoub import Yakoub3D
from solver.mechanics.bodies.kind import BodyKind
from solver.mechanics.sparse_pattern import FixedPattern
from solver.model.errors import ModelError
from solver.model.fields import fmt_vector

#: model type → {element name: class}; the first is the default
ELEMENTS: dict[str, dict[str, type[ElementModel]]] = {
    "ancf_beam2d": {
        "euler_bernoulli": EulerBernoulli2D,
        "continuum": Omar2D,
        "euler_bernoulli_linear": EulerBernoulliLinear2D,
    },
    "ancf_cable": {"cable": Cable3D},
    "ancf_beam3d": {"continuum": Yakoub3D},
}

NODE_FIELDS = ("x", "y", "z", "vx", "vy", "vz", "tx", "ty", "tz")


class BlockPattern:
    """Sum of element blocks into one CSR matrix with a fixed pattern, built once."""

    def __init__(self, col_sets: list[np.ndarray], n: int) -> None:
        rows, cols = [], []
        for c in col_sets:
            k = c.shape[1]
            rows.append(np.repeat(c, k, axis=1).ravel())
            cols.append(np.tile(c, (1, k)).ravel())
        empty = np.zeros(0, np.int64)
        self.pattern = FixedPattern(
            np.concatenate(rows) if rows else empty,
            np.concatenate(cols) if cols else empty,
            (n, n),
        )

    def matrix(self, blocks: list[np.ndarray]) -> sp.csr_matrix:
        vals = np.concatenate([b.ravel() for b in blocks]) if blocks else np.zeros(0)
        return self.pattern.csr(vals)


class Beam:
    """One flexible body: its element model, node layout and frame at t = 0."""

    def __init__(self, index: int, body, offset: int, element: ElementModel) -> None:
        self.index = index
        self.body = body
        self.name = body.name
        self.element = element
        self.d = element.d
        self.node_size = element.node_size
        self.n_elements = int(body.elements)
        self.n_nodes = self.n_elements + 1
        self.offset = offset
        self.size = self.n_nodes * self.node_size
        self.start = np.asarray(body.points[0], float)
        self.end = np.asarray(body.points[1], float)
        self.length = float(np.linalg.norm(self.end - self.start))
        self.frame = beam_frame(self.start, self.end)
        k = np.arange(self.n_elements)[:, None] * self.node_size
        self.cols = offset + k + np.arange(element.size)[None, :]
        self.nodes = [
            self.start + (self.end - self.start) * i / self.n_elements for i in range(self.n_nodes)
        ]

    def node_cols(self, node: int, vector: int = 0) -> np.ndarray:
        """Columns of nodal vector ``vector`` (0 = r, 1 = r_x, …) of ``node``."""
        start = self.offset + node * self.node_size + vector * self.d
        return np.arange(start, start + self.d)

    def initial(self) -> tuple[np.ndarray, np.ndarray]:
        d = self.d
        vecs = {"r_x": self.frame[:d, 0], "r_y": self.frame[:d, 1], "r_z": self.frame[:d, 2]}
        q, qd = [], []
        v = np.asarray(self.body.velocity, float)[:d]
        for node in self.nodes:
            for name in self.element.node_vectors:
                q.append(node[:d] if name == "r" else vecs[name])
                qd.append(v if name == "r" else np.zeros(d))
        return np.concatenate(q), np.concatenate(qd)

    def node_at(self, xyz) -> int | None:
        xyz = np.asarray(xyz, float)
        gaps = [float(np.linalg.norm(xyz - p)) for p in self.nodes]
        k = int(np.argmin(gaps))
        return k if gaps[k] <= 1e-9 * max(self.length, 1.0) else None

    def element_arrays(self, q: np.ndarray) -> np.ndarray:
        el = self.element
        return q[self.cols].reshape(self.n_elements, el.m, el.d)


class AncfBodies(BodyKind):
    """All flexible bodies of one model type (``kind``)."""

    def __init__(self, system, bodies, offset: int) -> None:
        from solver.mechanics.system import BodySlot

        self.kind = bodies[0][1].type
        self.system = system
        self.offset = offset
        self.beams: list[Beam] = []
        q0, qd0 = [], []
        off = offset
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
            length = float(np.linalg.norm(np.subtract(body.points[1], body.points[0])))
            element = choices[name](
                length / body.elements, section_data(body.section), material_data(body.material)
            )
            beam = Beam(index, body, off, element)
            self.beams.append(beam)
            a, b = beam.initial()
            q0.append(a)
            qd0.append(b)
            system.slots[body.name] = BodySlot(
                body.name,
                self.kind,
                len(self.beams) - 1,
                off,
                beam.start.copy(),
                beam.frame.copy(),
                size=beam.size,
                owner=self,
            )
            off += beam.size
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
        self.q0 = np.concatenate(q0)
        self.qd0 = np.concatenate(qd0)
        self._n = None
        self._last_node: dict[str, int] = {}
        self._cache_key = None
        self._cache = None
        self._gravity: dict[tuple, np.ndarray] = {}
        self.sliding = None

    # ---- layout helpers ----------------------------------------------------------------
    @property
    def n(self) -> int:
        """System size (known once every kind is laid out)."""
        if self._n is None:
            self._n = self.system.n
        return self._n

    def beam(self, slot) -> Beam:
        return self.beams[slot.index]

    def _patterns(self):
        if not hasattr(self, "_pattern"):
            self._pattern = BlockPattern([b.cols for b in self.beams], self.n)
            # element DOF blocks are (m·d)² with a Kronecker mass M̄ ⊗ I_d
            blocks = []
            for b in self.beams:
                el = b.element
                blk = np.kron(el.mass, np.eye(el.d))
                blocks.append(np.broadcast_to(blk, (b.n_elements,) + blk.shape))
            self._mass = self._pattern.matrix(blocks)
        return self._pattern

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
        return self.system.markers.add_linear(beam.node_cols(node, 0), coef, offset, True)

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
        a, b, c = beam.frame.T @ v
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
        return self.system.markers.add_linear(cols, coef, offset, False)

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
        self.sliding = SlidingJoints(ctx.markers)
        for i, j in enumerate(ctx.model.joints):
            if j.name in self.slide_cols:
                where = f'joints[{i}] "{j.name}"'
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
            if j.type != "fixed" or j.point is None:
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

    def constraint_blocks(self) -> list:
        return [self.sliding] if self.sliding is not None and self.sliding.sliders else []

    def sliding_parameter(self, q: np.ndarray, joint: str) -> float:
        """Arc length ``s`` (m, undeformed, from the beam's first point) of sliding ``joint``."""
        return float(q[self.slide_cols[joint]])

    # ---- dynamics ---------------------------------------------------------------------------
    def mass(self, q):
        self._patterns()
        return self._mass

    def _local(self, x: np.ndarray) -> np.ndarray:
        return x[self.offset : self.offset + self.size]

    def evaluate(self, q: np.ndarray, qd: np.ndarray, jacobian: bool = False):
        """Internal forces of every beam: ``(Q (n), ∂Q/∂q, ∂Q/∂q̇ or None, power)``,
        the Jacobians ``None`` unless asked. The last evaluation is kept."""
        key = (self._local(q).tobytes(), self._local(qd).tobytes())
        if self._cache_key == key and (self._cache[1] is not None or not jacobian):
            return self._cache
        pattern = self._patterns()
        force = np.zeros(self.n)
        kq, kqd, power, damped = [], [], 0.0, False
        for b in self.beams:
            out = b.element.internal(b.element_arrays(q), b.element_arrays(qd), jacobian)
            force += np.bincount(b.cols.ravel(), weights=out.force.ravel(), minlength=self.n)
            power += out.power
            if jacobian:
                kq.append(out.kq)
                damped = damped or out.kqd is not None
                kqd.append(out.kqd if out.kqd is not None else np.zeros_like(out.kq))
        jq = pattern.matrix(kq) if jacobian else None
        jqd = pattern.matrix(kqd) if jacobian and damped else None
        self._cache_key = key
        self._cache = (force, jq, jqd, power)
        return self._cache

    def applied(self, q, qd, t):
        return self.evaluate(q, qd)[0]

    def applied_jacobians(self, q, qd, t):
        _, jq, jqd, _ = self.evaluate(q, qd, jacobian=True)
        return jq, jqd

    def gravity_forces(self, gravity):
        key = tuple(np.asarray(gravity, float))
        if key not in self._gravity:
            out = np.zeros(self.n)
            g = np.asarray(gravity, float)
            for b in self.beams:
                blk = np.kron(b.element.gravity, g[: b.d])
                out += np.bincount(
                    b.cols.ravel(), weights=np.tile(blk, b.n_elements), minlength=self.n
                )
            self._gravity[key] = out
        return self._gravity[key]

    def distributed_load(self, slot, force_per_length) -> np.ndarray:
        """Generalised force (n) of a uniform load ``f`` (N/m, global) along a beam:
        ``∫ Sᵀ f dx`` per element (used by the ``distributed_load`` force, ``forces.distributed``)."""
        b = self.beam(slot)
        f = np.asarray(force_per_length, float)
        blk = np.kron(b.element.load, f[: b.d])
        return np.bincount(b.cols.ravel(), weights=np.tile(blk, b.n_elements), minlength=self.n)

    def kinetic_energy(self, q, qd):
        self._patterns()
        v = qd
        return 0.5 * float(v @ (self._mass @ v))

    def gravitational_energy(self, q, gravity):
        return -float(self.gravity_forces(gravity) @ q)

    def elastic_energy(self, q):
        return float(sum(b.element.energy(b.element_arrays(q)).sum() for b in self.beams))

    @property
    def dissipative(self) -> bool:
        return any(b.element.damped for b in self.beams)

    def dissipative_forces(self, q, qd):
        """Damping forces: internal forces at ``(q, q̇)`` minus those at ``(q, 0)``."""
        if not self.dissipative:
            return None
        return self.evaluate(q, qd)[0] - self.evaluate(q, np.zeros_like(qd))[0]

    def dissipated_power(self, q, qd):
        if not self.dissipative:
            return 0.0
        return self.evaluate(q, qd)[3]

    # ---- output --------------------------------------------------------------------------
    def state_fields(self, slot) -> tuple[str, ...]:
        beam = self.beam(slot)
        return tuple(f"n{k}.{f}" for k in range(beam.n_nodes) for f in NODE_FIELDS)

    def state(self, slot, q, qd) -> np.ndarray:
        beam = self.beam(slot)
        out = np.zeros((beam.n_nodes, 9))
        d = beam.d
        base = beam.offset + np.arange(beam.n_nodes)[:, None] * beam.node_size
        rc = base + np.arange(d)
        out[:, :d] = q[rc]
        out[:, 3 : 3 + d] = qd[rc]
        out[:, 6 : 6 + d] = q[rc + d]
        if d == 2:
            out[:, 2] = beam.start[2]
        return out.ravel()

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
        E = beam.element_arrays(q)  # (N, m, d)
        pts = np.einsum("pi,nia->npa", s, E)
        pts = np.concatenate([pts[:, :-1].reshape(-1, beam.d), pts[-1, -1:]], axis=0)
        out = np.zeros((len(pts), 3))
        out[:, : beam.d] = pts
        if beam.d == 2:
            out[:, 2] = beam.start[2]
        return out
