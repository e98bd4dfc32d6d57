"""The edit model: add, remove, modify, rename and move model items, each one undoable.

``ModelEditor`` works on a ``Document``: every operation builds a candidate copy of the
model, validates it (``edits.validated``) and pushes one ``ModelEdit`` on the document's
undo stack, or raises ``EditRefused`` leaving the model untouched. Items are addressed by
``(category, name)`` with the categories of the model tree (``body``, ``joint``, ``driver``,
``force``, ``output``; ``flexible`` and ``contact`` also work).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from app.builder.edits import EditRefused, ModelEdit, Snapshot, validated
from solver.model import description as d
from solver.model.mass_properties import rotation_matrix

#: Where a category's items live in the model.
LISTS = {
    "body": "bodies",
    "flexible": "bodies",
    "joint": "joints",
    "driver": "drivers",
    "force": "forces",
    "contact": "forces",
    "output": "outputs",
}


def category_of(item: Any) -> str:
    """The model-tree category of an item."""
    if isinstance(item, d.FlexibleBody):
        return "flexible"
    if isinstance(item, d.RigidBody | d.PointMass):
        return "body"
    if isinstance(item, d.Joint):
        return "joint"
    if isinstance(item, d.Driver):
        return "driver"
    if isinstance(item, d.Force):
        return "contact" if item.type == "contact" else "force"
    if isinstance(item, d.Output):
        return "output"
    raise TypeError(f"not a model item: {type(item).__name__}")


def all_names(model: d.Model) -> set[str]:
    return {
        it.name
        for key in ("bodies", "joints", "drivers", "forces", "outputs")
        for it in getattr(model, key)
    }


def unique_name(model: d.Model, prefix: str) -> str:
    """``prefix1``, ``prefix2``, … : the first name no item uses."""
    used = all_names(model) | {d.GROUND}
    prefix = re.sub(r"\d+$", "", prefix) or "item"
    k = 1
    while f"{prefix}{k}" in used:
        k += 1
    return f"{prefix}{k}"


def find(model: d.Model, category: str, name: str) -> Any | None:
    items = getattr(model, LISTS[category])
    return next((it for it in items if it.name == name and category_of(it) == category), None)


def body_refs(item: Any) -> list[tuple[Any, str]]:
    """``(object, field)`` pairs of an item that name a body."""
    refs: list[tuple[Any, str]] = []
    if isinstance(item, d.Joint):
        refs += [(item, "body1"), (item, "body2")]
    elif isinstance(item, d.Force):
        refs += [(item, f) for f in ("body", "body1", "body2") if getattr(item, f)]
        refs += [
            (getattr(item, f), "body")
            for f in ("sphere", "plane", "sphere2")
            if getattr(item, f) is not None
        ]
    elif isinstance(item, d.Output):
        refs.append((item, "body"))
    return refs


def dependents(model: d.Model, category: str, name: str) -> list[tuple[str, str]]:
    """Items that refer to ``(category, name)``, directly or through a dependent joint."""
    out: list[tuple[str, str]] = []
    joints: set[str] = set()
    if category in ("body", "flexible"):
        for j in model.joints:
            if name in (j.body1, j.body2):
                out.append(("joint", j.name))
                joints.add(j.name)
        for f in model.forces:
            if any(getattr(o, fld) == name for o, fld in body_refs(f)):
                out.append((category_of(f), f.name))
        for o in model.outputs:
            if o.body == name:
                out.append(("output", o.name))
    elif category == "joint":
        joints.add(name)
    for drv in model.drivers:
        if drv.joint in joints:
            out.append(("driver", drv.name))
    for f in model.forces:
        if f.joint in joints and (category_of(f), f.name) not in out:
            out.append((category_of(f), f.name))
    return out


def rename_references(model: d.Model, category: str, old: str, new: str) -> None:
    """Make every reference to item ``old`` name ``new``."""
    if category in ("body", "flexible"):
        for item in [*model.joints, *model.forces, *model.outputs]:
            for obj, fld in body_refs(item):
                if getattr(obj, fld) == old:
                    setattr(obj, fld, new)
    elif category == "joint":
        for item in [*model.drivers, *model.forces]:
            if getattr(item, "joint", None) == old:
                item.joint = new


def _move(point, rot: np.ndarray, center: np.ndarray, shift: np.ndarray):
    if point is None:
        return None
    p = np.asarray(point, float)
    return tuple(float(v) for v in rot @ (p - center) + center + shift)


def _turn(axis, rot: np.ndarray):
    if axis is None:
        return None
    return tuple(float(v) for v in rot @ np.asarray(axis, float))


def quat_of(rot: np.ndarray) -> tuple[float, float, float, float]:
    """Euler parameters ``[e0, e1, e2, e3]`` (e0 ≥ 0) of a rotation matrix."""
    m = rot
    t = np.trace(m)
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        q = [0.0] * 4
        q[0] = (m[k, j] - m[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (m[j, i] + m[i, j]) / s
        q[1 + k] = (m[k, i] + m[i, k]) / s
    q = np.asarray(q, float)
    q /= np.linalg.norm(q)
    if q[0] < 0:
        q = -q
    return tuple(float(v) for v in q)


def axis_rotation(axis, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` (rad) about unit ``axis`` (right hand)."""
    u = np.asarray(axis, float)
    u = u / np.linalg.norm(u)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def move_body_in(
    model: d.Model, name: str, shift, rot: np.ndarray | None = None, center=None
) -> None:
    """Move body ``name`` rigidly (rotation ``rot`` about ``center``, then ``shift``) with its
    shapes, output points and the points of forces it carries. Joints stay where they are
    (they connect two bodies): Assemble closes the gaps afterwards."""
    body = model.body(name)
    if body is None or isinstance(body, d.FlexibleBody):
        raise EditRefused(f'body "{name}" cannot be moved this way')
    rot = np.eye(3) if rot is None else np.asarray(rot, float)
    shift = np.asarray(shift, float)
    center = np.asarray(body.position if center is None else center, float)
    body.position = _move(body.position, rot, center, shift)
    if isinstance(body, d.RigidBody):
        body.orientation = quat_of(rot @ rotation_matrix(body.orientation))
    for s in body.shapes:
        s.center = _move(s.center, rot, center, shift)
        s.start = _move(s.start, rot, center, shift)
        s.end = _move(s.end, rot, center, shift)
        if s.orientation is not None or (s.type == "box" and not np.allclose(rot, np.eye(3))):
            s.orientation = quat_of(rot @ rotation_matrix(s.orientation or (1, 0, 0, 0)))
    for o in model.outputs:
        if o.body == name:
            o.point = _move(o.point, rot, center, shift)
    for f in model.forces:
        if f.body == name and f.point is not None:
            f.point = _move(f.point, rot, center, shift)
        if f.body1 == name:
            f.point1 = _move(f.point1, rot, center, shift)
        if f.body2 == name:
            f.point2 = _move(f.point2, rot, center, shift)


class ModelEditor:
    """Undoable edits of ``document.model`` (see the module docstring)."""

    def __init__(self, document: Any) -> None:
        self.document = document

    @property
    def model(self) -> d.Model:
        if self.document.model is None:
            self.document.new()
        return self.document.model

    # -- the one way in ---------------------------------------------------------------------

    def trial(self, change: Callable[[d.Model], Any]) -> d.Model:
        """The validated model after ``change`` (applied to a copy); ``EditRefused``."""
        candidate = copy.deepcopy(self.model)
        change(candidate)
        return validated(candidate)

    def apply(self, text: str, change: Callable[[d.Model], Any]) -> None:
        """Apply ``change`` to a copy, validate, push one undoable edit (or raise)."""
        if self.document.locked:
            raise EditRefused(self.document.locked)
        model = self.model
        result = self.trial(change)
        before = Snapshot.of(model)
        after = Snapshot.of(result)
        if before == after:
            return
        self.document.undo_stack.push(ModelEdit(self.document, before, after, text))

    # -- operations ----------------------------------------------------------------------------

    def add(self, item: Any) -> str:
        """Add a body, joint, driver, force or output; returns its name."""
        category = category_of(item)
        self.apply(
            f"Add {category} {item.name}",
            lambda m: getattr(m, LISTS[category]).append(copy.deepcopy(item)),
        )
        return item.name

    def replace(self, category: str, name: str, new: Any) -> None:
        """Replace item ``name`` by ``new`` (renames update every reference)."""

        def change(m: d.Model) -> None:
            items = getattr(m, LISTS[category])
            old = find(m, category, name)
            if old is None:
                raise EditRefused(f'{category} "{name}" does not exist')
            if new.name != name:
                if new.name in all_names(m) or new.name == d.GROUND:
                    raise EditRefused(f'name "{new.name}" is already used', "name")
                rename_references(m, category, name, new.name)
            items[items.index(old)] = copy.deepcopy(new)

        self.apply(f"Edit {category} {name}", change)

    def set_value(self, category: str, name: str, path: tuple, value: Any) -> None:
        """Set one (possibly nested) field: ``path`` like ``("mass",)`` or
        ``("shapes", 0, "radius")``."""
        item = find(self.model, category, name)
        if item is None:
            raise EditRefused(f'{category} "{name}" does not exist')
        self.replace(category, name, with_value(item, path, value))

    def remove(self, category: str, name: str, dependents_policy: str = "delete") -> None:
        """Delete an item. Dependent items (joints and forces on a body, drivers of a joint)
        are deleted (``"delete"``) or, for a body, re-attached to ground (``"ground"``)."""

        def change(m: d.Model) -> None:
            deps = dependents(m, category, name)
            drop = {(category, name)}
            if dependents_policy == "ground" and category in ("body", "flexible"):
                for cat, dep in deps:
                    item = find(m, cat, dep)
                    if cat == "output":
                        drop.add((cat, dep))
                        continue
                    for obj, fld in body_refs(item):
                        if getattr(obj, fld) == name:
                            setattr(obj, fld, d.GROUND)
                    refs = {getattr(obj, fld) for obj, fld in body_refs(item)}
                    if refs <= {d.GROUND}:  # nothing left to connect: it goes too
                        drop.add((cat, dep))
                        if cat == "joint":
                            drop.update(dependents(m, "joint", dep))
            else:
                drop.update(deps)
            for key in ("bodies", "joints", "drivers", "forces", "outputs"):
                setattr(
                    m,
                    key,
                    [it for it in getattr(m, key) if (category_of(it), it.name) not in drop],
                )

        self.apply(f"Delete {category} {name}", change)

    def move_body(self, name: str, shift=(0.0, 0.0, 0.0), rot=None, center=None) -> None:
        """Translate and/or rotate a body (undoable)."""
        self.apply(f"Move {name}", lambda m: move_body_in(m, name, shift, rot, center))


def with_value(item: Any, path: tuple, value: Any) -> Any:
    """A deep copy of ``item`` with the field at ``path`` set to ``value``."""
    new = copy.deepcopy(item)
    obj = new
    for step in path[:-1]:
        obj = obj[step] if isinstance(step, int) else getattr(obj, step)
    last = path[-1]
    if isinstance(last, int):
        obj[last] = value
    else:
        setattr(obj, last, value)
    return new


def value_at(item: Any, path: tuple) -> Any:
    obj = item
    for step in path:
        obj = obj[step] if isinstance(step, int) else getattr(obj, step)
    return obj


__all__ = [
    "EditRefused",
    "ModelEditor",
    "axis_rotation",
    "category_of",
    "dependents",
    "find",
    "move_body_in",
    "quat_of",
    "unique_name",
    "value_at",
    "with_value",
]
