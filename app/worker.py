"""The solver run behind the GUI: a QThread that drives a solver process and turns its
messages into Qt signals (frames in batches).

The solver itself runs in a child process (``app.solver_process``: no Qt, no VTK), so
the GUI thread never waits for the Python interpreter lock while a run goes on. The QThread
only blocks on the pipe and re-emits plain data (numpy rows, numbers, strings); the GUI
thread draws. Pause, resume and stop are ``multiprocessing.Event``\\ s, set from any thread.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QThread, Signal

from app import solver_process

log = logging.getLogger(__name__)

#: "spawn": a clean interpreter for the solver (forking a process with Qt threads is unsafe).
CONTEXT = multiprocessing.get_context("spawn")


@dataclass
class FrameBatch:
    """Consecutive output frames: ``rows`` (k, columns) CSV rows, per-frame Newton
    iterations, and the run's wall time when the last one was computed."""

    rows: np.ndarray
    iterations: np.ndarray
    wall_time: float


@dataclass
class RunOutcome:
    """How a run ended: ``status`` ok | failed | cancelled | error; ``message`` one line;
    ``result`` the solver's ``Result`` (all frames so far; None if the run never started)."""

    status: str
    message: str
    result: Any | None
    wall_time: float = 0.0
    summary: dict = field(default_factory=dict)


class SimulationWorker(QObject):
    """Starts the solver process and relays its messages; lives in its own QThread."""

    columns_ready = Signal(object)  # list[str]: the result columns, before the first batch
    frames_ready = Signal(object)  # FrameBatch
    preview_ready = Signal(object)  # a row between outputs, for the live view only
    status_ready = Signal(str)  # what the solver does before the run (compiling its code)
    finished = Signal(object)  # RunOutcome

    def __init__(
        self,
        model: Any,
        overrides: dict[str, Any] | None = None,
        target: Callable | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
        self.target = target or solver_process.solve
        self._resume = CONTEXT.Event()
        self._resume.set()
        self._stop = CONTEXT.Event()
        self.process: Any | None = None

    # -- control, from any thread ---------------------------------------------------------

    def pause(self) -> None:
        self._resume.clear()

    def resume(self) -> None:
        self._resume.set()

    def stop(self) -> None:
        self._stop.set()
        self._resume.set()

    @property
    def paused(self) -> bool:
        return not self._resume.is_set()

    # -- the run, in the worker thread ---------------------------------------------------------

    def run(self) -> None:
        start = time.perf_counter()
        try:
            outcome = self._run()
        except Exception as error:  # a bug: keep the details on stderr, one line for the user
            log.error("simulation worker failed:\n%s", traceback.format_exc())
            outcome = RunOutcome("error", f"internal error: {type(error).__name__}: {error}", None)
        if not outcome.wall_time:
            outcome.wall_time = time.perf_counter() - start
        self.finished.emit(outcome)
        thread = self.thread()
        if thread is not None:
            thread.quit()  # ends the thread's event loop as soon as run() returns

    def _run(self) -> RunOutcome:
        # The model itself goes to the solver process (models pickle exactly).
        receive, send = CONTEXT.Pipe(duplex=False)
        process = CONTEXT.Process(
            target=self.target,
            args=(self.model, self.overrides, send, self._resume, self._stop),
            name="biela-solver",
            daemon=True,
        )
        process.start()
        self.process = process
        send.close()  # the child has its own copy: EOF when it ends
        wall = 0.0
        try:
            while True:
                try:
                    message = receive.recv()
                except EOFError:
                    process.join(5)
                    return RunOutcome(
                        "error",
                        f"the solver process ended unexpectedly (exit code {process.exitcode})",
                        None,
                        wall,
                    )
                kind = message[0]
                if kind == "status":
                    self.status_ready.emit(message[1])
                elif kind == "columns":
                    self.columns_ready.emit(message[1])
                elif kind == "frames":
                    _, rows, iterations, wall = message
                    self.frames_ready.emit(FrameBatch(rows, iterations, wall))
                elif kind == "preview":
                    self.preview_ready.emit(message[1])
                elif kind == "done":
                    _, status, text, result, summary = message
                    wall = float(summary.get("wall_time_s") or wall)
                    return RunOutcome(status, text, result, wall, summary)
        finally:
            receive.close()
            process.join(10)
            if process.is_alive():
                process.terminate()
                process.join(5)


class SimulationRunner(QObject):
    """Owns one worker and its thread; forwards the worker's signals (queued, GUI thread)."""

    columns_ready = Signal(object)
    frames_ready = Signal(object)
    preview_ready = Signal(object)
    status_ready = Signal(str)
    finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thread: QThread | None = None
        self.worker: SimulationWorker | None = None

    @property
    def running(self) -> bool:
        return self.thread is not None

    @property
    def paused(self) -> bool:
        return self.worker is not None and self.worker.paused

    def start(
        self, model: Any, overrides: dict[str, Any] | None = None, target: Callable | None = None
    ) -> None:
        if self.running:
            raise RuntimeError("a simulation is already running")
        thread = QThread()
        thread.setObjectName("biela-solver")
        worker = SimulationWorker(model, overrides, target)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.columns_ready.connect(self.columns_ready)
        worker.frames_ready.connect(self.frames_ready)
        worker.preview_ready.connect(self.preview_ready)
        worker.status_ready.connect(self.status_ready)
        worker.finished.connect(self._on_finished)
        self.thread, self.worker = thread, worker
        thread.start()

    def pause(self) -> None:
        if self.worker is not None:
            self.worker.pause()

    def resume(self) -> None:
        if self.worker is not None:
            self.worker.resume()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()

    def wait(self, timeout_ms: int = 10_000) -> bool:
        """Stop and join the thread (used on quit); True when it ended. A solver process
        that does not stop within ``timeout_ms`` (a step can be long) is terminated."""
        if self.thread is None:
            return True
        self.stop()
        if self.thread.wait(timeout_ms):
            return True
        process = self.worker.process if self.worker is not None else None
        if process is not None and process.is_alive():
            process.terminate()
        return self.thread.wait(10_000)

    def _on_finished(self, outcome: RunOutcome) -> None:
        thread, worker = self.thread, self.worker
        self.thread = self.worker = None
        if thread is not None:
            thread.quit()
            thread.wait()
        if worker is not None:
            worker.deleteLater()
        self.finished.emit(outcome)
