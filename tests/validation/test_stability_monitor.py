"""The time-step stability monitor (the null-space
Newmark thesis, ch. 6) on its stiff pendulum (ch. 6).

examples/stiff_pendulum.json: ω_max = √(g/L) = 3.1304951 rad/s (g = 9.8, L = 1), so the
published limits are 2/ω_max = 0.6388765 s for central differences (eq. 6.11) and
√6/ω_max = 0.78246 s for the Fox–Goodwin Newmark scheme of the null-space method
(eq. 6.14). The monitor must estimate them from the linearised reduced system (the bob's
own inertia of 1e-6 kg·m² shifts ω_max by 5e-7 relative); a run with a step above the
estimate warns on the CLI and in ``Result.stability``, one below does not. The 1-DOF
oscillator estimates (2/ω, √(12/5)/ω, √(4/3)/ω) are in test_cd_family.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from solver import cli as solver_cli
from solver import load_model, simulate
from solver.analysis.stability import omega_max
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "stiff_pendulum.json"
OMEGA_MAX = 3.1304951  # the null-space Newmark thesis eq. 6.10
DT_FOX_GOODWIN = 0.78246  # the null-space Newmark thesis eq. 6.14
DT_CD = 0.6388765  # the null-space Newmark thesis eq. 6.11


def cli(capsys, *args: str) -> SimpleNamespace:
    """``biela run EXAMPLE ARGS`` (the command line's own code, in this process): its exit
    code and what it wrote."""
    capsys.readouterr()
    code = solver_cli.main(["run", str(EXAMPLE), *args])
    out, err = capsys.readouterr()
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


def test_omega_max_of_the_reduced_system():
    model = load_model(EXAMPLE)
    system = MultibodySystem(model)
    q, qd = system.q0, np.zeros(system.n)
    qdd = np.zeros(system.n)
    assert omega_max(system, q, qd, qdd, 0.0) == pytest.approx(OMEGA_MAX, rel=1e-5)


def test_omega_max_of_a_pendulum_swinging_includes_its_angle():
    """A point-mass pendulum at angle θ from the vertical, at rest: ω² = g cos θ / L."""
    theta = 0.6
    data = {
        "biela": 1,
        "gravity": [0, -9.8, 0],
        "bodies": [
            {
                "name": "m",
                "type": "point_mass",
                "mass": 2.0,
                "position": [np.sin(theta), -np.cos(theta), 0],
            }
        ],
        "joints": [
            {
                "name": "rod",
                "type": "distance",
                "body1": "ground",
                "body2": "m",
                "point1": [0, 0, 0],
                "point2": [np.sin(theta), -np.cos(theta), 0],
            }
        ],
    }
    system = MultibodySystem(model_from_data(data))
    q = system.q0
    # the free acceleration at rest: tangential g sin θ
    t_dir = np.array([np.cos(theta), np.sin(theta), 0.0])
    qdd = -9.8 * np.sin(theta) * t_dir
    w = omega_max(system, q, np.zeros(3), qdd, 0.0)
    assert w == pytest.approx(np.sqrt(9.8 * np.cos(theta)), rel=1e-9)


@pytest.mark.parametrize(
    "formulation,parameters,limit",
    [
        ("null_space", None, DT_FOX_GOODWIN),  # the example's Fox-Goodwin Newmark
        ("central_differences", {"variant": "standard"}, DT_CD),
    ],
)
def test_estimate_matches_the_published_limits(formulation, parameters, limit):
    result = simulate(
        load_model(EXAMPLE), formulation=formulation, dt=0.5, t_end=2.0, parameters=parameters
    )
    assert result.status == "ok", result.message
    assert result.summary["dt_max_estimate"] == pytest.approx(limit, rel=2e-5)
    assert result.stability["omega_max"] == pytest.approx(OMEGA_MAX, rel=1e-5)
    assert result.stability["warning"] is None


def test_unconditionally_stable_scheme_has_no_limit():
    result = simulate(load_model(EXAMPLE), dt=0.8, t_end=1.6, parameters={"scheme": "trapezoidal"})
    assert result.status == "ok", result.message
    assert result.summary["dt_max_estimate"] is None  # no limit
    assert result.stability["warning"] is None


def test_cli_warns_above_the_estimate_and_not_below(tmp_path, capsys):
    above = cli(capsys, "--dt", "0.79", "--t-end", "3.2", "--summary", str(tmp_path / "a.json"))
    assert above.returncode == 0, above.stderr
    assert "warning: dt = 0.79 s exceeds the estimated stability limit" in above.stderr
    assert "0.7825" in above.stderr
    summary = json.loads((tmp_path / "a.json").read_text())
    assert summary["dt_max_estimate"] == pytest.approx(DT_FOX_GOODWIN, rel=2e-5)

    below = cli(capsys, "--dt", "0.78", "--t-end", "3.2", "--summary", str(tmp_path / "b.json"))
    assert below.returncode == 0, below.stderr
    assert "warning" not in below.stderr
    assert json.loads((tmp_path / "b.json").read_text())["dt_max_estimate"] == pytest.approx(
        DT_FOX_GOODWIN, rel=2e-5
    )


def test_cli_warns_for_central_differences(capsys):
    """CD above 2/ω_max warns (the null-space Newmark thesis Fig. 6.3: 0.7 s is unstable), 0.6 s
    does not."""
    above = cli(capsys, "--formulation", "central_differences", "--dt", "0.7", "--t-end", "3")
    assert (
        "warning: dt = 0.7 s exceeds the estimated stability limit dt_max ≈ 0.6389" in above.stderr
    )
    below = cli(capsys, "--formulation", "central_differences", "--dt", "0.6", "--t-end", "3")
    assert below.returncode == 0, below.stderr
    assert "warning" not in below.stderr


def test_scheme_constants_per_formulation():
    import math

    from solver.analysis.stability import scheme_constant
    from solver.model.description import SolverSettings

    def c(formulation, **params):
        return scheme_constant(SolverSettings(formulation=formulation, parameters=params))[0]

    assert c("null_space", scheme="fox_goodwin") == pytest.approx(math.sqrt(6.0))
    assert c("null_space", scheme="linear_acceleration") == pytest.approx(math.sqrt(12.0))
    assert c("null_space") == math.inf  # trapezoidal
    assert c("augmented_lagrangian") == math.inf
    assert c("central_differences") == pytest.approx(2.0, rel=1e-6)
    assert c("central_differences", variant="family", alpha=2.0) == pytest.approx(
        math.sqrt(4.0 / 3.0), rel=1e-6
    )
    assert c("lagrange_baumgarte") is None  # adaptive: chooses its own steps
