"""Write a model description as JSON data (format ``"biela": 1``).

The output reads back (``read_model``) into an equal ``Model``. Optional fields that
were not given are omitted; a body defined by ``density`` is written with its density,
not its computed mass and inertia.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from solver.model import description as d
from solver.model.functions import TimeFunction
from solver.model.reader import FORMAT_VERSION


def _plain(value: Any) -> Any:
    if isinstance(value, TimeFunction):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        return _object(value)
    return value


def _object(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(obj):
        if f.name in skip or not f.compare:
            continue
        value = getattr(obj, f.name)
        if value is None or (isinstance(value, list) and not value):
            continue
        out[f.name] = _plain(value)
    return out


def _inertia(inertia: d.Mat3) -> list:
    off = [inertia[i][j] for i in range(3) for j in range(3) if i != j]
    if all(v == 0.0 for v in off):
        return [inertia[0][0], inertia[1][1], inertia[2][2]]
    return [list(row) for row in inertia]


def _shape(shape: d.Shape) -> dict[str, Any]:
    out = _object(shape, skip=("start", "end"))
    if shape.start is not None:
        out = {
            "type": shape.type,
            "from": list(shape.start),
            "to": list(shape.end),
            **{k: v for k, v in out.items() if k != "type"},
        }
    return out


def _body(body: d.Body) -> dict[str, Any]:
    out = _object(body, skip=("shapes",))
    if getattr(body, "shapes", None):
        out["shapes"] = [_shape(s) for s in body.shapes]
    if isinstance(body, d.RigidBody):
        if body.density is not None:
            del out["mass"], out["inertia"]
        else:
            out["inertia"] = _inertia(body.inertia)
        if out.get("type") == "rigid":
            del out["type"]
    return {"name": out.pop("name"), **({"type": out.pop("type")} if "type" in out else {}), **out}


def _request(request: d.ResultRequest) -> dict[str, Any]:
    items = request.items
    if items is None:
        return {request.kind: True}
    return {request.kind: items[0] if len(items) == 1 else list(items)}


def write_model(model: d.Model) -> dict[str, Any]:
    """JSON-ready data for ``model``."""
    data: dict[str, Any] = {"biela": FORMAT_VERSION, "name": model.name}
    if model.description is not None:
        data["description"] = model.description
    data["gravity"] = list(model.gravity)
    data["bodies"] = [_body(b) for b in model.bodies]
    for key in ("joints", "drivers", "forces", "outputs"):
        items = getattr(model, key)
        if items:
            data[key] = [_object(x) for x in items]
    if model.requests:
        data.setdefault("outputs", []).extend(_request(r) for r in model.requests)
    solver = _object(model.solver)
    if not solver.get("parameters"):
        solver.pop("parameters", None)
    data["solver"] = solver
    return data
