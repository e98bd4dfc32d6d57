"""The solver process's loop (``app.solver_process.serve``) in a thread: one ``done`` per
job whatever the job's code does, then the next job; ``quit`` ends it."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import pytest

from app import solver_process

PENDULUM = Path(__file__).resolve().parents[2] / "examples" / "pendulum.json"


def closes_without_a_result(model, overrides, conn, resume, stop):
    conn.send(("status", "working"))
    conn.close()


def raises(model, overrides, conn, resume, stop):
    raise RuntimeError("a bug")


def _messages_of_one_run(conn) -> list[tuple]:
    messages = []
    while not messages or messages[-1][0] != "done":
        assert conn.poll(60), messages
        messages.append(conn.recv())
    return messages


def test_every_job_ends_with_one_done_and_the_process_serves_the_next():
    ours, theirs = multiprocessing.Pipe(duplex=True)
    resume, stop = threading.Event(), threading.Event()
    resume.set()
    loop = threading.Thread(target=solver_process.serve, args=(theirs, resume, stop), daemon=True)
    loop.start()

    ours.send(("run", closes_without_a_result, str(PENDULUM), {}))
    messages = _messages_of_one_run(ours)
    assert [m[0] for m in messages] == ["status", "done"]
    assert messages[-1][1:3] == ("error", "internal error: the run ended without a result")

    ours.send(("run", raises, str(PENDULUM), {}))
    assert _messages_of_one_run(ours) == [
        ("done", "error", "internal error: RuntimeError: a bug", None, {})
    ]

    ours.send(("run", solver_process.solve, str(PENDULUM), {"t_end": 0.02}))
    messages = _messages_of_one_run(ours)
    kinds = [m[0] for m in messages]
    assert kinds[0] == "columns" and "frames" in kinds and kinds.count("done") == 1
    assert messages[-1][1] == "ok" and messages[-1][3].t[-1] == pytest.approx(0.02)
    assert not ours.poll(0.2)  # nothing after a run's done

    ours.send(("quit",))
    loop.join(10)
    assert not loop.is_alive()
