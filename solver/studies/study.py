"""A study: its cases run on Dask, its rows collected as they complete.

``Study(model, vary=..., sample=..., samples=N, seed=S, reference=...)`` makes and validates
every case at once (``StudyError`` naming the key before anything runs); iterating it starts
the cluster (or uses ``client`` / ``scheduler``), warms the compiled code once per host,
submits every case and yields each case's table row as it completes. Afterwards ``rows``
holds every row in case order, with the reference distances, and ``table()`` the pandas
``DataFrame``. ``cancel()`` (any thread) stops submitting and drops the cases not started.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from solver.model import Model, ModelError, load_model
from solver.model.writer import write_model
from solver.studies.cases import Case, make_cases
from solver.studies.engine import ClusterWatch, dask_client, wait_for_workers
from solver.studies.errors import StudyError
from solver.studies.reference import Reference
from solver.studies.run import ROWS_ALL, ROWS_NONE, ROWS_POINTS, CaseOutcome, point_names, run_case
from solver.studies.table import REFERENCE, row_of
from solver.studies.warmup import warm_hosts

AUTO = "auto"
#: seconds between looks for completed cases (and for a cancel)
POLL = 0.02


def model_data(model: Model | str | os.PathLike | dict) -> tuple[dict, dict, str]:
    """``(file data, writer data, file name)`` of a model given as a ``Model``, a path or
    parsed JSON data (the writer data fills fields the file leaves out)."""
    if isinstance(model, Model):
        data = write_model(model)
        return data, data, model.name
    if isinstance(model, dict):
        from solver.model import model_from_data

        return model, write_model(model_from_data(model)), str(model.get("name", "model"))
    path = Path(model)
    parsed = load_model(path)  # validates the file itself first (errors name the file)
    data = json.loads(path.read_bytes().decode("utf-8-sig"))
    return data, write_model(parsed), path.name


class Study:
    """The cases of a study and, once run, their rows. See the module docstring."""

    def __init__(
        self,
        model: Model | str | os.PathLike | dict,
        *,
        vary: dict[str, list[Any]] | None = None,
        sample: dict[str, Any] | None = None,
        samples: int | None = None,
        seed: int | None = None,
        reference: str | os.PathLike | None = None,
        keep_runs: bool = False,
        client: Any = None,
        workers: int | None = None,
        scheduler: str | None = None,
    ) -> None:
        self.data, defaults, self.name = model_data(model)
        self.cases: list[Case]
        self.cases, self.seed = make_cases(self.data, defaults, vary, sample, samples, seed)
        self.keys = list(self.cases[0].values)
        self.points = point_names(self.cases[0].model)
        self.reference: Reference | None = None
        self.reference_case: int | None = None
        self.auto_reference = reference is not None and str(reference) == AUTO
        if reference is not None and not self.auto_reference:
            self.reference = Reference.from_csv(reference, self.points)
        self.keep_runs = keep_runs
        self.client, self.workers, self.scheduler = client, workers, scheduler
        if workers is not None and (
            isinstance(workers, bool) or int(workers) != workers or workers < 1
        ):
            raise StudyError("", f"workers must be a whole number ≥ 1 (got {workers!r})")
        self.rows: list[dict[str, Any] | None] = [None] * len(self.cases)
        self.outcomes: dict[int, CaseOutcome] = {}
        #: case index → ``(columns, rows)`` of the run (``keep_runs``)
        self.runs: dict[int, tuple[list[str], Any]] = {}
        self._points: dict[int, tuple[list[str], Any]] = {}
        self._cancel = threading.Event()
        self.elapsed = 0.0
        self.worker_count = 0
        self.warm_up: dict[str, str] = {}
        #: seconds: ``cluster`` (connect or start), ``warm_up``, ``cases`` (first submission
        #: to the last row)
        self.timing: dict[str, float] = {}
        self.started = False
        # Dask's modules load here, in the thread that makes the study (a workbench makes
        # it in its event loop's thread): imported by a study's own thread while an event
        # loop ran, a package of that size was seen to take minutes (the interpreter's
        # import lock and the GIL handed back and forth), a run that looked hung
        import distributed  # noqa: F401

    @property
    def with_reference(self) -> bool:
        return self.reference is not None or self.auto_reference

    def __len__(self) -> int:
        return len(self.cases)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def failures(self) -> int:
        return sum(1 for r in self.rows if r is not None and r["status"] != "ok")

    @property
    def done(self) -> int:
        return sum(1 for r in self.rows if r is not None)

    def _rows_wanted(self) -> str:
        if self.keep_runs:
            return ROWS_ALL
        return ROWS_POINTS if self.with_reference else ROWS_NONE

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self.started:
            raise RuntimeError("a study runs once; make a new Study to run it again")
        self.started = True
        start = time.perf_counter()
        try:
            yield from self._run()
        finally:
            self.elapsed = time.perf_counter() - start
            self._finish()

    def _run(self) -> Iterator[dict[str, Any]]:
        from distributed import as_completed

        mark = time.perf_counter()
        with dask_client(self.client, self.workers, self.scheduler) as client:
            self.worker_count = wait_for_workers(client)
            self.timing["cluster"] = time.perf_counter() - mark
            mark = time.perf_counter()
            watch = ClusterWatch(client)
            self.warm_up = warm_hosts(
                client, [case.model for case in self.cases], watch, self._cancel.is_set
            )
            self.timing["warm_up"] = time.perf_counter() - mark
            mark = time.perf_counter()
            wanted = self._rows_wanted()
            token = uuid.uuid4().hex[:8]
            futures = {}
            for case in self.cases:
                if self._cancel.is_set():
                    break
                future = client.submit(
                    run_case, case.index, case.model, wanted,
                    key=f"biela-case-{token}-{case.index}", pure=False, retries=0,
                )  # fmt: skip
                futures[future] = case.index
            pending = set(futures)
            why = "the study was stopped"
            try:
                completed = as_completed(list(futures), loop=client.loop)
                while not completed.is_empty() and not self._cancel.is_set():
                    batch = completed.next_batch(block=False)
                    if not batch:  # poll, so that cancel() stops at once, not after a case
                        watch.check()  # a lost cluster: an error, not a wait for ever
                        time.sleep(POLL)
                        continue
                    for future in batch:
                        if future.cancelled() and not watch.connected():
                            raise StudyError("", "the connection to the Dask scheduler was lost")
                        pending.discard(future)
                        index = futures[future]
                        yield self._take(index, _outcome(future, index))
            except StudyError as exc:
                why = f"not run: {exc.reason}"
                raise
            finally:
                self.timing["cases"] = time.perf_counter() - mark
                if pending and watch.connected():
                    with contextlib.suppress(Exception):  # the study's own outcome stands
                        client.cancel(list(pending))
                for future in pending:
                    index = futures[future]
                    self._take(index, CaseOutcome(index, "cancelled", why))
                for case in self.cases:  # stopped before it was submitted
                    if self.rows[case.index] is None:
                        self._take(case.index, CaseOutcome(case.index, "cancelled", why))

    def _take(self, index: int, outcome: CaseOutcome) -> dict[str, Any]:
        case = self.cases[index]
        self.outcomes[index] = outcome
        row = row_of(case, outcome, self.with_reference)
        if outcome.rows is not None:
            if self.keep_runs:
                self.runs[index] = (outcome.row_columns, outcome.rows)
            if self.with_reference:
                points = [
                    c for c in outcome.row_columns if c == "t" or c.rsplit(".", 1)[0] in self.points
                ]
                idx = [outcome.row_columns.index(c) for c in points]
                self._points[index] = (points, outcome.rows[:, idx])
            outcome.rows = None  # kept once, in runs or _points
        if self.reference is not None and index in self._points and outcome.status != "error":
            row[REFERENCE] = self.reference.distance(*self._points[index])
        self.rows[index] = row
        return row

    def _finish(self) -> None:
        """The reference distances of ``auto`` once every case is in."""
        if not self.auto_reference:
            return
        best = None
        for case in self.cases:
            row = self.rows[case.index]
            if row is None or row["status"] != "ok" or case.index not in self._points:
                continue
            if best is None or case.model.solver.dt < self.cases[best].model.solver.dt * (
                1 - 1e-12
            ):
                best = case.index
        if best is None:
            return
        self.reference_case = best
        columns, rows = self._points[best]
        self.reference = Reference.from_rows(columns, rows, self.points, f"case {best}")
        for index, (columns, rows) in self._points.items():
            row = self.rows[index]
            if row is not None and row["status"] != "error" and len(rows):
                row[REFERENCE] = self.reference.distance(columns, rows)

    def completed_rows(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r is not None]

    def table(self):
        """The rows as a pandas ``DataFrame`` (one row per case run so far, in case order)."""
        import pandas as pd

        from solver.studies.table import columns_of

        rows = self.completed_rows()
        return pd.DataFrame(rows, columns=columns_of(rows))

    def case_model(self, index: int) -> Model:
        return self.cases[index].model


def _outcome(future: Any, index: int) -> CaseOutcome:
    """The outcome of a finished future; an exception on the worker (a bug, a lost worker)
    becomes an ``error`` row with one line of explanation."""
    try:
        return future.result()
    except ModelError as exc:
        return CaseOutcome(index, "error", str(exc))
    except Exception as exc:  # noqa: BLE001 (the study goes on; the row says what happened)
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return CaseOutcome(
            index, "error", f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        )


def study(
    model: Model | str | os.PathLike | dict,
    vary: dict[str, list[Any]] | None = None,
    sample: dict[str, Any] | None = None,
    samples: int | None = None,
    seed: int | None = None,
    reference: str | os.PathLike | None = None,
    client: Any = None,
    workers: int | None = None,
    scheduler: str | None = None,
    keep_runs: bool = False,
    stream: bool = False,
):
    """Run a parameter study, a Monte Carlo study or both; a pandas ``DataFrame`` (one row
    per case), or with ``stream=True`` the :class:`Study`, whose iteration yields each row
    as its case completes.

    ``vary`` maps keys (dotted paths into the model file, list items by name:
    ``"solver.dt"``, ``"bodies.bob.mass"``) to lists of values, combined as a full grid;
    ``sample`` maps keys to distributions (``"uniform(a, b)"``, ``"normal(mu, sigma)"``),
    drawn ``samples`` times from ``seed``. ``reference``: ``"auto"`` (the run with the
    smallest Δt) or a results CSV adds ``reference_distance`` (m). ``client``: a
    ``distributed.Client`` to use; else ``scheduler`` (an address) or a local cluster of
    ``workers`` processes (default: the cores)."""
    s = Study(
        model, vary=vary, sample=sample, samples=samples, seed=seed, reference=reference,
        keep_runs=keep_runs, client=client, workers=workers, scheduler=scheduler,
    )  # fmt: skip
    if stream:
        return s
    for _ in s:
        pass
    return s.table()


__all__ = ["AUTO", "Study", "StudyError", "study"]
