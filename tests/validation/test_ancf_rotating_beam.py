"""García Vallejo (2006) §6.2–6.7: the rotating beam with linear elasticity (planar Euler–Bernoulli
elements).

* One element clamped to the hub: the eigenvalues of M̄⁻¹K̄ (6.20) — 12.48019 and
  1211.5198 EI/(mL³) (bending), 2.467738, 23.391255 and 109.14101 EA/(mL) (axial) — and the
  critical speed √λ₁ = 2.92 rad/s.
* Spin-up to 4 rad/s in 15 s (slow): 1 element unstable, 2 elements stable (Fig. 6.2).
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
