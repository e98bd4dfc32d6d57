"""Generators of planar mechanisms (solver.generators.mechanisms): valid models whose
Grübler count and numerical DOF agree, closed loops, and the N-four-bar equal to the
hand-written IFToMM A02 example in motion."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from solver import check, load_model, simulate
from solver.generators import mechanisms
from solver.model.io import model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("data", "dof"),
    [
        (mechanisms.pendulum_chain(4), 4),
        (mechanisms.four_bar(), 1),
        (mechanisms.four_bar(speed=2.0), 0),
        (mechanisms.slider_crank(), 0),
        (mechanisms.slider_crank(speed=None), 1),
        (mechanisms.n_four_bar(1), 1),
        (mechanisms.n_four_bar(5), 1),
    ],
)
def test_generated_models_are_valid_without_redundancy(data, dof):
    report = check(model_from_data(data))
    assert report.grubler_dof == dof and report.dof == dof and report.redundant == 0
    assert report.assembly_residual < 1e-12  # built closed


def test_four_bar_closes_with_the_given_link_lengths():
    crank, coupler, rocker, ground = 0.3, 0.8, 0.6, 0.7
    model = model_from_data(mechanisms.four_bar(crank, coupler, rocker, ground, 60.0))
    b = np.asarray(model.joint("B").point)
    c = np.asarray(model.joint("C").point)
    d = np.asarray(model.joint("D").point)
    assert np.linalg.norm(b) == pytest.approx(crank, abs=1e-14)
    assert np.linalg.norm(c - b) == pytest.approx(coupler, abs=1e-14)
    assert np.linalg.norm(d - c) == pytest.approx(rocker, abs=1e-14)
    assert math.degrees(math.atan2(b[2], b[0])) == pytest.approx(60.0)
    with pytest.raises(ValueError, match="do not close"):
        mechanisms.four_bar(0.1, 0.1, 0.1, 2.0)


def test_n_four_bar_moves_as_the_a02_example():
    """N = 2 generated vs examples/double_four_bar.json: the tip of the first crank follows
    the same path (same data; the links' axial inertia differs and plays no part)."""
    settings = {
        "analysis": "dynamic",
        "formulation": "central_differences",
        "dt": 0.01,
        "t_end": 0.3,
        "tolerance": 1e-10,
    }
    generated = model_from_data(mechanisms.n_four_bar(2, solver=settings))
    example = load_model(EXAMPLES / "double_four_bar.json")
    kw = dict(analysis="dynamic", formulation="central_differences", dt=0.01, t_end=0.3)
    a = simulate(generated, **kw)
    b = simulate(example, **kw)
    pa = a.data[:, [a.columns.index(f"P.{k}") for k in "xyz"]]
    pb = b.data[:, [b.columns.index(f"P_B0.{k}") for k in "xyz"]]
    assert pa.shape == pb.shape and np.abs(pa[-1] - pa[0]).max() > 0.1
    assert np.abs(pa - pb).max() < 1e-6
