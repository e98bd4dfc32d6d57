"""The traditional index-3 Newmark method (``index3_newmark``) and its failures.

The null-space Newmark thesis (ch. 6) motivates its method with the traditional one: the
Newmark rule on all coordinates, multipliers, position constraints at the end of the step.
Its experiments on the stiff pendulum (examples/stiff_pendulum.json; τ = 0.1 sin(0.1 t)):

* trapezoidal rule at 0.1, 0.7, 0.79 and 6 s: converges, "adequate though unusual" (Fig. 6.5);
* Fox–Goodwin at 0.1, 0.6, 0.78 and 0.79 s: fails at every step (Fig. 6.6), because the
  multipliers act as a mode of infinite frequency (stable only for γ/2 − β ≤ 0, eq. 6.18);
* the null-space method with Fox–Goodwin is stable up to √6/ω_max = 0.78246 s (Fig. 8.2;
  tests/validation/test_null_space.py).

Measured here (400 s runs): trapezoidal max |θ| = 0.0105 rad at every step, as the null-space
method and the quasi-static τ0/(mgL) = 0.0102 rad; the velocity constraints, which this
method does not impose, are violated by 5e-9 (0.1 s) to 6e-6 m/s (6 s). Fox–Goodwin: the
velocity violation grows by orders of magnitude and the Newton iterations diverge at 2 s
(Δt = 0.1 s), 9 s (0.6 s), 10.9 s (0.78 s), 11.1 s (0.79 s), 60 s (6 s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis.dynamic import initial_state
from solver.analysis.formulations import formulation_class
from solver.analysis.simulate import settings_with
from solver.mechanics.system import MultibodySystem

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
I3 = "index3_newmark"


def run(name: str, dt: float, t_end: float, formulation: str = I3, **parameters):
    return simulate(
        load_model(EXAMPLES / f"{name}.json"),
        formulation=formulation,
        dt=dt,
        t_end=t_end,
        output_dt=dt,
        parameters={**parameters, "step_control": False},
    )


def swing(result) -> np.ndarray:
    return np.arctan2(result.column("bob.x"), -result.column("bob.y"))


@pytest.mark.parametrize(("dt", "t_end"), [(0.1, 60.0), (0.79, 400.0), (6.0, 400.0)])
def test_stiff_pendulum_trapezoidal_runs(dt, t_end):
    result = run("stiff_pendulum", dt, t_end, scheme="trapezoidal")
    assert result.status == "ok", result.message
    assert np.abs(swing(result)).max() == pytest.approx(0.0105, abs=5e-4)
    assert result.column("constraint.position").max() < 1e-9
    # the velocity constraints are not imposed: violated, though slightly
    violation = result.column("constraint.velocity").max()
    assert 1e-10 < violation < 1e-4


@pytest.mark.parametrize(("dt", "fails_by"), [(0.1, 3.0), (0.6, 12.0), (0.78, 15.0), (0.79, 15.0)])
def test_stiff_pendulum_fox_goodwin_fails_at_every_step(dt, fails_by):
    """Fig. 6.6; the null-space method with the same parameters runs, stable below its
    limit (Fig. 8.2)."""
    result = run("stiff_pendulum", dt, 20.0, scheme="fox_goodwin")
    assert result.status == "failed"
    assert result.t[-1] < fails_by
    assert "index-3 Newmark iterations did not converge" in result.message
    assert "null_space" in result.message  # the hint names the cure
    # before failing, the velocity constraints blew up (a bounded swing would not)
    assert result.column("constraint.velocity").max() > 1e3
    other = run("stiff_pendulum", dt, 20.0, formulation="null_space", scheme="fox_goodwin")
    assert other.status == "ok", other.message
    assert other.column("constraint.velocity").max() < 1e-10
    if dt < 0.78246:  # within its limit √6/ω_max the null-space method is stable
        assert np.abs(swing(other)).max() < 0.02
    else:  # and above it unstable, as predicted: the swing grows (0.20 rad at 20 s)
        assert np.abs(swing(other)).max() > 0.1


def test_newton_matrix_is_the_jacobian_of_the_equations():
    """The iteration matrix against central differences of the scaled residual, on a
    spinning 3-D model with a redundant loop (Bricard, given velocities) mid-step."""
    model = load_model(EXAMPLES / "bricard.json")
    system = MultibodySystem(model)
    settings = settings_with(model, formulation=I3, dt=0.01)
    form = formulation_class(I3)(system, settings)
    state = form.start(initial_state(system, 1e-12, 25))
    for _ in range(5):
        state = form.step(state, 0.01)
    rng = np.random.default_rng(3)
    q = state.q + 0.01 * state.qd + 1e-3 * rng.normal(size=system.n)
    lam = state.lam + rng.normal(size=system.m)
    _, jac, _, _ = form.equations(q, lam, state, 0.01)
    bh2 = form.scheme.beta * 0.01**2
    eps = 1e-6
    num = np.empty_like(jac)
    for j in range(system.n + system.m):
        dq, dl = np.zeros(system.n), np.zeros(system.m)
        if j < system.n:
            dq[j] = eps
        else:
            dl[j - system.n] = eps / bh2  # the unknown is λ̂ = βh² λ
        plus = form.equations(q + dq, lam + dl, state, 0.01)[0]
        minus = form.equations(q - dq, lam - dl, state, 0.01)[0]
        num[:, j] = (plus - minus) / (2 * eps)
    assert np.abs(jac - num).max() < 1e-6 * max(1.0, np.abs(jac).max())


def test_bricard_trapezoidal_with_redundant_constraints():
    """Redundant rows (30 joint equations of rank 29): the least-squares Newton step; the
    run keeps the position constraints and converges in a few iterations per step."""
    model = load_model(EXAMPLES / "bricard.json")
    system = MultibodySystem(model)
    settings = settings_with(model, formulation=I3, dt=0.01)
    form = formulation_class(I3)(system, settings)
    state = form.start(initial_state(system, settings.tolerance, settings.max_iterations))
    its = []
    for _ in range(100):
        state = form.step(state, 0.01)
        its.append(state.iterations)
        assert np.abs(system.position_constraints(state.q, state.t)[0]).max() < 1e-9
    assert max(its) <= 5, its
    assert np.isfinite(state.lam).all()


@pytest.mark.slow
def test_double_pendulum_near_the_trapezoidal_rule():
    """Negrut's double pendulum (examples/negrut_double_pendulum.json), Δt = 1 ms.

    The thesis (Figs. 6.11–6.12) reports that the traditional method fails with the
    trapezoidal rule and with (γ, β) = (0.5000005, 0.2500006). Measured here: with the
    trapezoidal rule the velocity-constraint violation grows without bound (0.05 m/s in the
    first 0.5 s, 0.6 by 1.5 s, 23 by 2 s) and the iterations diverge at 2.19 s; with the
    slightly damped parameters the run reaches 10 s but the violation stays at about
    0.27 m/s (bounded, not the published failure). The null-space method with Fox–Goodwin
    at 5e-4 s keeps all constraint levels to rounding (thesis Figs. 8.5–8.8).
    """
    tr = run("negrut_double_pendulum", 1e-3, 3.0, scheme="trapezoidal")
    assert tr.status == "failed" and 2.0 < tr.t[-1] < 2.5, tr.message
    violation = tr.column("constraint.velocity")
    assert violation[tr.t < 0.5].max() < 0.1 and violation.max() > 10.0
    near = run(
        "negrut_double_pendulum", 1e-3, 3.0, scheme="custom", gamma=0.5000005, beta=0.2500006
    )
    assert near.status == "ok", near.message
    assert 0.1 < near.column("constraint.velocity").max() < 1.0
    ns = run("negrut_double_pendulum", 5e-4, 3.0, formulation="null_space", scheme="fox_goodwin")
    assert ns.status == "ok", ns.message
    assert ns.column("constraint.velocity").max() < 1e-8
    # the two runs that succeed follow the same first swing of bar 1 (up to 2.5 rad)
    assert ns.column("joint.J1.angle").max() == pytest.approx(2.500, abs=0.01)
    assert near.column("joint.J1.angle").max() == pytest.approx(2.500, abs=0.01)
