"""The frames of the compiled steppers' rows of scalars: every column in its field."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis.compiled_steps import _frame
from solver.compiled import augmented_lagrangian, central_differences, null_space

FIELDS = {
    "OUT_T": "t",
    "OUT_KIN": "kinetic",
    "OUT_POT": "potential",
    "OUT_ELA": "elastic",
    "OUT_WORK": "work",
    "OUT_PHI": "constraint_position",
    "OUT_PHIV": "constraint_velocity",
    "OUT_ITS": "iterations",
}


@pytest.mark.parametrize("mod", [augmented_lagrangian, central_differences, null_space])
def test_each_column_lands_in_its_field(mod):
    row = [float(10 + i) for i in range(mod.N_OUT)]
    q, qd, qdd = np.zeros(3), np.ones(3), np.full(3, 2.0)
    frame = _frame(row, q, qd, qdd, mod)
    for column, field in FIELDS.items():
        assert getattr(frame, field) == row[getattr(mod, column)], field
    assert frame.q is q and frame.qd is qd and frame.qdd is qdd
    assert frame.row is None and frame.substep is None


def _four_bar(t_end=0.2, output_dt=0.01):
    from benchmarks.exudyn_ratio import four_bar_without_motor
    from solver.analysis.simulate import settings_with

    model = four_bar_without_motor()
    return model, settings_with(
        model, analysis="dynamic", formulation="augmented_lagrangian", dt=1e-3,
        t_end=t_end, output_dt=output_dt,
    )  # fmt: skip


def test_thinned_frames_keep_the_outputs_the_chunk_ends_and_every_iteration():
    from solver.analysis.compiled_steps import CHUNK
    from solver.analysis.dynamic import dynamic_frames
    from solver.mechanics.system import MultibodySystem

    model, settings = _four_bar()
    full = list(dynamic_frames(MultibodySystem(model), settings))
    thin = list(dynamic_frames(MultibodySystem(model), settings, every=10, sample=7))
    steps = len(full) - 1
    assert [k for _, k in full] == list(range(steps + 1))
    wanted = {0, steps} | {k for k in range(steps + 1) if k % 10 == 0 or k % 7 == 0}
    wanted |= set(range(CHUNK, steps, CHUNK))  # each compiled call's last step
    assert [k for _, k in thin] == sorted(wanted)
    # the same states, and the iterations of the steps left out counted in the next frame
    by_step = {k: f for f, k in full}
    for f, k in thin:
        np.testing.assert_array_equal(f.q, by_step[k].q)
        assert f.kinetic == by_step[k].kinetic
    assert sum(f.iterations for f, _ in thin) == sum(f.iterations for f, _ in full)


def test_a_run_reads_every_step_only_for_a_preview():
    from solver.analysis.simulate import Simulation

    model, settings = _four_bar()
    plain = Simulation(model, settings)
    rows = [frame.row for frame in plain]
    previews = []
    watched = Simulation(model, settings)
    watched.on_step = previews.append
    rows_watched = [frame.row for frame in watched]
    assert len(previews) == 200 - 20  # every step between the outputs
    np.testing.assert_array_equal(np.array(rows), np.array(rows_watched))
    for key in ("steps", "newton_iterations", "max_energy_drift"):
        assert plain.result.summary[key] == watched.result.summary[key]


@pytest.mark.parametrize("example", ["andrews_squeezer", "four_bar_spatial"])
def test_thinned_frames_have_the_outputs_of_the_full_run(example):
    """The null-space and augmented-Lagrangian steppers compute the energies (and the
    null-space one the constraint errors) of the frames read only; the work of forces goes
    on over every step (a spring and a motor torque)."""
    from solver import load_model
    from solver.analysis.dynamic import dynamic_frames
    from solver.analysis.simulate import settings_with
    from solver.mechanics.system import MultibodySystem
    from tests.compiled.models import EXAMPLES

    model = load_model(EXAMPLES / f"{example}.json")
    settings = settings_with(model, t_end=300 * settings_with(model).dt)
    full = {k: f for f, k in dynamic_frames(MultibodySystem(model), settings)}
    thin = list(dynamic_frames(MultibodySystem(model), settings, every=50, sample=0))
    assert [k for _, k in thin] == [0, 50, 64, 100, 128, 150, 192, 200, 250, 256, 300]
    fields = ("kinetic", "potential", "elastic", "work", "constraint_position")
    for f, k in thin:
        np.testing.assert_allclose(f.q, full[k].q, rtol=0, atol=1e-14)
        for name in fields:
            assert np.isfinite(getattr(f, name)), (k, name)
            assert getattr(f, name) == pytest.approx(getattr(full[k], name), rel=1e-12, abs=1e-15)
        assert f.constraint_velocity == pytest.approx(full[k].constraint_velocity, abs=1e-12)
    assert full[300].work != 0.0
