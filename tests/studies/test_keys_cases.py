"""Keys into the model data, values, distributions and the cases of a study (no cluster)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from solver.model import load_model
from solver.model.writer import write_model
from solver.studies import (
    StudyError,
    get_value,
    leaf_keys,
    parse_distribution,
    parse_values,
    set_value,
)
from solver.studies.cases import make_cases
from solver.studies.values import split_items

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def pendulum():
    data = json.loads((EXAMPLES / "pendulum.json").read_text(encoding="utf-8"))
    return data, write_model(load_model(EXAMPLES / "pendulum.json"))


def test_keys_address_fields_list_items_by_name_and_vector_components(pendulum):
    data, defaults = pendulum
    assert get_value(data, "bodies.bob.mass") == 1.0
    assert get_value(data, "bodies.bob.position.0") == 1
    assert get_value(data, "joints.bar.point2.0") == 1
    assert get_value(data, "solver.dt") == 0.001
    changed = set_value(data, "bodies.bob.position.1", 0.25, defaults)
    assert changed["bodies"][0]["position"] == [1, 0.25, 0]
    assert data["bodies"][0]["position"] == [1, 0, 0]  # a copy: the original is untouched
    assert set_value(data, "solver.formulation", "penalty")["solver"]["formulation"] == "penalty"


def test_keys_fill_fields_the_file_leaves_out_from_the_writer():
    data = {"biela": 1, "bodies": [{"name": "b", "mass": 2.0, "inertia": [1, 1, 1]}]}
    from solver.model import model_from_data

    defaults = write_model(model_from_data(data))
    # no solver object, no position: both come from the model's defaults
    assert set_value(data, "solver.dt", 0.01, defaults)["solver"]["dt"] == 0.01
    out = set_value(data, "bodies.b.position.2", 3.0, defaults)
    assert out["bodies"][0]["position"] == [0.0, 0.0, 3.0]
    out = set_value(data, "solver.parameters.penalty", 1e8, defaults)
    assert out["solver"]["parameters"] == {"penalty": 1e8}
    assert get_value(data, "solver.t_end", defaults) == 1.0


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("bodies.bobb.mass", ['no item named "bobb"', "bob"]),
        ("bodies.bob.position.3", ["not an index 0..2"]),
        ("bodies.bob.mass.x", ["bodies.bob.mass is a value"]),
        ("nothing.here", ["nothing is not in the model"]),
        ("solver..dt", ["empty segment"]),
    ],
)
def test_keys_that_do_not_address_the_model_are_refused_by_name(pendulum, key, words):
    data, defaults = pendulum
    with pytest.raises(StudyError) as info:
        set_value(data, key, 1.0, defaults)
    assert str(info.value).startswith(f"key {key}:")
    for word in words:
        assert word in str(info.value)


def test_leaf_keys_list_settings_not_names(pendulum):
    keys = leaf_keys(pendulum[0])
    assert "bodies.bob.mass" in keys and "joints.bar.point1.2" in keys and "solver.dt" in keys
    assert not any(k.endswith(".name") or k.endswith(".color") for k in keys)
    assert "solver.max_iterations" in keys  # not in the file, offered all the same


def test_values_parse_numbers_words_json_and_vectors():
    assert parse_values("k", "1e-3,5e-4") == [1e-3, 5e-4]
    assert parse_values("k", "penalty, central_differences") == ["penalty", "central_differences"]
    assert parse_values("k", "[1, 0, 0],[2,0,0]") == [[1, 0, 0], [2, 0, 0]]
    assert parse_values("k", 'true,"x,y"') == [True, "x,y"]
    assert split_items("a(1,2),b") == ["a(1,2)", "b"]
    with pytest.raises(StudyError, match="key k: has an empty value"):
        parse_values("k", "1,,2")


def test_distributions_are_parsed_and_checked():
    d = parse_distribution("m", "uniform(0.5, 2)")
    assert (d.kind, d.a, d.b) == ("uniform", 0.5, 2.0)
    assert parse_distribution("m", ("normal", 1, 0.1)).b == 0.1
    for bad, word in [
        ("uniform(2,1)", "a < b"),
        ("normal(0,-1)", "sigma > 0"),
        ("gamma(1,2)", "not one of"),
        ("uniform(1)", "two numbers"),
        ("uniform(a,b)", "must be numbers"),
        ("1.5", "not a distribution"),
    ]:
        with pytest.raises(StudyError, match=word):
            parse_distribution("m", bad)


def test_grid_is_full_and_its_last_key_varies_fastest(pendulum):
    data, defaults = pendulum
    cases, seed = make_cases(
        data,
        defaults,
        {"solver.formulation": ["penalty", "null_space"], "solver.dt": [1e-3, 2e-3, 4e-3]},
    )
    assert seed is None
    assert [(c.values["solver.formulation"], c.values["solver.dt"]) for c in cases] == [
        (f, h) for f in ("penalty", "null_space") for h in (1e-3, 2e-3, 4e-3)
    ]
    assert [c.model.solver.dt for c in cases] == [1e-3, 2e-3, 4e-3] * 2
    assert cases[4].model.solver.formulation == "null_space"


def test_samples_are_reproducible_independent_and_validated(pendulum):
    data, defaults = pendulum
    sample = {"bodies.bob.mass": "uniform(0.5, 2)", "bodies.bob.velocity.2": "normal(0, 0.1)"}
    a, seed = make_cases(data, defaults, sample=sample, samples=50, seed=11)
    b, _ = make_cases(data, defaults, sample=sample, samples=50, seed=11)
    c, _ = make_cases(data, defaults, sample=sample, samples=50, seed=12)
    assert seed == 11
    assert [x.values for x in a] == [x.values for x in b]
    assert [x.values for x in a] != [x.values for x in c]
    masses = np.array([x.values["bodies.bob.mass"] for x in a])
    kicks = np.array([x.values["bodies.bob.velocity.2"] for x in a])
    assert masses.min() >= 0.5 and masses.max() < 2.0 and masses.std() > 0.2
    assert abs(np.corrcoef(masses, kicks)[0, 1]) < 0.5  # two keys, two streams
    assert [x.model.bodies[0].mass for x in a] == list(masses)
    # the first draws do not depend on how many are drawn
    few, _ = make_cases(data, defaults, sample=sample, samples=3, seed=11)
    assert [x.values for x in few] == [x.values for x in a[:3]]
    # with a grid, every grid point runs the same draws
    both, _ = make_cases(data, defaults, {"solver.dt": [1e-3, 2e-3]}, sample, samples=2, seed=11)
    assert [x.values["bodies.bob.mass"] for x in both] == list(masses[:2]) * 2


def test_values_the_format_refuses_name_the_key(pendulum):
    data, defaults = pendulum
    with pytest.raises(
        StudyError, match=r"^key solver\.dt: value -1 is refused: solver: dt must be positive"
    ):
        make_cases(data, defaults, {"solver.dt": [1e-3, -1]})
    with pytest.raises(
        StudyError, match=r'^key bodies\.bob\.mss: .*unknown field "mss" \(did you mean "mass"\?\)'
    ):
        make_cases(data, defaults, {"bodies.bob.mss": [1.0]})
    with pytest.raises(
        StudyError, match=r"^key solver\.formulation: value euler is refused: .*is not one of"
    ):
        make_cases(data, defaults, {"solver.formulation": ["penalty", "euler"]})
    with pytest.raises(
        StudyError, match=r"^keys solver\.dt, solver\.t_end: case 1: .*larger than t_end"
    ):
        make_cases(data, defaults, {"solver.dt": [1e-3, 2e-3], "solver.t_end": [0.0015]})
    with pytest.raises(StudyError, match=r"^key bodies\.bob\.mass: sample \d+: value -"):
        make_cases(data, defaults, sample={"bodies.bob.mass": "normal(0.1, 1)"}, samples=20, seed=1)
    with pytest.raises(StudyError, match="names cannot be varied"):
        make_cases(data, defaults, {"outputs.P.name": ["Q"]})
    with pytest.raises(StudyError, match="nothing to vary"):
        make_cases(data, defaults)
    with pytest.raises(StudyError, match="samples must be a whole number"):
        make_cases(data, defaults, sample={"bodies.bob.mass": "uniform(1,2)"})


def test_the_warm_up_runs_one_case_per_solver_set_up(pendulum):
    from solver.studies.warmup import representatives

    data, defaults = pendulum
    cases, _ = make_cases(
        data, defaults,
        {"solver.formulation": ["penalty", "null_space"], "solver.dt": [1e-3, 2e-3],
         "solver.parameters.scheme": ["trapezoidal", "fox_goodwin"], "bodies.bob.mass": [1.0, 2.0]},
    )  # fmt: skip
    chosen = representatives(c.model for c in cases)
    assert len(cases) == 16 and len(chosen) == 4  # formulation x scheme; numbers do not count
    assert {(m.solver.formulation, m.solver.parameters["scheme"]) for m in chosen} == {
        (f, s) for f in ("penalty", "null_space") for s in ("trapezoidal", "fox_goodwin")
    }
