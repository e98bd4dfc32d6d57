"""García Vallejo (2006) §6.2–6.7: the rotating beam with linear elasticity (planar Euler–Bernoulli
elements).

* One element clamped to the hub: the eigenvalues of M̄⁻¹K̄ (6.20) — 12.48019 and
  1211.5198 EI/(mL³) (bending), 2.467738, 23.391255 and 109.14101 EA/(mL) (axial) — and the
  critical speed √λ₁ = 2.92 rad/s.
* Spin-up to 4 rad/s in 15 s (slow): 1 element unstable, 2 elements stable (Fig. 6.2); to
  8 rad/s: 2 elements unstable, 4 stable (Fig. 6.7).
* E10 (§6.8), nonlinear elasticity: 8 elements agree with 16 (slow).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis.modes import linear_modes
from solver.mechanics.system import MultibodySystem

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ancf_rotating_beam_e9.json"
E, A, I, L, RHO = 6.895e10, 7.299e-5, 8.214e-9, 8.0, 2767.0
MASS = RHO * A * L  # 1.615 kg (Table 6.1)


def one_element(elements=1):
    m = load_model(EXAMPLE)
    m.bodies[1].elements = elements
    return m


def test_e9_one_element_eigenvalues():
    m = one_element()
    assert abs(MASS - 1.615) < 1e-3
    s = MultibodySystem(m)
    modes = linear_modes(s, equilibrium=False)
    # the hub is driven: its rotation is not a mode; the beam has 5 free coordinates
    lam = np.sort(modes.eigenvalues[modes.eigenvalues > 1e-6])
    assert len(lam) == 5
    bending = lam[:2] / (E * I / (MASS * L**3))
    axial = lam[2:] / (E * A / (MASS * L))
    assert bending == pytest.approx([12.48019, 1211.5198], rel=1e-6)
    assert axial == pytest.approx([2.467738, 23.391255, 109.14101], rel=1e-6)
    assert np.sqrt(lam[0]) == pytest.approx(2.92, abs=5e-3)
    # the same eigenvalues from the beam alone, clamped to ground
    m.bodies.pop(0)
    m.joints = [m.joints[1]]
    m.joints[0].body1 = "ground"
    m.drivers = []
    md = linear_modes(MultibodySystem(m), equilibrium=False)
    assert np.allclose(np.sort(md.eigenvalues), lam, rtol=1e-9)


def test_e9_critical_speed_is_the_cantilever_frequency():
    lam1 = 12.48019 * E * I / (MASS * L**3)
    cantilever = 1.8751**2 * np.sqrt(E * I / (MASS * L**3))
    assert np.sqrt(lam1) == pytest.approx(2.923, abs=1e-3)
    assert cantilever == pytest.approx(2.909, abs=1e-3)


def transverse_tip(r) -> np.ndarray:
    """Tip displacement normal to the hub's x axis (m)."""
    ang = 2 * np.arctan2(r.column("hub.e3"), r.column("hub.e0"))
    return -np.sin(ang) * r.column("tip.x") + np.cos(ang) * r.column("tip.y")


@pytest.mark.slow
def test_e9_spin_up_one_element_unstable_two_stable():
    r1 = simulate(one_element(1), dt=0.05, t_end=12.0, output_dt=0.05)
    tr1 = transverse_tip(r1)
    # past the critical speed (≈ t = 9 s) the deflection grows without bound
    assert np.abs(tr1).max() > L
    r2 = simulate(one_element(2), dt=0.02, t_end=20.0, output_dt=0.1)
    assert r2.status == "ok", r2.message
    tr2 = transverse_tip(r2)
    assert np.abs(tr2).max() < 0.3  # the lag of the spin-up, then a decaying oscillation
    late = r2.t > 15.0
    assert np.abs(tr2[late]).max() < 0.06


def spin_up_to(rate: float, elements: int):
    """The example with the spin-up law's final rate changed (T = 15 s kept)."""
    import json

    from solver.model import model_from_data

    data = json.loads(EXAMPLE.read_text())
    data["bodies"][1]["elements"] = elements
    data["drivers"][0]["function"]["expression"] = (
        f"({rate}/15)*(min(t, 15)**2/2 + (225/(4*pi**2))*(cos(2*pi*min(t, 15)/15) - 1))"
        f" + {rate}*(t - min(t, 15))"
    )
    return model_from_data(data)


@pytest.mark.slow
def test_e9_spin_up_to_8_rad_s_two_elements_unstable_four_stable():
    """Fig. 6.7: at 8 rad/s (2.74 times the critical speed of one element) 2 elements are
    unstable and 4 stable. Measured, 25 s at 10 ms: with 2 elements the tip leaves the
    rotating axis once the rate passes about 5 rad/s (t ≈ 11 s) and swings 4–6.5 m off it,
    the beam folding back; with 4 elements the lag of the spin-up peaks at 0.49 m (t ≈ 8 s)
    and decays to within 0.08 m after t = 18 s."""
    r2 = simulate(spin_up_to(8, 2), dt=0.01, t_end=25.0, output_dt=0.1)
    tr2 = transverse_tip(r2)
    assert np.abs(tr2).max() > 3.0
    assert np.abs(tr2[r2.t > 18.0]).min() > 2.0  # it does not come back
    r4 = simulate(spin_up_to(8, 4), dt=0.01, t_end=25.0, output_dt=0.1)
    assert r4.status == "ok", r4.message
    tr4 = transverse_tip(r4)
    assert np.abs(tr4).max() == pytest.approx(0.49, abs=0.03)
    assert np.abs(tr4[r4.t > 18.0]).max() < 0.1


# ---- E10: nonlinear elasticity, García Vallejo (2006) §6.8 -------------------------------
E10 = Path(__file__).resolve().parents[2] / "examples" / "ancf_rotating_beam_e10.json"


def e10_lag(elements: int, t_end: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """``(t, transverse tip deflection)`` of examples/ancf_rotating_beam_e10.json (Yakoub
    elements, spin-up to 4 rad/s in 15 s) with ``elements`` elements."""
    import json

    from solver.model import model_from_data

    data = json.loads(E10.read_text())
    data["bodies"][1]["elements"] = elements
    r = simulate(model_from_data(data), t_end=t_end, output_dt=0.1)
    assert r.status == "ok", r.message
    return r.t, transverse_tip(r)


@pytest.mark.slow
def test_e10_eight_elements_agree_with_sixteen():
    """Figs. 6.12–6.13: stable for any number of elements, converged at 8 (8 agree with 16).
    Measured over 20 s (peak lag of the spin-up at t ≈ 7.5 s): 4 elements 0.424 m,
    8 elements 0.518 m, 16 elements 0.533 m (the nonlinear model softens with refinement);
    the 8-element history is within 3 % of the peak of the 16-element one at every output,
    the 4-element one 19 % away."""
    t16, lag16 = e10_lag(16)
    _, lag8 = e10_lag(8)
    _, lag4 = e10_lag(4)
    peak = np.abs(lag16).max()
    assert peak == pytest.approx(0.533, abs=0.01)
    assert np.abs(lag8 - lag16).max() < 0.035 * peak
    assert np.abs(lag4 - lag16).max() > 0.15 * peak
    assert np.abs(lag8).max() == pytest.approx(0.518, abs=0.01)
    # stable: after the spin-up the tip settles within 2 cm of the rotating axis
    assert np.abs(lag8[t16 > 17.0]).max() < 0.02
