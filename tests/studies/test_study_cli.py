"""``biela study`` and ``biela compare`` end to end: on a local cluster of their own
(``--workers``), on the tests' cluster by its address (``--scheduler``), and (slow) on a
real ``dask scheduler`` + ``dask worker`` started here on 127.0.0.1."""

from __future__ import annotations

import copy
import csv
import json
import math
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver import cli
from solver.results import read_csv
from tests.studies.conftest import PENDULUM

GRID = ["--vary", "solver.formulation=penalty,null_space", "--vary", "solver.dt=1e-3,2e-3"]
TIMES = ("wall_time_s", "cpu_time_s")


def read_table(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def number(text: str) -> float:
    return float(text) if text != "" else math.nan


def biela(*args: str) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture(scope="module")
def grid_study(pendulum_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("grid")
    code = biela("study", pendulum_file, *GRID, "--reference", "auto", "--workers", 2,
                 "--keep-runs", "--out", out, "-q")  # fmt: skip
    assert code == 0
    return out, read_table(out / "study.csv")


def test_a_grid_gives_the_rows_of_separate_runs(grid_study, pendulum_file, tmp_path, capsys):
    out, rows = grid_study
    assert [(r["solver.formulation"], float(r["solver.dt"])) for r in rows] == [
        ("penalty", 1e-3), ("penalty", 2e-3), ("null_space", 1e-3), ("null_space", 2e-3)
    ]  # fmt: skip
    assert [r["status"] for r in rows] == ["ok"] * 4
    finals = [c for c in rows[0] if c.startswith("final.")]
    assert {"final.t", "final.bob.x", "final.P.vy", "final.energy.total"} <= set(finals)
    for i, row in enumerate(rows):
        csv_path, summary = tmp_path / f"{i}.csv", tmp_path / f"{i}.json"
        assert biela("run", pendulum_file, "--formulation", row["solver.formulation"],
                     "--dt", row["solver.dt"], "--csv", csv_path, "--summary", summary, "-q") == 0  # fmt: skip
        columns, data = read_csv(csv_path)
        for name, value in zip(columns, data[-1], strict=True):
            assert number(row[f"final.{name}"]) == pytest.approx(value, rel=1e-9, abs=1e-12), name
        import json

        s = json.loads(summary.read_text())
        assert number(row["max_energy_drift"]) == pytest.approx(
            s["max_energy_drift"], rel=1e-6, abs=1e-15
        )
        assert int(row["steps"]) == s["steps"]
        # --keep-runs: the case's CSV is the run's CSV
        kept_columns, kept = read_csv(out / "cases" / f"{i:03d}.csv")
        assert kept_columns == columns
        np.testing.assert_allclose(kept, data, rtol=1e-9, atol=1e-12)
        # the reference (auto: the smallest dt, first on a tie: case 0) distance
        ref_columns, ref = read_csv(out / "cases" / "000.csv")
        p = [columns.index(f"P.{c}") for c in "xyz"]
        t = data[:, 0]
        assert np.allclose(t, ref[:, 0])  # both output every 0.01 s
        expected = np.linalg.norm(data[:, p] - ref[:, p], axis=1).max()
        assert number(row["reference_distance"]) == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert number(rows[0]["reference_distance"]) == 0.0
    assert all(number(r["reference_distance"]) > 0 for r in rows[1:])


def test_a_failing_case_is_a_row_and_the_study_goes_on(tmp_path, capsys, dask_client):
    # without step control: one Newton iteration then fails the first step
    data = copy.deepcopy(PENDULUM)
    data["solver"]["parameters"] = {"step_control": False}
    pendulum_file = tmp_path / "pendulum.json"
    pendulum_file.write_text(json.dumps(data), encoding="utf-8")
    code = biela("study", pendulum_file, "--vary", "solver.max_iterations=25,1",
                 "--vary", "solver.orientation=euler_parameters,gibbs",
                 "--scheduler", dask_client.scheduler.address, "--out", tmp_path)  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0
    rows = read_table(tmp_path / "study.csv")
    assert [r["status"] for r in rows] == ["ok", "error", "failed", "error"]
    assert "did not converge in 1 iterations" in rows[2]["message"]
    assert number(rows[2]["final.t"]) < 0.1  # the rows up to the failure
    assert "gibbs" in rows[1]["message"] and "central_differences" in rows[1]["message"]
    assert rows[1]["final.t"] == "" and rows[1]["steps"] == ""
    assert "3 failed" in err and "4 of 4 cases" in err
    assert "4/4 cases, 3 failed" in err  # the progress line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--vary", "bodies.bobb.mass=1,2"],
            'pendulum.json: key bodies.bobb.mass: bodies has no item named "bobb"',
        ),
        (
            ["--vary", "solver.dt=1e-3,-2"],
            "pendulum.json: key solver.dt: value -2 is refused: solver: dt must be positive",
        ),
        (["--vary", "solver.dt=1e-3", "--vary", "solver.dt=2e-3"], "key solver.dt: is given twice"),
        (["--sample", "bodies.bob.mass=uniform(1,2)"], "samples must be a whole number"),
        (["--vary", "solver.dt"], "--vary 'solver.dt' is not KEY=VALUES"),
        (
            ["--vary", "solver.dt=1e-3", "--reference", "missing.csv"],
            "reference missing.csv does not exist",
        ),
    ],
)
def test_bad_keys_and_values_exit_1_before_anything_runs(
    pendulum_file, tmp_path, capsys, args, message
):
    out = tmp_path / "out"
    assert biela("study", pendulum_file, *args, "--out", out) == 1
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_samples_with_a_seed_are_reproducible(pendulum_file, tmp_path, dask_client):
    from solver import study

    args = ["--sample", "bodies.bob.mass=uniform(0.5,2)", "--sample", "bodies.bob.velocity.2=normal(0,0.1)",
            "--samples", 3, "--seed", 42, "--scheduler", dask_client.scheduler.address, "-q"]  # fmt: skip
    assert biela("study", pendulum_file, *args, "--out", tmp_path / "a") == 0
    rows = read_table(tmp_path / "a" / "study.csv")
    again = study(pendulum_file, sample={"bodies.bob.mass": "uniform(0.5,2)",
                  "bodies.bob.velocity.2": "normal(0,0.1)"}, samples=3, seed=42, client=dask_client)  # fmt: skip
    assert len(rows) == len(again) == 3
    assert len({r["bodies.bob.mass"] for r in rows}) == 3
    for row, (_, other) in zip(rows, again.iterrows(), strict=True):
        for column, value in row.items():
            if column in TIMES or column == "message":
                continue
            if column == "status":
                assert value == other[column] == "ok"
            else:
                assert number(value) == pytest.approx(float(other[column]), rel=1e-12, abs=1e-15), (
                    column
                )
    # the draws act on the model: a heavier bob, the same pendulum motion (mass-independent)
    assert number(rows[0]["final.energy.kinetic"]) != number(rows[1]["final.energy.kinetic"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=open(log, "w"), stdin=subprocess.DEVNULL,  # noqa: SIM115
        env={**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"},
    )  # fmt: skip


def _same_tables(remote: list[dict[str, str]], local: list[dict[str, str]]) -> None:
    assert [list(r) for r in remote] == [list(r) for r in local]
    for a, b in zip(remote, local, strict=True):
        for column in a:
            if column in TIMES:
                continue
            if column in ("status", "message", "solver.formulation"):
                assert a[column] == b[column]
            else:
                assert number(a[column]) == pytest.approx(number(b[column]), rel=1e-9, abs=1e-15), (
                    column
                )


def test_a_scheduler_address_gives_the_local_table(
    grid_study, pendulum_file, tmp_path, dask_client
):
    """--scheduler: the study runs on the cluster at that address (here the tests' own
    cluster; the slow test below starts `dask scheduler` and `dask worker` as the README
    says)."""
    out = tmp_path / "remote"
    code = biela("study", pendulum_file, *GRID, "--reference", "auto",
                 "--scheduler", dask_client.scheduler.address, "--out", out, "-q")  # fmt: skip
    assert code == 0
    _same_tables(read_table(out / "study.csv"), grid_study[1])


@pytest.mark.slow
def test_a_real_scheduler_and_worker_give_the_local_table(grid_study, pendulum_file, tmp_path):
    dask = str(Path(sys.executable).with_name("dask"))
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = _start([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                        "--no-dashboard", "--dashboard-address", "127.0.0.1:0"],
                       tmp_path / "scheduler.log")  # fmt: skip
    worker = None
    try:
        deadline = time.monotonic() + 120
        while True:  # the scheduler listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert scheduler.poll() is None, (tmp_path / "scheduler.log").read_text()
                assert time.monotonic() < deadline, "the scheduler did not start"
                time.sleep(0.5)
        worker = _start([dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                         "--host", "127.0.0.1", "--no-dashboard"], tmp_path / "worker.log")  # fmt: skip
        from distributed import Client

        with Client(address, timeout=60, set_as_default=False) as client:  # both workers up
            client.wait_for_workers(2, timeout=300)
        out = tmp_path / "remote"
        code = biela("study", pendulum_file, *GRID, "--reference", "auto", "--scheduler", address,
                     "--out", out, "-q")  # fmt: skip
        assert code == 0
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
        for process in (worker, scheduler):
            if process is not None:
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
    _same_tables(read_table(out / "study.csv"), grid_study[1])


def test_compare_writes_the_table_and_the_plots(pendulum_file, tmp_path, capsys, dask_client):
    code = biela("compare", pendulum_file, "--formulations", "penalty,null_space",
                 "--dts", "5e-4,1e-3,2e-3,4e-3", "--scheduler", dask_client.scheduler.address,
                 "--out", tmp_path, "-q")  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err
    assert "reference: case 0 (solver.formulation=penalty, solver.dt=0.0005)" in err
    rows = read_table(tmp_path / "study.csv")
    assert len(rows) == 8 and all(r["status"] == "ok" for r in rows)
    for formulation in ("penalty", "null_space"):
        errors = [
            number(r["reference_distance"]) for r in rows if r["solver.formulation"] == formulation
        ]
        errors = errors[1:] if formulation == "penalty" else errors  # the reference itself: 0
        assert all(e > 0 for e in errors)
        assert errors == sorted(errors), (formulation, errors)  # larger steps, larger errors
    png = (tmp_path / "work_precision.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    assert b"<svg" in (tmp_path / "work_precision.svg").read_bytes()[:1000]
    assert (tmp_path / "drift.png").read_bytes().startswith(b"\x89PNG")
