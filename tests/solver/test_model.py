"""Model files: round trips, and every validation mistake named by item and field."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver import load_model, save_model
from solver.cli import main as cli_main
from solver.model import ModelError, model_from_data, model_to_json, parse_model_text
from solver.model.mass_properties import body_mass_properties
from tests.solver.model_samples import full_model

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def test_there_are_examples():
    assert any(p.name == "pendulum.json" for p in EXAMPLES)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_round_trip(path, tmp_path):
    model = load_model(path)
    out = tmp_path / path.name
    save_model(model, out)
    again = load_model(out)
    assert again == model
    save_model(again, tmp_path / "second.json")
    assert (tmp_path / "second.json").read_text() == out.read_text()


def test_full_model_round_trip(tmp_path):
    model = model_from_data(full_model())
    path = tmp_path / "full.json"
    save_model(model, path)
    again = load_model(path)
    assert again == model
    # the file keeps the compact forms the user wrote
    data = json.loads(path.read_text())
    assert data["bodies"][0]["inertia"] == [0.03, 0.03, 0.04]
    assert "mass" not in data["bodies"][2] and data["bodies"][2]["density"] == 7800
    assert data["bodies"][0]["shapes"][0]["from"] == [0, 0, -1]
    assert data["drivers"][0]["function"] == {"expression": "2*pi*t"}
    assert data["forces"][4]["function"] == 20


def test_round_trip_detects_a_change(tmp_path):
    model = model_from_data(full_model())
    other = model_from_data(full_model())
    other.joints[0].axis = (0.0, 1.0, 0.0)
    assert other != model


def test_axis_angle_orientation_becomes_euler_parameters():
    model = model_from_data(full_model())
    q = model.body("coupler").orientation
    assert q == pytest.approx((math.cos(0.3), 0.0, 0.0, math.sin(0.3)))


def test_density_gives_mass_centre_and_inertia():
    model = model_from_data(full_model())
    block = model.body("block")
    box = 7800 * 0.2 * 0.1 * 0.05
    sphere = 7800 * 4 / 3 * math.pi * 0.05**3
    rod = 7800 * math.pi * 0.01**2 * 1.0
    assert block.mass == pytest.approx(box + sphere + rod)
    z = (box * 1.0 + sphere * 1.2 + rod * 1.5) / block.mass
    assert block.position == pytest.approx((1.0, 1.0, z))
    j = np.array(block.inertia)
    assert np.allclose(j, j.T)
    assert np.all(np.linalg.eigvalsh(j) > 0)


def test_box_inertia_in_body_axes_is_independent_of_orientation():
    from solver.model.description import Shape

    c, s = math.cos(0.4), math.sin(0.4)
    q = (c, 0.0, 0.0, s)  # body rotated 0.8 rad about z, the box rotated with it
    box = Shape("box", center=(0, 0, 0), size=(0.4, 0.2, 0.1), orientation=q)
    m, _, j = body_mass_properties([box], 1000.0, q)
    expected = m / 12 * np.diag([0.2**2 + 0.1**2, 0.4**2 + 0.1**2, 0.4**2 + 0.2**2])
    assert np.allclose(j, expected, atol=1e-12)


def test_near_unit_quaternion_is_normalised_with_a_warning():
    data = full_model()
    data["bodies"][0]["orientation"] = [1.0004, 0, 0, 0]
    model = model_from_data(data)
    assert model.body("crank").orientation == (1.0, 0.0, 0.0, 0.0)
    assert any('bodies[0] "crank"' in w and "normalised" in w for w in model.warnings)


def _set(path, value):
    """A mutation of the sample: set ``path`` (keys and indices) to ``value``."""

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


def _append(key, item):
    def apply(data):
        data.setdefault(key, []).append(item)

    return apply


MISTAKES = {
    "unknown joint body": (
        _set(["joints", 2, "body2"], "crank2"),
        'joints[2] "J3": body2 "crank2" does not exist',
    ),
    "unknown force body": (
        _set(["forces", 0, "body1"], "nobody"),
        'forces[0] "S1": body1 "nobody" does not exist',
    ),
    "unknown output body": (
        _set(["outputs", 0, "body"], "ghost"),
        'outputs[0] "P5": body "ghost" does not exist',
    ),
    "unknown driver joint": (
        _set(["drivers", 0, "joint"], "J99"),
        'drivers[0] "motor": joint "J99" does not exist',
    ),
    "driver on a spherical joint": (
        _set(["drivers", 0, "joint"], "J2"),
        'drivers[0] "motor": joint "J2" is a spherical joint',
    ),
    "joint torque on a prismatic joint": (
        _set(["forces", 4, "joint"], "J3"),
        'forces[4] "JT": joint "J3" is a prismatic joint',
    ),
    "duplicate body name": (
        _set(["bodies", 1, "name"], "crank"),
        'bodies[1] "crank": name "crank" is already used by bodies[0] "crank"',
    ),
    "duplicate joint name": (
        _set(["joints", 1, "name"], "J1"),
        'joints[1] "J1": name "J1" is already used by joints[0] "J1"',
    ),
    "output named like a body": (
        _set(["outputs", 0, "name"], "crank"),
        'outputs[0] "crank": name "crank" is already used by bodies[0] "crank"',
    ),
    "body called ground": (_set(["bodies", 0, "name"], "ground"), '"ground" is reserved'),
    "name with a dot": (_set(["bodies", 0, "name"], "a.b"), "must not contain"),
    "empty name": (_set(["joints", 0, "name"], " "), "joints[0]"),
    "negative mass": (
        _set(["bodies", 0, "mass"], -1),
        'bodies[0] "crank": mass must be positive (got -1)',
    ),
    "zero mass": (_set(["bodies", 3, "mass"], 0), 'bodies[3] "bob": mass must be positive'),
    "missing mass": (_delete(["bodies", 0, "mass"]), 'bodies[0] "crank": mass is missing'),
    "string mass": (_set(["bodies", 0, "mass"], "heavy"), "mass must be a number"),
    "boolean mass": (_set(["bodies", 0, "mass"], True), "mass must be a number"),
    "inertia not symmetric": (
        _set(["bodies", 1, "inertia"], [[0.2, 0.01, 0], [0.0, 0.3, 0], [0, 0, 0.4]]),
        'bodies[1] "coupler": inertia is not symmetric',
    ),
    "inertia not positive definite": (
        _set(["bodies", 0, "inertia"], [0.03, -0.01, 0.04]),
        'bodies[0] "crank": inertia is not positive definite',
    ),
    "inertia zero moment": (
        _set(["bodies", 0, "inertia"], [0.03, 0.0, 0.04]),
        "inertia is not positive definite",
    ),
    "inertia violates triangle inequality": (
        _set(["bodies", 0, "inertia"], [0.01, 0.01, 0.05]),
        'bodies[0] "crank": inertia violates the triangle inequality',
    ),
    "inertia wrong shape": (_set(["bodies", 0, "inertia"], [1, 2]), "inertia must be"),
    "zero axis": (
        _set(["joints", 0, "axis"], [0, 0, 0]),
        'joints[0] "J1": axis has zero length',
    ),
    "zero normal": (
        _set(["joints", 5, "normal"], [0, 0, 0]),
        'joints[5] "J6": normal has zero length',
    ),
    "zero plane normal in contact": (
        _set(["forces", 6, "plane", "normal"], [0, 0, 0]),
        'forces[6] "C1": plane.normal has zero length',
    ),
    "zero contact radius": (
        _set(["forces", 6, "sphere", "radius"], 0),
        'forces[6] "C1": sphere.radius must be positive',
    ),
    "negative contact stiffness": (
        _set(["forces", 6, "stiffness"], -5),
        'forces[6] "C1": stiffness must not be negative',
    ),
    "parallel universal axes": (
        _set(["joints", 4, "axis2"], [2, 0, 0]),
        'joints[4] "J5": axis2 is parallel to axis1',
    ),
    "quaternion far from unit": (
        _set(["bodies", 0, "orientation"], [1, 1, 0, 0]),
        'bodies[0] "crank": orientation is not a unit quaternion',
    ),
    "unknown body field": (
        _set(["bodies", 0, "colour"], "red"),
        'bodies[0] "crank": unknown field "colour" (did you mean "color"?)',
    ),
    "unknown joint field": (
        _set(["joints", 0, "axis2"], [1, 0, 0]),
        'joints[0] "J1": unknown field "axis2"',
    ),
    "unknown top-level field": (_set(["contacts"], []), 'unknown field "contacts"'),
    "unknown solver field": (_set(["solver", "stepsize"], 1), 'solver: unknown field "stepsize"'),
    "unknown solver parameter": (
        _set(["solver", "parameters", "magic"], 1),
        'solver: unknown field "parameters.magic"',
    ),
    "unknown joint type": (
        _set(["joints", 0, "type"], "hinge"),
        'joints[0] "J1": type "hinge" is not one of',
    ),
    "unknown body type": (_set(["bodies", 0, "type"], "soft"), 'bodies[0] "crank": type "soft"'),
    "unknown force type": (_set(["forces", 0, "type"], "magnet"), 'forces[0] "S1": type "magnet"'),
    "unknown formulation": (
        _set(["solver", "formulation"], "magic"),
        'solver: formulation "magic" is not one of',
    ),
    "missing joint point": (_delete(["joints", 1, "point"]), 'joints[1] "J2": point is missing'),
    "joint to itself": (
        _set(["joints", 1, "body2"], "crank"),
        'joints[1] "J2": body2 "crank" is also body1',
    ),
    "revolute on a point mass": (
        _set(["joints", 0, "body2"], "bob"),
        'joints[0] "J1": body2 "bob" is a point mass',
    ),
    "flexible joint off a node": (
        _set(["joints", 11, "point"], [1.3, 0, 3]),
        'joints[11] "J12": point [1.3, 0, 3] is not a node of flexible body "beam"',
    ),
    "planar beam out of plane": (
        _set(["bodies", 6, "points"], [[0, 0, 0], [1, 0, 1]]),
        'bodies[6] "strip": points a planar beam',
    ),
    "negative Young's modulus": (
        _set(["bodies", 4, "material", "E"], -1),
        'bodies[4] "beam": material.E must be positive',
    ),
    "zero elements": (_set(["bodies", 4, "elements"], 0), "elements must be at least 1"),
    "bad function": (
        _set(["drivers", 0, "function"], {"expression": "__import__('os')"}),
        'drivers[0] "motor": function',
    ),
    "bad vector component": (
        _set(["forces", 2, "vector"], [1, {"expression": "().__class__"}, 0]),
        'forces[2] "F1": vector[1]',
    ),
    "negative dt": (_set(["solver", "dt"], -0.001), "solver: dt must be positive"),
    "dt larger than t_end": (_set(["solver", "dt"], 10), "solver: dt (10 s) is larger than t_end"),
    "contact without second surface": (
        _delete(["forces", 6, "plane"]),
        'forces[6] "C1": plane give either plane or sphere2',
    ),
    "restitution above one": (
        _set(["forces", 6, "restitution"], 1.5),
        'forces[6] "C1": restitution must be in (0, 1]',
    ),
    "vector wrong length": (_set(["gravity"], [0, -9.81]), "gravity must be a list of 3 numbers"),
    "newer format": (_set(["biela"], 2), "newer Biela"),
    "no format version": (_delete(["biela"]), '"biela" format version field is missing'),
    "density and mass": (
        _set(["bodies", 2, "mass"], 1.0),
        'bodies[2] "block": mass must not be given with density',
    ),
    "twice driven": (
        _set(["drivers", 3, "coordinate"], "angle"),
        'drivers[3] "push": joint the angle of joint "J4" is already driven',
    ),
    "bodies not a list": (_set(["bodies"], {"a": 1}), "bodies must be a list"),
}


@pytest.mark.parametrize("case", list(MISTAKES), ids=list(MISTAKES))
def test_mistake_is_named(case, tmp_path, capsys):
    mutate, expected = MISTAKES[case]
    data = full_model()
    mutate(data)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value).startswith("model.json: ")
    assert expected in str(info.value)
    # the command line gives exit 1 and exactly that one line, no traceback
    assert cli_main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == str(info.value)
    assert "Traceback" not in err


def test_the_sample_itself_is_valid(tmp_path, capsys):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(full_model()))
    assert cli_main(["check", str(path)]) == 0
    assert "valid" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"biela": 1,\n  "name": "x",\n  "bodies": [}', "line 3, column 14"),
        ('{"biela": 1, "name": "x",}', "line 1, column 26"),
        ("", "line 1, column 1"),
        ('{"biela": 1, "gravity": [0, 0, NaN]}', "NaN is not allowed"),
        ("[1, 2]", "must hold a JSON object"),
    ],
)
def test_malformed_json_names_line_and_column(text, where):
    with pytest.raises(ModelError) as info:
        parse_model_text(text, "bad.json")
    assert str(info.value).startswith("bad.json: ")
    assert where in str(info.value)


def test_missing_file(tmp_path, capsys):
    assert cli_main(["check", str(tmp_path / "nope.json")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_cli_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        cli_main(["check"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        cli_main(["frobnicate", "x.json"])
    assert info.value.code == 2


def test_console_script_check(tmp_path):
    data = full_model()
    data["joints"][2]["body2"] = "crank2"
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    cmd = [sys.executable, "-m", "solver.cli", "check", str(path)]
    bad = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1
    assert bad.stderr.strip() == 'model.json: joints[2] "J3": body2 "crank2" does not exist'
    good = subprocess.run(
        [sys.executable, "-m", "solver.cli", "check", str(ROOT / "examples" / "pendulum.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert good.returncode == 0, good.stderr
    assert "degrees of freedom (Grübler): 2" in good.stdout


def test_model_to_json_is_valid_json_and_stable():
    model = model_from_data(full_model())
    text = model_to_json(model)
    assert model_from_data(json.loads(text)) == model


def test_shape_center_defaults_to_the_body_position():
    """Box, sphere and mesh centres left out of a hand-written model sit at the body's
    position; given ones are kept. With a density the default makes the body's centre of
    mass its position."""
    from solver.model import model_from_data

    body = {
        "name": "b",
        "mass": 1,
        "inertia": [1, 1, 1],
        "position": [1, 2, 3],
        "shapes": [
            {"type": "box", "size": [1, 1, 1]},
            {"type": "sphere", "radius": 0.1},
            {"type": "mesh", "file": "part.stl"},
            {"type": "sphere", "center": [0, 0, 0], "radius": 0.1},
        ],
    }
    shapes = model_from_data({"biela": 1, "bodies": [body]}).bodies[0].shapes
    assert [s.center for s in shapes] == [(1, 2, 3), (1, 2, 3), (1, 2, 3), (0, 0, 0)]
    point = {"name": "p", "type": "point_mass", "mass": 1, "position": [0, 1, 0]}
    point["shapes"] = [{"type": "sphere", "radius": 0.05}]
    dense = {"name": "d", "density": 7800, "position": [4, 5, 6]}
    dense["shapes"] = [{"type": "sphere", "radius": 0.1}]
    m = model_from_data({"biela": 1, "bodies": [point, dense]})
    assert m.bodies[0].shapes[0].center == (0, 1, 0)
    assert m.bodies[1].position == pytest.approx((4, 5, 6))
    assert m.bodies[1].mass == pytest.approx(7800 * 4 / 3 * np.pi * 0.1**3)
