"""Dense systems step with one BLAS thread; the caller's setting is restored after."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from threadpoolctl import threadpool_info, threadpool_limits

from solver import Simulation, load_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_one_blas_thread_while_a_dense_system_steps_and_restored_after():
    model = load_model(EXAMPLES / "pendulum.json")
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
