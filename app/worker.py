"""The solver run behind the GUI: a QThread that drives a solver process and turns its
messages into Qt signals (frames in batches).

The solver itself runs in a child process (``app.solver_process``: no Qt, no VTK), so
the GUI thread never waits for the Python interpreter lock while a run goes on. The QThread
only blocks on the pipe and re-emits plain data (numpy rows, numbers, strings); the GUI
thread draws. Pause, resume and stop are ``multiprocessing.Event``\\ s, set from any thread.

The process serves one run after another (:class:`SolverProcess`): starting Python, NumPy,
SciPy and the compiled kernels takes seconds, so only the first run of a window pays for
it. A process that ended, broke its pipe or had to be terminated is replaced at the next
run; the window ends its process when it closes.
"""

from __future__ import annotations

import contextlib
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
#: Seconds a closing window gives its idle solver process to end before terminating it.
QUIT_TIMEOUT = 2.0


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


class SolverProcess:
    """A solver process (``solver_process.serve``) that runs the jobs sent to it one at a
    time, with the pause (``resume`` cleared) and ``stop`` events of the current run."""

    def __init__(self) -> None:
        self.conn, child = CONTEXT.Pipe(duplex=True)
        self.resume = CONTEXT.Event()
        self.resume.set()
        self.stop = CONTEXT.Event()
        self.process = CONTEXT.Process(
            target=solver_process.serve,
            args=(child, self.resume, self.stop),
            name="biela-solver",
            daemon=True,
        )
        self.process.start()
        child.close()  # the child has its own copy: EOF when it ends
        self.broken = False
        self.runs = 0

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def usable(self) -> bool:
        return not self.broken and self.process.is_alive()

    def send_job(self, target: Callable, model: Any, overrides: dict[str, Any]) -> None:
        """Start a run: fresh pause and stop events, then the job."""
        self.stop.clear()
        self.resume.set()
        self.runs += 1
        self.conn.send(("run", target, model, overrides))

    def close(self, timeout: float = QUIT_TIMEOUT) -> None:
        """End the process: asked to quit when idle, terminated otherwise (or if it does not
        end within ``timeout`` s)."""
        self.broken = True
        if self.process.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send(("quit",))
            self.process.join(timeout)
            if self.process.is_alive():
                self.process.terminate()
                self.process.join(5)
        self.conn.close()


class SimulationWorker(QObject):
    """Runs one job in a :class:`SolverProcess` and relays its messages; lives in its own
    QThread."""

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
        server: SolverProcess | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
        self.target = target or solver_process.solve
        self.server = server or SolverProcess()
        self.process = self.server.process

    # -- control, from any thread ---------------------------------------------------------

    def pause(self) -> None:
        self.server.resume.clear()

    def resume(self) -> None:
        self.server.resume.set()

    def stop(self) -> None:
        self.server.stop.set()
        self.server.resume.set()

    @property
    def paused(self) -> bool:
        return not self.server.resume.is_set()

    # -- the run, in the worker thread ---------------------------------------------------------

    def run(self) -> None:
        start = time.perf_counter()
        try:
            outcome = self._run()
        except Exception as error:  # a bug: keep the details on stderr, one line for the user
            log.error("simulation worker failed:\n%s", traceback.format_exc())
            self.server.broken = True
            outcome = RunOutcome("error", f"internal error: {type(error).__name__}: {error}", None)
        if not outcome.wall_time:
            outcome.wall_time = time.perf_counter() - start
        self.finished.emit(outcome)
        thread = self.thread()
        if thread is not None:
            thread.quit()  # ends the thread's event loop as soon as run() returns

    def _run(self) -> RunOutcome:
        # The model itself goes to the solver process (models pickle exactly).
        server = self.server
        wall = 0.0
        try:
            server.send_job(self.target, self.model, self.overrides)
            while True:
                message = server.conn.recv()
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
        except (EOFError, OSError):
            server.broken = True
            server.process.join(5)
            return RunOutcome(
                "error",
                f"the solver process ended unexpectedly (exit code {server.process.exitcode})",
                None,
                wall,
            )


class SimulationRunner(QObject):
    """Owns the solver process, one worker and its thread; forwards the worker's signals
    (queued, GUI thread)."""

    columns_ready = Signal(object)
    frames_ready = Signal(object)
    preview_ready = Signal(object)
    status_ready = Signal(str)
    finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thread: QThread | None = None
        self.worker: SimulationWorker | None = None
        self.server: SolverProcess | None = None
        self._lingering: list[QThread] = []  # threads that did not end when asked (kept alive)

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
        if self.server is None or not self.server.usable():
            if self.server is not None:
                self.server.close()
            self.server = SolverProcess()
        thread = QThread()
        thread.setObjectName("biela-solver")
        worker = SimulationWorker(model, overrides, target, self.server)
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
        server = self.worker.server if self.worker is not None else None
        if server is not None:
            server.broken = True
            if server.process.is_alive():
                server.process.terminate()
        return self.thread.wait(10_000)

    def shutdown(self) -> None:
        """End the run (if any) and the solver process (the window closes)."""
        self.wait()
        if self.server is not None:
            self.server.close()
            self.server = None

    def _on_finished(self, outcome: RunOutcome) -> None:
        thread, worker = self.thread, self.worker
        self.thread = self.worker = None
        if thread is not None:
            thread.quit()
            if not thread.wait(10_000):  # run() has returned: never expected
                log.error("the solver thread did not end 10 s after its run")
                self._lingering.append(thread)
        if worker is not None:
            worker.deleteLater()
        self.finished.emit(outcome)
