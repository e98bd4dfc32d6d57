"""Step control: failed steps retried in halves, outputs on the grid, the record in the
summary; every formulation takes a changed step size."""

from __future__ import annotations

import numpy as np
import pytest

from solver import simulate
from solver.analysis import formulations as formulations_module
from solver.analysis.errors import SimulationError
from solver.analysis.formulations import DynamicState
from solver.analysis.step_control import MAX_HALVINGS, StepControl
from solver.generators.mechanisms import pendulum_chain
from solver.model import model_from_data


class Fake:
    """A formulation whose step of size h > ``limit`` fails (x' = 1, exact)."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.sizes: list[float] = []

    def step(self, state, h):
        self.sizes.append(h)
        if h > self.limit:
            raise SimulationError(state.t + h, "Newton did not converge", "a smaller dt")
        return DynamicState(state.t + h, state.q + h, state.qd)


def start() -> DynamicState:
    return DynamicState(0.0, np.zeros(1), np.ones(1))


def test_a_failed_step_is_retried_in_halves():
    fake = Fake(limit=0.26)
    control = StepControl()
    state, smallest = control.step(fake, start(), 1.0)
    assert state.t == pytest.approx(1.0) and state.q[0] == pytest.approx(1.0)
    assert smallest == 0.25
    assert fake.sizes == [1.0, 0.5, 0.25, 0.25, 0.5, 0.25, 0.25]
    control.record(0.0, smallest)
    control.record(1.0, None)  # a whole step is not counted
    out = control.summary(1.0)
    assert out["retried_steps"] == 1 and out["smallest_substep"] == 0.25
    assert "dt/4" in out["warning"] and "t = 0 s" in out["warning"]


def test_the_halving_stops_at_the_documented_limit():
    fake = Fake(limit=0.0)
    with pytest.raises(SimulationError) as info:
        StepControl().step(fake, start(), 1.0)
    assert min(fake.sizes) == 1.0 / 2**MAX_HALVINGS
    assert "Newton did not converge" in info.value.message
    assert f"down to {1.0 / 2**MAX_HALVINGS:.3g} s" in info.value.message


def test_step_control_off_fails_at_once():
    fake = Fake(limit=0.5)
    with pytest.raises(SimulationError):
        StepControl(enabled=False).step(fake, start(), 1.0)
    assert fake.sizes == [1.0]


def test_the_n_pendulum_generator_runs_to_its_end(monkeypatch):
    """The 3-link N-pendulum of the generators (augmented Lagrangian, Δt = 0.005 s) with at
    most 4 Newton iterations per step: some steps of its fast swings need more (it takes
    about 3 on average), so their Newton iteration really fails (a compiled step that fails
    is retaken by the formulation's own step). Retried in halves, the run reaches t_end with
    every output on the grid; without step control it stops at the first of them."""
    model = model_from_data(pendulum_chain())
    assert model.solver.formulation == "augmented_lagrangian" and model.solver.dt == 0.005
    model.solver.max_iterations = 4
    off = simulate(model, parameters={"step_control": False})
    assert off.status == "failed" and off.t[-1] < model.solver.t_end - 0.1
    assert "did not converge" in off.message
    r = simulate(model)
    assert r.status == "ok", r.message
    assert r.t[-1] == pytest.approx(model.solver.t_end)
    assert np.allclose(r.t, 0.005 * np.arange(len(r.t)), atol=1e-9)
    assert r.summary["retried_steps"] >= 1
    assert r.summary["smallest_substep"] <= 0.0025
    assert "retried in substeps" in r.summary["warnings"][0]
    assert r.column("constraint.position").max() < 1e-8


FORMULATIONS = [
    ("augmented_lagrangian", {}),
    ("augmented_lagrangian", {"rho_inf": 0.8}),
    ("central_differences", {}),
    ("central_differences", {"variant": "family"}),
    ("null_space", {}),
    ("null_space", {"method": "r_matrix"}),
    ("penalty", {}),
    ("lagrange_baumgarte", {}),
]


@pytest.mark.parametrize("name,params", FORMULATIONS, ids=[f"{n}{p}" for n, p in FORMULATIONS])
def test_every_formulation_takes_a_changed_step(monkeypatch, name, params):
    """Steps between 0.2 and 0.3 s fail at the full Δt, so they are taken in halves: the
    solution stays that of the fixed-step run to within its own time-discretisation error
    (a multistep state left for the wrong h, e.g. a central-difference look-ahead or the
    generalized-α acceleration variable, would be far off)."""
    model = model_from_data(pendulum_chain(2))
    dt = 0.005
    cls = formulations_module.formulation_class(name)

    class Flaky(cls):
        def step(self, state, h):
            if h >= dt * 0.999 and 0.2 <= state.t < 0.3:
                raise SimulationError(state.t + h, "forced failure")
            return super().step(state, h)

    def make(run_dt):
        return simulate(
            model, formulation=name, dt=run_dt, t_end=0.4, output_dt=0.02, parameters=params
        )

    whole = make(dt)
    half = make(dt / 2)
    monkeypatch.setattr("solver.analysis.dynamic.formulation_class", lambda _name: Flaky)
    retried = make(dt)
    assert retried.status == "ok", retried.message
    assert 19 <= retried.summary["retried_steps"] <= 21
    assert retried.summary["smallest_substep"] == dt / 2
    assert np.allclose(retried.t, whole.t)
    tip = [r.column("tip.z") for r in (whole, half, retried)]
    scale = np.abs(tip[0] - tip[1]).max() + 1e-6  # the fixed-step runs' own difference
    assert np.abs(tip[2] - tip[0]).max() < 3.0 * scale
