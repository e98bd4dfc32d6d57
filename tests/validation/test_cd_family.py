"""The central-difference family of the null-space Newmark thesis §9.2 against the thesis's numbers.

The pendulum case (the null-space Newmark thesis §9.2): the IFToMM pendulum as the ODE θ̈ = (g/L)
cos θ (θ from the horizontal, released at rest from θ = 0, g = 9.81, L = 1, 10 s): maximum energy
drift of CD and the reformulated CD (Table 9.5) and of the family with β = ½ and α = 1, 4/3, 2
(Table 9.6) at Δt = 1e-3 and 1e-4 s, within 5 %; the 4th- and 5th-degree variants (Tables 9.8, 9.10)
at Δt = 1e-3 s. The maximum is reached in the first 1.3 s (checked: within 0.6 % of the 10 s
value), so the fast 1e-4 s runs stop there; the full 10 s runs are marked slow.

The oscillator case: the one-DOF oscillator ẍ + ω²x = sin(ω̄t), ω = 1, ω̄ = 0.01 (Table 9.7 and
Figs. 9.14–9.15): stable at Δt = 2 and unstable at 2.1 for α = 1, stable at 1.54 for
α = 4/3, stable at 1.15 and unstable at 1.54 for α = 2; the stability constants 2,
√(12/5), √(4/3) (and √3, 1.264911 of the 4th degree, eq. 9.156) within 1 %.

Constrained systems: the same schemes run by ``central_differences`` (variant ``family``
…) reproduce the ODE trajectories of an oscillator held on a line by a joint, and the
reformulated scheme reproduces DIMCD on the A01 pendulum.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis.cd_family import (
    Scheme,
    amplification_matrix,
    integrate_ode,
    spectral_radius,
    stability_constant,
)
from solver.model import model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
G = 9.81

# The null-space Newmark thesis, Table 9.5 (CD, reformulated CD) and Table 9.6 (β = 0.5, α = 1, 4/3,
# 2)
TABLE_9_5 = {
    ("standard", 1e-3): 2.00492e-05,
    ("standard", 1e-4): 2.00597e-07,
    ("reformulated", 1e-3): 2.00492e-05,
    ("reformulated", 1e-4): 2.00492e-07,
}
TABLE_9_6 = {
    (1.0, 1e-3): 2.00492e-05,
    (1.0, 1e-4): 2.00492e-07,
    (4.0 / 3.0, 1e-3): 1.27955e-05,
    (4.0 / 3.0, 1e-4): 1.21061e-07,
    (2.0, 1e-3): 3.85689e-06,
    (2.0, 1e-4): 3.99453e-08,
}
# Table 9.8 (4th degree, β = 1/3, γ = 0.5) and Table 9.10 (5th degree) at 1e-3 s
TABLE_9_8 = {1.25: 5.54996e-11, 0.25: 8.67265e-7, 0.75: 4.33641e-07}
TABLE_9_10 = 6.71276e-11
REL = 0.05


def pendulum_drift(scheme: Scheme, h: float, t_end: float) -> float:
    sol = integrate_ode(lambda t, x, v: G * math.cos(x), 0.0, 0.0, h, int(round(t_end / h)), scheme)
    energy = 0.5 * sol.v**2 - G * np.sin(sol.x)
    return float(np.abs(energy - energy[0]).max())


def fast_horizon(h: float) -> float:
    return 10.0 if h >= 1e-3 else 1.3


@pytest.mark.parametrize(
    "variant,h", [(v, h) for v in ("standard", "reformulated") for h in (1e-3, 1e-4)]
)
def test_e14_table_9_5(variant, h):
    drift = pendulum_drift(Scheme.from_parameters({"variant": variant}), h, fast_horizon(h))
    assert drift == pytest.approx(TABLE_9_5[(variant, h)], rel=REL)


@pytest.mark.parametrize("alpha,h", list(TABLE_9_6))
def test_e14_table_9_6(alpha, h):
    scheme = Scheme.from_parameters({"variant": "family", "alpha": alpha, "beta": 0.5})
    drift = pendulum_drift(scheme, h, fast_horizon(h))
    assert drift == pytest.approx(TABLE_9_6[(alpha, h)], rel=REL)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [1.0, 4.0 / 3.0, 2.0])
def test_e14_table_9_6_full_10_s(alpha):
    scheme = Scheme.from_parameters({"variant": "family", "alpha": alpha, "beta": 0.5})
    assert pendulum_drift(scheme, 1e-4, 10.0) == pytest.approx(TABLE_9_6[(alpha, 1e-4)], rel=REL)


def test_e14_reformulated_is_free_of_cancellation():
    """Table 9.5 at 1e-5 s: CD 2.47e-8 (cancellation), reformulated 2.01e-9 (h² scaling);
    checked over the first 0.3 s with the ratio of the two."""
    h = 1e-5
    cd = pendulum_drift(Scheme.from_parameters({"variant": "standard"}), h, 0.3)
    ref = pendulum_drift(Scheme.from_parameters({"variant": "reformulated"}), h, 0.3)
    assert ref < 2.5e-9
    assert cd > 2.0 * ref


@pytest.mark.parametrize("alpha", list(TABLE_9_8))
def test_e14_table_9_8_fourth_degree(alpha):
    scheme = Scheme.from_parameters(
        {"variant": "fourth_degree", "alpha": alpha, "beta": 1.0 / 3.0, "gamma": 0.5}
    )
    assert pendulum_drift(scheme, 1e-3, 10.0) == pytest.approx(TABLE_9_8[alpha], rel=REL)


def test_e14_table_9_10_fifth_degree():
    scheme = Scheme.from_parameters(
        {"variant": "fifth_degree", "alpha": 0.8, "beta": 1.0, "gamma": 1.0, "zeta": 1.0}
    )
    assert pendulum_drift(scheme, 1e-3, 10.0) == pytest.approx(TABLE_9_10, rel=REL)


# ---- E15: stability ------------------------------------------------------------------------
def oscillator(scheme: Scheme, h: float, t_end: float = 1000.0) -> float:
    """Largest |x| of ẍ + x = sin(0.01 t) over ``t_end`` (x(0) = 0, the steady velocity)."""
    wb = 0.01
    v0 = wb / (1.0 - wb**2)
    with np.errstate(over="ignore", invalid="ignore"):
        sol = integrate_ode(
            lambda t, x, v: -x + math.sin(wb * t), 0.0, v0, h, int(round(t_end / h)), scheme
        )
        return float(np.nan_to_num(np.abs(sol.x), nan=np.inf).max())


def family(alpha: float) -> Scheme:
    return Scheme.from_parameters({"variant": "family", "alpha": alpha, "beta": 0.5})


@pytest.mark.parametrize(
    "alpha,h,stable",
    [
        (1.0, 2.0, True),
        (1.0, 2.1, False),
        (4.0 / 3.0, 1.54, True),
        (2.0, 1.15, True),
        (2.0, 1.54, False),
        (4.0 / 3.0, 2.1, False),
        (2.0, 2.1, False),
        (4.0 / 3.0, 2.0, False),
        (2.0, 2.0, False),
    ],
)
def test_e15_table_9_7(alpha, h, stable):
    amplitude = oscillator(family(alpha), h)
    if stable:
        assert amplitude < 10.0  # forced amplitude ≈ 1; CD at Δtω = 2 grows only linearly
    else:
        assert (
            amplitude > 1e6
        )  # the null-space Newmark thesis Fig. 9.14: ±6e123 for α = 1, Δt = 2.1


@pytest.mark.parametrize(
    "scheme,limit",
    [
        (family(1.0), 2.0),
        (family(4.0 / 3.0), math.sqrt(12.0 / 5.0)),
        (family(2.0), math.sqrt(4.0 / 3.0)),
        (Scheme("fourth_degree", 0.25, 1.0 / 3.0, 0.5), 1.264911),
        (Scheme("fourth_degree", 0.75, 1.0 / 3.0, 0.5), math.sqrt(3.0)),
    ],
)
def test_stability_constants(scheme, limit):
    assert stability_constant(scheme) == pytest.approx(limit, rel=1e-3)


def test_amplification_matrix_is_eq_9_116():
    """The numerically built step map equals the thesis's matrix (9.116)."""
    al, be, w = 4.0 / 3.0, 0.5, 0.7
    h = w  # ω = 1
    a = amplification_matrix(Scheme("family", al, be), w)
    s = 0.5 * (al + 2 * be)
    ref = np.array(
        [
            [1 - s * w * w, h, (1.5 - s) * h * h],
            [-be * h, 1, (1 - be) * h],
            [-1.0, 0, 0],
        ]
    )
    assert np.allclose(a, ref, atol=1e-14)


def test_fourth_degree_optimal_set_is_unstable_table_9_9():
    scheme = Scheme("fourth_degree", 1.25, 1.0 / 3.0, 0.5)
    for w, rho in [(0.1, 1.0033389), (0.01, 1.00003333389)]:
        assert spectral_radius(scheme, w) == pytest.approx(rho, abs=1e-7)


# ---- the same schemes in constrained multibody systems -------------------------------------
def line_oscillator(variant: str, dt: float, t_end: float, **params) -> dict:
    """A 1 kg point mass held on the x axis by a point_on_line joint, a k = 1 N/m spring to
    ground along the axis and the force sin(0.01 t): ẍ + x = sin(0.01 t)."""
    return {
        "biela": 1,
        "name": "line oscillator",
        "gravity": [0, 0, 0],
        "bodies": [
            {
                "name": "m",
                "type": "point_mass",
                "mass": 1.0,
                "position": [0, 0, 0],
                "velocity": [0.01 / (1 - 1e-4), 0, 0],
            },
        ],
        "joints": [
            {
                "name": "rail",
                "type": "point_on_line",
                "body1": "ground",
                "body2": "m",
                "point": [0, 0, 0],
                "axis": [1, 0, 0],
            },
        ],
        "forces": [
            {
                "name": "k",
                "type": "spring_damper",
                "body1": "ground",
                "point1": [-10, 0, 0],
                "body2": "m",
                "point2": [0, 0, 0],
                "stiffness": 1.0,
                "free_length": 10.0,
            },
            {
                "name": "f",
                "type": "force",
                "body": "m",
                "point": [0, 0, 0],
                "vector": [{"expression": "sin(0.01*t)"}, 0, 0],
            },
        ],
        "solver": {
            "formulation": "central_differences",
            "dt": dt,
            "t_end": t_end,
            "tolerance": 1e-12,
            "parameters": {"variant": variant, **params},
        },
    }


@pytest.mark.parametrize(
    "variant,params",
    [
        ("reformulated", {}),
        ("family", {"alpha": 4.0 / 3.0}),
        ("family", {"alpha": 2.0}),
        ("fourth_degree", {"alpha": 0.75}),
    ],
)
def test_constrained_oscillator_follows_the_ode_scheme(variant, params):
    h, t_end = 0.5, 30.0
    result = simulate(model_from_data(line_oscillator(variant, h, t_end, **params)))
    assert result.status == "ok", result.message
    scheme = Scheme.from_parameters({"variant": variant, **params})
    wb = 0.01
    sol = integrate_ode(
        lambda t, x, v: -x + math.sin(wb * t), 0.0, wb / (1 - wb**2), h, int(t_end / h), scheme
    )
    assert np.abs(result.column("m.x") - sol.x).max() < 1e-9
    assert np.abs(result.column("m.vx") - sol.v).max() < 1e-9
    assert np.abs(result.column("m.y")).max() < 1e-12  # the joint holds


@pytest.mark.parametrize(
    "alpha,limit", [(1.0, 2.0), (4.0 / 3.0, math.sqrt(12 / 5)), (2.0, math.sqrt(4 / 3))]
)
def test_monitor_estimate_on_the_oscillator(alpha, limit):
    """The monitor's dt_max_estimate (reduced system of the constrained model) is c/ω."""
    data = line_oscillator("family", 0.1, 1.0, alpha=alpha, beta=0.5)
    result = simulate(model_from_data(data))
    assert result.status == "ok", result.message
    assert result.summary["dt_max_estimate"] == pytest.approx(limit, rel=0.01)
    assert result.stability["omega_max"] == pytest.approx(1.0, rel=1e-6)


def test_reformulated_reproduces_dimcd_on_the_a01_pendulum():
    model = load_model(EXAMPLES / "pendulum.json")
    kw = {
        "formulation": "central_differences",
        "dt": 0.01,
        "t_end": 1.0,
        "output_dt": 0.01,
        "tolerance": 1e-12,
    }
    std = simulate(model, **kw)
    ref = simulate(model, parameters={"variant": "reformulated"}, **kw)
    assert std.status == ref.status == "ok"
    assert np.abs(std.column("bob.x") - ref.column("bob.x")).max() < 1e-9
    assert ref.column("constraint.position").max() < 1e-11
    assert ref.max_energy_drift() == pytest.approx(std.max_energy_drift(), rel=1e-4)


def test_family_on_the_a01_pendulum_converges_at_second_order():
    """Global error O(Δt²) whatever α (the null-space Newmark thesis eqs. 9.119–9.128): the energy
    drift drops ×4 when Δt halves, in the constrained system too."""
    model = load_model(EXAMPLES / "pendulum.json")
    drift = {}
    for dt in (0.01, 0.005):
        r = simulate(
            model,
            formulation="central_differences",
            dt=dt,
            t_end=1.0,
            output_dt=dt,
            tolerance=1e-12,
            parameters={"variant": "family", "alpha": 2.0},
        )
        assert r.status == "ok", r.message
        assert r.column("constraint.position").max() < 1e-11
        drift[dt] = r.max_energy_drift()
    assert drift[0.01] / drift[0.005] == pytest.approx(4.0, rel=0.15)  # measured 4.39


def test_reformulated_runs_natural_coordinates_like_dimcd():
    """The chart is the identity for natural coordinates: the reformulated scheme gives
    DIMCD's trajectory on the planar four-bar in natural coordinates."""
    model = load_model(EXAMPLES / "four_bar_planar.json")
    kw = {
        "analysis": "dynamic",
        "formulation": "central_differences",
        "coordinates": "natural",
        "dt": 0.005,
        "t_end": 0.3,
        "output_dt": 0.005,
        "tolerance": 1e-12,
    }
    std = simulate(model, **kw)
    ref = simulate(model, parameters={"variant": "reformulated"}, **kw)
    assert std.status == ref.status == "ok", ref.message
    assert np.abs(std.column("coupler.x") - ref.column("coupler.x")).max() < 1e-9
    assert ref.max_energy_drift() == pytest.approx(std.max_energy_drift(), rel=1e-6)
