"""Shared pieces of the study tests: a short pendulum model file and a local Dask client."""

from __future__ import annotations

import json

import pytest

PENDULUM = {
    "biela": 1,
    "name": "short pendulum",
    "gravity": [0, -9.81, 0],
    "bodies": [{"name": "bob", "type": "point_mass", "mass": 1.0, "position": [1, 0, 0]}],
    "joints": [
        {"name": "bar", "type": "distance", "body1": "ground", "body2": "bob",
         "point1": [0, 0, 0], "point2": [1, 0, 0]}
    ],
    "outputs": [{"name": "P", "body": "bob", "point": [1, 0, 0]}],
    "solver": {"formulation": "null_space", "dt": 0.002, "t_end": 0.1, "output_dt": 0.01,
               "tolerance": 1e-12},
}  # fmt: skip


@pytest.fixture(scope="session")
def pendulum_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "pendulum.json"
    path.write_text(json.dumps(PENDULUM), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def dask_client():
    """One local cluster of two worker processes for the tests that take a client."""
    from solver.studies.engine import dask_client as connect

    with connect(workers=2) as client:
        yield client
