"""A driver's or force's time function that becomes NaN, infinite or overflowing: the run
stops naming the item, the field, the function and the time (not as a failed projection
or Newton iteration), and keeps the frames computed before it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from solver import check, load_model, simulate
from solver.analysis.errors import NonFiniteFunction
from solver.cli import main
from solver.mechanics.item_functions import ItemFunction, checked_force
from solver.model import description as d
from solver.model import model_from_data
from solver.model.functions import Constant, parse_function

ROOT = Path(__file__).resolve().parents[2]
FORMULATIONS = (
    "central_differences",
    "augmented_lagrangian",
    "penalty",
    "null_space",
    "lagrange_baumgarte",
)


def four_bar(expression: str, analysis: str = "kinematic") -> dict:
    data = json.loads((ROOT / "examples" / "four_bar_planar.json").read_text())
    data["drivers"][0]["function"] = {"expression": expression}
    data["solver"].update(analysis=analysis, dt=1e-3, t_end=0.05, output_dt=1e-3)
    return data


def rigid_pendulum(force: dict) -> dict:
    return {
        "biela": 1,
        "gravity": [0, -9.81, 0],
        "bodies": [{"name": "bar", "mass": 1.0, "inertia": [1e-3, 0.0833, 0.0833],
                    "position": [0.5, 0, 0]}],
        "joints": [{"name": "R", "type": "revolute", "body1": "ground", "body2": "bar",
                    "point": [0, 0, 0], "axis": [0, 0, 1]}],
        "forces": [force],
        "solver": {"dt": 1e-3, "t_end": 0.05, "output_dt": 1e-3},
    }  # fmt: skip


def push(component: str, kind: str = "force") -> dict:
    force = {
        "name": "push",
        "type": kind,
        "body": "bar",
        "vector": [0, {"expression": component}, 0],
    }
    if kind == "force":
        force["point"] = [1, 0, 0]
    return force


def assert_stopped(result, t: float, *phrases: str) -> None:
    assert result.status == "failed"
    assert result.message.startswith(f"solver stopped at t = {t:g} s: "), result.message
    for phrase in phrases:
        assert phrase in result.message, (phrase, result.message)
    assert "projection" not in result.message and "did not converge" not in result.message
    if len(result):  # the frames before the failure, finite
        assert result.t[-1] < t
        assert np.isfinite(result.data).all()


@pytest.mark.parametrize("analysis", ["kinematic", "dynamic"])
def test_a_driver_that_reaches_a_square_root_of_zero(analysis):
    result = simulate(model_from_data(four_bar("sqrt(0.02-t)", analysis)))
    assert_stopped(result, 0.02, 'drivers[0] "beta"', 'function "sqrt(0.02-t)"', "at t = 0.02 s")
    assert len(result) >= 15  # every millisecond up to the failure


def test_a_driver_whose_rate_is_infinite_at_the_start():
    """``sqrt(t)``: finite at t = 0, its derivative (the driver's velocity) is not."""
    model = model_from_data(four_bar("sqrt(t)"))
    result = simulate(model)
    assert_stopped(result, 0.0, 'drivers[0] "beta": the first derivative of function "sqrt(t)"')
    assert len(result) == 0
    with pytest.raises(NonFiniteFunction, match=r'drivers\[0\] "beta"'):
        check(model)


def test_a_driver_that_overflows():
    result = simulate(model_from_data(four_bar("1e300*t")))
    assert_stopped(result, 0.0, "1e+300", "beyond the 1e+30")


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_a_force_that_becomes_nan_is_named_whatever_the_formulation(formulation):
    model = model_from_data(rigid_pendulum(push("log(0.02-t)")))
    result = simulate(model, formulation=formulation)
    assert_stopped(result, 0.02, 'forces[0] "push": vector[1] "log(0.02-t)" is ')
    # -inf where the step ends at t = 0.02 exactly (the compiled augmented Lagrangian's
    # times are k dt), NaN where the sum of the steps has gone past it
    assert "is -inf at t = 0.02 s" in result.message or "is NaN" in result.message
    assert len(result) >= 15


@pytest.mark.parametrize(
    ("component", "says"),
    [("1/t", 'vector[1] "1/t" is inf'), ("10**10**10", "is inf"), ("sqrt(-1)", "is NaN")],
)
def test_forces_that_are_not_numbers_from_the_start(component, says):
    result = simulate(model_from_data(rigid_pendulum(push(component))))
    assert_stopped(result, 0.0, 'forces[0] "push": ', says)


def test_torques_actuators_and_joint_torques_are_checked_too():
    torque = simulate(model_from_data(rigid_pendulum(push("1/max(0.02-t, 0)", "torque"))))
    assert_stopped(torque, 0.02, 'forces[0] "push": vector[1] "1/max(0.02-t, 0)" is inf')
    joint = rigid_pendulum({"name": "m", "type": "joint_torque", "joint": "R",
                            "function": {"expression": "acos(1+t)"}})  # fmt: skip
    assert_stopped(simulate(model_from_data(joint)), 0.001, 'forces[0] "m": function', "NaN")


def test_the_command_line_writes_what_was_computed(tmp_path, capsys):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(four_bar("sqrt(0.02-t)")))
    out, summary = tmp_path / "out.csv", tmp_path / "out.json"
    assert main(["run", str(path), "--csv", str(out), "--summary", str(summary)]) == 3
    err = capsys.readouterr().err
    assert 'model.json: solver stopped at t = 0.02 s: drivers[0] "beta": ' in err
    assert "; try: give drivers[0]" in err
    rows = out.read_text().splitlines()
    written = json.loads(summary.read_text())
    assert written["status"] == "failed" and written["frames"] == len(rows) - 1 == 20


def test_check_refuses_a_driver_unusable_at_the_start(tmp_path, capsys):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(four_bar("sqrt(t)")))
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert (
        err
        == 'model.json: drivers[0] "beta": the first derivative of function "sqrt(t)" is inf at t = 0 s'
    )


def test_the_error_is_not_taken_for_a_matrix_failure():
    """Formulations catch ``RuntimeError`` and ``ValueError`` around their solves (a
    singular matrix); the function's error must pass through them."""
    assert not issubclass(NonFiniteFunction, RuntimeError | ValueError)


def test_checked_functions_keep_values_equality_and_constants():
    f = parse_function({"expression": "sqrt(1 - t)"})
    checked = ItemFunction(f, 'forces[0] "x"', "actuator", 1)
    assert checked.derivatives(0.75) == f.derivatives(0.75)
    assert checked == f and hash(checked) == hash(f)  # grouping of equal functions
    np.testing.assert_array_equal(checked(np.array([0.0, 0.5])), [1.0, np.sqrt(0.5)])
    with pytest.raises(NonFiniteFunction) as info:
        checked(np.array([0.0, 0.5, 2.0, 3.0]))
    assert info.value.t == 2.0 and info.value.order == 0
    # a force uses the value only: an infinite derivative at t = 1 is not its problem
    assert checked(1.0) == 0.0
    with pytest.raises(NonFiniteFunction):
        ItemFunction(f, 'drivers[0] "y"', "function", 3)(1.0)
    force = d.Force("c", "force", body="b", point=(0, 0, 0), vector=(Constant(1.0), f, Constant(0)))
    vector = checked_force(0, force).vector
    assert vector[0] is force.vector[0] and isinstance(vector[1], ItemFunction)


def test_finite_functions_run_as_before():
    model = load_model(ROOT / "examples" / "four_bar_spatial.json")
    result = simulate(model, t_end=0.02)
    assert result.status == "ok", result.message
