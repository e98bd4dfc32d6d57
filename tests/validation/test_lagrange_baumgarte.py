"""lagrange_baumgarte (index-1 + Baumgarte, adaptive RK) against the reference cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.mechanics.system import MultibodySystem
from tests.validation import reference_data as ref
from tests.validation.a01_helpers import zero_crossings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_pendulum_meets_the_iftomm_criterion_and_period():
    result = simulate(
        load_model(EXAMPLES / "pendulum.json"), formulation="lagrange_baumgarte", dt=0.01, t_end=3.0
    )
    assert result.status == "ok", result.message
    assert result.max_energy_drift() < ref.A01_CRITERION / 10
    # the bob passes x = 0 (the bottom, where x(t) is linear) every half period
    crossings = zero_crossings(result.t, result.column("bob.x"))
    assert len(crossings) == 3
    assert crossings[2] - crossings[0] == pytest.approx(
        ref.A01_PERIOD, abs=ref.A01_PERIOD_TOLERANCE
    )


def test_heavy_top_energy_momentum_and_samples():
    model = load_model(EXAMPLES / "heavy_top.json")
    result = simulate(
        model, formulation="lagrange_baumgarte", dt=0.01, t_end=1.0, parameters={"rtol": 1e-8}
    )
    assert result.status == "ok", result.message
    energy = result.column("energy.total")
    assert energy[0] == pytest.approx(ref.HEAVY_TOP_ENERGY, rel=1e-12)
    assert np.abs(energy - energy[0]).max() / energy[0] < ref.HEAVY_TOP_CONSERVATION_TOLERANCE
    system = MultibodySystem(model)
    lz = []
    for row in result.rows[::10]:
        q = np.concatenate([row[1:8]])
        wx, wy, wz = row[11:14]
        # angular momentum about the fixed apex (origin), vertical component
        a = system.rotation(np.asarray(q), "cone")
        j = a @ np.array(model.bodies[0].inertia) @ a.T
        r, v = q[:3], row[8:11]
        lz.append((j @ [wx, wy, wz] + 4.0 * np.cross(r, v))[2])
    assert np.abs(lz).max() < 1e-6
    for tt, com in ref.HEAVY_TOP_COM_SAMPLES.items():
        if tt <= 1.0:
            k = int(round(tt / 0.01))
            got = [result.column(f"cone.{c}")[k] for c in "xyz"]
            assert got == pytest.approx(com, abs=ref.HEAVY_TOP_COM_TOLERANCE)


def test_redundant_bricard_runs_with_small_drift():
    result = simulate(
        load_model(EXAMPLES / "bricard.json"), formulation="lagrange_baumgarte", dt=0.01, t_end=1.0
    )
    assert result.status == "ok", result.message
    assert result.max_energy_drift() < ref.BRICARD_CRITERION
    assert result.column("constraint.position").max() < 1e-6


@pytest.mark.slow
def test_heavy_top_meets_the_1e6_criterion_over_5_s():
    """The heavy-top acceptance over the full 5 s with the example's settings (rtol 1e-10,
    outputs every 10 ms): E and L_z conserved to 1e-6 relative (measured 4.0e-8 and
    2.1e-9 of |L|; 12 s of CPU). Of the five formulations only this one meets the energy
    part at a step usable in the suite (the fixed-step ones are second order: the
    augmented Lagrangian needs Δt ≤ 4.3e-5 s, see test_augmented_lagrangian.py)."""
    from tests.validation.test_augmented_lagrangian import top_invariants

    result = simulate(load_model(EXAMPLES / "heavy_top.json"), formulation="lagrange_baumgarte")
    assert result.status == "ok", result.message
    assert result.t[-1] == pytest.approx(5.0)
    energy_error, lz, spin = top_invariants(result)
    assert energy_error / ref.HEAVY_TOP_ENERGY < ref.HEAVY_TOP_CONSERVATION_TOLERANCE
    assert lz < ref.HEAVY_TOP_CONSERVATION_TOLERANCE
    for tt, com in ref.HEAVY_TOP_COM_SAMPLES.items():
        k = int(np.argmin(np.abs(result.t - tt)))
        got = [result.column(f"cone.{c}")[k] for c in "xyz"]
        assert got == pytest.approx(com, abs=ref.HEAVY_TOP_COM_TOLERANCE)
