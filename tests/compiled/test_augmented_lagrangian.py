"""The compiled augmented Lagrangian (``solver.compiled.augmented_lagrangian``) takes the
same steps as the NumPy ``AugmentedLagrangian``: step by step the same positions,
velocities, accelerations, multipliers and Newton iteration counts, on the A01 pendulum,
4- and 16-bar chains, the A02 double four-bar through a singular position, the redundant
Bricard mechanism and a model with every primitive, with generalized-α and with a fixed
penalty; and the same failures.

Tolerances: positions agree to 1e-12 m and velocities to 1e-10 m/s measured (the Newton
tolerance is 1e-10); accelerations to ~1e-9 and multipliers to ~1e-7 relative (the
projections' matrix ``M + 1e7 m_ref Φ_qᵀΦ_q`` amplifies rounding: the two implementations'
multipliers differ by ~3e-8). Both return the index-1 multipliers of their state: their
constraint forces ``Φ_qᵀ λ`` are those of ``M q̈ + Φ_qᵀ λ = Q``, ``Φ_q q̈ = γ`` to 1e-8 of
``|Q|`` (measured 5.7e-12; 1.7e-2 with ``λ* + σ``, which carries the Newton residual, up
to α times the rounding of Φ). Skipping the velocity projection changes velocities by ~1e-7
m/s, the acceleration projection accelerations by O(1), so the bounds below catch either.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.chain import chain_data
from solver.analysis.compiled_steps import (
    al_failure,
    al_parameters,
    band_layout,
    band_of_patterns,
)
from solver.analysis.dynamic import initial_state
from solver.analysis.errors import SimulationError
from solver.analysis.formulations import formulation_class
from solver.analysis.formulations.augmented_lagrangian import (
    closer_to_extrapolation,
)
from solver.analysis.formulations.trapezoidal import (
    Factorized,
    Newmark,
    constrained_solve,
)
from solver.analysis.outputs.multipliers import accelerations_and_multipliers
from solver.analysis.simulate import settings_with
from solver.compiled import augmented_lagrangian as cal
from solver.compiled import dense
from solver.compiled.step_record import StepRecord
from solver.kernels.system import Patterns
from solver.mechanics.system import MultibodySystem
from solver.model import load_model, model_from_data
from tests.compiled.models import EXAMPLES, mixed_data
from tests.validation.a02_exact import model_at_phase

AL = "augmented_lagrangian"


# ---- pieces against their NumPy counterparts ---------------------------------------------
def _banded(rng, n, half):
    a = rng.standard_normal((n, n))
    i, j = np.indices((n, n))
    a[np.abs(i - j) > half] = 0.0
    return a


@pytest.mark.parametrize("n, half", [(1, 0), (7, 6), (40, 3), (112, 20)])
def test_dense_lu_solves_like_lapack(n, half):
    rng = np.random.default_rng(n)
    a = _banded(rng, n, half)
    b = rng.standard_normal(n)
    lu = a.copy()
    piv, ok = dense.lu_factor(lu)
    assert ok
    x = dense.lu_solve(lu, piv, b)
    ref = np.linalg.solve(a, b)
    assert np.abs(x - ref).max() <= 1e-11 * np.abs(ref).max()
    # factors reused for another right-hand side, b untouched
    b2 = rng.standard_normal(n)
    keep = b2.copy()
    assert np.allclose(dense.lu_solve(lu, piv, b2), np.linalg.solve(a, keep), rtol=1e-10)
    assert np.array_equal(b2, keep)


def test_dense_lu_pivots_and_reports_singular_matrices():
    a = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 4.0]])  # a[0, 0] = 0
    lu = a.copy()
    piv, ok = dense.lu_factor(lu)
    assert ok and piv[0] == 2  # the largest entry of the first column
    assert np.allclose(dense.lu_solve(lu, piv, np.ones(3)), np.linalg.solve(a, np.ones(3)))
    singular = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(np.linalg.LinAlgError):
        Factorized(singular)  # what the NumPy path sees
    assert not dense.lu_factor(singular.copy())[1]


@pytest.mark.parametrize("m, n, rank", [(6, 6, 6), (9, 5, 5), (4, 7, 4), (8, 8, 5), (5, 9, 3)])
def test_min_norm_lstsq_like_numpy(m, n, rank):
    """The minimum-norm least-squares solution of full-rank, tall, wide and rank-deficient
    systems, as NumPy's ``lstsq`` with the same ``rcond`` (LAPACK's ``gelsd``)."""
    rng = np.random.default_rng(10 * m + n)
    a = rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))
    b = rng.standard_normal(m)
    x = dense.min_norm_lstsq(a, b, 1e-12)
    ref = np.linalg.lstsq(a, b, rcond=1e-12)[0]
    assert np.abs(x - ref).max() <= 1e-10 * max(1.0, np.abs(ref).max())
    assert np.array_equal(dense.min_norm_lstsq(a[:0], b[:0], 1e-12), np.zeros(n))
    tiny = np.diag([1.0, 1e-14, 2.0])  # σ = 1e-14 below rcond σ_max: left out
    x = dense.min_norm_lstsq(tiny, np.ones(3), 1e-12)
    assert np.allclose(x, [1.0, 0.0, 0.5], rtol=0.0, atol=1e-14)
    b[1] = np.nan
    with pytest.raises(np.linalg.LinAlgError):
        dense.min_norm_lstsq(a, b, 1e-12)


def _band_of(mass, jac):
    """The band layout and entries of a dense ``mass`` and ``jac`` (no other terms)."""
    none = np.zeros(0, np.int64)
    mr, mc = (x.astype(np.int64) for x in np.nonzero(mass))
    jr, jc = (x.astype(np.int64) for x in np.nonzero(jac))
    pt = Patterns(jr, jc, none, none, none, none, mr, mc, none, none, none, none, none, none)
    lay = band_of_patterns(pt, mass.shape[0], jac.shape[0])
    return lay, pt, mass[mr, mc], jac[jr, jc]


def test_constrained_solve_like_trapezoidal():
    """Projection with redundant rows (a repeated row and an inconsistent right-hand side:
    the stalling stop) and a mass matrix singular along one direction."""
    rng = np.random.default_rng(7)
    n, m = 9, 5
    b = rng.standard_normal((n, n))
    mass = b @ b.T
    mass[:, 0] = mass[0, :] = 0.0  # singular along q0: the rows fix it
    jac = rng.standard_normal((m, n))
    jac[4] = jac[1]  # redundant
    for g4 in (None, 1e-9):  # consistent, then inconsistent redundant rows
        g = rng.standard_normal(m)
        g[4] = g[1] if g4 is None else g[1] + g4
        x0 = rng.standard_normal(n)
        f = mass @ x0
        alpha = 1e7 * np.max(np.diag(mass))
        a = mass + alpha * jac.T @ jac
        x, s, it = constrained_solve(Factorized(a), mass, jac, f, g, alpha, 1e-14, x0=x0)
        lay, pt, mv, jv = _band_of(mass, jac)
        fac, last, ok = cal.projector(lay, pt, mv, jv, alpha)
        cx, cs, cit = cal.constrained_solve(
            fac, last, lay, pt, pt.phi_r, pt.phi_c, mv, jv, f, g, alpha, 1e-14, x0, 20
        )
        # the same stopping rules; at a 1e-14 tolerance the last bits may decide one more
        assert ok and abs(cit - it) <= 1
        assert np.abs(cx - x).max() < 1e-10
        # σ of the redundant rows is not unique (how it splits between rows 1 and 4 follows
        # the iteration count); the forces Φ_qᵀσ are
        forces = jac.T @ s
        assert np.abs(jac.T @ cs - forces).max() < 1e-6 * np.abs(forces).max()
        if g4 is None:
            assert np.abs(jac @ cx - g).max() < 1e-12


@pytest.mark.parametrize("rho", [None, 0.8, 0.0])
def test_newmark_update_and_acceleration_variable(rho):
    rng = np.random.default_rng(3)
    nm = Newmark.from_rho(rho)
    sch, _ = al_parameters({"rho_inf": rho})
    q1, q, qd, qdd, a = rng.standard_normal((5, 6))
    h = 1e-3
    for got, ref in zip(
        cal.newmark_update(sch, q1, q, qd, qdd, a, h), nm.update(q1, q, qd, qdd, a, h), strict=True
    ):
        assert np.array_equal(got, ref)
    assert np.array_equal(
        cal.acceleration_variable(sch, qd, qdd, a), nm.acceleration_variable(qd, qdd, a)
    )
    assert cal.slopes(sch, h) == pytest.approx(nm.slopes(h), rel=1e-15)


# ---- whole steps against the NumPy formulation -------------------------------------------
def _setup(model, dt, tolerance=None, max_iterations=None, **params):
    system = MultibodySystem(model)
    settings = settings_with(
        model,
        formulation=AL,
        dt=dt,
        tolerance=tolerance,
        max_iterations=max_iterations,
        parameters=params or None,
    )
    formulation = formulation_class(AL)(system, settings)
    state = formulation.start(initial_state(system, settings.tolerance, 25))
    return system, formulation, state, system


def _compiled_steps(formulation, state, system, dt, n_steps, multipliers=True):
    """al_steps from the NumPy formulation's started state: ``(result, outputs, final)``."""
    n, m = system.n, system.m
    sch, pen = al_parameters(formulation.params)
    scalars = np.zeros((n_steps, cal.N_OUT))
    q, qd, qdd = np.zeros((n_steps, n)), np.zeros((n_steps, n)), np.zeros((n_steps, n))
    lam = np.zeros((n_steps, m))
    cur = {
        "q": state.q.copy(),
        "qd": state.qd.copy(),
        "qdd": state.qdd.copy(),
        "a": state.carry.a.copy(),
        "lam_star": state.lam.copy(),
        "lam": state.lam.copy(),
        "extrapolate": np.array([state.carry.extrapolate]),
    }
    settings = cal.ALSettings(
        sch, pen, formulation.m_ref, formulation.tolerance, formulation.max_iterations, dt,
        False, multipliers, False,
    )  # fmt: skip
    record = StepRecord(scalars, q, qd, qdd, lam, np.ones(n_steps, np.bool_))
    res = cal.al_steps(
        system.arrays, system.patterns, band_layout(system), settings, state.t, 0, n_steps,
        0.0, 0.0, cal.ALArrays(*cur.values()), record,
    )  # fmt: skip
    out = {
        "t": scalars[:, cal.OUT_T],
        "q": q,
        "qd": qd,
        "qdd": qdd,
        "lam": lam,
        "its": scalars[:, cal.OUT_ITS].astype(np.int64),
        "phi": scalars[:, cal.OUT_PHI],
        "phiv": scalars[:, cal.OUT_PHIV],
        "T": scalars[:, cal.OUT_KIN],
        "V": scalars[:, cal.OUT_POT],
    }
    return res, out, cur


def _penalty(formulation, dt, iterations):
    """α of a step's last Newton iteration (the fixed penalty or the ratio schedule)."""
    fixed = formulation.params["penalty"]
    if fixed:
        return float(fixed)
    ratio = min(1e3 * 100.0 ** (iterations - 1), 1e8)
    return ratio * formulation.m_ref * formulation.scheme.slopes(dt)[1]


def multiplier_error(system, t, q, qd, lam) -> float:
    """``|Aᵀ (λ − λ₁)|∞ / max(1, |Q|∞, |Aᵀ λ₁|∞)`` with λ₁ the index-1 multipliers of the
    state (``M q̈ + Aᵀ λ₁ = Q``, ``A q̈ = γ``): the constraint forces, unique even with
    redundant constraints."""
    _, exact, rows = accelerations_and_multipliers(system, q, qd, t)
    forces = system.forces(q, qd, t)
    exact = rows.T @ exact
    scale = max(1.0, np.abs(forces).max(initial=0.0), np.abs(exact).max(initial=0.0))
    return float(np.abs(rows.T @ lam - exact).max(initial=0.0)) / scale


def _compare(model, dt, n_steps, acc_rtol=1e-7, from_last_positions=False, **params):
    """Steps both ways and checks every step; returns the NumPy states and the outputs
    (``from_last_positions``: the first step's Newton iteration starts from the last
    positions instead of the Newmark predictor, both ways).

    The multipliers are updated with ``α Φ``, Φ being at rounding level at convergence, so
    they are only defined to ``~α ε |q|`` (``α`` up to ``1e8 m_ref β'`` = 4e14 at 1 ms near
    singular positions: ~0.1 N): their bound is ``1e-5 |λ| + 10 α ε |q|``."""
    system, formulation, state, packed = _setup(model, dt, **params)
    if from_last_positions:
        state.carry.extrapolate = False
    res, out, cur = _compiled_steps(formulation, state, packed, dt, n_steps)
    assert res[:2] == (cal.STATUS_OK, n_steps)
    scale = lambda x: max(1.0, float(np.abs(x).max(initial=0.0)))  # noqa: E731
    states = []
    for k in range(n_steps):
        state = formulation.step(state, dt)
        states.append(state)
        assert out["t"][k] == pytest.approx(state.t, rel=1e-14)
        assert abs(out["its"][k] - state.iterations) <= 1, f"step {k}"
        assert np.abs(out["q"][k] - state.q).max() < 1e-11 * scale(state.q), f"step {k}"
        assert np.abs(out["qd"][k] - state.qd).max() < 1e-9 * scale(state.qd), f"step {k}"
        acc = np.abs(out["qdd"][k] - state.qdd).max()
        assert acc < acc_rtol * scale(state.qdd), f"step {k}"
        eps_alpha = 10.0 * _penalty(formulation, dt, state.iterations) * 2.2e-16
        lam_tol = 1e-5 * scale(state.lam) + eps_alpha * scale(state.q)
        assert np.abs(out["lam"][k] - state.lam).max(initial=0.0) < lam_tol, f"step {k}"
        # both return the index-1 multipliers of their state (not λ* + the Newton residual)
        assert multiplier_error(system, state.t, state.q, state.qd, state.lam) < 1e-8
        compiled = (out[x][k] for x in ("q", "qd", "lam"))
        assert multiplier_error(system, state.t, *compiled) < 1e-8, f"step {k}"
    # the time loop's records of the last step, from the NumPy system at the NumPy state
    c = system.constraints(state.q, state.qd, state.t)
    assert out["phi"][-1] == pytest.approx(np.abs(c.phi).max(initial=0.0), abs=1e-13)
    assert out["phiv"][-1] == pytest.approx(  # no rolling rows: Φ_q q̇ + Φ_t alone
        np.abs(c.phi_q @ state.qd + c.phi_t).max(initial=0.0), abs=1e-9 * scale(state.qd)
    )
    assert out["T"][-1] == pytest.approx(system.kinetic_energy(state.q, state.qd), rel=1e-9)
    assert out["V"][-1] == pytest.approx(system.gravitational_energy(state.q), abs=1e-9)
    # the state arrays hold the last step's
    assert np.array_equal(cur["q"], out["q"][-1]) and np.array_equal(cur["lam"], out["lam"][-1])
    assert np.allclose(cur["lam_star"], state.carry.lam_star, atol=lam_tol)
    assert np.allclose(cur["a"], state.carry.a, atol=1e-7 * scale(state.qdd))
    assert bool(cur["extrapolate"][0]) == state.carry.extrapolate  # the next predictor
    return states, out


def test_pendulum_a01():
    states, out = _compare(load_model(EXAMPLES / "pendulum.json"), 1e-3, 400)
    assert out["its"].max() == 1  # one Newton iteration per step at 1 ms
    assert out["phiv"].max() < 1e-12  # the velocity projection holds


def test_index1_multipliers_only_where_they_count():
    """Without drivers the time loop asks for the index-1 multipliers at a chunk's last
    step only: the motion is the same to the last bit (λ does not feed back), and so is
    the last λ."""
    system, formulation, state, packed = _setup(load_model(EXAMPLES / "pendulum.json"), 1e-3)
    both = [
        _compiled_steps(formulation, state, packed, 1e-3, 30, multipliers=flag)[1]
        for flag in (True, False)
    ]
    for key in ("q", "qd", "qdd"):
        assert np.array_equal(both[0][key], both[1][key])
    assert np.array_equal(both[0]["lam"][-1], both[1]["lam"][-1])
    assert not np.array_equal(both[0]["lam"][:-1], both[1]["lam"][:-1])  # λ* + σ there


def test_chain4_and_chain16():
    _compare(model_from_data(chain_data(4)), 1e-3, 150)
    _compare(model_from_data(chain_data(16)), 1e-3, 60)


def test_sparse_chain_in_its_band():
    """A 48-bar chain (336 coordinates: the NumPy path's sparse matrices and band LU): the
    compiled step renumbers it into a narrow band and takes the same steps."""
    model = model_from_data(chain_data(48))
    system = MultibodySystem(model)
    layout = band_layout(system)
    assert system.sparse and layout is not None and layout[0].b <= 14  # 2 bodies' coordinates
    _compare(model, 1e-3, 20)


def test_belt_drive_on_its_pulleys():
    """The belt drive (belt elements, pulley contacts with trilinear friction, both in the
    kernels), its driver started at once so that the belt slips and sticks on the
    pulleys within the steps compared: the same steps as the NumPy formulation."""
    import json

    data = json.loads((EXAMPLES / "belt_drive.json").read_text())
    data["drivers"][0]["function"] = {"expression": "200*t**3"}
    model = model_from_data(data)
    states, out = _compare(model, 1e-3, 25, acc_rtol=1e-6)
    system = MultibodySystem(model)
    assert system.body_state(states[-1].q, states[-1].qd)["driven"][12] > 0.0  # carried


def test_double_four_bar_through_a_singular_position():
    """Started 0.03 rad before the links line up (φ̇ ≈ −4.9 rad/s): the passage is at
    step ~6 of 1 ms, where the iteration needs more iterations with the growing penalty.
    The accelerations agree to 1e-5 relative only there (measured 7e-7: the projection
    divides by σ_min(Φ_q)² ~ 1e-6)."""
    model = model_from_data(model_at_phase(0.03))
    states, out = _compare(model, 1e-3, 40, acc_rtol=1e-5)
    assert out["its"].max() >= 2


def test_newton_from_the_last_positions():
    """The predictor choice (``augmented_lagrangian.closer_to_extrapolation``): a first step
    from the last positions takes more iterations, and the Newmark predictor, closer on a
    smooth motion, is back for the next ones, both ways."""
    model = model_from_data(model_at_phase(0.3))  # moving at about 5 rad/s
    states, out = _compare(model, 1e-3, 20, from_last_positions=True)
    assert out["its"][0] > out["its"][1:].max()
    assert all(s.carry.extrapolate for s in states)


def test_predictor_choice_like_numpy():
    rng = np.random.default_rng(3)
    for _ in range(20):
        q, qd, a, q1 = rng.standard_normal((4, 7))
        h = rng.uniform(1e-3, 1.0)
        ext = q + h * qd + 0.5 * h * h * a
        assert cal.closer_to_extrapolation(q1, q, qd, a, h) == closer_to_extrapolation(q1, ext, q)
    q = np.zeros(3)
    assert cal.closer_to_extrapolation(q, q, q, q, 1e-3)  # a tie: the Newmark predictor


def test_bricard_redundant():
    _compare(load_model(EXAMPLES / "bricard.json"), 2e-3, 100)


def test_every_primitive_with_generalized_alpha():
    _compare(model_from_data(mixed_data()), 1e-3, 100, rho_inf=0.8)


def test_fixed_penalty():
    states, out = _compare(load_model(EXAMPLES / "double_four_bar.json"), 1e-3, 60, penalty=1e7)
    assert out["its"].max() >= 2  # a fixed penalty converges in more iterations


def _free_bodies(rigid: bool) -> dict:
    """A point mass thrown under gravity (no constraint rows at all) and, with ``rigid``, a
    tumbling rigid body (its Euler-parameter norm row only)."""
    bodies = [
        {"name": "bob", "type": "point_mass", "mass": 1.0, "velocity": [1.0, 2.0, 0.0]},
    ]
    if rigid:
        bodies.append(
            {
                "name": "top",
                "mass": 2.0,
                "inertia": [0.1, 0.2, 0.3],
                "position": [1.0, 0.0, 0.0],
                "angular_velocity": [1.0, 2.0, 3.0],
            }
        )
    return {"biela": 1, "name": "free", "gravity": [0, -9.81, 0], "bodies": bodies, "joints": []}


def test_free_bodies_without_joints():
    states, out = _compare(model_from_data(_free_bodies(False)), 1e-3, 20)
    assert states[-1].lam.shape == (0,) and out["lam"].shape == (20, 0)
    # the trapezoidal rule is exact for a constant acceleration
    assert out["q"][-1] == pytest.approx([0.02, 0.04 - 0.5 * 9.81 * 0.02**2, 0.0], abs=1e-12)
    _compare(model_from_data(_free_bodies(True)), 1e-3, 50)


def test_newton_failure_is_the_numpy_paths():
    """A step too large for max_iterations = 2: the same SimulationError at the same step."""
    model = load_model(EXAMPLES / "double_four_bar.json")
    dt = 0.02
    system, formulation, state, packed = _setup(model, dt, max_iterations=2)
    res, out, cur = _compiled_steps(formulation, state, packed, dt, 50)
    status, done, t, its, err = res
    assert status == cal.STATUS_NEWTON
    for _ in range(done):
        state = formulation.step(state, dt)
    assert np.allclose(cur["q"], state.q, atol=1e-10)  # the last accepted step's state
    with pytest.raises(SimulationError) as exc:
        formulation.step(state, dt)
    ours = al_failure(status, t, dt, its, err)
    assert ours.t == pytest.approx(exc.value.t, rel=1e-12)  # the compiled times: k h
    assert str(ours).split("(last")[0] == str(exc.value).split("(last")[0]
    assert "did not converge in 2 iterations" in str(ours)


def test_every_status_has_a_message():
    for status in (
        cal.STATUS_TANGENT,
        cal.STATUS_NEWTON,
        cal.STATUS_PROJECTOR,
        cal.STATUS_PROJECTION,
        cal.STATUS_NONFINITE,
        cal.STATUS_OFF_BEAM,
    ):
        err = al_failure(status, 0.5, 1e-3, 3, 1e-4)
        assert isinstance(err, SimulationError) and err.t == 0.5 and len(str(err)) > 30
    with pytest.raises(ValueError):
        al_failure(cal.STATUS_OK, 0.5, 1e-3, 3, 1e-4)
    assert math.isfinite(cal.slopes((0.0, 0.0, 0.25, 0.5), 1e-3)[1])


def test_steps_that_do_not_contract_take_the_same_line_searches(monkeypatch):
    """Steps of the belt drive whose Newton iterations cycle between the pieces of the
    trilinear friction law or wander off (steps that fail in 8 iterations, taken again with
    12): from the first correction that does not contract on, both implementations search
    along each correction for a decrease of the residual, and take the same steps."""
    import solver.analysis.compiled_steps as cs
    from solver import simulate
    from solver.analysis.formulations import augmented_lagrangian as nal

    failed = []
    retry_step = cs._CompiledALSteps.step

    def spy(self, state, h):
        if self.failed is not None and len(failed) < 4:
            failed.append((self, state, h))
        return retry_step(self, state, h)

    monkeypatch.setattr(cs._CompiledALSteps, "step", spy)
    import json

    data = json.loads((EXAMPLES / "belt_drive.json").read_text())
    data["solver"]["max_iterations"] = 8
    sim = simulate(model_from_data(data), t_end=0.7, stream=True)
    for _ in sim:
        if len(failed) == 4:
            break
    assert failed, "no step of the belt drive was retried"
    lengths = []
    search = nal.AugmentedLagrangian._line_search

    def counted(self, *args):
        lengths.append(search(self, *args))
        return lengths[-1]

    monkeypatch.setattr(nal.AugmentedLagrangian, "_line_search", counted)
    for stepper, state, h in failed:
        formulation = stepper.stepper.formulation
        formulation.max_iterations = 12
        lengths.clear()
        try:
            mine = formulation.step(state, h)
        except SimulationError:
            mine = None
        searched = list(lengths)
        stepper.failed = None
        try:
            compiled = stepper.step(state, h)
        except SimulationError:
            compiled = None
        assert (mine is None) == (compiled is None), f"t = {state.t}"
        if mine is not None:
            assert abs(mine.iterations - compiled.iterations) <= 1
            assert np.abs(mine.q - compiled.q).max() < 1e-11 * max(1.0, np.abs(mine.q).max())
            assert np.abs(mine.qd - compiled.qd).max() < 1e-9 * max(1.0, np.abs(mine.qd).max())
        if searched and mine is not None:
            assert all(0.0 < x <= 1.0 for x in searched)
            return
    pytest.fail("no retried step searched and converged")


@pytest.mark.parametrize(
    ("norms", "want"),
    [
        ([0.5], 1.0),  # the full correction decreases the residual
        ([2.0, 1.5, 0.9], 0.25),  # the first length that does
        ([2.0, np.inf, np.nan, 1.2] + [3.0] * 6, 1.0 / 8),  # none: the smallest residual
    ],
)
def test_line_search_lengths(norms, want):
    """The line search tries 1, ½, ¼, … and takes the first length whose residual passes
    the sufficient-decrease test (from a residual norm of 1), else the one with the least;
    a non-finite residual (a trial point off a beam) never passes."""
    from types import SimpleNamespace

    from solver.analysis.formulations.augmented_lagrangian import AugmentedLagrangian

    tried = []

    def residual(trial, q):
        tried.append(float(q[0]))
        return norms[len(tried) - 1]

    stand_in = SimpleNamespace(_residual_norm=residual)
    length = AugmentedLagrangian._line_search(stand_in, None, np.zeros(1), np.ones(1), 1.0)
    assert length == want
    assert tried == [0.5**k for k in range(len(tried))]
    assert len(tried) <= cal.LINE_SEARCH_TRIALS
    assert not cal.sufficient_decrease(np.nan, 1.0, 1.0)
    assert not cal.sufficient_decrease(np.inf, 1.0, 1.0)
    assert cal.sufficient_decrease(0.99, 1.0, 1.0) and not cal.sufficient_decrease(1.0, 1.0, 1.0)
    assert cal.norm2(np.array([3.0, 4.0])) == pytest.approx(5.0)
