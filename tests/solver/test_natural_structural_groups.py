"""The structural-group machinery: row subsets evaluated like the system, the
decomposition of the slider-crank, group-wise kinematics and R matrix, fallbacks."""

from __future__ import annotations

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis import group_evaluation, group_kernels, group_kinematics
from solver.analysis.dynamic import initial_state
from solver.analysis.errors import SimulationError
from solver.analysis.group_dynamics import GroupPenalty, GroupRMatrix
from solver.analysis.group_evaluation import RowSet, input_candidates
from solver.analysis.group_kinematics import GroupKinematics
from solver.analysis.kinematics import assemble
from solver.analysis.linalg import dense
from solver.analysis.structural_groups import (
    NoDecomposition,
    choose_inputs,
    decompose,
    global_decomposition,
)
from solver.generators.slider_crank import slider_crank_model
from solver.mechanics.bodies.natural import NaturalBodies
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from tests.solver.test_constraints import every_joint_model

RNG = np.random.default_rng(5)


def slider_crank(k=3, driven=False):
    return MultibodySystem(model_from_data(slider_crank_model(k, driven=driven)), "natural")


def jacobian_of(rows: RowSet, values, n):
    out = np.zeros((rows.n_rows, n))
    np.add.at(out, (rows.entry_rows, rows.entry_cols), values)
    return out


@pytest.mark.parametrize("share", [True, False])
def test_row_sets_evaluate_like_the_system(share):
    """Quadratic rows compiled to q-space forms, angle rows by the chain rule, driven rows
    generic: all equal to ``MultibodySystem.constraints`` on random states."""
    NaturalBodies.sharing = share
    try:
        s = MultibodySystem(model_from_data(every_joint_model()), "natural")
    finally:
        NaturalBodies.sharing = True
    for trial in range(3):
        q = s.q0 + 0.1 * RNG.normal(size=s.n)
        qd = RNG.normal(size=s.n)
        t = 0.3 + trial
        c = s.constraints(q, qd, t)
        rows = RNG.permutation(s.m)[: max(1, s.m // (trial + 1))]
        rs = RowSet(s, rows)
        ev = rs.evaluate(q, qd, t)
        np.testing.assert_allclose(ev.phi, c.phi[rows], atol=1e-12)
        np.testing.assert_allclose(ev.phit, c.phi_t[rows], atol=1e-12)
        np.testing.assert_allclose(ev.gamma, c.gamma[rows], atol=1e-10)
        np.testing.assert_allclose(rs.gamma(q, qd, t), c.gamma[rows], atol=1e-10)
        np.testing.assert_allclose(
            jacobian_of(rs, ev.values, s.n), dense(c.phi_q)[rows], atol=1e-12
        )


def test_input_rows_are_joint_coordinates_equal_to_z():
    """An input row is the joint's driver with the independent coordinate as target."""
    s = slider_crank(2, driven=True)
    inputs = input_candidates(s.model)
    assert inputs[0].joint.name == "crank_pivot" and inputs[0].coordinate == "angle"
    q, qd, t = s.q0 + 0.01 * RNG.normal(size=s.n), RNG.normal(size=s.n), 0.2
    c = s.constraints(q, qd, t)
    drow = s.item_rows["driver:motor"]
    rs = RowSet(s, [], inputs[:1])
    z = 24.0 * t
    ev = rs.evaluate(q, qd, t, np.array([z]))
    np.testing.assert_allclose(ev.phi, c.phi[drow], atol=1e-12)
    np.testing.assert_allclose(jacobian_of(rs, ev.values, s.n), dense(c.phi_q)[drow], atol=1e-12)
    np.testing.assert_allclose(ev.gamma, c.gamma[drow], atol=1e-10)  # driver: c̈ = 0


def assert_block_triangular(dec, system):
    rows = RowSet(system, np.arange(system.m), dec.inputs)
    q = system.q0 + 0.01 * RNG.normal(size=system.n)
    nz = rows.evaluate(q, None, 0.0, np.zeros(len(dec.inputs))).values != 0.0
    level_of_col = np.full(system.n, -1)
    for g in dec.groups:
        level_of_col[g.cols] = g.level
    assert np.all(level_of_col >= 0)
    for g in dec.groups:
        assert len(g.rows) == len(g.cols)
        sel = np.isin(rows.entry_rows, g.rows) & nz
        others = np.setdiff1d(rows.entry_cols[sel], g.cols)
        assert np.all(level_of_col[others] < g.level), g.index


def test_decomposition_of_the_driven_slider_crank():
    s = slider_crank(4, driven=True)
    q = assemble(s, s.q0).q
    dec = decompose(s, q, choose_inputs(s, q))
    assert dec.inputs == []
    assert_block_triangular(dec, s)
    # Saura et al.'s structure: the crank, then the k dyads, independent of each other
    assert len(dec.levels) == 2 and len(dec.levels[1]) == 4
    crank = dec.groups[0]
    assert crank.bodies == ("crank",) and len(crank.cols) == 6 and crank.label == "(1,0)"
    for i, g in enumerate(dec.groups[1:], start=1):
        assert g.bodies == (f"rod{i}", f"slider{i}") and g.label == "(2,0)"
        assert len(g.cols) == 9 and g.depends == [0]
    # the irreducible blocks: per dyad the slider point across the line (2 × 1), along it
    # (1), then the rod orientation (6), on three levels
    blocks = decompose(s, q, [], merge=False)
    assert_block_triangular(blocks, s)
    assert len(blocks.levels) == 3
    assert sorted(len(g.cols) for g in blocks.groups[1:]) == [1] * 12 + [6] * 4


def test_decomposition_with_dof_inputs():
    s = slider_crank(3)
    q = initial_state(s, 1e-10, 25).q
    inputs = choose_inputs(s, q)
    assert [r.label for r in inputs] == ['angle of joint "crank_pivot"']
    dec = decompose(s, q, inputs)
    assert_block_triangular(dec, s)
    assert dec.groups[0].label == "(1,1)" and dec.groups[0].inputs == (0,)
    assert "DOF inputs: angle" in dec.summary()


@pytest.mark.parametrize("method", ["groups", "global"])
def test_group_kinematics_solve_the_constraints(method):
    s = slider_crank(3, driven=True)
    q0 = assemble(s, s.q0).q
    dec = decompose(s, q0, []) if method == "groups" else global_decomposition(s, [])
    kin = GroupKinematics(s, dec, 1e-12, 25)
    t = 0.137
    q, its = kin.position(q0, t)
    qd = kin.velocity()
    qdd = kin.acceleration(q, qd, t)
    c = s.constraints(q, qd, t)
    jac = dense(c.phi_q)
    assert its > 0
    assert np.abs(c.phi).max() < 1e-11
    assert np.abs(jac @ qd + c.phi_t).max() < 1e-11
    assert np.abs(jac @ qdd - c.gamma).max() < 1e-9
    f = RNG.normal(size=s.n)
    np.testing.assert_allclose(jac.T @ kin.multipliers(f), f, atol=1e-10)


def test_r_matrix_is_the_derivative_of_the_position_with_respect_to_z():
    s = slider_crank(2)
    q0 = initial_state(s, 1e-10, 25).q
    inputs = choose_inputs(s, q0)
    kin = GroupKinematics(s, decompose(s, q0, inputs), 1e-13, 25)
    z = np.array([0.7])
    q, _ = kin.position(q0, 0.0, z)
    qd, r = kin.velocity_and_r(np.array([2.0]))
    np.testing.assert_allclose(qd, 2.0 * r[:, 0], atol=1e-12)
    assert np.abs(dense(s.constraints(q).phi_q) @ r).max() < 1e-12
    h = 1e-6
    qp, _ = kin.position(q, 0.0, z + h)
    qm, _ = kin.position(q, 0.0, z - h)
    np.testing.assert_allclose((qp - qm) / (2 * h), r[:, 0], atol=1e-6)
    # Ṙż: the acceleration problem with z̈ = 0, i.e. d²q/dt² along ż = 2, z̈ = 0
    kin.position(q, 0.0, z)
    qd, r = kin.velocity_and_r(np.array([2.0]))
    rzd = kin.acceleration(q, qd, 0.0, None, z)
    qs = [kin.position(q, 0.0, z + 2.0 * tau)[0] for tau in (-1e-4, 0.0, 1e-4)]
    np.testing.assert_allclose((qs[0] - 2 * qs[1] + qs[2]) / 1e-8, rzd, atol=2e-4)


def test_steppers_keep_the_constraints():
    s = slider_crank(2)
    st0 = initial_state(s, 1e-10, 25)
    dec = decompose(s, st0.q, choose_inputs(s, st0.q))
    rm = GroupRMatrix(s, dec)
    st = rm.start(st0)
    for _ in range(5):
        st = rm.step(st, 0.005)
    c = s.constraints(st.q, st.qd, st.t)
    assert np.abs(c.phi).max() < 1e-10
    assert np.abs(dense(c.phi_q) @ st.qd).max() < 1e-9
    pen = GroupPenalty(s, dec)
    st = pen.start(st0)
    for _ in range(5):
        st = pen.step(st, 0.005)
    assert np.abs(s.constraints(st.q).phi).max() < 1e-2  # penalty: only approximately


def test_no_decomposition_reasons():
    top = MultibodySystem(load_model("examples/heavy_top.json"), "natural")
    with pytest.raises(NoDecomposition, match="DOF input"):
        choose_inputs(top, top.q0)
    ref = MultibodySystem(model_from_data(slider_crank_model(1)), "reference_point")
    with pytest.raises(NoDecomposition, match="natural coordinates"):
        choose_inputs(ref, ref.q0)
    bricard = MultibodySystem(load_model("examples/bricard.json"), "natural")
    with pytest.raises(NoDecomposition):
        decompose(bricard, bricard.q0, choose_inputs(bricard, bricard.q0))


@pytest.mark.parametrize(
    "example, coordinates, formulation, reason",
    [
        ("heavy_top", "natural", "penalty", "DOF input"),
        ("bricard", "natural", "null_space", "singular"),
        ("four_bar_spatial", "reference_point", "penalty", "natural coordinates"),
        ("double_four_bar", "natural", "augmented_lagrangian", "no structural-group form"),
    ],
)
def test_simulate_falls_back_to_the_global_method_with_a_message(
    example, coordinates, formulation, reason
):
    result = simulate(
        load_model(f"examples/{example}.json"),
        coordinates=coordinates,
        formulation=formulation,
        dt=1e-3,
        t_end=0.01,
        parameters={"group_method": "structural_groups", "method": "r_matrix"},
    )
    assert result.status == "ok", result.message
    assert "global method" in result.message and reason in result.message
    assert result.summary["message"] == result.message


def level_matrix(lv, values):
    """The dense Jacobian of a level: local rows × its own columns (``lv.cols`` order)."""
    out = np.zeros((lv.rowset.n_rows, len(lv.cols)))
    own = lv.entry_col >= 0
    np.add.at(out, (lv.entry_row[own], lv.entry_col[own]), values[own])
    return out


@pytest.mark.parametrize("compiled", [True, False])
def test_level_solves_match_a_dense_solve(compiled, monkeypatch):
    """The block forward substitution through the groups' parts (compiled LU kernels, or
    batched NumPy solves) equals a dense solve of the level's whole Jacobian, for one and
    for several right-hand sides, and the multipliers' transposed solve its transpose."""
    monkeypatch.setattr(group_kernels, "enabled", lambda: compiled)  # forced either way
    monkeypatch.setattr(group_kinematics, "USE_COMPILED", compiled)
    s = slider_crank(5)
    q0 = initial_state(s, 1e-10, 25).q
    kin = GroupKinematics(s, decompose(s, q0, choose_inputs(s, q0)), 1e-12, 25)
    assert all((lv.plan is not None) == compiled for lv in kin.levels)
    q = q0 + 0.01 * RNG.normal(size=s.n)  # off the manifold: a Newton matrix
    for lv in kin.levels:
        ev = lv.rowset.evaluate(q, None, 0.0, np.array([0.4]))
        a = level_matrix(lv, ev.values)
        fac = lv.factorise(ev.values)
        b = RNG.normal(size=(len(a), 3))
        np.testing.assert_allclose(a @ fac.solve(b[:, 0]), b[:, 0], atol=1e-11)
        np.testing.assert_allclose(a @ fac.solve(b), b, atol=1e-11)
        np.testing.assert_allclose(fac.solve(b[:, 1]), fac.solve(b)[:, 1], rtol=1e-12)
        np.testing.assert_allclose(a.T @ fac.solve_transposed(b[:, 2]), b[:, 2], atol=1e-11)


def test_a_singular_group_block_is_reported(monkeypatch):
    """A part whose block has a zero pivot column makes the level singular: the solve and
    the velocity sweep raise ``SimulationError`` (compiled kernels and NumPy path
    alike)."""
    s = slider_crank(3)
    q0 = initial_state(s, 1e-10, 25).q
    dec = decompose(s, q0, choose_inputs(s, q0))
    for compiled in [True, False]:
        monkeypatch.setattr(group_kernels, "enabled", lambda c=compiled: c)
        monkeypatch.setattr(group_kinematics, "USE_COMPILED", compiled)
        kin = GroupKinematics(s, dec, 1e-12, 25)
        lv = kin.levels[-1]
        ev = lv.rowset.evaluate(q0, None, 0.0, np.array([0.0]))
        values = ev.values.copy()
        # zero one column of the largest part of the first group
        cols = max(lv.groups[0].parts, key=lambda p: len(p[0]))[1]
        local = np.flatnonzero(np.isin(lv.cols, cols[:1]))
        values[np.isin(lv.entry_col, local)] = 0.0
        with pytest.raises(SimulationError, match="singular"):
            kin._solve(lv.factorise(values), np.ones(lv.rowset.n_rows), 0.5)
        kin.position(q0, 0.0, np.array([0.0]))  # every level keeps its factorisation
        lv.factor = lv.factorise(values)  # the last one singular: the sweeps report it
        with pytest.raises(SimulationError, match="singular"):
            kin.velocity_and_r(np.array([1.0]))


def test_compiled_rows_equal_the_numpy_formulas(monkeypatch):
    """The compiled kernels of the quadratic rows and of the angle rows add the same terms
    in the same order as the NumPy formulas: Φ, Φ_t, the Jacobian values and γ agree
    bit for bit (angle rows: to the last bit of atan2)."""
    monkeypatch.setattr(group_kernels, "enabled", lambda: True)
    s = MultibodySystem(model_from_data(every_joint_model()), "natural")
    rs = RowSet(s, np.arange(s.m))
    assert len(rs._quadratic.h_val) > 0 and len(rs._angles) > 0
    for t in (0.4, 1.3):
        q, qd = s.q0 + 0.1 * RNG.normal(size=s.n), RNG.normal(size=s.n)
        got, got_g = rs.evaluate(q, qd, t), rs.gamma(q, qd, t)
        monkeypatch.setattr(group_evaluation, "USE_COMPILED", False)
        want, want_g = rs.evaluate(q, qd, t), rs.gamma(q, qd, t)
        monkeypatch.setattr(group_evaluation, "USE_COMPILED", True)
        pairs = [(got.phi, want.phi), (got.phit, want.phit), (got.values, want.values)]
        for a, b in pairs + [(got.gamma, want.gamma), (got_g, want_g)]:
            np.testing.assert_allclose(a, b, rtol=1e-15, atol=1e-15)
        c = s.constraints(q, qd, t)
        np.testing.assert_allclose(got.phi, c.phi, atol=1e-12)
        np.testing.assert_allclose(got.gamma, c.gamma, atol=1e-10)


def test_compiled_newton_loop_takes_the_same_steps(monkeypatch):
    """A level's Newton loop in one compiled call (quadratic and angle rows) equals the
    Python loop over the same kernels (positions, iterations, the Jacobian kept for the
    velocity sweep: to rounding, which may differ between compiled and NumPy code), and
    fails with the same message."""
    monkeypatch.setattr(group_kernels, "enabled", lambda: True)
    s = slider_crank(6)
    q0 = initial_state(s, 1e-10, 25).q
    dec = decompose(s, q0, choose_inputs(s, q0))
    fast, loop = (GroupKinematics(s, dec, 1e-10, 25) for _ in range(2))
    assert all(lv.newton_args is not None for lv in fast.levels)  # angle input, dyads
    for lv in loop.levels:
        lv.newton_args = None
    for trial in range(3):
        guess = q0 + 0.01 * RNG.normal(size=s.n)
        z = np.array([0.2 * trial])
        (qa, ia), (qb, ib) = fast.position(guess, 0.1, z), loop.position(guess, 0.1, z)
        np.testing.assert_allclose(qa, qb, rtol=0, atol=1e-12)
        assert abs(ia - ib) <= 1 and min(ia, ib) > 2
        for a, b in zip(fast.levels, loop.levels, strict=True):
            np.testing.assert_allclose(a.last.values, b.last.values, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(
            fast.velocity_and_r([3.0])[1], loop.velocity_and_r([3.0])[1], rtol=1e-9, atol=1e-12
        )
    assert np.abs(s.constraints(qa).phi).max() < 1e-10
    guess = q0 + 0.3 * RNG.normal(size=s.n)
    messages = []
    for kin in (fast, loop):
        kin.max_iterations = 1
        with pytest.raises(SimulationError, match="did not converge") as err:
            kin.position(guess, 0.1, np.array([1.0]))
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_numpy_and_compiled_paths_agree(monkeypatch):
    """Positions, velocities, R and Ṙż of the slider-crank's groups: the NumPy path
    (batched LAPACK solves, bincount formulas) and the compiled kernels agree to
    round-off."""
    s = slider_crank(4)
    q0 = initial_state(s, 1e-10, 25).q
    dec = decompose(s, q0, choose_inputs(s, q0))
    guess, z, zd = q0 + 0.01 * RNG.normal(size=s.n), np.array([0.9]), np.array([-2.0])
    results = []
    for compiled in (True, False):
        monkeypatch.setattr(group_kernels, "enabled", lambda c=compiled: c)  # forced
        monkeypatch.setattr(group_kinematics, "USE_COMPILED", compiled)
        monkeypatch.setattr(group_evaluation, "USE_COMPILED", compiled)
        kin = GroupKinematics(s, dec, 1e-12, 25)
        assert all((lv.plan is not None) == compiled for lv in kin.levels)
        q, _ = kin.position(guess, 0.2, z)
        qd, r = kin.velocity_and_r(zd)
        results.append((q, qd, r, kin.acceleration(q, qd, 0.2, None, z), kin.velocity(zd)))
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10 * (1 + np.abs(b).max()))
    np.testing.assert_allclose(results[0][1], results[0][4], atol=1e-12)


def test_velocity_and_r_with_and_without_drivers():
    """Without drivers (Φ_t ≡ 0) the sweep solves only R and q̇ = R ż; with a driver the
    Φ_t column is solved too (here no DOF input: R is n × 0)."""
    s = slider_crank(3, driven=True)
    q0 = assemble(s, s.q0).q
    kin = GroupKinematics(s, decompose(s, q0, []), 1e-12, 25)
    assert kin.rheonomic
    q, _ = kin.position(q0, 0.3)
    qd, r = kin.velocity_and_r(np.zeros(0))
    c = s.constraints(q, qd, 0.3)
    assert r.shape == (s.n, 0) and np.abs(c.phi_t).max() > 1.0
    np.testing.assert_allclose(dense(c.phi_q) @ qd, -c.phi_t, atol=1e-10)
    np.testing.assert_allclose(qd, kin.velocity(), atol=1e-12)
    s = slider_crank(3)
    q0 = initial_state(s, 1e-10, 25).q
    kin = GroupKinematics(s, decompose(s, q0, choose_inputs(s, q0)), 1e-12, 25)
    assert not kin.rheonomic
    q, _ = kin.position(q0, 0.3, np.array([0.5]))
    qd, r = kin.velocity_and_r(np.array([1.7]))
    np.testing.assert_allclose(qd, kin.velocity(np.array([1.7])), atol=1e-12)
    np.testing.assert_allclose(dense(s.constraints(q).phi_q) @ qd, 0.0, atol=1e-11)
