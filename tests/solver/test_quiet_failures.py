"""Failures reported by the solver in its own words: an orientation set at its singularity
at the start names the body and the set to use (not a LinAlgError), and NumPy's and SciPy's
warnings stay off the terminal."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from solver import simulate
from solver.cli import main
from solver.model import model_from_data

ROOT = Path(__file__).resolve().parents[2]


def disc(orientation, oset: str) -> dict:
    return {
        "biela": 1,
        "gravity": [0, 0, -9.81],
        "bodies": [{"name": "disc", "mass": 1.0, "inertia": [0.1, 0.2, 0.3],
                    "orientation": orientation, "angular_velocity": [0, 0, 1]}],
        "joints": [{"name": "S", "type": "spherical", "body1": "ground", "body2": "disc",
                    "point": [0, 0, 0]}],
        "solver": {"dt": 1e-3, "t_end": 0.02, "formulation": "central_differences",
                   "orientation": oset},
    }  # fmt: skip


@pytest.mark.parametrize("oset", ["gibbs", "rodrigues"])
@pytest.mark.parametrize("orientation", [[0, 0, 0, 1], [0, 1, 0, 0], [0, 0.6, 0.8, 0]])
def test_a_rotation_of_pi_at_the_start_names_the_body_and_the_set_to_use(oset, orientation):
    result = simulate(model_from_data(disc(orientation, oset)))
    assert result.status == "failed"
    assert result.message.startswith(f'solver stopped at t = 0 s: body "disc": the {oset} ')
    assert 'try: use solver.orientation "euler_parameters"' in result.message
    assert "LinAlgError" not in result.message
    assert simulate(model_from_data(disc(orientation, "euler_parameters"))).status == "ok"


def test_a_static_analysis_raises_no_warnings():
    pendulum = {
        "biela": 1,
        "gravity": [0, -9.81, 0],
        "bodies": [{"name": "bar", "mass": 1.0, "inertia": [1e-3, 0.0833, 0.0833],
                    "position": [0.5, 0, 0]}],
        "joints": [{"name": "R", "type": "revolute", "body1": "ground", "body2": "bar",
                    "point": [0, 0, 0], "axis": [0, 0, 1]}],
        "solver": {"analysis": "static"},
    }  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = simulate(model_from_data(pendulum))
    assert result.status == "failed" and "no static equilibrium found" in result.message


def test_the_command_line_prints_no_python_warnings(monkeypatch, capsys):
    """Whatever NumPy or SciPy would warn about during a run (here an overflow and a
    LinAlgWarning injected into it), the terminal gets the solver's lines only."""
    import numpy as np
    import scipy.linalg as sla

    from solver.analysis import simulate as simulate_module

    real = simulate_module.mobility

    def noisy(*args, **kwargs):
        _ = np.float64(1e308) * 10.0  # RuntimeWarning: overflow encountered
        warnings.warn("ill-conditioned", sla.LinAlgWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(simulate_module, "mobility", noisy)
    pendulum = str(ROOT / "examples" / "pendulum.json")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert main(["run", pendulum, "--t-end", "0.01", "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert seen == []
    monkeypatch.setenv("BIELA_DEBUG", "1")  # for a developer they show
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert main(["run", pendulum, "--t-end", "0.01", "-q"]) == 0
    kinds = {w.category for w in seen}
    assert RuntimeWarning in kinds and sla.LinAlgWarning in kinds
