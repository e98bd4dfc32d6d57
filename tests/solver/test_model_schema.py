"""The JSON Schema of the model format (resources/model.schema.json) against the reader.

(a) Every example and the every-field sample validate against the schema, and files the
    reader refuses for structural reasons are refused by the schema too. ``jsonschema`` is
    not a dependency, so a small validator for exactly the keywords the schema uses is
    defined here (a test checks that the schema uses no other keyword).
(b) The schema's sets of body, joint, force and shape types, per-type fields, solver fields
    and formulation parameters, and its defaults, equal those of ``solver.model`` so that
    the two cannot drift apart. The user documentation (docs/model_format.md) is checked for
    the same names, and its complete example must load.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest

from solver.model import ModelError, expression, functions, model_from_data, reader, validation
from solver.model import description as d
from tests.solver.model_samples import full_model

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "resources" / "model.schema.json"
DOC_PATH = ROOT / "docs" / "model_format.md"
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]

# -- a validator for the subset of draft 2020-12 the schema uses ---------------------------

ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "default"}
ASSERTIONS = {
    "$ref",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "contains",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "pattern",
    "minLength",
    "maxLength",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
}


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _has_type(value, kind: str) -> bool:
    if kind == "number":
        return _is_number(value)
    if kind == "integer":
        return _is_number(value) and float(value).is_integer()
    return isinstance(value, {"string": str, "object": dict, "array": list, "boolean": bool}[kind])


def _equal(a, b) -> bool:
    """JSON equality: 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _resolve(ref: str) -> dict:
    assert ref.startswith("#/$defs/"), ref
    return DEFS[ref.removeprefix("#/$defs/")]


def _matches(pattern: str, text: str) -> bool:
    # ECMA-262 "$" matches only at the very end; Python's also before a final newline
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.search(pattern, text) is not None


def errors(value, schema=SCHEMA, path: str = "$") -> list[str]:
    """Every violation of ``schema`` by ``value`` (empty when valid)."""
    if schema is True:
        return []
    if schema is False:
        return [f"{path}: not allowed"]
    out: list[str] = []
    if "$ref" in schema:
        out += errors(value, _resolve(schema["$ref"]), path)
    if "type" in schema and not _has_type(value, schema["type"]):
        return out + [f"{path}: not of type {schema['type']}"]
    if "enum" in schema and not any(_equal(value, v) for v in schema["enum"]):
        out.append(f"{path}: {value!r} not in {schema['enum']}")
    if "const" in schema and not _equal(value, schema["const"]):
        out.append(f"{path}: {value!r} is not {schema['const']!r}")
    if _is_number(value):
        for key, ok in (
            ("minimum", lambda v, m: v >= m),
            ("maximum", lambda v, m: v <= m),
            ("exclusiveMinimum", lambda v, m: v > m),
            ("exclusiveMaximum", lambda v, m: v < m),
        ):
            if key in schema and not ok(value, schema[key]):
                out.append(f"{path}: {value} violates {key} {schema[key]}")
    if isinstance(value, str):
        if "pattern" in schema and not _matches(schema["pattern"], value):
            out.append(f"{path}: {value!r} does not match {schema['pattern']}")
        if len(value) < schema.get("minLength", 0):
            out.append(f"{path}: too short")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(f"{path}: too long")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{path}: {key} is required")
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], f"{path}.{key}")
            elif "additionalProperties" in schema:
                out += errors(item, schema["additionalProperties"], f"{path}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += errors(item, schema["items"], f"{path}[{i}]")
        if "contains" in schema and not any(not errors(v, schema["contains"]) for v in value):
            out.append(f"{path}: contains no matching item")
    for sub in schema.get("allOf", []):
        out += errors(value, sub, path)
    if "anyOf" in schema and all(errors(value, sub, path) for sub in schema["anyOf"]):
        out.append(f"{path}: matches none of anyOf")
    if "oneOf" in schema:
        matching = sum(not errors(value, sub, path) for sub in schema["oneOf"])
        if matching != 1:
            out.append(f"{path}: matches {matching} of oneOf, not exactly 1")
    if "not" in schema and not errors(value, schema["not"], path):
        out.append(f"{path}: matches a schema it must not match")
    if "if" in schema:
        branch = "then" if not errors(value, schema["if"], path) else "else"
        if branch in schema:
            out += errors(value, schema[branch], path)
    return out


def _subschemas(schema):
    if not isinstance(schema, dict):
        return
    for key in ("properties", "$defs"):
        yield from schema.get(key, {}).values()
    for key in ("items", "contains", "not", "if", "then", "else", "additionalProperties"):
        if key in schema:
            yield schema[key]
    for key in ("allOf", "anyOf", "oneOf"):
        yield from schema.get(key, [])


def _all_schemas(schema=SCHEMA):
    yield schema
    for sub in _subschemas(schema):
        yield from _all_schemas(sub)


# -- schema helpers -----------------------------------------------------------------------


def _branches(name: str, value: dict) -> list[str]:
    """The ``$defs`` names of the ``then`` branches of ``$defs[name]`` that apply to ``value``."""
    return [
        b["then"]["$ref"].removeprefix("#/$defs/")
        for b in DEFS[name]["allOf"]
        if not errors(value, b["if"])
    ]


def _props(name: str) -> set[str]:
    return set(DEFS[name]["properties"])


def _enum(name: str) -> set[str]:
    return set(DEFS[name]["properties"]["type"]["enum"])


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls) if f.compare}


# -- (a) files validate -------------------------------------------------------------------


def test_schema_header():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"]
    assert SCHEMA["properties"]["biela"]["const"] == reader.FORMAT_VERSION


def test_schema_uses_only_keywords_this_validator_knows():
    for schema in _all_schemas():
        if isinstance(schema, dict):
            unknown = set(schema) - ASSERTIONS - ANNOTATIONS
            assert not unknown, unknown
        else:
            assert isinstance(schema, bool)
    for schema in _all_schemas():
        if isinstance(schema, dict) and "$ref" in schema:
            _resolve(schema["$ref"])  # every reference resolves


def test_every_definition_is_used():
    text = SCHEMA_PATH.read_text(encoding="utf-8")
    for name in DEFS:
        assert f'"#/$defs/{name}"' in text, name


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_validates(path):
    assert errors(json.loads(path.read_text(encoding="utf-8"))) == []


def test_full_sample_validates():
    assert errors(full_model()) == []


def _doc_models() -> list[dict]:
    blocks = re.findall(r"```json\n(.*?)```", DOC_PATH.read_text(encoding="utf-8"), re.S)
    return [json.loads(b) for b in blocks if '"biela"' in b]


def test_documentation_example_loads_and_validates():
    models = _doc_models()
    assert models, "docs/model_format.md has no complete example"
    for data in models:
        model_from_data(data)
        assert errors(data) == []


def _set(path, value):
    def apply(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


def _delete(path):
    def apply(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return apply


#: Mistakes that both the reader and the schema must refuse.
REFUSED = {
    "no version": _delete(["biela"]),
    "newer version": _set(["biela"], 2),
    "unknown top-level field": _set(["contacts"], []),
    "gravity of two numbers": _set(["gravity"], [0, -9.81]),
    "bodies not a list": _set(["bodies"], {"a": 1}),
    "unknown body field": _set(["bodies", 0, "colour"], "red"),
    "unknown body type": _set(["bodies", 0, "type"], "soft"),
    "string mass": _set(["bodies", 0, "mass"], "heavy"),
    "boolean mass": _set(["bodies", 0, "mass"], True),
    "zero mass": _set(["bodies", 3, "mass"], 0),
    "missing mass": _delete(["bodies", 0, "mass"]),
    "missing inertia": _delete(["bodies", 0, "inertia"]),
    "inertia of two numbers": _set(["bodies", 0, "inertia"], [1, 2]),
    "density and mass": _set(["bodies", 2, "mass"], 1.0),
    "density without solid shape": _set(["bodies", 2, "shapes"], [{"type": "mesh", "file": "a"}]),
    "quaternion of three numbers": _set(["bodies", 0, "orientation"], [1, 0, 0]),
    "axis-angle without angle": _set(["bodies", 0, "orientation"], {"axis": [0, 0, 1]}),
    "point mass with orientation": _set(["bodies", 3, "orientation"], [1, 0, 0, 0]),
    "body called ground": _set(["bodies", 0, "name"], "ground"),
    "name with a dot": _set(["bodies", 0, "name"], "a.b"),
    "name with a comma": _set(["joints", 0, "name"], "a,b"),
    "name with a trailing space": _set(["joints", 0, "name"], "J1 "),
    "empty name": _set(["forces", 0, "name"], ""),
    "output called t": _set(["outputs", 0, "name"], "t"),
    "shape without type": _delete(["bodies", 0, "shapes", 0, "type"]),
    "unknown shape field": _set(["bodies", 0, "shapes", 0, "colour"], "red"),
    "cylinder without radius": _delete(["bodies", 0, "shapes", 0, "radius"]),
    "negative box size": _set(["bodies", 2, "shapes", 0, "size"], [0.2, -0.1, 0.05]),
    "blank mesh file": _set(["bodies", 0, "shapes", 1, "file"], " "),
    "zero elements": _set(["bodies", 4, "elements"], 0),
    "fractional elements": _set(["bodies", 4, "elements"], 2.5),
    "one beam point": _set(["bodies", 4, "points"], [[0, 0, 3]]),
    "Poisson ratio 0.5": _set(["bodies", 4, "material", "nu"], 0.5),
    "material without E": _delete(["bodies", 4, "material", "E"]),
    "radius on a rectangle": _set(["bodies", 4, "section", "radius"], 0.1),
    "general section without Iy": _delete(["bodies", 6, "section", "Iy"]),
    "unknown joint type": _set(["joints", 0, "type"], "hinge"),
    "field of another joint type": _set(["joints", 0, "axis2"], [1, 0, 0]),
    "missing joint point": _delete(["joints", 1, "point"]),
    "missing body2": _delete(["joints", 0, "body2"]),
    "zero axis": _set(["joints", 0, "axis"], [0, 0, 0]),
    "bad slip": _set(["joints", 10, "slip"], "some"),
    "negative distance": _set(["joints", 7, "length"], -1),
    "driver without function": _delete(["drivers", 0, "function"]),
    "bad driver coordinate": _set(["drivers", 2, "coordinate"], "twist"),
    "function with two kinds": _set(
        ["drivers", 0, "function"], {"expression": "t", "polynomial": [0]}
    ),
    "interpolation without table": _set(
        ["drivers", 0, "function"], {"expression": "t", "interpolation": "linear"}
    ),
    "empty polynomial": _set(["drivers", 1, "function"], {"polynomial": []}),
    "smooth step without f1": _delete(["drivers", 2, "function", "smooth_step", "f1"]),
    "table of one row": _set(["drivers", 3, "function"], {"table": [[0, 0]]}),
    "bad interpolation": _set(["drivers", 3, "function", "interpolation"], "spline"),
    "caret in expression": _set(["drivers", 0, "function"], {"expression": "t^2"}),
    "string function": _set(["forces", 4, "function"], "20"),
    "unknown force type": _set(["forces", 0, "type"], "magnet"),
    "field of another force type": _set(["forces", 0, "frame"], "global"),
    "negative spring stiffness": _set(["forces", 0, "stiffness"], -5),
    "vector of two components": _set(["forces", 2, "vector"], [1, 2]),
    "bad frame": _set(["forces", 2, "frame"], "local"),
    "torque on ground": _set(["forces", 3, "body"], "ground"),
    "contact without second surface": _delete(["forces", 6, "plane"]),
    "contact with two second surfaces": _set(
        ["forces", 6, "sphere2"], {"body": "crank", "center": [0, 0, 1], "radius": 0.1}
    ),
    "contact with stiffness and materials": _set(
        ["forces", 6, "materials"], {"E1": 1e9, "nu1": 0.3, "E2": 1e9, "nu2": 0.3}
    ),
    "zero contact stiffness": _set(["forces", 6, "stiffness"], 0),
    "restitution zero": _set(["forces", 6, "restitution"], 0),
    "restitution above one": _set(["forces", 6, "restitution"], 1.5),
    "bad contact model": _set(["forces", 6, "model"], "kelvin"),
    "friction without mu": _set(["forces", 6, "friction"], {"velocity_tolerance": 0.01}),
    "unknown sphere field": _set(["forces", 6, "sphere", "mass"], 1),
    "loop and points": _set(["bodies", 8, "points"], [[0, 0, 0], [1, 0, 0]]),
    "loop without circles": _set(["bodies", 8, "loop", "circles"], []),
    "loop circle without radius": _delete(["bodies", 8, "loop", "circles", 0, "radius"]),
    "unknown loop field": _set(["bodies", 8, "loop", "closed"], True),
    "bad loop initial": _set(["bodies", 8, "loop", "initial"], "static"),
    "zero bending factor": _set(["bodies", 8, "belt", "bending_factor"], 0),
    "unknown belt field": _set(["bodies", 8, "belt", "alpha"], 1),
    "pulley without radius": _delete(["forces", 9, "pulley", "radius"]),
    "zero pulley stiffness": _set(["forces", 9, "stiffness"], 0),
    "pulley friction without slope": _set(["forces", 9, "friction"], {"mu": 0.5}),
    "pulley friction with a tolerance": _set(
        ["forces", 9, "friction"], {"mu": 0.5, "slope": 1, "velocity_tolerance": 0.1}
    ),
    "zero gauss points": _set(["forces", 9, "gauss_points"], 0),
    "output on ground": _set(["outputs", 0, "body"], "ground"),
    "request of two kinds": _set(["outputs", 0], {"reactions": "J1", "efforts": "motor"}),
    "request of a number": _set(["outputs", 0], {"reactions": 3}),
    "request of an empty list": _set(["outputs", 0], {"efforts": []}),
    "request of false": _set(["outputs", 0], {"accelerations": False}),
    "unknown solver field": _set(["solver", "stepsize"], 1),
    "unknown formulation": _set(["solver", "formulation"], "magic"),
    "negative dt": _set(["solver", "dt"], -0.001),
    "zero max_iterations": _set(["solver", "max_iterations"], 0),
    "unknown solver parameter": _set(["solver", "parameters", "magic"], 1),
    "rho_inf above one": _set(["solver", "parameters", "rho_inf"], 2),
    "projections not boolean": _set(["solver", "parameters", "projections"], 1),
    "bad integrator": _set(["solver", "parameters", "integrator"], "euler"),
}


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_reader_and_schema_refuse_the_same_mistake(case):
    data = full_model()
    REFUSED[case](data)
    with pytest.raises(ModelError):
        model_from_data(data)
    assert errors(data), f"the schema accepts: {case}"


#: Variations that both the reader and the schema accept.
ACCEPTED = {
    "explicit rigid type": _set(["bodies", 0, "type"], "rigid"),
    "minimal file": lambda data: data.clear() or data.update(biela=1),
    "whole-number float elements": _set(["bodies", 4, "elements"], 4.0),
    "section shape general": _set(["bodies", 6, "section", "shape"], "general"),
    "rod without radius beside solids": lambda data: data["bodies"][2]["shapes"].append(
        {"type": "rod", "from": [1, 1, 1], "to": [1, 1, 1.1]}
    ),
    "unicode name": _set(["outputs", 0, "name"], "Punkt B₁"),
    "force named like a body": _set(["forces", 0, "name"], "crank"),
    "constant vector component": _set(["forces", 3, "vector"], [0, 0.5, -2]),
    "smooth bump": _set(
        ["drivers", 1, "function"],
        {"smooth_bump": {"t0": 0, "f0": 0, "tmax": 1, "fmax": 0.2, "t1": 2, "f1": 0.1}},
    ),
    "result requests": _set(
        ["outputs", 1],
        {"reactions": ["J1", "J2"]},
    ),
    "every result request": _set(
        ["outputs"],
        [
            {"name": "P5", "body": "coupler", "point": [0, 4, 7]},
            {"reactions": "J1"},
            {"efforts": True},
            {"accelerations": ["crank", "bob"]},
            {"joint_coordinates": "J3"},
            {"contact_forces": "PC"},
            {"axial_forces": ["belt", "strip"]},
        ],
    ),
    "every parameter": _set(
        ["solver", "parameters"],
        {
            "penalty": 1e7,
            "xi": 0,
            "omega": 10,
            "rho_inf": 0,
            "gamma": 0.5,
            "beta": 0,
            "alpha": 1.2,
            "baumgarte_alpha": 0,
            "baumgarte_beta": 0,
            "rtol": 1e-9,
            "atol": 1e-12,
            "method": "r_matrix",
            "scheme": "custom",
            "integrator": "RK23",
            "variant": "family",
            "group_method": "structural_groups",
            "projections": False,
        },
    ),
}


@pytest.mark.parametrize("case", list(ACCEPTED), ids=list(ACCEPTED))
def test_reader_and_schema_accept_the_same_variation(case):
    data = full_model()
    ACCEPTED[case](data)
    model_from_data(data)
    assert errors(data) == []


# -- (b) the schema's sets equal the reader's ---------------------------------------------


def test_top_level_fields():
    assert set(SCHEMA["properties"]) == set(reader.TOP_FIELDS)
    # the model's result requests are items of the file's "outputs" list
    assert set(SCHEMA["properties"]) == (_fields(d.Model) - {"requests"}) | {"biela"}
    assert SCHEMA["required"] == ["biela"]
    model = d.Model()
    assert SCHEMA["properties"]["gravity"]["default"] == list(model.gravity)
    assert SCHEMA["properties"]["name"]["default"] == model.name


def test_body_types_and_fields():
    assert _enum("body") == set(d.BODY_TYPES) == set(reader.BODY_FIELDS)
    assert set(DEFS["body_flexible"]["properties"]["type"]["enum"]) == set(d.FLEXIBLE_TYPES)
    classes = {"body_rigid": d.RigidBody, "body_point_mass": d.PointMass}
    for kind in d.BODY_TYPES:
        (branch,) = _branches("body", {"type": kind})
        assert _props(branch) == set(reader.BODY_FIELDS[kind]), kind
        assert _props(branch) == _fields(classes.get(branch, d.FlexibleBody)), kind
    # a body without "type" is rigid
    assert _branches("body", {}) == ["body_rigid"]


def test_shape_types_and_fields_probe_the_reader():
    minimal = {
        "box": {"size": [1, 1, 1]},
        "cylinder": {"from": [0, 0, 0], "to": [0, 0, 1], "radius": 0.1},
        "rod": {"from": [0, 0, 0], "to": [0, 0, 1]},
        "sphere": {"radius": 0.1},
        "mesh": {"file": "part.stl"},
    }
    assert _enum("shape") == set(d.SHAPE_TYPES) == set(minimal)
    every_key = set().union(*(_props(f"shape_{k}") for k in minimal)) | {"bogus"}
    values = {"orientation": [1, 0, 0, 0], "file": "x.stl", "color": "#000000"}

    def read(shape: dict) -> str:
        body = {"name": "b", "mass": 1, "inertia": [1, 1, 1], "shapes": [shape]}
        try:
            model_from_data({"biela": 1, "bodies": [body]})
        except ModelError as error:
            return str(error)
        return ""

    for kind, fields in minimal.items():
        (branch,) = _branches("shape", {"type": kind})
        shape = {"type": kind, **fields}
        assert read(shape) == "" and errors(shape, DEFS["shape"]) == []
        assert set(DEFS[branch]["required"]) == {"type", *fields}, kind
        for key in fields:  # every required field is required by the reader
            smaller = {k: v for k, v in shape.items() if k != key}
            assert f"shapes[0].{key} is missing" in read(smaller), (kind, key)
        for key in every_key - {"type"}:
            refused = f'unknown field "shapes[0].{key}"' in read(
                {**shape, key: values.get(key, shape.get(key, 0.5))}
            )
            assert refused == (key not in _props(branch)), (kind, key)
    renamed = {"start": "from", "end": "to"}
    assert every_key - {"bogus"} == {renamed.get(f, f) for f in _fields(d.Shape)}


def test_joint_types_and_fields():
    base = {"name", "type", "body1", "body2"}
    assert _enum("joint") == set(d.JOINT_TYPES) == set(reader.JOINT_FIELDS)
    assert set(DEFS["joint"]["required"]) == base
    union = set()
    for kind, (required, optional) in reader.JOINT_FIELDS.items():
        (branch,) = _branches("joint", {"type": kind})
        assert _props(branch) == base | set(required) | set(optional), kind
        assert set(DEFS[branch]["required"]) == base | set(required), kind
        union |= _props(branch)
    assert union == _fields(d.Joint)
    slip = DEFS["joint_rolling_disk"]["properties"]["slip"]["enum"]
    assert slip == list(d.ROLLING_SLIP)
    for kind in reader.JOINT_FIELDS:
        for key in _props(f"joint_{kind}") & set(reader.JOINT_DIRECTIONS):
            assert DEFS[f"joint_{kind}"]["properties"][key]["$ref"] == "#/$defs/direction"
        for key in _props(f"joint_{kind}") & set(reader.JOINT_VECTORS):
            assert DEFS[f"joint_{kind}"]["properties"][key]["$ref"] == "#/$defs/vec3"


def test_force_types_and_fields():
    base = {"name", "type"}
    assert _enum("force") == set(d.FORCE_TYPES) == set(reader.FORCE_FIELDS)
    assert set(DEFS["force"]["required"]) == base
    union = set()
    for kind, (required, optional) in reader.FORCE_FIELDS.items():
        (branch,) = _branches("force", {"type": kind})
        assert _props(branch) == base | set(required) | set(optional), kind
        assert set(DEFS[branch]["required"]) == base | set(required), kind
        union |= _props(branch)
    assert union == _fields(d.Force)
    contact = DEFS["force_contact"]["properties"]
    assert contact["model"]["enum"] == list(d.CONTACT_MODELS)
    for kind in ("force", "torque"):
        assert DEFS[f"force_{kind}"]["properties"]["frame"]["enum"] == list(d.FRAMES)


def test_sub_objects():
    assert _props("driver") == _fields(d.Driver)
    assert _props("output") == _fields(d.Output)
    assert _props("contactSphere") == _fields(d.SphereRef)
    assert _props("contactPlane") == _fields(d.PlaneRef)
    assert _props("contactMaterials") == _fields(d.ContactMaterials)
    assert _props("friction") == _fields(d.Friction)
    assert _props("trilinearFriction") == _fields(d.TrilinearFriction)
    assert _props("pulley") == _fields(d.PulleyRef)
    assert _props("loop") == _fields(d.Loop)
    assert set(DEFS["loop"]["properties"]["circles"]["items"]["properties"]) == _fields(d.Circle)
    assert DEFS["loop"]["properties"]["initial"]["enum"] == list(d.LOOP_INITIAL)
    assert _props("beltOptions") == _fields(d.BeltOptions)
    assert DEFS["friction"]["properties"]["velocity_tolerance"]["default"] == (
        d.Friction(mu=0.0).velocity_tolerance
    )
    assert _props("material") == _fields(d.Material)
    section = {"shape"}.union(*(set(b["then"]["properties"]) for b in DEFS["section"]["allOf"]))
    assert section == _fields(d.Section)


def test_reader_defaults_equal_schema_defaults():
    data = full_model()
    del data["bodies"][4]["elements"]
    for key in ("nu", "damping"):
        del data["bodies"][4]["material"][key]
    del data["forces"][6]["friction"]["velocity_tolerance"]
    model = reader.read_model(data)  # fields only: one element moves the beam's nodes
    beam = model.body("beam")
    assert beam.elements == DEFS["body_flexible"]["properties"]["elements"]["default"]
    material = DEFS["material"]["properties"]
    assert beam.material.nu == material["nu"]["default"]
    assert beam.material.damping == material["damping"]["default"]
    assert (
        model.forces[6].friction.velocity_tolerance
        == (DEFS["friction"]["properties"]["velocity_tolerance"]["default"])
    )
    assert model.body("strip").section.shape == DEFS["section"]["properties"]["shape"]["default"]


def test_solver_fields_enums_and_defaults():
    solver = DEFS["solver"]["properties"]
    settings = d.SolverSettings()
    assert set(solver) == _fields(d.SolverSettings)
    assert solver["analysis"]["enum"] == list(d.ANALYSES)
    assert solver["coordinates"]["enum"] == list(d.COORDINATES)
    assert solver["formulation"]["enum"] == list(d.FORMULATIONS)
    assert solver["orientation"]["enum"] == list(d.ORIENTATIONS)
    for key, spec in solver.items():
        if "default" in spec:
            assert spec["default"] == getattr(settings, key), key
    # every solver field is accepted by the reader, anything else refused
    for key in solver:
        value = {"output_dt": 0.01, "parameters": {}}.get(key, getattr(settings, key))
        model_from_data({"biela": 1, "solver": {key: value}})
    with pytest.raises(ModelError, match='unknown field "bogus"'):
        model_from_data({"biela": 1, "solver": {"bogus": 1}})


def test_solver_parameters():
    params = DEFS["solver"]["properties"]["parameters"]["properties"]
    assert set(params) == set(reader.SOLVER_PARAMETERS)
    for key, kind in reader.SOLVER_PARAMETERS.items():
        spec = params[key]
        if kind == "positive":
            assert spec["type"] == "number" and spec["exclusiveMinimum"] == 0, key
        elif kind == "nonnegative":
            assert spec["type"] == "number" and spec["minimum"] == 0, key
        elif kind is bool:
            assert spec["type"] == "boolean", key
        elif kind == "count":
            assert spec["type"] == "integer" and spec["minimum"] == 1, key
            assert spec["maximum"] == validation.MAX_LOAD_STEPS, key
        elif all(isinstance(c, str) for c in kind):
            assert spec["enum"] == list(kind), key
        else:
            assert (spec["minimum"], spec["maximum"]) == kind, key


def test_time_function_forms():
    branches = DEFS["timeFunction"]["oneOf"]
    kinds = [b["required"][0] for b in branches if b.get("type") == "object"]
    assert kinds == list(functions.KINDS)
    by_kind = {b["required"][0]: b["properties"] for b in branches if b.get("type") == "object"}
    assert set(by_kind["table"]) == {"table", "interpolation"}
    assert by_kind["table"]["interpolation"]["enum"] == list(functions.INTERPOLATIONS)
    step = by_kind["smooth_step"]["smooth_step"]
    bump = by_kind["smooth_bump"]["smooth_bump"]
    assert list(step["properties"]) == step["required"] == ["t0", "f0", "t1", "f1"]
    assert list(bump["properties"]) == bump["required"] == ["t0", "f0", "tmax", "fmax", "t1", "f1"]
    for key, fields in (("smooth_step", step["required"]), ("smooth_bump", bump["required"])):
        args = dict(zip(fields, (0, 0, 1, 1, 2, 0), strict=False))
        functions.parse_function({key: args})  # the reader takes exactly these keys
        with pytest.raises(ModelError, match="missing"):
            functions.parse_function({key: {k: v for k, v in args.items() if k != "t0"}})
    assert by_kind["expression"]["expression"]["maxLength"] == expression.MAX_LENGTH


def test_expression_pattern_allows_the_grammar_and_nothing_else():
    pattern = DEFS["timeFunction"]["oneOf"][1]["properties"]["expression"]["pattern"]
    names = " ".join(f"{n}(t, 1)" for n in expression.FUNCTIONS)
    assert _matches(pattern, f"-1.5e-3*t**2 + .5/(pi - e) {names}\n\t")
    for bad in ("t^2", "'a'", "t[0]", "t;t", "a=1", "t@t", "{t}"):
        assert not _matches(pattern, bad), bad
        with pytest.raises(ModelError):
            expression.parse_expression(bad)


def test_names_and_reserved_names():
    pattern = DEFS["name"]["pattern"]
    reserved = DEFS["columnName"]["allOf"][1]["not"]["enum"]
    assert set(reserved) == set(validation.RESERVED)
    for good in ("crank", "J 1", "Punkt B₁", "a-b_c#2", "x"):
        assert _matches(pattern, good), good
    for bad in ("", " a", "a ", "a.b", "a,b", "a;b", 'a"b', "a'b", "a\tb", "a\n"):
        assert not _matches(pattern, bad), bad
        data = {"biela": 1, "bodies": [{"name": bad, "mass": 1, "inertia": [1, 1, 1]}]}
        with pytest.raises(ModelError, match="name"):
            model_from_data(data)


def test_direction_and_vector_definitions():
    assert errors([0, 0, 0], DEFS["direction"])
    assert errors([0.0, -0.0, 0], DEFS["direction"])
    assert errors([0, 0, 1e-3], DEFS["direction"]) == []
    assert errors([1, 2], DEFS["vec3"]) and errors([1, 2, "3"], DEFS["vec3"])
    assert errors([1, 0, 0, 0], DEFS["quaternion"]) == []
    assert errors({"axis": [0, 0, 1], "angle": math.pi}, DEFS["quaternion"]) == []


# -- the documentation names everything ---------------------------------------------------


def test_documentation_names_every_type_field_and_parameter():
    text = DOC_PATH.read_text(encoding="utf-8")
    names = set(d.BODY_TYPES) | set(d.JOINT_TYPES) | set(d.FORCE_TYPES) | set(d.SHAPE_TYPES)
    names |= set(d.ANALYSES) | set(d.COORDINATES) | set(d.FORMULATIONS) | set(d.ORIENTATIONS)
    names |= set(d.ROLLING_SLIP) | set(d.CONTACT_MODELS) | set(d.FRAMES)
    names |= set(reader.TOP_FIELDS) | set(reader.SOLVER_PARAMETERS)
    names |= {
        v
        for kind in reader.SOLVER_PARAMETERS.values()
        if isinstance(kind, tuple)
        for v in kind
        if isinstance(v, str)
    }
    names |= set(functions.KINDS) | set(functions.INTERPOLATIONS) | set(validation.RESERVED)
    names |= {k for fields in reader.BODY_FIELDS.values() for k in fields}
    names |= {k for r, o in reader.JOINT_FIELDS.values() for k in r + o}
    names |= {k for r, o in reader.FORCE_FIELDS.values() for k in r + o}
    names |= _fields(d.SolverSettings) | _fields(d.Driver) | _fields(d.Material)
    names |= _fields(d.Section) | _fields(d.SphereRef) | _fields(d.PlaneRef)
    names |= _fields(d.ContactMaterials) | _fields(d.Friction) | {"from", "to", "file", "scale"}
    names |= {"t0", "f0", "t1", "f1", "tmax", "fmax"}
    prose = re.sub(r"```.*?```", "", text, flags=re.S)  # code spans only, not the example
    words = {w for span in re.findall(r"`([^`\n]+)`", prose) for w in re.findall(r"\w+", span)}
    missing = sorted(names - words)
    assert not missing, f"docs/model_format.md does not mention: {missing}"
    assert set(expression.FUNCTIONS) <= words
