"""García Vallejo (2006) §3.2.5: the cantilever of Yakoub–Shabana elements under a 300 N tip load
(static).

Reference (García Vallejo (2006) §9, the author's independent check, and Table 3.1 rounded): tip
deflection 1.065 / 1.125 / 1.134 cm with 2 / 5 / 10 elements, approaching PL³/3EI = 1.1364 cm;
lowest frequencies of the model linearised at the loaded equilibrium 17.18 / 16.47 / 16.37 rad/s
(the thesis's time histories: 16.89 / 16.41 / 16.28). The example file ramps the load to
300 N by t = 3.5 s; the static analysis at t = 4 s has the full load.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis.modes import linear_modes
from solver.analysis.statics import static_equilibrium
from solver.mechanics.system import MultibodySystem

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ancf_cantilever_e1.json"
DEFLECTION_CM = {2: 1.065, 5: 1.125, 10: 1.134}
FREQUENCY = {2: 17.18, 5: 16.47, 10: 16.37}


@pytest.mark.parametrize("elements", [2, 5, 10])
def test_e1_static_tip_deflection_and_frequency(elements):
    m = load_model(EXAMPLE)
    m.bodies[0].elements = elements
    s = MultibodySystem(m)
    sol = static_equilibrium(s, t=4.0)
    tip = s.output_points(sol.q, np.zeros(s.n))[0]
    deflection_cm = -tip[2] * 100.0
    assert deflection_cm == pytest.approx(DEFLECTION_CM[elements], rel=5e-3)
    assert abs(tip[1]) < 1e-12  # the load is in the x–z plane
    modes = linear_modes(s, sol.q, 4.0, lam=sol.lam)
    bending = modes.omega[modes.omega > 1.0]
    # the two lowest bending modes (square section): in and out of the load plane
    assert bending[0] == pytest.approx(FREQUENCY[elements], rel=5e-3)
    assert bending[1] == pytest.approx(FREQUENCY[elements], rel=5e-3)


def test_e1_convergence_towards_beam_theory():
    e, side, length = 1.32e11, 0.1, 5.0
    exact_cm = 300 * length**3 / (3 * e * side**4 / 12) * 100
    assert exact_cm == pytest.approx(1.1364, abs=1e-4)
    assert DEFLECTION_CM[2] < DEFLECTION_CM[5] < DEFLECTION_CM[10] < exact_cm


def test_e1_quasi_static_run_from_the_example():
    """``biela run --analysis static`` on the example: the load ramp is followed."""
    m = load_model(EXAMPLE)
    m.bodies[0].elements = 2
    r = simulate(m, analysis="static", dt=0.5, t_end=4.0)
    assert r.status == "ok", r.message
    z = r.column("tip.z")
    load = 150 * (1 - np.cos(np.pi * np.minimum(r.t, 3.5) / 3.5))
    assert z[-1] * -100 == pytest.approx(1.065, rel=5e-3)
    assert np.allclose(z, z[-1] * load / 300.0, rtol=1e-3, atol=1e-9)  # nearly linear
