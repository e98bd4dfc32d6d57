"""IFToMM A05 stiff flyball governor (``examples/flyball_governor.json``): physical checks.

The benchmark's criterion compares the slider position with a reference solution that is
not available here, so the checks are physical and cross-formulation:

* vertical angular momentum: gravity is along z and the bearing turns freely, so no
  external torque acts about z and L_z (53.869 kg·m²/s at the start) is constant;
* energy balance: ``energy.total`` = T + V + V_e − W stays constant, W being the
  (negative) work of the two dampers (c = 4e4 N·s/m);
* the centrifugal effect lifts the balls, so the slider rises (0.5 → 0.743 m in 0.5 s);
* the default (augmented_lagrangian, 1 ms) and central_differences (the thesis's method,
  Urkullu (2019) §8.11) agree on the slider's height.

Measured over 0.5 s (slider height at 0.5 s; maximum deviations over the run):

| run | slider z (m) | L_z rel. | energy.total (J) | ‖Φ‖ | CPU |
|---|---|---|---|---|---|
| augmented_lagrangian, 1 ms (default) | 0.743249 | 1.1e-6 | 3.2e-4 | 2.6e-14 | 5 s |
| central_differences, 0.5 ms | 0.743251 | 8.8e-9 | 8.9e-5 | 4.4e-16 | 10 s |

(T = 169 J at the start, 137 J at 0.5 s; the dampers have taken 2.4e-3 J by then.)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.mechanics.rotations import rotation_matrix

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SPAN = 0.3  # s, for the default suite


def run(formulation: str | None = None, dt: float | None = None, t_end: float = SPAN):
    model = load_model(EXAMPLES / "flyball_governor.json")
    result = simulate(model, formulation=formulation, dt=dt, t_end=t_end, output_dt=0.01)
    assert result.status == "ok", result.message
    return model, result


def vertical_angular_momentum(model, result) -> np.ndarray:
    """L_z about the origin (on the shaft's axis), kg·m²/s, at every output."""
    lz = np.zeros(len(result.t))
    for body in model.bodies:
        x, v, w, p = (
            np.column_stack([result.column(f"{body.name}.{n}") for n in names])
            for names in (
                ("x", "y", "z"),
                ("vx", "vy", "vz"),
                ("wx", "wy", "wz"),
                ("e0", "e1", "e2", "e3"),
            )
        )
        inertia = np.array(body.inertia)
        for k in range(len(lz)):
            a = rotation_matrix(p[k] / np.linalg.norm(p[k]))
            lz[k] += body.mass * np.cross(x[k], v[k])[2] + (a @ inertia @ a.T @ w[k])[2]
    return lz


@pytest.fixture(scope="module")
def default_run():
    return run()


def test_default_settings(default_run):
    model, _ = default_run
    assert model.solver.formulation == "augmented_lagrangian" and model.solver.dt == 1e-3
    k = {f.name: (f.stiffness, f.damping, f.free_length) for f in model.forces}
    assert k == {"spring1": (8e5, 4e4, 0.5), "spring2": (8e5, 4e4, 0.5)}
    assert sum(b.mass for b in model.bodies) == pytest.approx(0.3 + 3.0 + 2 * (0.3 + 5.0))


def test_vertical_angular_momentum_is_conserved(default_run):
    model, result = default_run
    lz = vertical_angular_momentum(model, result)
    assert lz[0] == pytest.approx(53.868999, rel=1e-7)  # everything turning at 2π rad/s
    assert np.abs(lz - lz[0]).max() < 1e-5 * lz[0]  # measured 1.1e-6 over 0.5 s


def test_energy_balance_with_the_dampers(default_run):
    _, result = default_run
    work = result.column("energy.work")
    assert work[-1] < 0.0  # the dampers only take energy
    assert result.max_energy_drift() < 1e-3  # J; measured 3.2e-4 J over 0.5 s (T = 169 J)
    assert result.column("constraint.position").max() < 1e-10


def test_the_slider_rises_and_two_formulations_agree(default_run):
    _, result = default_run
    z = result.column("S.z")
    assert z[0] == pytest.approx(0.5, abs=1e-12)
    assert np.all(np.diff(z) > 0.0)  # it rises all through the first 0.3 s
    assert z[-1] > 0.6
    _, cd = run("central_differences", 1e-3)
    assert np.abs(cd.column("S.z") - z).max() < 2e-5
