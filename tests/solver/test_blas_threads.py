"""Dense systems step with one BLAS thread; the caller's setting is restored after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from solver import Simulation, load_model

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.mark.parametrize("example", ["pendulum", "four_bar_spatial"])
def test_one_blas_thread_while_a_dense_system_steps_and_restored_after(example):
    """Central differences, and the compiled augmented Lagrangian once SciPy's linear
    algebra is loaded."""
    import scipy.linalg  # noqa: F401

    model = load_model(EXAMPLES / f"{example}.json")
    settings = replace(model.solver, t_end=0.01, dt=1e-3, output_dt=1e-3)
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads() == {2}
        sim = Simulation(model, settings)
        assert not sim.system.sparse
        seen = set()
        for _ in sim:
            seen |= _blas_threads()
        assert seen == {1}
        assert _blas_threads() == {2}  # the run is over: the caller's limit again
        sim = Simulation(model, settings)
        frames = iter(sim)
        next(frames)
        frames.close()  # a consumer that stops early (the workbench's Stop)
        assert _blas_threads() == {2}


_FRESH_PROCESS = """
import json
from dataclasses import replace
from threadpoolctl import threadpool_info
from solver import Simulation, load_model

model = load_model("examples/pendulum.json")
settings = replace(model.solver, t_end=0.01, dt=1e-3, output_dt=1e-3)
libraries, threads = set(), set()
for k, _ in enumerate(Simulation(model, settings)):
    if k == 2:  # something loads SciPy's linear algebra between two frames
        import scipy.linalg
    if k >= 3:
        blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
        libraries.add(len(blas))
        threads |= {lib["num_threads"] for lib in blas}
after = {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
print(json.dumps({"libraries": sorted(libraries), "threads": sorted(threads),
                  "after": sorted(after)}))
"""


def test_scipys_blas_loaded_during_a_run_steps_with_one_thread_too():
    """A run that starts without SciPy's linear algebra (the compiled central differences)
    limits SciPy's BLAS once something loads it (Lagrange–Baumgarte's rank watch, an SVD,
    does at its first step), and gives it its own setting back after."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen == {"libraries": [2], "threads": [1], "after": [2]}  # NumPy's BLAS, SciPy's
