"""One case of a study, run where Dask puts it (a worker process, here or on another host).

:func:`run_case` runs ``simulate`` on the case's model and returns plain data (a
:class:`CaseOutcome`): the figures of the study table, the final output row, and the rows
the client asked for (the point columns for the reference distance, every column for
``keep_runs``). Nothing is written on the worker: its disk may be another machine's.
A failed run is an outcome (``status`` "failed", the solver's message), and so is a model
the solver refuses (``"error"``); only a bug raises.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solver.model import Model

#: What a case sends back besides its figures.
ROWS_NONE, ROWS_POINTS, ROWS_ALL = "none", "points", "all"


@dataclass
class CaseOutcome:
    """The result of one case (plain, picklable data). ``wall_time_s`` is the solver's time
    (``summary["wall_time_s"]``), ``cpu_time_s`` the worker process's CPU time for the run,
    ``case_time_s`` the whole call on the worker (model set-up included)."""

    index: int
    status: str
    message: str
    summary: dict[str, Any] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)
    final: np.ndarray | None = None
    rows: np.ndarray | None = None  # (frames, len(row_columns))
    row_columns: list[str] = field(default_factory=list)
    cpu_time_s: float = 0.0
    case_time_s: float = 0.0
    worker: str = ""


def point_names(model: Model) -> list[str]:
    """The points whose positions the reference distance compares: the model's outputs,
    or, when it has none, its rigid bodies and point masses (centres of mass)."""
    if model.outputs:
        return [o.name for o in model.outputs]
    return [b.name for b in model.bodies if getattr(b, "type", "rigid") in ("rigid", "point_mass")]


def point_columns(model: Model) -> list[str]:
    return ["t"] + [f"{p}.{c}" for p in point_names(model) for c in "xyz"]


def run_case(index: int, model: Model, rows: str = ROWS_NONE) -> CaseOutcome:
    """Run ``model`` (its own solver settings); ``rows`` says which rows to send back."""
    from solver.analysis.kinematics import AssemblyError
    from solver.analysis.simulate import simulate
    from solver.model import ModelError
    from solver.studies.memory import relax_trimming

    relax_trimming()  # a Dask nanny's MALLOC_TRIM_THRESHOLD_ would double the CPU time
    start = time.perf_counter()
    cpu = time.process_time()
    try:
        result = simulate(model)
    except (ModelError, AssemblyError) as exc:
        return CaseOutcome(index, "error", str(exc), case_time_s=time.perf_counter() - start,
                           cpu_time_s=time.process_time() - cpu, worker=_where())  # fmt: skip
    cpu = time.process_time() - cpu
    summary = {k: v for k, v in result.summary.items() if _plain(v)}
    data = result.data if len(result) else np.empty((0, len(result.columns)))
    out = CaseOutcome(
        index,
        result.status,
        result.message,
        summary,
        list(result.columns),
        data[-1].copy() if len(data) else None,
        cpu_time_s=cpu,
        worker=_where(),
    )
    if rows == ROWS_ALL:
        out.rows, out.row_columns = data, list(result.columns)
    elif rows == ROWS_POINTS:
        wanted = [c for c in point_columns(model) if c in result.columns]
        idx = [result.columns.index(c) for c in wanted]
        out.rows, out.row_columns = data[:, idx].copy(), wanted
    out.case_time_s = time.perf_counter() - start
    return out


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _where() -> str:
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"
