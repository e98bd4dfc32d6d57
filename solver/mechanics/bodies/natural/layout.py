"""Which basic points and unit vectors each natural-coordinate body uses, and which it
shares with other bodies (García Vallejo (2006) §4.1–4.3, García de Jalón and Bayo (1994); García de
Jalón's rules).

Every body has four basic entities (``frame.Frame``). Without sharing (``share=False``)
they are the default set, **1 point + 3 vectors**: the centre of mass and the three body
axes, twelve coordinates of its own, and every joint is built from constraint primitives
on markers, exactly as in reference-point coordinates.

With sharing (the default), joints offer entities, taken in model order:

============== ===================================================================
joint          entities offered to both bodies
============== ===================================================================
spherical      the joint point
revolute       the joint point and the axis
universal      the joint point
cylindrical    the axis
prismatic      the axis, then (if the axis is shared) the first normal of the axis:
               the two bodies keep the same orientation
============== ===================================================================

A body takes an offered entity when it has a free slot and the entity's direction (a
vector, or a point's offset from the body's first point) is well independent of the
directions it already has (smallest singular value of the normalised directions above
``INDEPENDENCE``). An entity is *shared* when both bodies of the joint take it; entities
joined through several joints (a point where many rods meet) are one entity. An entity
reached from ``ground`` is *fixed*: constant, no coordinates. Each body then gets a
point (the centre of mass) if it has none, and its missing directions are completed by
unit vectors close to its body axes (fixed ones if two independent fixed vectors
already fix its orientation). A joint whose entities are shared keeps only the
constraint rows the sharing does not imply (``Layout.shared``).

A joint with ``share`` between a body and a node of a flexible body
(``solver.mechanics.node_sharing``) offers the node's position (and shared slopes) the same
way, to the body and to the node, a participant that takes every offer: when the body takes
it, the node's vector *is* that entity (``node_links``); when it cannot, the vector will be
a combination of the body's entities.

Bodies, joints and entities are plain data here; ``bodies.NaturalBodies`` turns them into
coordinates, markers and constraints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.mechanics.bodies.natural.frame import Frame
from solver.mechanics.constraints.joints import normals
from solver.mechanics.rotations import rotation_matrix
from solver.model import description as d

#: smallest singular value of a body's normalised directions for an offered entity
INDEPENDENCE = 0.25
#: two points (m) or two unit vectors closer than this are the same entity of a body
SAME = 1e-9


@dataclass
class Entity:
    """A basic point or unit vector: global value at t = 0; ``col`` its first coordinate
    (relative to the kind's offset) or -1 when fixed."""

    index: int
    is_point: bool
    value: np.ndarray
    fixed: bool
    col: int = -1
    bodies: list[str] = field(default_factory=list)


@dataclass
class BodyInfo:
    """A natural-coordinate body: model data and its four entities."""

    name: str
    model_index: int
    mass: float
    inertia: np.ndarray  # 3×3 about the centre of mass, body axes
    position0: np.ndarray
    rotation0: np.ndarray  # body → global at t = 0
    velocity0: np.ndarray
    omega0: np.ndarray  # global
    entities: list[int] = field(default_factory=list)
    frame: Frame | None = None

    def local_point(self, xyz) -> np.ndarray:
        return self.rotation0.T @ (np.asarray(xyz, float) - self.position0)

    def local_vector(self, xyz) -> np.ndarray:
        return self.rotation0.T @ np.asarray(xyz, float)

    def velocity_of(self, entity: Entity) -> np.ndarray:
        """The entity's velocity in this body's initial motion."""
        if entity.is_point:
            return self.velocity0 + np.cross(self.omega0, entity.value - self.position0)
        return np.cross(self.omega0, entity.value)


@dataclass
class _Node:
    """An entity offered to one body (before the classes are merged)."""

    body: str  # a body name or ground
    is_point: bool
    value: np.ndarray


class _UnionFind:
    def __init__(self) -> None:
        self.parent: list[int] = []

    def add(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            self.parent[max(ri, rj)] = min(ri, rj)


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


class Layout:
    """Entities and frames of the natural bodies ``bodies`` (``(model index, body)``)."""

    #: coordinates per entity (3: spatial points and vectors)
    dim = 3

    def __init__(self, model: d.Model, bodies, share: bool = True, nodes=()) -> None:
        self.bodies: dict[str, BodyInfo] = {}
        for i, b in bodies:
            p = np.asarray(b.orientation, float)
            self.bodies[b.name] = BodyInfo(
                b.name,
                i,
                float(b.mass),
                np.asarray(b.inertia, float).reshape(3, 3),
                np.asarray(b.position, float),
                rotation_matrix(p / np.linalg.norm(p)),
                np.asarray(b.velocity, float),
                np.asarray(b.angular_velocity, float),
            )
        self.nodes: list[_Node] = []
        self._body_nodes: dict[str, list[int]] = {name: [] for name in self.bodies}
        self._uf = _UnionFind()
        #: joint name → {"point"|"axis"|"normal": shared?} for the joints realised by sharing
        self.shared: dict[str, dict[str, bool]] = {}
        #: ``(request, item, node)`` per nodal vector of a flexible body that a ``share``
        #: joint offers (``node_sharing``): ``node`` the participant's node when the rigid
        #: body took the entity, ``None`` when the vector is a combination of its entities
        self.node_links: list[tuple] = []
        requests = {r.joint.name: r for r in nodes}
        for j in model.joints:
            if j.name in requests:
                self._offer_node(requests[j.name])
            elif share:
                self._offer_joint(j)
        self.entities: list[Entity] = []
        self._entity_of: dict[int, int] = {}
        self._build_entities()
        for info in self.bodies.values():
            self._complete(info)
        self.size = self._assign_columns()

    # ---- offering entities -------------------------------------------------------------
    def _sides(self, j: d.Joint) -> list[str] | None:
        sides = [j.body1, j.body2]
        if all(b == d.GROUND or b in self.bodies for b in sides) and j.body1 != j.body2:
            return sides
        return None

    def _offer_joint(self, j: d.Joint) -> None:
        sides = self._sides(j)
        if sides is None:
            return
        flags: dict[str, bool] = {}
        if j.type in ("spherical", "revolute", "universal"):
            flags["point"] = self._offer(sides, True, np.asarray(j.point, float))
        if j.type in ("revolute", "cylindrical", "prismatic"):
            a, n1, _ = normals(j.axis)
            flags["axis"] = self._offer(sides, False, a)
            if j.type == "prismatic":
                flags["normal"] = flags["axis"] and self._offer(sides, False, n1)
        if any(flags.values()):
            self.shared[j.name] = flags

    def _offer_node(self, request) -> None:
        """Offer the nodal vectors of a ``share`` joint (``node_sharing.NodeShare``) to its
        rigid body; the node (a participant, not a body) takes every one."""
        sides = [request.rigid, request.participant]
        for item in request.items:
            node = None
            if self._offer(sides, item.is_point, item.value):
                node = self._find(request.participant, item.is_point, item.value)
            self.node_links.append((request, item, node))

    def entity_of_node(self, node: int) -> int:
        """The entity that offered node ``node`` became."""
        return self._entity_of[node]

    def _find(self, body: str, is_point: bool, value: np.ndarray) -> int | None:
        for k in self._body_nodes.get(body, ()):
            node = self.nodes[k]
            if node.is_point != is_point:
                continue
            if is_point and np.linalg.norm(node.value - value) <= SAME * max(
                1.0, float(np.linalg.norm(value))
            ):
                return k
            if not is_point and np.linalg.norm(np.cross(node.value, value)) <= SAME:
                return k
        return None

    def _directions(self, body: str) -> tuple[np.ndarray | None, list[np.ndarray]]:
        """``(first point, directions)`` of the nodes a body has taken so far."""
        nodes = [self.nodes[k] for k in self._body_nodes[body]]
        points = [n.value for n in nodes if n.is_point]
        first = points[0] if points else None
        dirs = [p - first for p in points[1:]] + [n.value for n in nodes if not n.is_point]
        return first, dirs

    def _can_take(self, body: str, is_point: bool, value: np.ndarray) -> bool:
        if body == d.GROUND or body not in self.bodies:  # ground, or a flexible body's node
            return True
        if self._find(body, is_point, value) is not None:
            return True
        nodes = [self.nodes[k] for k in self._body_nodes[body]]
        if len(nodes) >= 4:
            return False
        first, dirs = self._directions(body)
        if first is None:
            if is_point:
                return True  # the body's first point
            if len(nodes) >= 3:
                return False  # the last slot is kept for a point
            new = value
        else:
            new = value - first if is_point else value
        if np.linalg.norm(new) < SAME:
            return False
        mat = np.array([_unit(v) for v in [*dirs, new]])
        return bool(np.linalg.svd(mat, compute_uv=False).min() > INDEPENDENCE)

    def _node(self, body: str, is_point: bool, value: np.ndarray) -> int:
        if body != d.GROUND:
            k = self._find(body, is_point, value)
            if k is not None:
                return k
        self.nodes.append(_Node(body, is_point, value))
        k = self._uf.add()
        if body != d.GROUND:
            self._body_nodes.setdefault(body, []).append(k)
        return k

    def _offer(self, sides: list[str], is_point: bool, value: np.ndarray) -> bool:
        """Offer an entity to the two bodies of a joint; ``True`` when both take it."""
        if not all(self._can_take(b, is_point, value) for b in sides):
            return False
        a, b = (self._node(s, is_point, value) for s in sides)
        self._uf.union(a, b)
        return True

    # ---- entities ----------------------------------------------------------------------
    def _new_entity(self, is_point: bool, value, fixed: bool) -> int:
        self.entities.append(Entity(len(self.entities), is_point, np.asarray(value, float), fixed))
        return len(self.entities) - 1

    def _build_entities(self) -> None:
        classes: dict[int, list[int]] = {}
        for k in range(len(self.nodes)):
            classes.setdefault(self._uf.find(k), []).append(k)
        entity_of: dict[int, int] = {}
        for root, members in classes.items():
            fixed = any(self.nodes[k].body == d.GROUND for k in members)
            node = self.nodes[root]
            entity_of[root] = self._new_entity(node.is_point, node.value, fixed)
            for k in members:
                self._entity_of[k] = entity_of[root]
        for name, info in self.bodies.items():
            ks = self._body_nodes[name]
            ents = [entity_of[self._uf.find(k)] for k in ks]
            points = [e for e in ents if self.entities[e].is_point]
            vectors = [e for e in ents if not self.entities[e].is_point]
            info.entities = points + vectors

    def _complete(self, info: BodyInfo) -> None:
        """Add the centre of mass if the body has no point, then complete its directions
        with unit vectors near its body axes; build its ``Frame``."""
        ents = info.entities
        if not any(self.entities[e].is_point for e in ents):
            ents.insert(0, self._new_entity(True, info.position0, False))
        first = self.entities[ents[0]].value
        dirs = [
            self.entities[e].value - (first if self.entities[e].is_point else 0.0) for e in ents[1:]
        ]
        fixed_vectors = [
            self.entities[e].value
            for e in ents
            if self.entities[e].fixed and not self.entities[e].is_point
        ]
        orientation_fixed = (
            len(fixed_vectors) >= 2 and np.linalg.matrix_rank(np.array(fixed_vectors), 1e-6) >= 2
        )
        axes = info.rotation0.T  # rows: body axes in global components
        while len(dirs) < 3:
            if dirs:
                basis, _ = np.linalg.qr(np.array([_unit(v) for v in dirs]).T)
                resid = axes - (axes @ basis) @ basis.T
            else:
                resid = axes.copy()
            k = int(np.argmax(np.linalg.norm(resid, axis=1)))
            v = _unit(resid[k])
            ents.append(self._new_entity(False, v, orientation_fixed))
            dirs.append(v)
        for e in ents:
            self.entities[e].bodies.append(info.name)
        local = np.array(
            [
                info.local_point(self.entities[e].value)
                if self.entities[e].is_point
                else info.local_vector(self.entities[e].value)
                for e in ents
            ]
        )
        info.frame = Frame([self.entities[e].is_point for e in ents], local)

    def _assign_columns(self) -> int:
        col = 0
        for info in self.bodies.values():
            for e in info.entities:
                ent = self.entities[e]
                if not ent.fixed and ent.col < 0:
                    ent.col = col
                    col += self.dim
        return col

    # ---- initial values ------------------------------------------------------------------
    def initial_coordinates(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q0, q̇0)`` of the own coordinates.

        Each body prescribes the velocities of its entities (its rigid motion). Where the
        bodies sharing an entity disagree (inconsistent initial velocities in the model),
        ``q̇0`` solves ``M q̇0 = Σ_b C_bᵀ M_b ė_b``: the velocity projection that follows
        (``consistent_velocities``, in the metric ``M``) then minimises the kinetic energy
        of every body's deviation from its prescribed motion, exactly as it does in
        reference-point coordinates, so both representations start alike.
        """
        q0 = np.zeros(self.size)
        qd0 = np.zeros(self.size)
        spread = 0.0
        for ent in self.entities:
            if ent.fixed:
                continue
            k = self.dim
            q0[ent.col : ent.col + k] = ent.value[:k]
            vs = np.array([self.bodies[b].velocity_of(ent)[:k] for b in ent.bodies])
            qd0[ent.col : ent.col + k] = vs.mean(axis=0)
            spread = max(spread, float(np.abs(vs - vs.mean(axis=0)).max()))
        scale = 1.0 + float(np.abs(qd0).max(initial=0.0))
        if spread > 1e-12 * scale:
            qd0 = self._weighted_velocities(qd0)
        return q0, qd0

    def _weighted_velocities(self, guess: np.ndarray) -> np.ndarray:
        """``M⁻¹ Σ_b C_bᵀ M_b ė_b`` over the own coordinates (``guess`` if M is singular)."""
        import scipy.sparse as sp
        import scipy.sparse.linalg as spla

        rows, cols, vals = [], [], []
        f = np.zeros(self.size)
        for info in self.bodies.values():
            z = info.frame.mass_coefficients(info.mass, info.inertia)
            ents = [self.entities[e] for e in info.entities]
            edot = np.array([info.velocity_of(e) for e in ents])  # this body's motion
            for i, ei in enumerate(ents):
                if ei.fixed:
                    continue
                f[ei.col : ei.col + 3] += z[i] @ edot
                for j, ej in enumerate(ents):
                    if not ej.fixed:
                        rows.append(ei.col + np.arange(3))
                        cols.append(ej.col + np.arange(3))
                        vals.append(np.full(3, z[i, j]))
        mass = sp.csc_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(self.size, self.size),
        )
        try:
            out = spla.spsolve(mass, f)
        except RuntimeError:
            return guess
        return out if np.all(np.isfinite(out)) else guess
