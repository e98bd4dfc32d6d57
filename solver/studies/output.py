"""The study folder: ``study.csv`` (rewritten as cases complete, so an interrupted study
keeps its rows) and, with ``keep_runs``, ``cases/NNN.csv`` (each case's results CSV, the
columns of ``biela run --csv``)."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from solver.studies.errors import StudyError
from solver.studies.table import write_csv

#: rewrite ``study.csv`` at most this often while cases complete (s)
REWRITE_INTERVAL = 2.0


def prepare(folder: str | os.PathLike) -> Path:
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StudyError("", f"cannot create the output folder {folder}: {exc.strerror}") from None
    if not os.access(folder, os.W_OK):
        raise StudyError("", f"cannot write in the output folder {folder}")
    return folder


def case_name(index: int, total: int) -> str:
    return f"{index:0{max(3, len(str(total - 1)))}d}.csv"


def write_run(folder: Path, index: int, total: int, columns: list[str], rows) -> Path:
    """One case's results CSV, full double precision."""
    path = folder / "cases" / case_name(index, total)
    path.parent.mkdir(exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([repr(float(v)) for v in row])
    return path


def write_table(folder: Path, rows: list[dict]) -> Path:
    path = folder / "study.csv"
    write_csv(path, rows)
    return path
