"""Bad cases of a dynamic run (acceptance of failure reports): each stops with exit 3 from
``biela run`` and a message naming the time, the cause and what to try, and keeps the
results computed up to then (CSV rows, summary status); through the API the ``Result``
has ``status == "failed"`` and the same message.

* a step too large for an explicit method: central differences on the stiff pendulum of
  the null-space Newmark thesis Ch. 6 at Δt = 1 s, above its stability limit 2/ω_max = 0.639 s (it
  runs at 0.5 s);
* a Newton failure of an implicit method: the augmented Lagrangian on the A02 double
  four-bar at 50 ms with at most 3 Newton iterations (it runs with the default 25);

  both with step control off (``solver.parameters.step_control: false``); with it on (the
  default) the failed steps are retried in substeps and both runs reach their end, with a
  warning saying where;
* no mass on a free body: a body with (numerically) no mass and no inertia that no joint
  holds; the mass matrix is singular in its directions, every formulation stops at t = 0.
  A file cannot say "mass": 0 (the reader wants a positive mass and is tested for it), so
  the file case gives 1e-30 kg, 10³⁰ times lighter than the pendulum it sits next to; the
  API case sets the description's mass and inertia to exactly zero.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.cli import EXIT_SOLVER, main
from solver.model import model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FORMULATIONS = (
    "central_differences",
    "augmented_lagrangian",
    "penalty",
    "null_space",
    "lagrange_baumgarte",
)


def run_cli(model_path: Path, tmp_path: Path, capsys, *options: str):
    """``biela run`` in-process: ``(exit code, stderr, CSV rows, summary)``."""
    out_csv, out_json = tmp_path / "out.csv", tmp_path / "out.json"
    code = main(
        ["run", str(model_path), "--csv", str(out_csv), "--summary", str(out_json), *options]
    )
    err = capsys.readouterr().err
    with out_csv.open() as fh:
        rows = list(csv.DictReader(fh))
    return code, err, rows, json.loads(out_json.read_text())


def assert_reported(code, err, rows, summary, t_fail: float, *phrases: str) -> None:
    assert code == EXIT_SOLVER, err
    assert "Traceback" not in err
    assert f"stopped at t = {t_fail:g} s" in err
    assert "; try: " in err
    for phrase in phrases:
        assert phrase in err, (phrase, err)
    assert summary["status"] == "failed"
    assert summary["message"] in err
    assert summary["frames"] == len(rows)
    if rows:  # what was computed is kept, finite, and ends before the failure
        t = np.array([float(r["t"]) for r in rows])
        assert t[-1] <= t_fail + 1e-12
        assert all(np.isfinite(float(v)) for r in rows for v in r.values())


# ---- a step too large for an explicit method ---------------------------------------------
def without_step_control(source: Path, tmp_path: Path, **solver) -> Path:
    data = json.loads(source.read_text())
    data["solver"].update(solver)
    data["solver"].setdefault("parameters", {})["step_control"] = False
    path = tmp_path / f"{source.stem}_no_step_control.json"
    path.write_text(json.dumps(data))
    return path


def test_explicit_step_above_the_stability_limit(tmp_path, capsys):
    options = ("--formulation", "central_differences", "--t-end", "40")
    code, err, rows, _ = run_cli(
        EXAMPLES / "stiff_pendulum.json", tmp_path, capsys, *options, "--dt", "1.0"
    )
    assert code == 0, err  # step control: the failed steps taken in halves
    assert "retried in substeps (smallest 0.5 s = dt/2)" in err
    assert float(rows[-1]["t"]) == pytest.approx(40.0)
    model = without_step_control(EXAMPLES / "stiff_pendulum.json", tmp_path)
    code, err, rows, summary = run_cli(model, tmp_path, capsys, *options, "--dt", "1.0")
    assert_reported(
        code, err, rows, summary, 4.0, "central differences", "conditionally stable", "reduce dt"
    )
    assert len(rows) == 4  # t = 0 … 3 s: CD knows the state at t only after the next step
    # below the limit the same run goes to the end
    code, err, rows, summary = run_cli(model, tmp_path, capsys, *options, "--dt", "0.5")
    assert code == 0, err
    assert float(rows[-1]["t"]) == pytest.approx(40.0)

    result = simulate(
        load_model(model), formulation="central_differences", dt=1.0, t_end=40.0, output_dt=1.0
    )
    assert result.status == "failed"
    assert result.message.startswith("solver stopped at t = 4 s")
    assert len(result) == 4


# ---- a Newton failure of an implicit method ----------------------------------------------
def test_newton_failure_of_an_implicit_method(tmp_path, capsys):
    path = without_step_control(EXAMPLES / "double_four_bar.json", tmp_path, max_iterations=3)
    options = ("--formulation", "augmented_lagrangian", "--dt", "0.05", "--t-end", "2")
    code, err, rows, summary = run_cli(path, tmp_path, capsys, *options, "--output-dt", "0.05")
    assert_reported(
        code, err, rows, summary, 0.15, "did not converge in 3 iterations", "a smaller dt"
    )
    assert [float(r["t"]) for r in rows] == pytest.approx([0.0, 0.05, 0.1])

    model = load_model(path)
    result = simulate(model, formulation="augmented_lagrangian", dt=0.05, t_end=2.0)
    assert result.status == "failed"
    assert "t = 0.15 s" in result.message and "did not converge" in result.message
    assert result.t[-1] == pytest.approx(0.1)  # output every 50 ms, kept up to the failure
    model.solver.parameters["step_control"] = True  # failed steps taken in substeps
    result = simulate(model, formulation="augmented_lagrangian", dt=0.05, t_end=0.5)
    assert result.status == "ok", result.message
    assert result.summary["retried_steps"] >= 1
    model.solver.max_iterations = 25  # the same run with the default iteration limit
    result = simulate(model, formulation="augmented_lagrangian", dt=0.05, t_end=0.5)
    assert result.status == "ok", result.message
    assert result.summary["retried_steps"] == 0


# ---- no mass on a free body --------------------------------------------------------------
def pendulum_and_free_body(mass: float) -> dict:
    return {
        "biela": 1,
        "name": "pendulum and a free body",
        "gravity": [0, -9.81, 0],
        "bodies": [
            {"name": "bob", "type": "point_mass", "mass": 1.0, "position": [1, 0, 0]},
            {"name": "dust", "mass": mass, "inertia": [mass] * 3, "position": [0, 2, 0]},
        ],
        "joints": [
            {
                "name": "bar",
                "type": "distance",
                "body1": "ground",
                "body2": "bob",
                "point1": [0, 0, 0],
                "point2": [1, 0, 0],
            }
        ],
        "solver": {"analysis": "dynamic", "dt": 0.001, "t_end": 0.1, "tolerance": 1e-10},
    }


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_no_mass_on_a_free_body(formulation, tmp_path, capsys):
    path = tmp_path / "dust.json"
    path.write_text(json.dumps(pendulum_and_free_body(1e-30)))
    code, err, rows, summary = run_cli(path, tmp_path, capsys, "--formulation", formulation)
    assert_reported(code, err, rows, summary, 0.0, 'body "dust"', "mass matrix is singular")
    assert rows == []

    model = model_from_data(pendulum_and_free_body(1.0))
    dust = model.bodies[1]
    dust.mass, dust.inertia = 0.0, ((0.0, 0.0, 0.0),) * 3
    result = simulate(model, formulation=formulation)
    assert result.status == "failed"
    assert 'body "dust" has no mass or inertia' in result.message
    assert "t = 0 s" in result.message and "try: give" in result.message


def test_a_light_body_held_by_joints_or_alone_is_not_refused():
    """Only mass missing in a *free* direction is refused: the same 1e-30 kg body welded
    to ground runs, and so does a model made only of light bodies (what counts is the
    ratio, not the size)."""
    data = pendulum_and_free_body(1e-30)
    data["joints"].append({"name": "hold", "type": "fixed", "body1": "ground", "body2": "dust"})
    data["solver"]["t_end"] = 0.02
    result = simulate(model_from_data(data), formulation="augmented_lagrangian")
    assert result.status == "ok", result.message
    alone = pendulum_and_free_body(1e-30)
    alone["bodies"] = alone["bodies"][1:]
    alone["joints"] = []
    result = simulate(model_from_data(alone), formulation="augmented_lagrangian")
    assert result.status == "ok", result.message
    assert result.column("dust.vy")[-1] == pytest.approx(-9.81 * 0.1, rel=1e-9)
