"""The study table: one row per case, the columns of ``study.csv``.

Columns, in order: ``case``; one per key, named by it; ``sample`` (with sampled keys);
``status`` (ok, failed, cancelled, error), ``message``; ``wall_time_s`` (the solver's
time), ``cpu_time_s`` (the worker's CPU time for the run), ``steps``,
``newton_iterations``, ``max_energy_drift`` (J), ``max_constraint_position``,
``max_constraint_velocity``; ``reference_distance`` (m, with a reference); then
``final.<column>``: the last output row of the run (``final.t`` is the time reached).
"""

from __future__ import annotations

import csv
import math
import os
from typing import Any

from solver.studies.cases import Case
from solver.studies.run import CaseOutcome

FIGURES = (
    ("wall_time_s", "wall_time_s"),
    ("steps", "steps"),
    ("newton_iterations", "newton_iterations"),
    ("max_energy_drift", "max_energy_drift"),
    ("max_constraint_position", "max_constraint_position"),
    ("max_constraint_velocity", "max_constraint_velocity"),
)
REFERENCE = "reference_distance"


def row_of(case: Case, outcome: CaseOutcome, with_reference: bool) -> dict[str, Any]:
    """The table row of one case (keys in column order)."""
    row: dict[str, Any] = {"case": case.index, **case.values}
    if case.sample is not None:
        row["sample"] = case.sample
    row["status"] = outcome.status
    row["message"] = outcome.message
    s = outcome.summary
    row["wall_time_s"] = _number(s.get("wall_time_s"))
    row["cpu_time_s"] = outcome.cpu_time_s if outcome.summary else math.nan
    for column, name in FIGURES[1:]:
        row[column] = _number(s.get(name))
    if with_reference:
        row[REFERENCE] = math.nan
    if outcome.final is not None:
        for name, value in zip(outcome.columns, outcome.final, strict=True):
            row[f"final.{name}"] = float(value)
    return row


def _number(value: Any) -> float:
    return math.nan if value is None else value


def columns_of(rows: list[dict[str, Any]]) -> list[str]:
    """Every column of ``rows`` in first-seen order (cases that failed early lack the
    ``final.`` columns)."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            seen.setdefault(key, None)
    return list(seen)


def write_csv(path: str | os.PathLike, rows: list[dict[str, Any]]) -> None:
    """``rows`` as CSV: floats at full precision (``repr``), missing values empty."""
    columns = columns_of(rows)
    tmp = f"{path}.tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in columns])
    os.replace(tmp, path)


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        import json

        return json.dumps(value)
    return str(value)
