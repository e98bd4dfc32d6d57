"""What the workbench says after a run (app.run_report): counts in words, the energy-drift
warning built from the solver's summary. Plain Python, no display needed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.run_report import (
    DRIFT_TOLERANCE,
    accuracy_warning,
    count,
    energy_exchanged,
    stability_warning,
)


def test_counts_in_words():
    assert [count(n, "frame") for n in (0, 1, 2, 601)] == [
        "no frames",
        "1 frame",
        "2 frames",
        "601 frames",
    ]


def test_energy_exchanged_is_the_largest_swing():
    columns = ["t", "energy.kinetic", "energy.potential", "energy.elastic", "energy.work"]
    data = np.array([[0, 0.0, 0.0, 1.0, 0.0], [1, 9.81, -9.81, 1.5, 0.2], [2, 4.0, -4.0, 1.0, 0.3]])
    # kinetic 9.81; potential + elastic from 1.0 to −8.31: 9.31; work 0.3
    assert energy_exchanged(columns, data) == pytest.approx(9.81)


SUMMARY = {
    "analysis": "dynamic",
    "dt": 0.2,
    "max_energy_drift": 1.5722636942550814,
    "dt_max_estimate": 0.36462809185678163,
}


def test_a_stable_step_with_large_drift_is_warned_about_with_a_smaller_step():
    text = accuracy_warning(SUMMARY, {"omega_max": 5.485040907889123}, 9.81)
    assert text.startswith("the energy drifted by 1.57 J (16 % of the 9.81 J")
    assert "with Δt = 0.2 s, below the largest stable step ≈ 0.365 s" in text
    steps = 2 * math.pi / (5.485040907889123 * 0.2)
    assert f"({steps:.3g} steps per period of the fastest mode)" in text
    # drift ∝ Δt²: for 0.1 % of 9.81 J, Δt = 0.2 √(0.001 / 0.16) = 0.0158 → 0.01 s
    assert text.endswith("try Δt ≤ 0.01 s")


def test_no_warning_below_the_tolerance_or_without_a_dynamic_run():
    small = {**SUMMARY, "max_energy_drift": 0.5 * DRIFT_TOLERANCE * 9.81}
    assert accuracy_warning(small, None, 9.81) is None
    assert accuracy_warning({**SUMMARY, "analysis": "kinematic"}, None, 9.81) is None
    assert accuracy_warning(SUMMARY, None, 0.0) is None  # nothing moves: nothing to judge
    unlimited = {**SUMMARY, "dt_max_estimate": math.inf}
    text = accuracy_warning(unlimited, None, 9.81)
    assert "largest stable step" not in text and "stable but inaccurate" in text


def test_the_stability_monitor_s_warning_is_passed_on():
    class Result:
        stability = {"warning": "dt = 0.79 s exceeds 0.78 s"}

    assert stability_warning(Result()) == "dt = 0.79 s exceeds 0.78 s"
    assert stability_warning(None) is None
