"""The figures of a formulation comparison (matplotlib, Agg: no display, no Qt).

``work_precision``: the distance from the reference (m) against the CPU time (s), log–log,
one line per formulation through its time steps; ``drift``: the largest energy drift (J)
against Δt, log–log, one line per formulation. Cases that failed are left out, and so are
zero values, which a log axis cannot show (the reference case's own distance).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FORMULATION, DT = "solver.formulation", "solver.dt"


def _series(
    rows: Iterable[dict[str, Any]], x: str, y: str
) -> dict[str, list[tuple[float, float, float]]]:
    """``{formulation: [(dt, x, y), ...]}`` sorted by dt, positive finite values only."""
    out: dict[str, list[tuple[float, float, float]]] = {}
    for row in rows:
        if row.get("status") != "ok":
            continue
        xv, yv = row.get(x), row.get(y)
        if not all(isinstance(v, int | float) and math.isfinite(v) and v > 0 for v in (xv, yv)):
            continue
        out.setdefault(str(row.get(FORMULATION, "model")), []).append((row[DT], xv, yv))
    return {k: sorted(v) for k, v in out.items()}


def _figure():
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 5.0), dpi=120, layout="constrained")
    return fig, fig.add_subplot()


def _plot(series, ax, label_dt: bool) -> None:
    markers = "osD^vP*X"
    for i, (name, points) in enumerate(sorted(series.items())):
        xs = [p[1] for p in points]
        ys = [p[2] for p in points]
        ax.loglog(xs, ys, marker=markers[i % len(markers)], label=name)
        if label_dt:
            for dt, xv, yv in points:
                ax.annotate(
                    f"{dt:g}", (xv, yv), textcoords="offset points", xytext=(4, 4), fontsize=7
                )
    ax.grid(True, which="both", alpha=0.3)
    if series:
        ax.legend(title="formulation")


def work_precision(
    rows: list[dict[str, Any]], folder: str | os.PathLike, title: str = ""
) -> list[Path]:
    """``work_precision.png`` and ``.svg`` in ``folder``; returns their paths."""
    fig, ax = _figure()
    _plot(_series(rows, "cpu_time_s", "reference_distance"), ax, label_dt=True)
    ax.set_xlabel("CPU time (s)")
    ax.set_ylabel("largest distance from the reference (m)")
    ax.set_title(title or "Work–precision (labels: Δt in s)")
    paths = [Path(folder) / "work_precision.png", Path(folder) / "work_precision.svg"]
    for path in paths:
        fig.savefig(path)
    return paths


def drift(rows: list[dict[str, Any]], folder: str | os.PathLike, title: str = "") -> Path:
    """``drift.png`` in ``folder``: the largest energy drift against Δt."""
    fig, ax = _figure()
    series = {
        name: [(dt, dt, y) for dt, _, y in points]
        for name, points in _series(rows, DT, "max_energy_drift").items()
    }
    _plot(series, ax, label_dt=False)
    ax.set_xlabel("time step Δt (s)")
    ax.set_ylabel("largest energy drift |E(t) − E(0)| (J)")
    ax.set_title(title or "Energy drift")
    path = Path(folder) / "drift.png"
    fig.savefig(path)
    return path
