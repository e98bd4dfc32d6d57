"""Distances from a reference, and the Python API on a local Dask client."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import load_model, simulate
from solver.studies import Study, StudyError, study
from solver.studies.reference import Reference


def test_distance_is_the_largest_point_distance_with_the_reference_interpolated(tmp_path):
    t = np.linspace(0.0, 1.0, 11)
    ref_rows = np.column_stack([t, np.cos(t), np.sin(t), 0 * t, 2 * t, 0 * t, 0 * t])
    columns = ["t", "P.x", "P.y", "P.z", "Q.x", "Q.y", "Q.z"]
    ref = Reference.from_rows(columns, ref_rows, ["P", "Q"], "analytic")
    # on the reference's own times, shifted by known offsets
    case = ref_rows.copy()
    case[:, 1] += 1e-3
    case[4, 5] += 3e-3  # Q.y at one instant
    assert ref.distance(columns, case) == pytest.approx(3e-3, rel=1e-12)
    # between output times the reference is interpolated linearly (exact for Q, linear in t)
    tm = np.array([0.05, 0.55, 0.95])
    mid = np.column_stack([tm, np.interp(tm, t, np.cos(t)), np.interp(tm, t, np.sin(t)), 0 * tm,
                           2 * tm + 1e-4, 0 * tm, 0 * tm])  # fmt: skip
    assert ref.distance(columns, mid) == pytest.approx(1e-4, rel=1e-9)
    # times beyond the reference's span are not compared; none inside: NaN
    late = case.copy()
    late[:, 0] += 5.0
    assert math.isnan(ref.distance(columns, late))
    # a results CSV as reference: it must hold the points
    path = tmp_path / "ref.csv"
    path.write_text("t,P.x,P.y\n0,1,0\n", encoding="utf-8")
    with pytest.raises(StudyError, match=r"reference ref\.csv has no column P\.z"):
        Reference.from_csv(path, ["P"])


def test_study_streams_rows_and_returns_a_dataframe(pendulum_file, dask_client, tmp_path):
    s = study(pendulum_file, vary={"solver.dt": [2e-3, 1e-3]}, client=dask_client, stream=True)
    assert isinstance(s, Study) and len(s) == 2 and s.done == 0
    seen = [row["case"] for row in s]
    assert sorted(seen) == [0, 1]
    table = s.table()
    assert list(table["case"]) == [0, 1] and list(table["solver.dt"]) == [2e-3, 1e-3]
    assert list(table.columns[:5]) == ["case", "solver.dt", "status", "message", "wall_time_s"]
    direct = simulate(load_model(pendulum_file), dt=1e-3)
    assert table["final.bob.y"][1] == pytest.approx(direct.column("bob.y")[-1], rel=1e-9)
    assert table["max_energy_drift"][1] == pytest.approx(direct.max_energy_drift(), rel=1e-6)
    assert s.timing["cases"] > 0 and s.worker_count == 2
    # a reference file: each case's distance from it (the 1 ms run itself: 0)
    ref = tmp_path / "ref.csv"
    direct.to_csv(ref)
    again = study(load_model(pendulum_file), vary={"solver.dt": [2e-3, 1e-3]}, reference=ref,
                  client=dask_client)  # fmt: skip
    assert again["reference_distance"][1] == 0.0
    assert 0 < again["reference_distance"][0] < 1e-3


def test_cancel_stops_the_study_and_the_rest_are_cancelled_rows(pendulum_file, dask_client):
    s = Study(pendulum_file, vary={"solver.t_end": [1.0] * 8}, client=dask_client)
    statuses = []
    for row in s:
        statuses.append(row["status"])
        s.cancel()
    assert s.cancelled and statuses and set(statuses) == {"ok"}
    final = [r["status"] for r in s.rows]
    assert len(final) == 8 and "cancelled" in final and set(final) <= {"ok", "cancelled"}
    assert final.count("ok") == len(statuses)
    assert all(
        r["message"] == "the study was stopped" for r in s.rows if r["status"] == "cancelled"
    )
