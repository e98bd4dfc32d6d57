"""One set of rules for the solver settings (``check_settings``), whether they come from a
model file, ``simulate()``'s keyword arguments or ``biela run``'s options: the same value is
refused in all three, each message naming the field as the user gave it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver import ModelError, Simulation, load_model, simulate
from solver.cli import main
from solver.model import description as d
from solver.model.validation import MAX_STEPS, check_settings

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = ROOT / "examples" / "pendulum.json"

# field, value, what the file's message says after "solver: ", the CLI option (or None)
BAD = [
    ("dt", 0, "dt must be positive", "--dt"),
    ("dt", -1e-3, "dt must be positive", "--dt"),
    ("t_end", -1, "t_end must be positive", "--t-end"),
    ("tolerance", 0, "tolerance must be positive", "--tolerance"),
    ("output_dt", 1e-6, "output_dt (1e-06 s) is smaller than dt (0.001 s)", "--output-dt"),
    ("dt", 20, "dt (20 s) is larger than t_end (10 s)", "--dt"),
    ("t_end", 1e8, "t_end (1e+08 s) / dt (0.001 s) is 1e+11 time steps", "--t-end"),
    ("dt", 1e-40, "dt is too small (1e-40)", "--dt"),
    ("coordinates", "polar", 'coordinates "polar" is not one of', None),
    ("analysis", "sideways", 'analysis "sideways" is not one of', None),
    ("formulation", "magic", 'formulation "magic" is not one of', None),
    ("orientation", "quaternion", 'orientation "quaternion" is not one of', None),
    ("max_iterations", 1e30, "max_iterations must be at most 1000000", None),
    ("max_iterations", 0, "max_iterations must be at least 1", None),
    ("max_iterations", 2.5, "max_iterations must be a whole number", None),
    ("dt", "0.1", 'dt must be a number, not "0.1"', None),
    ("dt", True, "dt must be a number, not True", None),
    ("t_end", float("nan"), "t_end must be a finite number, not nan", None),
]


def _file_with(tmp_path: Path, field: str, value) -> Path:
    data = json.loads(PENDULUM.read_text())
    data["solver"][field] = value
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("field", "value", "says", "option"), BAD, ids=[b[2][:30] for b in BAD])
def test_the_file_and_simulate_refuse_the_same_values(field, value, says, option, tmp_path):
    if isinstance(value, float) and value != value:  # JSON has no NaN: the file says so
        pass
    else:
        with pytest.raises(ModelError) as info:
            load_model(_file_with(tmp_path, field, value))
        assert f"model.json: solver: {says}" in str(info.value)
    with pytest.raises(ModelError) as info:
        simulate(load_model(PENDULUM), **{field: value})
    assert str(info.value).startswith("simulate(): "), info.value
    assert says in str(info.value)


@pytest.mark.parametrize(
    ("field", "value", "says", "option"),
    [b for b in BAD if b[3] and isinstance(b[1], int | float)],
    ids=[b[2][:30] for b in BAD if b[3] and isinstance(b[1], int | float)],
)
def test_the_command_line_refuses_them_naming_the_option(field, value, says, option, capsys):
    code = main(["run", str(PENDULUM), option, repr(float(value)), "-q"])
    err = capsys.readouterr().err.strip()
    assert code == 1, err
    assert err.startswith("pendulum.json: command line: "), err
    expected = says.replace(field, option, 1)
    assert expected.split(" (")[0] in err, (expected, err)
    assert "\n" not in err


def test_simulate_no_longer_divides_by_zero_or_runs_backwards():
    model = load_model(PENDULUM)
    for kwargs in ({"dt": 0}, {"t_end": -1}, {"coordinates": "polar"}):
        with pytest.raises(ModelError):
            simulate(model, **kwargs)
    with pytest.raises(ModelError, match="parameters.magic"):
        simulate(model, parameters={"magic": 1})
    with pytest.raises(ModelError, match="rho_inf must be at most 1"):
        simulate(model, parameters={"rho_inf": 3})


def test_settings_made_by_hand_follow_the_rules_too():
    model = load_model(PENDULUM)
    with pytest.raises(ModelError, match="solver: dt must be positive"):
        Simulation(model, d.SolverSettings(dt=0.0))
    with pytest.raises(ModelError, match="time steps"):
        Simulation(model, d.SolverSettings(dt=1e-9, t_end=10.0))


def test_a_dt_option_alone_makes_every_step_an_output():
    """The file's output interval was chosen for the file's dt: ``--dt`` larger than it
    outputs every step (an ``--output-dt`` given with it must fit)."""
    model = load_model(PENDULUM)  # dt 1 ms, output every 10 ms
    result = simulate(model, dt=0.02, t_end=0.1)
    assert result.status == "ok"
    assert len(result) == 6


def test_the_step_limit_is_inclusive():
    settings = check_settings({"dt": 1e-3, "t_end": MAX_STEPS * 1e-3})
    assert settings.t_end / settings.dt == pytest.approx(MAX_STEPS)
    with pytest.raises(ModelError, match="a smaller t_end or a larger dt"):
        check_settings({"dt": 1e-3, "t_end": 1.01 * MAX_STEPS * 1e-3})
