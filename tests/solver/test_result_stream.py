"""Long runs: CSV rows streamed to the file as they are computed, the summary from running
statistics (memory independent of the run's length), outputs opened before the run, and
progress on stderr for runs that take more than a few seconds."""

from __future__ import annotations

import csv
import io
import json
import pickle
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver import run_progress as rp
from solver.analysis.simulate import Simulation
from solver.cli import main
from solver.csv_stream import CsvStream
from solver.model import description as d
from solver.results import TAIL, Result, read_csv

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = ROOT / "examples" / "pendulum.json"


def test_a_streamed_run_writes_the_same_csv_and_summary_as_a_kept_one(tmp_path):
    model = load_model(PENDULUM)
    model.requests = [d.ResultRequest("reactions"), d.ResultRequest("accelerations")]
    kept = simulate(model, t_end=0.5, output_dt=0.002)
    kept.to_csv(tmp_path / "kept.csv")

    sim = simulate(model, t_end=0.5, output_dt=0.002, stream=True)
    sim.result.keep = False
    with CsvStream(tmp_path / "streamed.csv", sim.result.columns) as stream:
        sim.result.sinks.append(stream)
        for _ in sim:
            pass
    streamed = sim.result
    assert streamed.rows == [] and len(streamed) == len(kept) == 251
    assert (tmp_path / "streamed.csv").read_bytes() == (tmp_path / "kept.csv").read_bytes()
    for key in ("frames", "max_constraint_position", "max_constraint_velocity", "max_energy_drift"):
        assert streamed.summary[key] == kept.summary[key], key
    assert len(kept.summary["requested"]) == kept.n_requested > 0
    assert streamed.summary["requested"] == kept.summary["requested"]  # peaks of every row
    assert kept.summary["max_energy_drift"] == kept.max_energy_drift()
    with pytest.raises(ValueError, match="did not keep its rows"):
        streamed.column("t")


def test_rows_reach_the_file_while_the_run_goes_on(tmp_path, monkeypatch):
    import solver.csv_stream

    monkeypatch.setattr(solver.csv_stream, "FLUSH_INTERVAL", 0.0)
    path = tmp_path / "out.csv"
    stream = CsvStream(path, ["t", "x"])
    assert path.read_text() == "t,x\n"  # created and headed before any row
    stream(np.array([0.1, 1e-300]))
    stream(np.array([0.2, -0.0]))
    assert path.read_text() == "t,x\n0.1,1e-300\n0.2,-0.0\n"  # full precision, unclosed
    stream.close()
    stream.close()


def test_statistics_propagate_nan_as_a_column_maximum_would():
    result = Result(["t", "energy.total", "constraint.position", "constraint.velocity"])
    for row in ([0, 1.0, 0.1, 0.0], [1, np.nan, 0.2, 0.0], [2, 3.0, 0.0, 0.5]):
        result.add_row(np.array(row, float))
    stats = result.statistics
    assert np.isnan(stats.max_energy_drift) and np.isnan(result.max_energy_drift())
    assert stats.max_constraint_position == 0.2 and stats.max_constraint_velocity == 0.5
    assert stats.frames == len(result) == 3 and stats.last[0] == 2


def test_a_result_crosses_processes_without_its_sinks():
    result = Result(["t", *TAIL], sinks=[lambda row: None])
    result.add_row(np.zeros(8))
    copy = pickle.loads(pickle.dumps(result))
    assert copy.sinks == [] and len(copy) == 1 and copy.statistics.frames == 1


def _peak_bytes(steps: int) -> int:
    """Python's peak allocation (NumPy's included) while ``biela run`` computes ``steps``
    steps of the pendulum with an output row at every step."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        argv = ["run", str(PENDULUM), "--t-end", f"{steps * 1e-3:g}", "--output-dt", "0.001"]
        argv += ["--csv", f"{tmp}/out.csv", "-q"]
        tracemalloc.start()
        try:
            assert main(argv) == 0
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def test_the_memory_of_a_run_does_not_grow_with_its_length():
    """5,000 output rows kept would take 1.4 MB more; streamed, the peak is the one of a run
    of 200 steps (measured: equal to a few kB)."""
    main(["run", str(PENDULUM), "--t-end", "0.01", "-q"])  # the compiled code loaded
    short, long = _peak_bytes(200), _peak_bytes(5_000)
    assert long - short < 0.3e6, (short, long)


def test_outputs_that_cannot_be_written_stop_the_run_before_it_starts(
    tmp_path, monkeypatch, capsys
):
    def never(self):
        raise AssertionError("the run started")

    monkeypatch.setattr(Simulation, "__iter__", never)
    for bad in (tmp_path / "missing" / "out.csv", tmp_path, Path("/dev/full")):
        assert main(["run", str(PENDULUM), "--t-end", "1000", "--csv", str(bad)]) == 2
        assert "cannot write results: " in capsys.readouterr().err


def test_the_results_never_overwrite_the_model(tmp_path, capsys):
    model = tmp_path / "model.json"
    model.write_bytes(PENDULUM.read_bytes())
    link = tmp_path / "link.json"
    link.symlink_to(model)
    for option, target in (("--csv", model), ("--summary", model), ("--csv", link)):
        assert main(["run", str(model), option, str(target)]) == 2
        assert "is the model file; the results would overwrite the model" in capsys.readouterr().err
    assert model.read_bytes() == PENDULUM.read_bytes()


def test_a_failed_run_writes_its_rows_and_summary_for_the_api_too(tmp_path):
    data = json.loads(PENDULUM.read_text())
    data["forces"] = [{"name": "kick", "type": "force", "body": "bob", "point": [1, 0, 0],
                       "vector": [0, {"expression": "log(0.05-t)"}, 0]}]  # fmt: skip
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    assert main(["run", str(path), "--csv", str(tmp_path / "o.csv"), "--summary",
                 str(tmp_path / "o.json")]) == 3  # fmt: skip
    header, rows = read_csv(tmp_path / "o.csv")
    summary = json.loads((tmp_path / "o.json").read_text())
    assert summary["status"] == "failed" and summary["frames"] == len(rows) == 6
    assert rows[-1, 0] == pytest.approx(0.049)  # outputs every 10 ms, then the last state


# ---- progress ----------------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_shown_for_a_short_run():
    clock, out = Clock(), io.StringIO()
    progress = rp.Progress(out, t_end=1.0, dt=1e-3, clock=clock)
    for k in range(1000):
        clock.now += 0.002  # 2 s in all, under the delay
        progress.update(k * 1e-3)
    progress.close()
    assert out.getvalue() == ""


def test_a_log_gets_a_line_every_interval():
    clock, out = Clock(), io.StringIO()
    progress = rp.Progress(out, t_end=100.0, dt=1e-3, clock=clock)
    progress.update(0.0)
    for k in range(1, 30_001):
        clock.now += 1e-3  # 1 ms of wall time per step: real-time factor 1
        progress.update(k * 1e-3)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3  # after 3 s, then every 10 s up to 30 s
    assert lines[0] == (
        "biela: step 3,000 of 100,000, t = 3 of 100 s, real-time factor 1, 3 s so far, "
        "about 1 min 37 s left"
    )
    assert lines[-1].startswith("biela: step 23,000 of 100,000")


def test_a_terminal_line_is_rewritten_and_cleared():
    clock, out = Clock(), Terminal()
    progress = rp.Progress(out, t_end=10.0, dt=0.01, clock=clock)
    for k in range(600):
        clock.now += 0.01
        progress.update(k * 0.01)
    text = out.getvalue()
    assert text.count("\r") == 7 and "\n" not in text  # every 0.5 s from 3 s to 6 s
    progress.close()
    assert out.getvalue().endswith("\r" + " " * progress_width(text) + "\r")


def progress_width(text: str) -> int:
    return max(len(part.rstrip()) for part in text.split("\r"))


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(42.4, "42 s"), (200, "3 min 20 s"), (18120, "5 h 02 min"), (1e6, "11 d 13 h"), (np.inf, "?")],
)
def test_durations(seconds, text):
    assert rp.duration(seconds) == text


def test_the_command_line_shows_progress_on_stderr(monkeypatch, capsys):
    monkeypatch.setattr(rp, "DELAY", 0.0)
    monkeypatch.setattr(rp, "LOG_INTERVAL", 0.0)
    assert main(["run", str(PENDULUM), "--t-end", "0.05"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) >= 50
    assert all(line.startswith("biela: step ") and "real-time factor" in line for line in err)
    assert err[-1].startswith("biela: step 50 of 50, t = 0.05 of 0.05 s")
    assert main(["run", str(PENDULUM), "--t-end", "0.05", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_a_csv_written_by_to_csv_reads_back(tmp_path):
    result = simulate(load_model(PENDULUM), t_end=0.05)
    result.to_csv(tmp_path / "r.csv")
    header, data = read_csv(tmp_path / "r.csv")
    assert header == result.columns
    np.testing.assert_array_equal(data, result.data)
    with open(tmp_path / "r.csv", newline="") as fh:
        assert next(csv.reader(fh)) == result.columns
