"""Every generator's default model and every example runs to its end with its own solver
settings (a failed step is retried in substeps, ``solver.analysis.step_control``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.builder.generators_dialog import GENERATORS, generate
from solver import load_model, simulate

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))
#: examples whose run takes more than about half a minute on a two-core machine
LONG = {
    "ancf_flexible_pendulum",
    "ancf_free_beam_e3",
    "ancf_pinned_beam_torque_e4",
    "ancf_rotating_beam_e10",
    "ancf_rotating_beam_e9",
    "ancf_rscr_e7",
    "ancf_sliding_ring",
    "andrews_squeezer",
    "bicycle_benchmark",
    "flyball_governor",
    "four_bar_spatial",
    "heavy_top",
    "newtons_cradle",
    "pendulum",
    "slider_crank_cardan",
    "slider_crank_k10",
    "sphere_v_elastic",
    "sphere_v_friction",
    "sphere_v_inelastic",
    "stiff_pendulum",
    "bricard",
    "double_four_bar",
    "ancf_cantilever_e1",
    "ancf_fixed_angle_slider_e6",
    "four_bar_falling",
    "negrut_double_pendulum",
    "slider_crank_planar",
    "spinning_top",
    "belt_drive",
}


def runs_to_the_end(model) -> None:
    result = simulate(model)
    assert result.status == "ok", result.message
    assert result.t[-1] == pytest.approx(model.solver.t_end, abs=1e-9 + 1e-9 * model.solver.t_end)


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_generator_default_runs_to_its_end(kind):
    runs_to_the_end(generate(kind))


def _example_params():
    for path in EXAMPLES:
        marks = [pytest.mark.slow] if path.stem in LONG else []
        yield pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", list(_example_params()))
def test_example_runs_to_its_end(path):
    runs_to_the_end(load_model(path))
