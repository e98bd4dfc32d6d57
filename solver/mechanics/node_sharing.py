"""Coordinates shared between natural-coordinate rigid bodies and the nodes of flexible
bodies (García Vallejo (2006) §4.1–4.5).

A basic point of a rigid body in natural coordinates and the position of an ANCF node are
the same kind of coordinates (a global position vector), and so are a rigid body's unit
vectors and a node's slopes. A joint marked ``share`` makes them *one* set of coordinates
instead of tying two sets together with equations:

* the node's position is a basic point of the rigid body when the body can take the joint
  point as one (a free slot, a direction independent of its other entities): both the
  body's and the element's column maps then use the same columns (Boolean connectivity,
  ``M = Σ Bᵀ M_k B``);
* otherwise the node's position is a *linear combination* of the body's basic entities,
  ``r = Σ_k c_k e_k`` (the point's natural-coordinate coefficients), and the node's
  coordinates are eliminated: the element reads them as that combination (the constant
  transformation of the thesis's sequential reduction, ``q = T q₀``, applied where the
  element gathers its coordinates, see ``ancf.columns``);
* likewise a revolute axis that is the node's r_y or r_z (``"axis"``) and the slopes of a
  node clamped by a ``fixed`` joint (``"slopes"``) become unit vectors of the rigid body,
  or combinations of its entities. A shared slope keeps its length: the section does not
  deform along it.

The joint keeps only the equations the shared coordinates do not imply (``rows``): none for
a spherical joint, a planar revolute, a revolute sharing its axis and a fixed joint sharing
its slopes; the two axis equations of a spatial revolute; the angle equation of a universal
joint; the rotation equations of a fixed joint that shares the point only.

``NodeSharing(model, coordinates)`` checks what the model asks for against the coordinates
of the run (``ModelError`` naming the joint and ``share``); the natural-coordinate body
kind decides, entity by entity, whether a node vector is shared or a combination and fills
``maps``: ``(beam, node, vector) → NodeMap``; the ANCF kind reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.model import description as d
from solver.model.errors import ModelError
from solver.model.fields import fmt_vector

#: nodal vectors in the order of an element's ``node_vectors``
VECTOR_NAMES = ("r", "r_x", "r_y", "r_z")
#: coordinates of the run → the flexible types whose nodes its rigid bodies can share
SHARING_TYPES = {
    "natural": ("ancf_cable", "ancf_beam3d"),
    "natural_planar": ("ancf_beam2d",),
}


@dataclass
class NodeItem:
    """One nodal vector to share: ``vector`` its index in the node (0 = r, 1 = r_x, …),
    a point or a direction, and its global value at t = 0."""

    vector: int
    is_point: bool
    value: np.ndarray


@dataclass
class NodeShare:
    """A ``share`` joint between rigid body ``rigid`` and node ``node`` of ``beam``."""

    index: int
    joint: d.Joint
    rigid: str
    beam: str
    node: int
    planar: bool
    #: the element has section slopes (r_y; a continuum element)
    section: bool = False
    items: list[NodeItem] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f'joints[{self.index}] "{self.joint.name}"'

    @property
    def participant(self) -> str:
        """The node as a participant of the natural coordinates' entity classes (a name
        no body can have: names contain no ``.``)."""
        return f"node.{self.beam}.{self.node}"


@dataclass
class NodeMap:
    """A nodal vector as ``coef @ q[cols] + const`` (``coef`` is ``d × len(cols)``);
    ``shared`` when it is an entity of the rigid body (its columns, or a constant when the
    entity is fixed to ground), not a combination of several."""

    cols: np.ndarray
    coef: np.ndarray
    const: np.ndarray
    joint: str
    shared: bool


def _element_class(body: d.FlexibleBody):
    from solver.mechanics.bodies.ancf.kind import ELEMENTS

    choices = ELEMENTS[body.type]
    return choices.get(body.element or next(iter(choices)))


def _node_index(body: d.FlexibleBody, point) -> int | None:
    nodes = np.asarray(body.node_positions(), float)
    gaps = np.linalg.norm(nodes - np.asarray(point, float), axis=1)
    k = int(np.argmin(gaps))
    length = float(np.linalg.norm(np.subtract(body.points[1], body.points[0])))
    return k if gaps[k] <= 1e-9 * max(length, 1.0) else None


class NodeSharing:
    """The ``share`` joints of a model as the run's coordinates can realise them."""

    def __init__(self, model: d.Model, coordinates: str) -> None:
        self.requests: list[NodeShare] = []
        #: ``(beam, node, vector) → NodeMap``, filled by the natural-coordinate kind
        self.maps: dict[tuple[str, int, int], NodeMap] = {}
        bodies = {b.name: b for b in model.bodies}
        for i, j in enumerate(model.joints):
            if j.share:
                self.requests.append(self._request(i, j, bodies, coordinates))
        self.joints = {r.joint.name for r in self.requests}

    def __len__(self) -> int:
        return len(self.requests)

    def _request(self, index: int, j: d.Joint, bodies: dict, coordinates: str) -> NodeShare:
        where = f'joints[{index}] "{j.name}"'
        b1, b2 = bodies.get(j.body1), bodies.get(j.body2)
        rigid, beam = (b1, b2) if isinstance(b2, d.FlexibleBody) else (b2, b1)
        if not isinstance(rigid, d.RigidBody) or not isinstance(beam, d.FlexibleBody):
            raise ModelError(
                where, "needs a rigid body and a node of a flexible body (ancf_*)", "share"
            )
        if coordinates not in SHARING_TYPES:
            raise ModelError(
                where,
                'needs the rigid bodies in natural coordinates ("coordinates": "natural" for '
                f'spatial beams, "natural_planar" for ancf_beam2d); the run uses "{coordinates}"',
                "share",
            )
        if beam.type not in SHARING_TYPES[coordinates]:
            need = "natural_planar" if beam.type == "ancf_beam2d" else "natural"
            raise ModelError(
                where,
                f'needs "{need}" coordinates for the nodes of "{beam.name}" ({beam.type}); '
                f'the run uses "{coordinates}"',
                "share",
            )
        if beam.closed:
            raise ModelError(
                where,
                f'"{beam.name}" is a closed belt: its nodes cannot be shared with a rigid '
                "body in this version (use the joint as equations: no share)",
                "share",
            )
        point = j.point
        node = _node_index(beam, point)
        if node is None:
            raise ModelError(
                where,
                f'needs a node of flexible body "{beam.name}"; {fmt_vector(point)} is not one',
                "share",
            )
        element = _element_class(beam)
        from solver.mechanics.bodies.ancf.section import beam_frame

        frame = beam_frame(*beam.points)
        names = element.node_vectors
        slopes = {name: frame[:, VECTOR_NAMES.index(name) - 1] for name in names[1:]}
        share = NodeShare(index, j, rigid.name, beam.name, node, element.d == 2, "r_y" in names)
        if "point" in j.share:
            share.items.append(NodeItem(0, True, np.asarray(beam.node_positions()[node], float)))
        if "axis" in j.share:
            axis = np.asarray(j.axis, float) / np.linalg.norm(j.axis)
            found = [
                name
                for name in ("r_y", "r_z")
                if name in slopes and np.linalg.norm(np.cross(slopes[name], axis)) < 1e-9
            ]
            if not found:
                have = ", ".join(f"{n} {fmt_vector(slopes[n])}" for n in slopes if n != "r_x")
                raise ModelError(
                    where,
                    f'"axis" needs the axis along a section slope of "{beam.name}"\'s node '
                    f"({have or 'its element has no section slopes'}); {fmt_vector(j.axis)} is "
                    "not a section axis",
                    "share",
                )
            name = found[0]
            share.items.append(NodeItem(names.index(name), False, slopes[name]))
        if "slopes" in j.share:
            for name in names[1:]:
                share.items.append(NodeItem(names.index(name), False, slopes[name]))
        return share

    # ---- layout ------------------------------------------------------------------------
    def order(self, kinds: dict[str, list]) -> list[tuple[str, list]]:
        """The body kinds in the order they lay out their coordinates: with shared nodes,
        the natural-coordinate kinds first (the flexible kinds take their columns)."""
        items = list(kinds.items())
        if self.requests:
            items.sort(key=lambda kv: kv[0] in d.FLEXIBLE_TYPES)
        return items

    def node_map(self, beam: str, node: int, vector: int) -> NodeMap | None:
        return self.maps.get((beam, node, vector))

    def set_map(self, share: NodeShare, item: NodeItem, value: NodeMap) -> None:
        """Record how a nodal vector is represented; a vector that another joint already
        determines cannot be tied to a second rigid body."""
        key = (share.beam, share.node, item.vector)
        old = self.maps.get(key)
        if old is not None and not _same(old, value):
            raise ModelError(
                share.where,
                f'cannot tie {VECTOR_NAMES[item.vector]} of node {share.node} of "{share.beam}" '
                f'to "{share.rigid}": joint "{old.joint}" already gives it and "{share.rigid}" '
                "cannot take it as a basic entity of its own; share it through one joint only "
                "(the other keeps its equations)",
                "share",
            )
        self.maps[key] = value


def _same(a: NodeMap, b: NodeMap) -> bool:
    return (
        a.cols.shape == b.cols.shape
        and bool(np.all(a.cols == b.cols))
        and np.allclose(a.coef, b.coef)
        and np.allclose(a.const, b.const)
    )


def rows(builder, ctx, share: NodeShare, shared_axis: bool) -> None:
    """The equations a shared joint keeps (module docstring), added with ``builder``
    (a ``JointBuilder``) under the joint's key."""
    from solver.mechanics.constraints.joints import normals
    from solver.mechanics.constraints.primitives import Dot

    j = share.joint
    key = f"joint:{j.name}"
    builder.items[key] = []
    b1, b2 = j.body1, j.body2
    if "point" not in j.share:
        builder._spherical(key, share.where, ctx, b1, b2, j)
    if j.type == "revolute" and not shared_axis and not share.planar:
        a, n1, n2 = normals(j.axis)
        builder._perpendicular_pair(key, ctx, b1, b2, a, n1, n2, j.point)
    elif j.type == "universal":
        a1 = np.asarray(j.axis1, float) / np.linalg.norm(j.axis1)
        a2 = np.asarray(j.axis2, float) / np.linalg.norm(j.axis2)
        builder._add(
            key,
            Dot,
            (ctx.vector(b1, a1, j.point), ctx.vector(b2, a2, j.point)),
            const=float(a1 @ a2),
        )
    elif j.type == "fixed" and "slopes" not in j.share:
        for a, b in fixed_pairs(share):
            eye = np.eye(3)
            builder._add(
                key,
                Dot,
                (ctx.vector(b1, eye[a], j.point), ctx.vector(b2, eye[b], j.point)),
                const=float(a == b),
            )


def fixed_pairs(share: NodeShare) -> tuple[tuple[int, int], ...]:
    """Axis pairs ``(i, j)`` whose products ``x_i(body1)·x_j(body2) = δ_ij`` hold the rotation
    of a fixed joint at a node, as without sharing (``JointBuilder._fixed``; the clamp of a
    continuum element's whole section, ``AncfBodies.build_constraints``); in the plane the
    in-plane pairs only (the others are identically zero)."""
    if share.planar:
        return ((0, 1), (0, 0), (1, 1), (1, 0)) if share.section else ((0, 1),)
    extra = ((0, 0), (1, 1), (2, 2), (1, 0), (2, 1), (0, 2)) if share.section else ()
    return ((0, 1), (1, 2), (2, 0)) + extra
