"""What a model file may contain: regular files only, read no further than the size limit;
unique JSON keys; numbers within 1e±30 (no overflow, no subnormal arithmetic, no integer
literals of hundreds of digits); text without unpaired surrogates, names without control
or format characters, every message printable; ASCII digits in expressions."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from solver import ModelError, load_model
from solver.model import io, model_from_data
from solver.model.errors import printable
from solver.model.expression import parse_expression
from solver.model.fields import MAX_MAGNITUDE, MIN_POSITIVE, describe, number_problem
from tests.solver.model_samples import full_model

ROOT = Path(__file__).resolve().parents[2]


# ---- files -------------------------------------------------------------------------------
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(ModelError, match="pipe.json: is a named pipe, not a model file"):
        load_model(tmp_path / "pipe.json")


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_a_device_is_refused_before_reading(device, monkeypatch):
    reads = []
    monkeypatch.setattr(os, "read", lambda *a: reads.append(a) or b"")
    with pytest.raises(ModelError, match="is a character device"):
        load_model(device)
    assert reads == []


def test_a_symbolic_link_loop_is_a_model_error(tmp_path):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    with pytest.raises(ModelError, match="a.json: cannot be read .Too many levels of symbolic"):
        load_model(tmp_path / "a.json")


def test_reading_stops_at_the_limit_whatever_size_the_file_claims(monkeypatch):
    """Files in /proc report a size of 0: the limit counts the bytes actually read."""
    monkeypatch.setattr(io, "MAX_FILE_SIZE", 100)
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(ModelError, match="status: is more than 0 MB; a model file must be"):
        load_model("/proc/self/status")


def test_a_large_file_is_refused_by_its_size(tmp_path):
    with open(tmp_path / "big.json", "wb") as fh:
        fh.truncate(io.MAX_FILE_SIZE + 1)
    with pytest.raises(ModelError, match="big.json: is 67 MB"):
        load_model(tmp_path / "big.json")


def test_a_number_of_thousands_of_digits_is_named(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"biela": 1, "gravity": [0, 0, 1' + "0" * 5000 + "]}")
    with pytest.raises(ModelError, match="m.json: has a number of more than 4300 digits"):
        load_model(path)


# ---- duplicate keys ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('"name": "Everything"', '"name": "A", "name": "Everything"', "model: name is given twice"),
        ('"mass": 0.5', '"mass": 0.5, "mass": 5', 'bodies[0] "crank": mass is given twice'),
        ('"radius": 0.05', '"radius": 0.05, "radius": 1', 'bodies[0] "crank": shapes[0].radius'),
        ('"E": ', '"E": 1, "E": ', 'bodies[4] "beam": material.E is given twice'),
        ('"dt": ', '"dt": 1, "dt": ', "solver: dt is given twice"),
        ('"xi": ', '"xi": 2, "xi": ', "solver: parameters.xi is given twice"),
    ],
)
def test_a_key_given_twice_is_named_with_its_item(old, new, says, tmp_path):
    text = json.dumps(full_model())
    assert old in text
    path = tmp_path / "model.json"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value).startswith(f"model.json: {says}"), info.value


# ---- numbers -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "positive", "problem"),
    [
        (1.0, True, None),
        (MAX_MAGNITUDE, False, None),
        (-MAX_MAGNITUDE, False, None),
        (MIN_POSITIVE, True, None),
        (1e-300, False, None),  # a tiny coordinate is harmless: only positive quantities
        (0.0, False, None),
        (1e31, False, "is too large (1e+31)"),
        (-1e308, False, "is too large (-1e+308)"),
        (10**400, False, "is too large (a whole number of about 401 digits)"),
        (5e-324, True, "is too small (4.94066e-324)"),
        (1e-31, True, "is too small"),
        (0.0, True, "must be positive (got 0)"),
        (float("inf"), False, "must be a finite number, not inf"),
        (float("nan"), True, "must be a finite number, not nan"),
        ("1", False, 'must be a number, not "1"'),
        (True, False, "must be a number, not True"),
    ],
)
def test_the_rule_for_every_number(value, positive, problem):
    found = number_problem(value, positive)
    if problem is None:
        assert found is None
    else:
        assert problem in found, found


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        (["bodies", 0, "mass"], 10**400, 'bodies[0] "crank": mass is too large'),
        (["bodies", 0, "inertia"], [1e308, 1e308, 1e308], "inertia[0] is too large"),
        (["bodies", 0, "inertia"], [5e-324] * 3, "inertia has a principal moment of 4.941e-324"),
        (["bodies", 3, "mass"], 5e-324, 'bodies[3] "bob": mass is too small'),
        (["joints", 0, "axis"], [0, 1e300, 1e300], 'joints[0] "J1": axis[1] is too large'),
        (["joints", 7, "length"], 1e308, 'joints[7] "J8": length is too large'),
        (["bodies", 4, "elements"], 10**30, 'bodies[4] "beam": elements must be at most 10000'),
        (["solver", "max_iterations"], 1e30, "solver: max_iterations must be at most 1000000"),
        (["solver", "t_end"], 1e300, "solver: t_end (1e+300 s) / dt (0.001 s) is 1e+303"),
        (["biela"], 10**400, "a whole number of about 401 digits"),
    ],
)
def test_values_that_would_overflow_or_underflow_are_refused(path, value, says):
    data = full_model()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ModelError) as info:
        model_from_data(data)
    assert says in str(info.value)


def test_a_light_body_still_reads():
    """The limits are far from real bodies: a 1e-30 kg body with 1e-30 kg·m² reads."""
    data = full_model()
    data["bodies"][0].update(mass=1e-30, inertia=[1e-30, 1e-30, 1e-30])
    assert model_from_data(data).bodies[0].mass == 1e-30


# ---- text --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "bad", ["\x1b", "\x7f", "\x9b", "\u202e", "\u200b", "\n", "\t", "\u2028", "\ud800"]
)
def test_names_hold_printable_characters_only(bad):
    data = full_model()
    data["outputs"][0]["name"] = f"P{bad}5"
    with pytest.raises(ModelError) as info:
        model_from_data(data)
    message = str(info.value)
    assert message.startswith('outputs[0] "P')
    assert bad not in message and message.isprintable()
    assert repr(bad)[1:-1] in message  # shown as its escape


@pytest.mark.parametrize("field", ["name", "description"])
def test_an_unpaired_surrogate_is_refused_anywhere(field):
    data = full_model()
    data[field] = "text \udc80 here"
    with pytest.raises(ModelError, match=rf"model: {field} contains an unpaired UTF-16 surrogate"):
        model_from_data(data)


def test_every_message_is_printable():
    data = full_model()
    data["joints"][0]["body2"] = "\x1b]0;title\x07\x1b[2J"
    with pytest.raises(ModelError) as info:
        model_from_data(data)
    assert str(info.value).isprintable()
    assert '"\\x1b]0;title\\x07\\x1b[2J" does not exist' in str(info.value)
    assert printable("crème brûlée ∂Φ") == "crème brûlée ∂Φ"
    assert describe(10**400) == "a whole number of about 401 digits"


def test_the_model_name_is_free_text_but_printed_escaped(tmp_path, capsys):
    from solver.cli import main

    data = json.loads((ROOT / "examples" / "pendulum.json").read_text())
    data["name"] = "pendulum\x1b[2J"
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and 'model "pendulum\\x1b[2J"' in out


# ---- expressions -------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["\u0661*t", "2*\uff11", "t*\u0969", "t\u00b2", "\u2155"])
def test_expressions_take_ascii_digits_only(text):
    with pytest.raises(ModelError, match="is not an ASCII digit; write numbers with the digits"):
        parse_expression(text, "drivers[0]", "function")


def test_ascii_numbers_still_parse():
    assert parse_expression("1.5e-3*t + .5 + 2.").derivatives(2.0)[0] == pytest.approx(2.503)


# ---- contacts that start deep inside -----------------------------------------------------
def test_a_sphere_starting_inside_its_plane_gives_a_warning():
    data = json.loads((ROOT / "examples" / "ball_drop.json").read_text())
    ball = copy.deepcopy(data)
    ball["bodies"][0]["position"] = ball["forces"][0]["sphere"]["center"] = [0, 0, -10]
    model = model_from_data(ball)
    assert len(model.warnings) == 1
    assert model.warnings[0].startswith('forces[0] "floor": the sphere starts with its centre 10')
    resting = copy.deepcopy(data)  # touching, or compressed by its weight: no warning
    resting["bodies"][0]["position"] = resting["forces"][0]["sphere"]["center"] = [0, 0, 0.05]
    assert model_from_data(resting).warnings == []
    resting["forces"][0]["sphere"]["center"] = [0, 0, 0.04999]
    assert model_from_data(resting).warnings == []


def test_spheres_starting_inside_each_other_give_a_warning_once():
    from solver import check

    data = {
        "biela": 1,
        "bodies": [{"name": n, "type": "point_mass", "mass": 1.0, "position": [x, 0, 0]}
                   for n, x in (("a", 0.0), ("b", 0.05))],
        "forces": [{"name": "c", "type": "contact", "stiffness": 1e6,
                    "sphere": {"body": "a", "center": [0, 0, 0], "radius": 0.05},
                    "sphere2": {"body": "b", "center": [0.05, 0, 0], "radius": 0.05}}],
    }  # fmt: skip
    model = model_from_data(data)
    assert [w for w in model.warnings if "0.05 m into the other sphere" in w]
    assert len(check(model).warnings) == 1


def test_no_example_starts_inside_a_contact():
    for path in sorted((ROOT / "examples").glob("*.json")):
        assert load_model(path).warnings == [], path.name
