"""The compiled Runge–Kutta integrator of ``lagrange_baumgarte``
(``solver.compiled.lagrange_baumgarte.rk_advance``) against SciPy's integrator of the same
name on the same accelerations: the same steps and outputs on a smooth run (RK45, RK23 and
DOP853, outputs inside steps that span several), the same bounces where a contact commits its
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
        m.setattr(LagrangeBaumgarte, "_integrates_compiled", lambda self: False)
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


def _stepped(model, compiled: bool, steps: int, h: float, **params):
    """``(q, work, right-hand sides)`` of the formulation's ``steps`` output steps of
    ``h``: each output's coordinates and work, and the right-hand sides of the run."""
    from solver.analysis.dynamic import initial_state
    from solver.analysis.simulate import settings_with
    from solver.mechanics.system import MultibodySystem

    system = MultibodySystem(model)
    settings = settings_with(model, formulation=LB, dt=h, t_end=steps * h, parameters=params)
    lb = LagrangeBaumgarte(system, settings)
    if not compiled:
        lb._integrates_compiled = lambda: False
    state = lb.start(initial_state(system, settings.tolerance, 25))
    assert (lb._rk is not None) == compiled
    q, work, evaluations = [], [], 0
    for _ in range(steps):
        state = lb.step(state, h)
        q.append(state.q)
        work.append(state.carry.work)
        evaluations += state.carry.evaluations
    return np.array(q), np.array(work), evaluations


#: relative agreement with SciPy's integrator: the last bits of rounding (RK45, RK23);
#: DOP853's step sequence itself turns on them (SciPy's with rtol changed by 1e-12
#: relative: its work 3e-9 relative off)
AGREE = {"RK45": 1e-9, "RK23": 1e-9, "DOP853": 3e-8}


@pytest.mark.parametrize("integrator", ["RK45", "RK23", "DOP853"])
def test_like_scipy_on_a_smooth_run(integrator):
    """The spatial four-bar (a spring, a motor: the work integrated as a state) at outputs
    every 0.1 ms, inside steps of several ms: the same trajectory and work as SciPy's
    integrator (the same method and step control) from about the same number of
    right-hand sides."""
    model = load_model(EXAMPLES / "four_bar_spatial.json")
    params = {"integrator": integrator, "rtol": 1e-8}
    q_ref, w_ref, n_ref = _stepped(model, False, 3000, 1e-4, **params)
    q, w, n = _stepped(model, True, 3000, 1e-4, **params)
    tol = AGREE[integrator]
    assert np.abs(q - q_ref).max() < tol * max(1.0, np.abs(q_ref).max())
    assert np.abs(w - w_ref).max() < tol * max(1.0, np.abs(w_ref).max())
    assert abs(n - n_ref) <= 0.02 * n_ref
    assert n < 0.5 * len(q)  # a step spans several outputs
    # each output its own state, not the step's end
    assert len(np.unique(q[:, 0])) > 0.9 * len(q)


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


def test_sliding_joints_take_scipys_integrator_on_the_compiled_accelerations(monkeypatch):
    """A model with an ANCF sliding joint (whose position on the beam the right-hand side
    checks): SciPy's integrator, whose right-hand side is the compiled accelerations."""
    model = load_model(EXAMPLES / "ancf_sliding_ring.json")
    started = _taken(monkeypatch)
    got = simulate(model, formulation=LB, t_end=0.01)
    assert got.status == "ok", got.message
    lb = started[0]
    assert lb._rk is None and lb.ode is not None and lb._core is not None


def test_a_non_finite_state_ends_in_a_step_size_below_the_spacing(monkeypatch):
    """A right-hand side that turns non-finite makes every error estimate NaN: each step is
    rejected with the smallest factor until its size falls below the spacing of the
    floating-point numbers (``STATUS_SMALL``), the run's error, named as SciPy's failure
    was."""
    from solver.analysis.dynamic import initial_state
    from solver.analysis.simulate import settings_with
    from solver.errors import SimulationError
    from solver.mechanics.system import MultibodySystem

    model = load_model(EXAMPLES / "pendulum.json")
    system = MultibodySystem(model)
    settings = settings_with(model, formulation=LB, t_end=1.0)
    lb = LagrangeBaumgarte(system, settings)
    state = lb.start(initial_state(system, settings.tolerance, 25))
    state = lb.step(state, settings.dt)
    lb._rk.state.y[0] = np.nan
    with pytest.raises(SimulationError, match="Runge–Kutta integrator failed") as err:
        lb.step(state, settings.dt)
    assert "step size fell below the spacing" in err.value.reason
    assert lb._rk.clock[clb.H_ABS] < 1e-15


def test_a_relative_tolerance_below_100_eps_is_taken_as_100_eps(monkeypatch):
    """rtol = 1e-18 asks for more than the rounding of y allows: the integrator takes
    100 ε, as SciPy's integrators do (and the run goes)."""
    from solver.analysis.formulations.lagrange_baumgarte import RTOL_MIN

    started = _taken(monkeypatch)
    model = load_model(EXAMPLES / "pendulum.json")
    got = simulate(model, formulation=LB, t_end=0.01, parameters={"rtol": 1e-18})
    assert got.status == "ok", got.message
    assert started[0]._rk.cfg.rtol == RTOL_MIN == 100 * np.finfo(float).eps
