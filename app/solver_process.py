"""The solver side of a GUI run, in its own process: no Qt, no VTK, only ``solver``.

A separate process rather than a Python thread because the solver is Python: in a thread it
holds the interpreter lock most of the time, and every call the GUI thread makes into Qt
then waits for it (measured: a click took 0.4–0.6 s to be handled during a run, and the
solver ran slower too). Across processes the GUI stays responsive and the solver runs at
its headless speed. Messages on ``conn`` (all picklable plain data):

- ``("status", text)``: what the solver does before the run (compiling its code on a cold
  cache, the first run after an install or an update);
- ``("columns", [str, ...])`` once, before any frame;
- ``("frames", rows (k, n) array, iterations (k,) array, wall_time)`` batches;
- ``("preview", row)``: the state of a step between outputs, at most every
  ``BATCH_INTERVAL`` when no batch went out, for the live view only (not a result row);
- ``("done", status, message, Result | None, summary)`` at the end, always last.

The process serves one run after another (:func:`serve`): the GUI sends
``("run", target, model, overrides)`` and reads that run's messages up to its ``done``;
``("quit",)`` or the end of the pipe ends the process, and so does the end of the GUI.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from typing import Any

import numpy as np

#: Send a batch at least this often (s) while frames are coming.
BATCH_INTERVAL = 0.02


#: Seconds between looks, while idle, for a GUI process that has gone.
IDLE_POLL = 1.0


class _RunConnection:
    """The connection as one run sees it: what it sends goes to the GUI; closing it ends
    the run's messages, not the process's pipe. Records whether the run sent its
    ``done``."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.done = False
        self.closed = False

    def send(self, message: tuple) -> None:
        if self.closed:
            raise OSError("the run's connection is closed")
        self._conn.send(message)
        if message[0] == "done":
            self.done = True

    def close(self) -> None:
        self.closed = True


def serve(conn: Any, resume: Any, stop: Any) -> None:
    """The solver process's main loop: run each ``("run", target, model, overrides)`` job
    with ``target(model, overrides, connection, resume, stop)`` (:func:`solve` for the
    real solver), one at a time; every job ends with exactly one ``done`` message. Ends
    on ``("quit",)``, on the end of the pipe, or when the GUI process is gone."""
    parent = os.getppid()
    while True:
        try:
            if not conn.poll(IDLE_POLL):
                if os.getppid() != parent:
                    return  # the GUI ended without a word: do not linger
                continue
            job = conn.recv()
        except (EOFError, OSError):
            return
        if not job or job[0] != "run":
            return
        _, target, model, overrides = job
        run = _RunConnection(conn)
        failure = "internal error: the run ended without a result"
        try:
            target(model, overrides, run, resume, stop)
        except Exception as error:  # a bug in the run's code: one line for the user
            traceback.print_exc()
            failure = f"internal error: {type(error).__name__}: {error}"
        if not run.done:
            try:
                conn.send(("done", "error", failure, None, {}))
            except OSError:
                return


def solve(model: Any, overrides: dict, conn: Any, resume: Any, stop: Any) -> None:
    """Run ``simulate(model, stream=True, **overrides)``; ``resume`` and ``stop`` are
    ``multiprocessing.Event``\\ s set by the GUI (pause = ``resume`` cleared).

    ``model`` is a ``solver.Model`` (pickled across) or the path of a model file."""
    from solver import ModelError, compile_solver, compiled_parts, is_compiled, load_model, simulate

    start = time.perf_counter()
    simulation = None
    try:
        try:
            if isinstance(model, str | os.PathLike):
                model = load_model(model)
            parts = compiled_parts(model, **overrides)
            if not is_compiled(parts):
                conn.send(("status", "compiling the solver's code once (first run after an "
                           "install or an update; a minute or more)"))  # fmt: skip
                seconds = compile_solver(lambda line: conn.send(("status", line)), parts)
                conn.send(("status", f"solver compiled in {seconds:.0f} s"))
                start = time.perf_counter()
            simulation = simulate(model, stream=True, **overrides)
        except ModelError as error:
            conn.send(("done", "error", str(error), None, {}))
            return
        conn.send(("columns", list(simulation.result.columns)))
        rows: list[np.ndarray] = []
        iterations: list[int] = []
        last_send = time.perf_counter()

        def flush() -> None:
            nonlocal rows, iterations, last_send
            if rows:
                conn.send(
                    (
                        "frames",
                        np.vstack(rows),
                        np.asarray(iterations, dtype=int),
                        time.perf_counter() - start,
                    )
                )
                rows, iterations = [], []
            last_send = time.perf_counter()

        def preview(frame: Any) -> None:
            """Between outputs (a large output interval), the latest step for the view."""
            nonlocal last_send
            if not rows and time.perf_counter() - last_send >= BATCH_INTERVAL:
                conn.send(("preview", simulation.result.frame_row(simulation.system, frame)))
                last_send = time.perf_counter()

        simulation.on_step = preview
        try:
            for frame in simulation:
                rows.append(frame.row)
                iterations.append(int(frame.iterations))
                if time.perf_counter() - last_send >= BATCH_INTERVAL:
                    flush()
                if not resume.is_set():
                    flush()
                    paused_at = time.perf_counter()
                    while not resume.wait(0.1):
                        if stop.is_set():
                            break
                    start += time.perf_counter() - paused_at  # wall time excludes pauses
                if stop.is_set():
                    simulation.cancel()
        except ModelError as error:  # e.g. a formulation "not available in this version"
            flush()
            conn.send(("done", "error", str(error), simulation.result, {}))
            return
        flush()
        result = simulation.result
        status = result.status
        if status == "ok" and stop.is_set():
            status = "cancelled"
        conn.send(("done", status, result.message, result, dict(result.summary)))
    except Exception as error:  # a bug: details on stderr, one line for the user
        traceback.print_exc()
        result = simulation.result if simulation is not None else None
        with contextlib.suppress(Exception):
            conn.send(
                ("done", "error", f"internal error: {type(error).__name__}: {error}", result, {})
            )
    finally:
        conn.close()
