"""E11 in full (García Vallejo (2006) §7.5): the whole second of Fig. 7.5, the stiffer belt of
Fig. 7.6, the meshes of Fig. 7.5, and the loaded drives of Figs. 7.9–7.10 against the
steady running the trilinear friction law predicts (``belt_drive_data.creep_speed``).

The thesis's results are curves. Measured here (1 ms steps for E11, 0.2 ms for the loaded
drives at 120 rad/s):

* E11, 20 elements: after the ramp ω₂ averages 12.0 rad/s (no load: no creep); on the ramp
  the spans' tension difference averages I α/R = 26.85 N, the torque that accelerates the
  driven pulley; after it, zero.
* Fig. 7.6: with E = 1 GPa instead of 0.1 GPa the oscillation of ω₂ about ω₁ on the ramp is
  3 to 4 times smaller (the spring model gives √10).
* Fig. 7.5: the thesis finds 20 elements close to 25 and 30 and 15 still different. The
  root-mean-square distance of ω₂(t) from the 30-element run falls from 15 to 20 to 25
  elements, 15 being at least twice as far as 20, and 20 within 1 % of 12 rad/s.
* Figs. 7.9–7.10 (initial strain 2.5 %, E = 1 GPa, α₂ = 0.001, ω₁ ramped to 120 rad/s, the
  resisting torque (7.30) of 45 N·m, 30 elements): in steady running the spans differ by
  T_a/R = 553.8 N, the belt's torque on the driven pulley is 45 N·m, and the driven pulley
  runs slower than the driver by the creep of the friction law: with v_s = 1e4 kg/(m·s)
  about 5.1 rad/s (the first-order estimate 2 ΔT/(v_s ℓ R), ℓ the contact length), with
  v_s = 1e5 about 0.7 rad/s, where the belt's elastic creep ω₁ ΔT/EA = 0.66 rad/s
  dominates. ``creep_speed`` integrates the tangential balance of the belt on both arcs
  with the law in its linear range and the measured span tensions and contact length.
* The friction is saturated (gross slip) only where the belt enters and leaves a pulley,
  where the normal force vanishes (the thesis's friction peaks there); the normal pressure
  along the arc follows the tension, f_n ≈ (T − ρA v²)/R, between the arc's two end
  samples (partly in contact: the penalty depth ramps from zero there).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.validation.belt_drive_data import (
    AREA,
    INERTIA,
    RAMP,
    R,
    creep_speed,
    e11,
    loaded,
)

pytestmark = pytest.mark.slow

ALPHA = 12.0 / (RAMP[1] - RAMP[0])
LOAD = 45.0  # N·m, (7.30) after 0.6 s
RHO = 1036.0


def test_full_run_follows_the_driver():
    run = e11(1.0)
    after = run.window(0.7, 1.0)
    assert run.omega2[after].mean() == pytest.approx(12.0, abs=0.06)
    upper, lower = run.span_tensions()
    ramp = run.window(0.2, 0.55)
    assert (upper - lower)[ramp].mean() == pytest.approx(INERTIA * ALPHA / R, rel=0.04)
    assert abs((upper - lower)[after].mean()) < 0.1 * INERTIA * ALPHA / R
    kinetic = run.column("energy.kinetic")[-1]
    assert run.summary["max_energy_drift"] < 5e-3 * kinetic
    # steps whose Newton iterations cycle on the friction law's pieces are retried in
    # substeps when the line search does not end the cycle within 12 iterations: 17 of
    # 1000 measured (52 when corrections leading back were halved instead)
    assert run.summary["retried_steps"] <= 30


def oscillation(run) -> float:
    """Largest |ω₂ − ω₁| on the ramp after its first 0.05 s (rad/s)."""
    sel = run.window(RAMP[0] + 0.05, RAMP[1])
    return float(np.abs(run.omega2 - run.omega1)[sel].max())


def test_stiffer_belt_oscillates_less():
    soft, stiff = oscillation(e11(1.0)), oscillation(e11(1.0, young=1e9))
    assert 2.5 < soft / stiff < 5.0
    assert e11(1.0, young=1e9).omega2[e11(1.0).window(0.7, 1.0)].mean() == pytest.approx(
        12.0, abs=0.06
    )


def test_twenty_elements_are_close_to_thirty():
    reference = e11(1.0, elements=30)
    distance = {
        n: float(np.sqrt(np.mean((e11(1.0, elements=n).omega2 - reference.omega2) ** 2)))
        for n in (15, 20, 25)
    }
    assert distance[15] > 2.0 * distance[20] > 2.0 * distance[25]
    assert distance[20] < 0.01 * 12.0


@pytest.mark.parametrize("slope", [1e4, 1e5])
def test_loaded_drive_runs_at_the_creep_speed(slope):
    run = loaded(slope)
    steady = run.window(0.8, 1.0)
    upper, lower = run.span_tensions()
    tight, slack = upper[steady].mean(), lower[steady].mean()
    assert tight - slack == pytest.approx(LOAD / R, rel=0.01)
    torque = run.column("contact.on_driven.torque")[steady].mean()
    assert torque == pytest.approx(LOAD, rel=0.01)
    length = run.column("contact.on_driven.contact_length")[steady].mean()
    assert math.pi * R < length < 1.1 * math.pi * R
    want = creep_speed(120.0, tight, slack, slope, length)
    omega2 = run.omega2[steady].mean()
    assert abs(omega2 - run.omega2[steady]).max() < 0.05  # steady
    assert 120.0 - omega2 == pytest.approx(120.0 - want, rel=0.05)
    if slope == 1e4:  # first order: 2 ΔT/(v_s ℓ R)
        assert 120.0 - omega2 == pytest.approx(2 * LOAD / R / (slope * length * R), rel=0.05)
    else:  # mostly the belt's elastic creep
        assert 120.0 - omega2 == pytest.approx(120.0 * LOAD / R / (1e9 * AREA), rel=0.15)


@pytest.mark.parametrize("slope", [1e4, 1e5])
def test_loaded_contact_distribution(slope):
    """At the end of the run (1 s), along the driven pulley: gross slip only at the ends of
    the contact, and the normal pressure set by the local tension."""
    run = loaded(slope)
    along = run.distribution("on_driven")
    inside = along["normal"] > 0.0
    assert inside.sum() > 10
    slipping = along["saturated"] & inside
    length = run.column("contact.on_driven.contact_length")[-1]
    assert run.column("contact.on_driven.slip_length")[-1] < 0.2 * length
    # the saturated points are the lightly loaded ones at the ends of the contact
    if slipping.any():
        assert along["normal"][slipping].max() < 0.3 * along["normal"][inside].max()
    upper, lower = run.span_tensions()
    speed = 120.0 * R  # m/s, about
    centrifugal = RHO * AREA * speed**2
    # the arc's two end samples are partly in contact (the penalty depth ramps from zero
    # over one sample spacing): the pressure follows the tension between them
    ends = np.flatnonzero(inside)[[0, -1]]
    arc = inside & ~slipping
    arc[ends] = False
    pressure = along["normal"][arc]
    low, high = (lower[-1] - centrifugal) / R, (upper[-1] - centrifugal) / R
    assert low * 0.9 < np.median(pressure) < high * 1.1
    assert pressure.min() > 0.5 * low and pressure.max() < 1.5 * high
