"""All five formulations agree on the IFToMM A02 double four-bar (DESIGN §3: "all of them
must agree on the same model at small steps"), through its singular positions.

The trajectory compared: the two crank tips B0 and B1 (outputs ``P_B0``, ``P_B1``), sampled
every 10 ms; the largest distance between any two formulations, in m. The first singular
position (all links horizontal, DOF 1 → 3) is passed at 0.71 s. ``penalty`` runs with
ω = 100 (its A02 setting, see test_penalty.py); the others with their defaults; Newton
tolerance 1e-10.

Measured at Δt = 1 ms over 0.8 s (fixed-step formulations; CPU 4-7 s each on the shared
machine): largest pairwise difference 9.2e-6 m (central_differences vs penalty), below
1e-6 m up to 0.3 s; null_space vs augmented_lagrangian 8.2e-7 m. The errors are O(Δt²),
so at the acceptance step Δt = 0.1 ms they are ~100 times smaller.

Measured over the full 10 s at Δt = 1 ms (largest distance from augmented_lagrangian up to
1 / 2 / 4 / 10 s): null_space 2.4e-6 / 2.8e-6 / 6.6e-6 / 1.9e-5 m; central_differences
2.7e-5 / 3.5e-5 / 7.8e-5 / 2.5e-4 m; penalty (ω = 100) 8.4e-6 / 1.4e-5 / 6.0e-4 / 1.4e-2 m:
the penalty run drifts in phase after the second singular passage (its energy error,
5.2e-3 J, is 6 times the others'). That drift is the step's, not the penalty factor's: at
Δt = 0.5 ms the penalty run is 7.1e-5 m from augmented_lagrangian (1 ms) at 4 s instead
of 6.0e-4 m. The slow 10 s run at 0.1 ms (about 40 min of CPU for the four) was not run
to the end when this was written; from these figures the penalty pair is the one closest
to the 1e-5 m bound.

lagrange_baumgarte (adaptive index-1) is compared up to 0.6 s only: it crawls through the
singular position (see its test). The acceptance run (10 s at 0.1 ms, 100 000 steps per
formulation, about 10 min of CPU each here) is marked slow.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FIXED_STEP = ("central_differences", "augmented_lagrangian", "penalty", "null_space")
PARAMETERS = {"penalty": {"omega": 100.0}}
OUTPUT_DT = 0.01
FIRST_SINGULAR_PASSAGE = 0.71  # s


def trajectory(formulation: str, dt: float, t_end: float, through_singular=True) -> np.ndarray:
    """Positions of B0 and B1 (rows: samples every 10 ms; columns x, y, z of each)."""
    result = simulate(
        load_model(EXAMPLES / "double_four_bar.json"),
        formulation=formulation,
        dt=dt,
        t_end=t_end,
        output_dt=OUTPUT_DT,
        tolerance=1e-10,
        parameters=PARAMETERS.get(formulation),
    )
    assert result.status == "ok", (formulation, result.message)
    assert result.t[-1] == pytest.approx(t_end)
    assert len(result.t) == int(round(t_end / OUTPUT_DT)) + 1
    # it does (or not yet) pass the singular position: crank 1's tip below the pivots' line
    assert (result.column("P_B0.y").min() < 0.0) == through_singular
    return np.column_stack([result.column(f"P_B{i}.{c}") for i in (0, 1) for c in "xyz"])


def largest_difference(runs: dict[str, np.ndarray]) -> tuple[float, tuple[str, str]]:
    worst = max(
        ((float(np.abs(runs[a] - runs[b]).max()), (a, b)) for a, b in combinations(runs, 2)),
        key=lambda item: item[0],
    )
    return worst


@pytest.fixture(scope="module")
def reference_08():
    """augmented_lagrangian, 0.8 s at Δt = 1 ms: the one the others are compared with."""
    return trajectory("augmented_lagrangian", 1e-3, 0.8)


@pytest.mark.parametrize(
    ("formulation", "measured"),
    [("central_differences", 5.5e-6), ("penalty", 3.8e-6), ("null_space", 8.2e-7)],
)
def test_fixed_step_formulations_agree_through_the_first_singular_position(
    formulation, measured, reference_08
):
    """0.8 s at Δt = 1 ms, each against augmented_lagrangian: to 2e-5 m (so any two to
    4e-5 m; measured at most 9.2e-6 m between any two). A formulation with a wrong mass
    matrix, force or constraint term drifts away by millimetres within this span."""
    difference = np.abs(trajectory(formulation, 1e-3, 0.8) - reference_08).max()
    assert difference < 2e-5, (difference, measured)


def test_lagrange_baumgarte_agrees_up_to_the_singular_position(reference_08):
    """The adaptive index-1 formulation up to 0.6 s (measured 4.6e-7 m from
    augmented_lagrangian; 1.3 s of CPU). Through the singular position itself its
    saddle-point matrix [[M, Φ_qᵀ], [Φ_q, 0]] turns singular and the Runge–Kutta step
    control crawls (more than 2.5 min of CPU without reaching 0.8 s at rtol 1e-9): the
    known weakness of index-1 formulations at singular positions (000 §7)."""
    lb = trajectory("lagrange_baumgarte", 1e-3, 0.6, through_singular=False)
    assert np.abs(lb - reference_08[: len(lb)]).max() < 2e-6


@pytest.mark.slow
def test_all_agree_over_10_s_at_01_ms():
    """The acceptance: 10 s (several singular passages) at Δt = 0.1 ms, to 1e-5 m, for
    the four fixed-step formulations (lagrange_baumgarte: see the test above)."""
    runs = {f: trajectory(f, 1e-4, 10.0) for f in FIXED_STEP}
    difference, pair = largest_difference(runs)
    assert difference < 1e-5, (difference, pair)
