"""Keys: dotted paths into a model's JSON data, the way a study names what it varies.

``solver.dt``, ``solver.parameters.penalty``, ``bodies.bob.mass``, ``forces.S1.stiffness``,
``bodies.bob.position.0``: each segment is a field of an object, or in a list either the
``name`` of an item (bodies, joints, drivers, forces, outputs) or, for lists whose items
have no name (vectors, matrix rows, shapes), a whole-number index from 0.

A key is set on a copy of the model file's data. A field the file leaves out takes the
value the model writer gives it (``solver.dt`` of a file without ``solver``, a body's
default ``position``); a field neither has is created when it is the last segment, and the
model reader then accepts or refuses it. Keys never execute anything: they address data.
"""

from __future__ import annotations

import copy
from typing import Any

from solver.model.errors import ModelError
from solver.studies.errors import StudyError

#: The solver settings a study usually varies, offered even when the file leaves them out.
SOLVER_KEYS = ("formulation", "dt", "t_end", "output_dt", "tolerance", "max_iterations")


def split_key(key: str) -> list[str]:
    """The segments of ``key``; refuses empty keys and empty segments."""
    if not isinstance(key, str) or not key.strip():
        raise StudyError(repr(key), "is empty (write a dotted path such as solver.dt)")
    parts = key.strip().split(".")
    if any(not p for p in parts):
        raise StudyError(key, "has an empty segment (write a dotted path such as bodies.bob.mass)")
    return parts


def _child(node: Any, part: str, key: str, where: str) -> tuple[Any, Any]:
    """``(container index, value)`` of segment ``part`` in ``node`` (value None: absent)."""
    if isinstance(node, dict):
        return part, node.get(part)
    if isinstance(node, list):
        named = [i for i, item in enumerate(node) if isinstance(item, dict) and "name" in item]
        if named:
            for i in named:
                if node[i].get("name") == part:
                    return i, node[i]
            names = ", ".join(str(node[i]["name"]) for i in named[:12])
            raise StudyError(key, f'{where} has no item named "{part}" (names: {names})')
        if part.isdigit() and int(part) < len(node):
            return int(part), node[int(part)]
        raise StudyError(
            key,
            f"{where} is a list of {len(node)} values: {part!r} is not an index 0..{len(node) - 1}",
        )
    raise StudyError(key, f"{where} is a value ({node!r}), not an object or a list")


def get_value(data: Any, key: str, defaults: Any = None) -> Any:
    """The value ``key`` addresses in ``data`` (else in ``defaults``); refuses a missing key."""
    node, fallback, where = data, defaults, ""
    for part in split_key(key):
        index, value = _child(node, part, key, where or "the model")
        if value is None and fallback is not None:
            try:
                _, value = _child(fallback, part, key, where or "the model")
            except ModelError:
                value = None
        if value is None:
            raise StudyError(key, f"{where + '.' if where else ''}{part} is not in the model")
        fallback = _fallback_child(fallback, part)
        node, where = value, f"{where}.{part}" if where else part
    return node


def _fallback_child(fallback: Any, part: str) -> Any:
    if fallback is None:
        return None
    try:
        return _child(fallback, part, "", "")[1]
    except ModelError:
        return None


def set_value(data: Any, key: str, value: Any, defaults: Any = None) -> Any:
    """A deep copy of ``data`` with ``key`` set to ``value`` (``defaults``: the model
    writer's data, which fills fields the file leaves out)."""
    out = copy.deepcopy(data)
    parts = split_key(key)
    node, fallback, where = out, defaults, ""
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        index, child = _child(node, part, key, where or "the model")
        fb_child = _fallback_child(fallback, part)
        if last:
            if isinstance(node, list) and not isinstance(index, int):
                raise StudyError(key, f"{where} is a list: give an item, not {part!r}")
            node[index] = copy.deepcopy(value)
            return out
        if child is None:
            if fb_child is None and isinstance(node, dict) and _creatable(where, part):
                fb_child = {}
            if fb_child is None:
                path = f"{where}.{part}" if where else part
                raise StudyError(key, f"{path} is not in the model")
            child = node[index] = copy.deepcopy(fb_child)
        if not isinstance(child, dict | list):
            path = f"{where}.{part}" if where else part
            raise StudyError(key, f"{path} is a value ({child!r}), not an object or a list")
        node, fallback, where = child, fb_child, f"{where}.{part}" if where else part
    return out


def _creatable(where: str, part: str) -> bool:
    """Objects a study may create when the file leaves them out (every field optional)."""
    return (where, part) in (("", "solver"), ("solver", "parameters"))


def leaf_keys(data: Any, prefix: str = "") -> list[str]:
    """Every key of a number, string or boolean in ``data`` (list items by name or index),
    the solver settings of :data:`SOLVER_KEYS` included even when ``data`` leaves them out.
    Texts that are not settings (names, descriptions, colours) are left out."""
    out: list[str] = []
    _leaves(data, prefix, out)
    if not prefix:
        have = set(out)
        out += [f"solver.{k}" for k in SOLVER_KEYS if f"solver.{k}" not in have]
    return out


_NOT_SETTINGS = {"name", "description", "color", "biela", "type", "file"}


def _leaves(node: Any, prefix: str, out: list[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if k in _NOT_SETTINGS or k in ("body", "body1", "body2", "joint"):
                continue
            _leaves(v, f"{prefix}.{k}" if prefix else k, out)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            label = item.get("name") if isinstance(item, dict) else None
            _leaves(item, f"{prefix}.{label if label is not None else i}", out)
    elif isinstance(node, bool | int | float | str):
        out.append(prefix)
