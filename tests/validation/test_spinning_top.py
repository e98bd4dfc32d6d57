"""The spinning top (examples/spinning_top.json) against published convergence tables.

The null-space Newmark thesis §8.2.3 and §8.3.2 (Table 8.3) takes the top from Urkullu (2019)
§8.2: one body on a spherical joint at its tip, 1.7355017e-2 kg, inertia 3.256544e-6 (x, y)
and 1.99486e-6 kg·m² (z) about the centre of mass at (0, 0, −0.03993) m, spinning at
523.6 rad/s, a Gaussian force pulse f_x = 0.01 exp(−(t − 0.6)²/(2·0.1²)) N at the centre of
mass, 2 s. Error measure (both sources, eqs. 8.4–8.5): e_j(t_i) = |x_j − x_j^ref| /
max(|x_j^ref|, 10⁻³), e = √(mean over instants of the mean over j of e_j²).

Reference here: the rigid body about its fixed point (Euler's equations with the inertia
about the tip, unit-quaternion kinematics) integrated by DOP853 at rtol 1e-12, independent
of Biela's formulations. x_j = the three components of the global angular velocity at the 50
instants 0.04, 0.08, …, 2 s (Urkullu's Table 8.2 measures ω_x, ω_y, ω_z at 50 instants).

Measured (e on ω):

| Δt | central_differences | Urkullu Table 8.2 | null_space TR | thesis Table 8.3, Newmark |
|---|---|---|---|---|
| 2e-3 | 1.787 | 1.79 | 1.031 | 0.5306 |
| 1e-3 | 0.730 | 0.72 | 0.2907 | 0.1556 |
| 5e-4 | 0.1997 | 0.19 | 0.07429 | 0.03998 |

Central differences reproduce Urkullu's table to 5 % (this also confirms the reading of the
data: the top stands upright, gravity along +z). The null-space method (trapezoidal rule,
the Octave runs' set; the table does not name its set) converges quadratically as the
thesis states, with errors 1.86–1.94 times its Table 8.3 at every step: the same constant up
to a factor the thesis's error definition does not let us resolve (its variables and number
of instants are not stated; its CD column, 0.26, 7.3e-2, 1.84e-2, is in turn 7–11 times
below Urkullu's for the same runs). So the published ratio Newmark/CD ≈ 2 is not
reproduced: here the trapezoidal rule is 0.37–0.58 times as large as central differences.
Fox–Goodwin is less accurate on this fast spin (ω Δt = 0.26–1.05): 5.78, 1.94, 0.84.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from solver import load_model, simulate

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "spinning_top.json"
MASS = 1.7355017e-2
INERTIA = np.array([3.256544e-6, 3.256544e-6, 1.99486e-6])
LEVER = 0.03993  # m, tip to centre of mass
SPIN = 523.6  # rad/s
INSTANTS = np.linspace(0.04, 2.0, 50)
THRESHOLD = 1e-3


def rotation(p: np.ndarray) -> np.ndarray:
    e0, e1, e2, e3 = p / np.linalg.norm(p)
    return 2.0 * np.array(
        [
            [e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
            [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
            [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5],
        ]
    )


#: principal moments of inertia about the tip (kg·m²)
TIP_INERTIA = tuple(float(v) for v in INERTIA + np.array([MASS * LEVER**2, MASS * LEVER**2, 0]))


def _rhs(t, y):
    """Body-frame Euler equations about the tip, ṗ = ½ p ⊗ (0, ω̄), in scalars (DOP853 calls
    it some 60 000 times). The torque about the tip is ā × (Rᵀ f): ā = (0, 0, −LEVER) the
    centre of mass in the body frame, f = (f_x, 0, m g) the pulse and the weight (gravity
    along +z, the top standing upright)."""
    e0, e1, e2, e3, wx, wy, wz = y
    n = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)
    e0, e1, e2, e3 = e0 / n, e1 / n, e2 / n, e3 / n
    fx = 0.01 * math.exp(-((t - 0.6) ** 2) / (2 * 0.1**2))
    fz = MASS * 9.81
    bx = 2.0 * ((e0 * e0 + e1 * e1 - 0.5) * fx + (e1 * e3 - e0 * e2) * fz)  # (Rᵀ f)_x
    by = 2.0 * ((e1 * e2 - e0 * e3) * fx + (e2 * e3 + e0 * e1) * fz)  # (Rᵀ f)_y
    ix, iy, iz = TIP_INERTIA
    return [
        0.5 * (-e1 * wx - e2 * wy - e3 * wz),
        0.5 * (e0 * wx + e2 * wz - e3 * wy),
        0.5 * (e0 * wy + e3 * wx - e1 * wz),
        0.5 * (e0 * wz + e1 * wy - e2 * wx),
        (LEVER * by - (iz - iy) * wy * wz) / ix,
        (-LEVER * bx - (ix - iz) * wz * wx) / iy,
        -(iy - ix) * wx * wy / iz,
    ]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """Global angular velocity at ``INSTANTS`` (rows), DOP853 at rtol 1e-12."""
    sol = solve_ivp(
        _rhs,
        (0.0, 2.0),
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, SPIN],
        method="DOP853",
        rtol=1e-12,
        atol=1e-14,
        t_eval=INSTANTS,
    )
    assert sol.status == 0
    return np.array([rotation(sol.y[:4, k]) @ sol.y[4:, k] for k in range(len(INSTANTS))])


def error(result, ref: np.ndarray) -> float:
    """e of eqs. 8.4–8.5 on (ω_x, ω_y, ω_z) at the 50 instants."""
    rows = np.rint(INSTANTS / 0.04).astype(int)
    w = np.column_stack([result.column(f"top.w{c}") for c in "xyz"])[rows]
    e = np.abs(w - ref) / np.maximum(np.abs(ref), THRESHOLD)
    return float(np.sqrt(np.mean(e**2)))


def run(formulation: str, dt: float, **parameters):
    result = simulate(
        load_model(EXAMPLE),
        formulation=formulation,
        dt=dt,
        t_end=2.0,
        output_dt=0.04,
        parameters=parameters,
    )
    assert result.status == "ok", result.message
    assert np.allclose(result.t[np.rint(INSTANTS / 0.04).astype(int)], INSTANTS)
    return result


def test_reference_is_the_published_motion(reference):
    """The spin stays at 518–524 rad/s; the pulse tips the top by a few degrees (the
    thesis's Fig. 8.13: pitch and roll within ±10°)."""
    assert np.abs(reference[:, 2]).min() > 515.0
    tilt = np.degrees(np.arctan(np.hypot(reference[:, 0], reference[:, 1]) / reference[:, 2]))
    assert 3.0 < tilt.max() < 10.0


@pytest.mark.parametrize(("dt", "published"), [(2e-3, 1.79), (1e-3, 0.72)])
def test_central_differences_reproduce_urkullus_table(reference, dt, published):
    assert error(run("central_differences", dt), reference) == pytest.approx(published, rel=0.05)


@pytest.mark.slow
def test_central_differences_at_half_a_millisecond(reference):
    assert error(run("central_differences", 5e-4), reference) == pytest.approx(0.19, rel=0.06)


@pytest.mark.parametrize(
    ("dt", "measured", "published"),
    [(2e-3, 1.031, 0.5306), pytest.param(1e-3, 0.2907, 0.1556, marks=pytest.mark.slow)],
)
def test_null_space_trapezoidal_error(reference, dt, measured, published):
    e = error(run("null_space", dt, scheme="trapezoidal"), reference)
    assert e == pytest.approx(measured, rel=0.03)
    assert 1.8 < e / published < 2.0  # the same constant as Table 8.3 up to a factor 1.9


@pytest.mark.slow
def test_null_space_converges_quadratically(reference):
    """Table 8.3's claim: halving Δt divides the error by about 4 (2.5e-4 s: 0.01005 in the
    thesis)."""
    errors = [
        error(run("null_space", dt, scheme="trapezoidal"), reference) for dt in (5e-4, 2.5e-4)
    ]
    assert errors[0] == pytest.approx(0.07429, rel=0.03)
    assert 3.5 < errors[0] / errors[1] < 4.3
    assert 1.7 < errors[1] / 0.01005 < 2.1
