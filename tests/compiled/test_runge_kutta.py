"""The compiled Runge–Kutta integrator of ``lagrange_baumgarte``
(``solver.compiled.lagrange_baumgarte.rk_advance``) against SciPy's integrator of the same
name on the same accelerations: the same steps and outputs on a smooth run (RK45 and RK23,
outputs inside steps that span several), the same bounces where a contact commits its
state at the accepted steps, and the least-squares solve of a singular saddle-point
matrix in the kernel."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis.formulations.lagrange_baumgarte import LagrangeBaumgarte
from solver.analysis.simulate import simulate
from solver.compiled import lagrange_baumgarte as clb
from solver.model import load_model
from tests.compiled.models import EXAMPLES

LB = "lagrange_baumgarte"


def _scipy(monkeypatch, model, **kw):
    """The run with SciPy's integrator (the compiled one never taken)."""
    with monkeypatch.context() as m:
        m.setattr(LagrangeBaumgarte, "_compiled_integrator", lambda self: None)
        return simulate(model, formulation=LB, **kw)


def _positions(result) -> np.ndarray:
    cols = [c for c in result.columns if c.endswith((".x", ".y", ".z"))]
    return np.column_stack([result.column(c) for c in cols])


def _taken(monkeypatch) -> list:
    """The formulations started in this test, to look at after the run."""
    started = []
    start = LagrangeBaumgarte.start

    def keep(self, state):
        started.append(self)
        return start(self, state)

    monkeypatch.setattr(LagrangeBaumgarte, "start", keep)
    return started


@pytest.mark.parametrize("integrator", ["RK45", "RK23"])
def test_like_scipy_on_a_smooth_run(monkeypatch, integrator):
    """The spatial four-bar (a spring, a motor: the work integrated as a state) at outputs
    every 0.1 ms, inside steps of several ms: the same trajectory and work as SciPy's
    integrator (the same method and step control; only rounding differs)."""
    model = load_model(EXAMPLES / "four_bar_spatial.json")
    kw = dict(dt=1e-4, t_end=0.3, parameters={"integrator": integrator, "rtol": 1e-8})
    ref = _scipy(monkeypatch, model, **kw)
    started = _taken(monkeypatch)
    got = simulate(model, formulation=LB, **kw)
    assert started[0]._rk is not None and started[0].ode is None  # compiled throughout
    assert got.status == ref.status == "ok"
    a, b = _positions(ref), _positions(got)
    assert np.abs(a - b).max() < 1e-9 * max(1.0, np.abs(a).max())
    work = ref.column("energy.work")
    assert np.abs(got.column("energy.work") - work).max() < 1e-9 * max(1.0, np.abs(work).max())
    # a step spans many outputs: each output its own state, not the step's end
    assert len(np.unique(b[:, 0])) > 0.9 * len(b)


def test_bounces_like_scipy(monkeypatch):
    """The ball dropped on the plane: the contact commits its onset speed at the step
    where it first penetrates, and the steps in contact one by one, as with SciPy's
    integrator: the same bounces (heights to 1e-6 m) and contact work."""
    model = load_model(EXAMPLES / "ball_drop.json")
    ref = _scipy(monkeypatch, model, t_end=1.5)
    got = simulate(model, formulation=LB, t_end=1.5)
    z_ref, z = ref.column("ball.z"), got.column("ball.z")
    assert z_ref.min() < 0.1 and z_ref[-1] > 0.2  # bounced
    assert np.abs(z - z_ref).max() < 1e-6
    work = ref.column("energy.work")
    assert work[-1] < -1.0  # the impacts dissipated
    assert np.abs(got.column("energy.work") - work).max() < 1e-5 * abs(work[-1])


def test_singular_saddle_point_solved_in_the_kernel(monkeypatch):
    """Bricard's redundant rows with a regularisation too small for the LU's pivot test:
    the kernel's least-squares solve, the same run as SciPy's integrator on the NumPy
    least-squares solve."""
    model = load_model(EXAMPLES / "bricard.json")
    kw = dict(t_end=0.2, parameters={"regularisation": 1e-17})
    ref = _scipy(monkeypatch, model, **kw)
    started = _taken(monkeypatch)
    got = simulate(model, formulation=LB, **kw)
    assert started[0]._rk is not None and started[0].ode is None
    a = _positions(ref)
    assert np.abs(_positions(got) - a).max() < 1e-8 * max(1.0, np.abs(a).max())


def test_dop853_takes_scipys_integrator_on_the_compiled_accelerations(monkeypatch):
    """DOP853 (not compiled): SciPy's integrator, whose right-hand side is the compiled
    accelerations."""
    model = load_model(EXAMPLES / "heavy_top.json")
    started = _taken(monkeypatch)
    got = simulate(model, formulation=LB, t_end=0.05)
    assert got.status == "ok", got.message
    lb = started[0]
    assert lb.params["integrator"] == "DOP853"
    assert lb._rk is None and lb.ode is not None and lb._compiled is not None


def test_a_step_size_below_the_spacing_is_an_error(monkeypatch):
    """``STATUS_SMALL`` is the run's error, named as SciPy's failure was."""
    from solver.analysis import compiled_runge_kutta as crk

    monkeypatch.setattr(crk.CompiledRungeKutta, "advance", lambda *_: (clb.STATUS_SMALL, 0))
    got = simulate(load_model(EXAMPLES / "pendulum.json"), formulation=LB, t_end=0.01)
    assert got.status == "failed"
    assert "Runge–Kutta integrator failed" in got.message
