"""Runs of the compiled steppers equal the formulations' own steps (the path of models with
parts the kernels do not evaluate yet): every CSV column, the energies, the work of forces
and drivers, the constraint errors, and a failure's message; models outside the compiled
path run the formulation's step."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis import simulate
from solver.analysis.compiled_steps import compiled_stepper
from solver.analysis.formulations import formulation_class
from solver.mechanics.system import MultibodySystem
from solver.model import load_model
from tests.compiled.models import EXAMPLES, compiled_models

MODELS = compiled_models()
FORMULATIONS = ["central_differences", "augmented_lagrangian", "null_space"]


def _run(model, monkeypatch, compiled: bool, **kw):
    from solver.analysis import dynamic

    with monkeypatch.context() as patch:  # only this run goes without the compiled stepper
        if not compiled:
            patch.setattr(dynamic, "compiled_stepper", lambda *args: None)
        settings = simulate.settings_with(model, analysis="dynamic", **kw)
        sim = simulate.Simulation(model, settings)
        for _ in sim:
            pass
    return sim.result


def _assert_same_columns(ref, got, velocity: float, force: float | None = None) -> None:
    """Every CSV column of ``got`` equals ``ref``'s: the constraint errors (rounding-level
    values) by their size; the work and total energy to 1e-6 (the drivers' work integrates
    λ·Φ_t, whose multipliers converge less tightly than the positions); the velocities
    within ``velocity`` (the Newton tolerance over the step: both iterations stop once the
    position corrections are below it); with ``force``, the reactions within 3e-5 of it;
    the rest within the Newton tolerance."""
    for col in ref.columns:
        a, b = ref.column(col), got.column(col)
        if col.startswith("constraint."):
            assert np.all(np.abs(a - b) <= 1e-9 + 1e-3 * np.abs(a)), col
        elif col in ("energy.work", "energy.total"):
            assert np.allclose(a, b, rtol=1e-6, atol=1e-8), col
        elif force is not None and col.startswith("reaction."):
            assert np.allclose(a, b, rtol=1e-6, atol=1e-8 + 3e-5 * force), col
        elif col.endswith((".vx", ".vy", ".vz", ".wx", ".wy", ".wz")):
            assert np.allclose(a, b, rtol=1e-7, atol=max(1e-8, velocity)), col
        else:
            assert np.allclose(a, b, rtol=1e-7, atol=1e-8), col


def _stepper(model, formulation):
    settings = simulate.settings_with(model, analysis="dynamic", formulation=formulation)
    system = MultibodySystem(model)
    return compiled_stepper(system, settings, formulation_class(formulation)(system, settings))


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_compiled_run_equals_the_numpy_run(name, formulation, monkeypatch):
    model = MODELS[name]
    assert _stepper(model, formulation) is not None
    kw = {"formulation": formulation, "dt": 1e-3, "t_end": 0.15, "output_dt": 0.005}
    ref = _run(model, monkeypatch, False, **kw)
    got = _run(model, monkeypatch, True, **kw)
    assert ref.status == got.status == "ok"
    # the same iterations, give or take steps where rounding decides the last one (the
    # compiled central differences take the exact velocity derivative of the forces at
    # every iterate: a few iterations more or less); the compiled null-space steps start
    # from a better predictor where there is one: no more iterations
    its = ref.summary["newton_iterations"], got.summary["newton_iterations"]
    if formulation == "null_space":
        assert its[1] <= its[0] + 2 + 0.05 * its[0]
    else:
        assert abs(its[0] - its[1]) <= 2 + 0.05 * its[0]
    assert len(ref) == len(got) == 31
    for col in ref.columns:
        a, b = ref.column(col), got.column(col)
        if col.startswith("constraint."):  # rounding-level values: compare their size
            assert np.all(np.abs(a - b) <= 1e-9 + 1e-3 * np.abs(a)), col
        elif col in ("energy.work", "energy.total"):  # the drivers' work integrates λ·Φ_t:
            # the multipliers converge less tightly than the positions (1e-7 of the work
            # after 150 steps), a missing or wrong term would be far above 1e-6
            assert np.allclose(a, b, rtol=1e-6, atol=1e-8), col
        else:  # the Newton tolerance (1e-10) apart
            assert np.allclose(a, b, rtol=1e-7, atol=1e-8), col


def test_the_compiled_null_space_steps_extrapolate_the_predictor(monkeypatch):
    """On a smooth run the compiled null-space steps start from the extrapolated predictor
    (the NumPy steps from the constant acceleration) and converge in one iteration where
    the NumPy steps take two: the same states (above) in about half the iterations."""
    kw = {"formulation": "null_space", "dt": 1e-3, "t_end": 0.15, "output_dt": 0.005}
    ref = _run(MODELS["pendulum"], monkeypatch, False, **kw)
    got = _run(MODELS["pendulum"], monkeypatch, True, **kw)
    its = ref.summary["newton_iterations"], got.summary["newton_iterations"]
    assert its[1] < 0.6 * its[0]


@pytest.mark.parametrize("formulation", ["augmented_lagrangian", "null_space"])
@pytest.mark.parametrize("name", ["ancf_sliding_ring", "ancf_fixed_angle_slider_e6"])
def test_sliding_joints_run_compiled_like_their_formulation(name, formulation, monkeypatch):
    """ANCF sliding joints (a massless arc-length coordinate; the ring passes from element 2
    into element 3 at 0.3 s) in the compiled steps: the NumPy steps' frames."""
    model = load_model(EXAMPLES / f"{name}.json")
    assert _stepper(model, formulation) is not None
    t_end = 0.4 if name == "ancf_sliding_ring" else 0.15
    kw = {"formulation": formulation, "dt": 1e-3, "t_end": t_end, "output_dt": 0.005}
    ref = _run(model, monkeypatch, False, **kw)
    got = _run(model, monkeypatch, True, **kw)
    assert ref.status == got.status == "ok"
    its = ref.summary["newton_iterations"], got.summary["newton_iterations"]
    assert abs(its[0] - its[1]) <= 2 + 0.05 * its[0]
    assert len(ref) == len(got) == round(t_end / 0.005) + 1
    if name == "ancf_sliding_ring":  # s from 0.3 m past the node at 0.375 m
        assert np.hypot(got.column("ring.x"), got.column("ring.y"))[-1] > 0.4
    forces = [c for c in ref.columns if c.startswith("reaction.") and ".F" in c]
    force = max([np.abs(ref.column(c)).max() for c in forces], default=0.0)
    # both iterations stop once the position corrections are below the tolerance; the
    # velocities of Newmark's update can then differ by about that over the step (1e-7 m/s
    # or rad/s here; 1–2e-8 between two LU factorisations of the same tangents)
    # (the minimum-norm multipliers of redundant rows, the planar four-bar's out-of-plane
    # rows, carry rounding noise of 1e-6 N)
    _assert_same_columns(ref, got, model.solver.tolerance / kw["dt"], force)


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize(("name", "t_end"), [("ball_drop", 0.42), ("sphere_v_friction", 1.5)])
def test_contacts_run_the_compiled_steps(name, t_end, formulation, monkeypatch):
    """Contacts, softened (K = 1e6 N/m^1.5) for a 1 ms step: a ball's impact and bounce; a
    sphere's first impact in a V with friction, which spins it. The compiled steps, every
    one in chunks (but a failed step's retry), committing the contacts' state after each
    step as the NumPy run does (their onset speeds, the impacts' log and step check, the
    contact work): the NumPy run's frames."""
    from solver.analysis import dynamic
    from solver.analysis.compiled_steps import _CompiledCDSteps, _CompiledStepper

    model = load_model(EXAMPLES / f"{name}.json")
    for f in model.forces:
        f.materials, f.stiffness = None, 1e6
    if name == "ball_drop":  # dropped from 0.3 m
        model.bodies[0].position = model.forces[0].sphere.center = (0.0, 0.0, 0.3)
    assert _stepper(model, formulation) is not None
    dt = 1e-3
    kw = {"formulation": formulation, "dt": dt, "t_end": t_end, "output_dt": 0.01}
    runs = []
    own, own_cd = _CompiledStepper._numpy_steps, _CompiledCDSteps.step
    single = []  # the steps the time loop took itself (failed ones)

    def counted_steps(self, *args, **kwargs):
        single.append(args[1])
        return (yield from own(self, *args, **kwargs))

    def counted_cd(self, state, h):
        single.append(state.t)
        return own_cd(self, state, h)

    for compiled in (False, True):
        with monkeypatch.context() as patch:
            if not compiled:
                patch.setattr(dynamic, "compiled_stepper", lambda *args: None)
            else:
                patch.setattr(_CompiledStepper, "_numpy_steps", counted_steps)
                patch.setattr(_CompiledCDSteps, "step", counted_cd)
            sim = simulate.Simulation(model, simulate.settings_with(model, **kw))
            for _ in sim:
                pass
        runs.append(sim)
    ref, got = (sim.result for sim in runs)
    assert ref.status == got.status == "ok"
    # the steps in chunks, which commit the contacts, but those of a failed step's retry
    # (the sphere stays in contact from its impact at 0.8 s on)
    assert len({int(t / dt + 1e-6) for t in single}) < 0.05 * t_end / dt
    # the same impacts at the same steps (the compiled chunks put their steps on the run's
    # grid, the NumPy steps add Δt up: times a rounding apart)
    onsets = [
        [(o.name, round(o.t / dt)) for o in sim.system.force_set.contacts.onsets] for sim in runs
    ]
    assert onsets[0] and onsets[0] == onsets[1]
    if name == "sphere_v_friction":  # spun by the friction
        assert np.abs(got.column("sphere.wy")).max() > 1.0
    its = ref.summary["newton_iterations"], got.summary["newton_iterations"]
    if formulation == "null_space":  # its compiled steps extrapolate the predictor
        assert its[1] <= its[0] + 2 + 0.05 * its[0]
    else:
        assert abs(its[0] - its[1]) <= 2 + 0.05 * its[0]
    assert len(ref) == len(got) == round(t_end / 0.01) + 1
    velocity = model.solver.tolerance / dt
    for col in ref.columns:
        a, b = ref.column(col), got.column(col)
        if col.startswith("constraint."):
            assert np.all(np.abs(a - b) <= 1e-9 + 1e-3 * np.abs(a)), col
        elif col.endswith((".vx", ".vy", ".vz", ".wx", ".wy", ".wz")):
            assert np.allclose(a, b, rtol=1e-7, atol=max(1e-8, velocity)), col
        else:
            assert np.allclose(a, b, rtol=1e-6, atol=1e-8), col


@pytest.mark.parametrize(
    ("name", "dt", "t_end", "formulation"),
    [
        ("bicycle_benchmark", 0.01, 2.0, "central_differences"),
        ("tricycle", 1e-3, 0.3, "central_differences"),
        ("bicycle_benchmark", 0.01, 2.0, "null_space"),
        ("tricycle", 1e-3, 0.3, "null_space"),
        ("bicycle_benchmark", 1e-3, 0.3, "augmented_lagrangian"),
        ("tricycle", 1e-3, 0.3, "augmented_lagrangian"),
    ],
)
def test_no_slip_rows_run_compiled(name, dt, t_end, formulation, monkeypatch):
    """Rolling discs' no-slip rows in the compiled steps: the NumPy steps' frames, and the
    wheels roll without slip. The central differences stack ``B(q) q⁺ = B(q) q⁻`` under
    the position constraints and remove the reactions with the null space of ``[Φ_q; B]``;
    the null-space Newmark method takes ``[λ; μ]`` by least squares, adds ``∂(Bᵀμ)/∂q``
    to K and solves along the directions of N that keep ``B ẋ = 0`` with ``B ẋ = 0`` on
    the integrator's velocity; the augmented Lagrangian penalises ``B q̇`` with ``α/γ'`` (its
    ``α BᵀB/β'`` in the tangent, as Φ_q's rows), updates ``μ*`` with it and projects on
    ``[Φ_q; B]``. (The tricycle's steering is driven: its multipliers, whose power enters
    the work, come from ``[Φ_q; B]``. The augmented Lagrangian's Newton iteration on the
    bicycle at 10 ms wanders before it converges, or fails and retries the step in
    substeps, both in the formulation's steps and compiled: rounding then decides which
    steps are retried, so that run is compared at 1 ms.)"""
    model = load_model(EXAMPLES / f"{name}.json")
    assert _stepper(model, formulation) is not None
    kw = {"formulation": formulation, "dt": dt, "t_end": t_end, "output_dt": 10 * dt}
    ref = _run(model, monkeypatch, False, **kw)

    def own_step(*args):  # a compiled step failed: the formulation would take it
        raise AssertionError("a compiled step failed")

    monkeypatch.setattr(formulation_class(formulation), "step", own_step)
    sim = simulate.Simulation(model, simulate.settings_with(model, analysis="dynamic", **kw))
    slip = 0.0  # B(q) q̇ at every frame: 0 to the Newton tolerance over 2Δt
    for frame in sim:
        b = sim.system.velocity_constraints(frame.q, frame.qd, frame.t)[0]
        slip = max(slip, float(np.abs(b @ frame.qd).max()))
    got = sim.result
    assert ref.status == got.status == "ok"
    its = ref.summary["newton_iterations"], got.summary["newton_iterations"]
    if formulation == "null_space":  # (a better predictor: no more iterations)
        assert its[1] <= its[0] + 2 + 0.05 * its[0]
    else:
        assert abs(its[0] - its[1]) <= 2 + 0.05 * its[0]
    assert len(ref) == len(got) == round(t_end / dt / 10) + 1
    # (the Newmark velocity holds B ẋ = 0 at its convergence: within the tolerance over dt)
    assert slip < 10 * model.solver.tolerance / dt
    speed = max(np.abs(got.column(c)).max() for c in got.columns if c.endswith(".vx"))
    assert speed > 0.1  # (it moves: the rows are not met by standing still)
    _assert_same_columns(ref, got, model.solver.tolerance / dt)
    if name == "tricycle":  # the driver's work enters through its multiplier
        assert np.abs(got.column("energy.work")).max() > 1e-3


def test_models_outside_the_compiled_path_run_their_formulation():
    # a sliding joint's massless coordinate in the central differences
    model = load_model(EXAMPLES / "ancf_sliding_ring.json")
    assert _stepper(model, "central_differences") is None
    for file in (
        "four_bar_spatial",
        "flyball_governor",
        "slider_crank_k10",
        "ancf_flexible_pendulum",
        "ancf_rotating_beam_e9",
    ):
        model = load_model(EXAMPLES / f"{file}.json")
        assert _stepper(model, "central_differences") is not None, file
    assert _stepper(MODELS["pendulum"], "penalty") is None


def test_null_space_with_rotation_weights_and_the_r_matrix_method(monkeypatch):
    """The compiled null-space Newmark steps in the metric of ``rotation_length`` (the
    Euler-parameter columns weighted) equal the NumPy steps; the R-matrix method keeps its
    own step."""
    model = MODELS["heavy_top"]
    kw = {"formulation": "null_space", "dt": 1e-3, "t_end": 0.1, "output_dt": 0.01}
    kw["parameters"] = {"rotation_length": 1.3, "scheme": "fox_goodwin"}
    ref = _run(model, monkeypatch, False, **kw)
    got = _run(model, monkeypatch, True, **kw)
    assert ref.status == got.status == "ok" and len(ref) == len(got) == 11
    for col in ref.columns:
        a, b = ref.column(col), got.column(col)
        if col.startswith("constraint."):
            assert np.all(np.abs(a - b) <= 1e-9 + 1e-3 * np.abs(a)), col
        else:
            assert np.allclose(a, b, rtol=1e-7, atol=1e-8), col
    settings = simulate.settings_with(
        model, analysis="dynamic", formulation="null_space", parameters={"method": "r_matrix"}
    )
    system = MultibodySystem(model)
    formulation = formulation_class("null_space")(system, settings)
    assert compiled_stepper(system, settings, formulation) is None


@pytest.mark.parametrize(
    ("module", "function", "steps_arg", "failure", "model", "formulation"),
    [
        ("central_differences", "cd_steps", 8, "NOT_CONVERGED", "heavy_top",
         "central_differences"),
        ("augmented_lagrangian", "al_steps", 6, "STATUS_TANGENT", "heavy_top",
         "augmented_lagrangian"),
        ("null_space", "ns_steps", 4, "STATUS_NEWTON", "double_four_bar", "null_space"),
        ("central_differences", "cd_steps", 8, "NOT_CONVERGED", "forces and drivers",
         "central_differences"),
        ("augmented_lagrangian", "al_steps", 6, "STATUS_TANGENT", "forces and drivers",
         "augmented_lagrangian"),
        ("null_space", "ns_steps", 4, "STATUS_NEWTON", "forces and drivers", "null_space"),
    ],
)  # fmt: skip
def test_a_failing_compiled_call_is_retaken_by_numpy(
    module, function, steps_arg, failure, model, formulation, monkeypatch
):
    """A compiled call that stops early (its status says which failure) hands its state
    (the central differences: their look-ahead; the null space: with the rank of Φ_q) and
    the work done so far to the time loop, which takes that step (the augmented
    Lagrangian: with its compiled step, retried in substeps where it fails; the null
    space: with the NumPy formulation; the central differences: one compiled step at a
    time, the formulation's where it fails) and goes on with the compiled steps: the run
    equals the NumPy run. (The failures
    are made up: the augmented Lagrangian's is a singular tangent, whose step is tried
    whole again; a Newton failure, which would fail again, goes to substeps at once: see
    ``test_a_failing_step_reports_the_numpy_message``.)"""
    import importlib

    mod = importlib.import_module(f"solver.compiled.{module}")
    real, calls = getattr(mod, function), []

    def failing(*args):
        calls.append(1)
        if len(calls) != 2:
            return real(*args)
        args = list(args)
        args[steps_arg] = 5  # five steps, then report a failure
        out = real(*args)
        return (getattr(mod, failure), *out[1:])

    monkeypatch.setattr(mod, function, failing)
    kw = {"formulation": formulation, "dt": 1e-3, "t_end": 0.2, "output_dt": 0.01}
    ref = _run(MODELS[model], monkeypatch, False, **kw)
    got = _run(MODELS[model], monkeypatch, True, **kw)
    assert len(calls) > 3 and got.status == "ok"  # the compiled steps went on after it
    assert len(got) == len(ref)
    for col in ref.columns:
        a, b = ref.column(col), got.column(col)
        if col.startswith("constraint."):
            assert np.all(np.abs(a - b) <= 1e-9 + 1e-3 * np.abs(a)), col
        elif col in ("energy.work", "energy.total"):  # as in the compiled runs above
            assert np.allclose(a, b, rtol=1e-6, atol=1e-8), col
        else:
            assert np.allclose(a, b, rtol=1e-7, atol=1e-8), col


@pytest.mark.parametrize("formulation", ["central_differences", "augmented_lagrangian"])
def test_a_failing_step_reports_the_numpy_message(monkeypatch, formulation):
    """With 3 Newton iterations allowed, 20 ms steps of the double four-bar fail at
    t = 1.2 s: without step control the compiled run fails at the same step with the NumPy
    formulation's message and keeps the same frames; with it (the default) both take the
    failed steps in substeps and reach the end together (the augmented Lagrangian's
    substeps are its compiled steps; the compiled steps of each go on after them)."""
    model = MODELS["double_four_bar"]
    kw = {"formulation": formulation, "dt": 2e-2, "t_end": 2.0, "output_dt": 2e-2}
    model.solver.max_iterations = 3
    try:
        model.solver.parameters["step_control"] = False
        ref = _run(model, monkeypatch, False, **kw)
        got = _run(model, monkeypatch, True, **kw)
        assert ref.status == got.status == "failed"
        assert got.message == ref.message and "did not converge" in got.message
        assert len(got) == len(ref) == (60 if formulation == "central_differences" else 35)
        failed_at = float(got.column("t")[-1])
        del model.solver.parameters["step_control"]
        ref = _run(model, monkeypatch, False, **kw)
        chunks = []  # (start, steps) of the compiled calls
        if formulation == "central_differences":
            from solver.compiled import central_differences as ccd

            real = ccd.cd_steps

            def logged(*args):
                chunks.append((args[3], args[8]))
                return real(*args)

            monkeypatch.setattr(ccd, "cd_steps", logged)
        got = _run(model, monkeypatch, True, **kw)
    finally:
        model.solver.max_iterations = 25
        model.solver.parameters.pop("step_control", None)
    assert ref.status == got.status == "ok", (ref.message, got.message)
    assert got.summary["retried_steps"] == ref.summary["retried_steps"] >= 1
    assert len(got) == len(ref) == 101
    if formulation == "central_differences":  # whole chunks again after the retried steps
        assert any(t > failed_at + 0.1 and steps > 1 for t, steps in chunks), chunks
    for col in ("crank1.x", "crank1.y", "coupler1.x"):
        # 25 steps retried through the singular positions: rounding, amplified there by
        # 1/σ_min(Φ_q)², moves the two runs apart within the Newton tolerance (6e-9 m)
        assert np.allclose(ref.column(col), got.column(col), rtol=1e-6, atol=2e-8), col


def test_a_long_central_differences_run_keeps_one_compiled_signature():
    """The SVD of Φ_q that a chunk of compiled steps hands to the next comes back from
    Numba in Fortran order; passed on as it is, the next chunk compiled the whole time step
    a second time for that layout (half a minute on a cold cache)."""
    from solver import simulate as run
    from solver.analysis.compiled_steps import CHUNK
    from solver.compiled import central_differences as ccd

    model = load_model(EXAMPLES / "double_four_bar.json")
    result = run(model, formulation="central_differences", dt=1e-3,
                 t_end=(2 * CHUNK + 5) * 1e-3, output_dt=0.1)  # fmt: skip
    assert result.status == "ok", result.message
    layouts = [str(signature) for signature in ccd.cd_steps.signatures]
    assert layouts and not [s for s in layouts if "'F'" in s or "'A'" in s]


@pytest.mark.parametrize(
    ("name", "t_end", "bridged"),
    [
        ("heavy_top", 0.2, False),
        ("forces and drivers", 0.2, False),  # the work of forces and drivers, integrated
        ("natural", 0.2, False),
        ("slider_crank_planar", 0.42, True),  # a singular position at 0.389 s, bridged
        ("ball_drop", 0.6, False),  # a bounce at about 0.45 s
    ],
)
def test_lagrange_baumgarte_takes_its_output_steps_compiled(name, t_end, bridged, monkeypatch):
    """``lagrange_baumgarte``'s compiled integrator runs from one wanted frame to the next in
    one compiled call: the frames of the formulation's own output steps (the same
    integrator, the same steps; energies evaluated at the same states), through a singular
    position that the augmented Lagrangian bridges and through an impact (committed by
    the compiled calls at the steps they accept)."""
    from solver.analysis.compiled_runge_kutta import CompiledRungeKuttaSteps
    from solver.analysis.formulations.lagrange_baumgarte import LagrangeBaumgarte

    model = MODELS[name] if name in MODELS else load_model(EXAMPLES / f"{name}.json")
    counts = {"chunks": 0, "bridges": 0}
    frames, bridge = CompiledRungeKuttaSteps.frames, LagrangeBaumgarte._bridge

    def counted_frames(self, state, steps):
        counts["chunks"] += 1
        return frames(self, state, steps)

    def counted_bridge(self, state, h):
        counts["bridges"] += 1
        return bridge(self, state, h)

    monkeypatch.setattr(CompiledRungeKuttaSteps, "frames", counted_frames)
    monkeypatch.setattr(LagrangeBaumgarte, "_bridge", counted_bridge)
    kw = {"formulation": "lagrange_baumgarte", "dt": 1e-3, "t_end": t_end, "output_dt": 0.01}
    ref = _run(model, monkeypatch, False, **kw)
    assert counts["chunks"] == 0
    bridges = counts["bridges"]
    got = _run(model, monkeypatch, True, **kw)
    assert counts["chunks"] == 1  # the run went through the compiled output steps
    assert (bridges > 0) == bridged and counts["bridges"] == 2 * bridges
    assert ref.status == got.status == "ok" and len(ref) == len(got) == round(t_end / 0.01) + 1
    np.testing.assert_allclose(got.data, ref.data, rtol=1e-12, atol=1e-12)
    if name == "ball_drop":  # it bounced
        assert got.column("ball.vz").min() < -2.0 and got.column("ball.vz")[-1] > 1.0


def _contact_run(model, monkeypatch, compiled_integrator: bool, rows=None, **kw):
    """A ``lagrange_baumgarte`` run: ``(result, onsets, releases)``; without the compiled
    integrator, SciPy's (the time loop commits the contacts after every internal step);
    ``rows``: the contacts' events buffer of that many rows."""
    from solver.analysis.formulations.lagrange_baumgarte import LagrangeBaumgarte
    from solver.kernels import contact_record

    with monkeypatch.context() as patch:
        if not compiled_integrator:
            patch.setattr(LagrangeBaumgarte, "_integrates_compiled", lambda self: False)
        if rows is not None:
            patch.setattr(contact_record, "events_rows", rows)
        settings = simulate.settings_with(model, formulation="lagrange_baumgarte", **kw)
        sim = simulate.Simulation(model, settings)
        for _ in sim:
            pass
    contacts = sim.system.force_set.contacts
    onsets = [(ev.name, ev.t, ev.speed) for ev in contacts.onsets]
    return sim.result, onsets, list(contacts.releases)


def test_lagrange_baumgarte_commits_the_contacts_inside_its_compiled_calls(monkeypatch):
    """The compiled integrator commits the contacts at each step it accepts (onset speed,
    touching, the work of their damping) and hands the onsets and releases over after
    the call: a call that must stop after every commit that logged an event (a buffer of
    one row per contact) gives Newton's cradle to the last bit; and two bounces of the
    dropped ball are those of the run where the time loop commits after every internal
    step of SciPy's integrator of the same pair, up to the two integrators' rounding."""
    model = load_model(EXAMPLES / "newtons_cradle.json")
    kw = {"t_end": 0.4, "output_dt": 0.02}
    got, onsets, releases = _contact_run(model, monkeypatch, True, **kw)
    tight, tight_onsets, tight_releases = _contact_run(
        model, monkeypatch, True, rows=lambda contacts: max(contacts, 1), **kw
    )
    assert got.status == tight.status == "ok"
    np.testing.assert_array_equal(tight.data, got.data)
    assert (tight_onsets, tight_releases) == (onsets, releases)
    assert len(onsets) >= 4 and len(releases) >= 4  # the momentum passed down the row

    model = load_model(EXAMPLES / "ball_drop.json")
    kw = {"t_end": 1.5, "output_dt": 0.01}
    got, onsets, releases = _contact_run(model, monkeypatch, True, **kw)
    ref, ref_onsets, ref_releases = _contact_run(model, monkeypatch, False, **kw)
    assert got.status == ref.status == "ok" and len(got) == len(ref)
    assert len(onsets) == len(ref_onsets) == len(releases) == len(ref_releases) == 2
    np.testing.assert_allclose(
        [(t, v) for _, t, v in onsets], [(t, v) for _, t, v in ref_onsets], rtol=1e-6
    )
    np.testing.assert_allclose([t for _, t in releases], [t for _, t in ref_releases], rtol=1e-6)
    for col in got.columns:
        scale = np.abs(ref.column(col)).max()
        tol = 1e-5 if col.startswith("energy.") else 1e-6  # (the work: the damping's)
        np.testing.assert_allclose(got.column(col), ref.column(col), atol=tol * scale, err_msg=col)
    assert got.column("energy.work")[-1] < -0.1 * got.column("energy.kinetic").max()
