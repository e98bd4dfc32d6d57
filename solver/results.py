"""Time histories of an analysis: frames, the CSV columns, the summary.

Columns (SI units): ``t``; per rigid body ``B.x B.y B.z B.e0 B.e1 B.e2 B.e3 B.vx B.vy B.vz
B.wx B.wy B.wz`` (centre of mass, Euler parameters body→global, velocity, global angular
velocity); per point mass ``B.x B.y B.z B.vx B.vy B.vz``; per output point ``P.x … P.vz``;
then ``energy.kinetic energy.potential energy.elastic energy.work energy.total
constraint.position constraint.velocity``. ``energy.total = kinetic + potential +
elastic − work``, constant for an exact solution. Last, the quantities the model requests
(``solver.analysis.outputs.requested``: ``reaction.J.Fx`` …, ``effort.D.torque``, ``B.ax`` …,
``joint.J.angle`` …).
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

RIGID_FIELDS = ("x", "y", "z", "e0", "e1", "e2", "e3", "vx", "vy", "vz", "wx", "wy", "wz")
POINT_FIELDS = ("x", "y", "z", "vx", "vy", "vz")
TAIL = (
    "energy.kinetic",
    "energy.potential",
    "energy.elastic",
    "energy.work",
    "energy.total",
    "constraint.position",
    "constraint.velocity",
)


@dataclass
class Frame:
    """One output instant: state and per-step diagnostics."""

    t: float
    q: np.ndarray
    qd: np.ndarray
    kinetic: float
    potential: float
    elastic: float
    work: float
    constraint_position: float
    constraint_velocity: float
    iterations: int = 0
    qdd: np.ndarray | None = None
    row: np.ndarray | None = None  # the CSV row, filled by ``Result.append``
    #: dynamic runs: the smallest substep (s) of a step that failed and was retried
    #: (``solver.analysis.step_control``), ``None`` when the step was taken whole
    substep: float | None = None

    @property
    def total(self) -> float:
        return self.kinetic + self.potential + self.elastic - self.work


def columns_for(system) -> list[str]:
    cols = ["t"]
    for name in system.slots:
        cols += [f"{name}.{f}" for f in system.state_fields(name)]
    for o in system.model.outputs:
        cols += [f"{o.name}.{f}" for f in POINT_FIELDS]
    return cols + list(TAIL)


class RunStatistics:
    """What the summary needs of every output row, kept as the rows pass: their count,
    the largest constraint errors and energy drift (NaN, once seen, stays, as in a column
    maximum), the peaks of the requested quantities (``peaks``) and the last row.
    Constant memory whatever the length of the run."""

    def __init__(self) -> None:
        self.frames = 0
        self.first_total: float | None = None
        self.max_energy_drift = 0.0
        self.max_constraint_position = 0.0
        self.max_constraint_velocity = 0.0
        self.last: np.ndarray | None = None
        self._at: tuple[int, int, int] | None = None
        self._requested: list[str] = []
        self._peaks: list[list[float]] = []  # per requested column: min, max, |max|, its t

    def add(self, row: np.ndarray, columns: list[str], n_requested: int = 0) -> None:
        """Count one row of ``columns``, whose last ``n_requested`` are requested values."""
        if self._at is None:
            self._at = tuple(columns.index(c) for c in TAIL[-3:])  # total, position, velocity
            self._requested = columns[len(columns) - n_requested :] if n_requested else []
            self._peaks = [[np.inf, -np.inf, -1.0, np.nan, 0.0] for _ in self._requested]
        total, position, velocity = (float(row[i]) for i in self._at)
        if self.first_total is None:
            self.first_total = total
        self.frames += 1
        self.max_energy_drift = _max(self.max_energy_drift, abs(total - self.first_total))
        self.max_constraint_position = _max(self.max_constraint_position, position)
        self.max_constraint_velocity = _max(self.max_constraint_velocity, velocity)
        self.last = row
        if self._peaks:
            t = float(row[0])
            for peak, v in zip(
                self._peaks, row[len(row) - len(self._peaks) :].tolist(), strict=True
            ):
                if v != v:  # NaN: left out, as by numpy's nanmin and nanmax
                    continue
                peak[0], peak[1] = min(peak[0], v), max(peak[1], v)
                if abs(v) > peak[2]:  # the first time of the largest magnitude
                    peak[2], peak[3] = abs(v), t
                if abs(v) != np.inf:
                    peak[4] = 1.0  # a finite value seen

    def peaks(self) -> dict[str, dict[str, float]]:
        """Per requested column with a finite value: minimum, maximum, largest magnitude
        and its time (``solver.analysis.outputs.requested.peaks`` of all the rows)."""
        return {
            c: {"min": p[0], "max": p[1], "max_abs": p[2], "t_max_abs": p[3]}
            for c, p in zip(self._requested, self._peaks, strict=True)
            if p[4]
        }


def _max(a: float, b: float) -> float:
    """``max`` that propagates NaN, as ``numpy.max`` over the whole column would."""
    return a if a != a or a >= b else b


@dataclass
class Result:
    """The frames of one run and its summary; ``status`` is ``ok``, ``failed`` or
    ``cancelled``.

    Every appended row goes to the ``sinks`` (callables, e.g. a ``CsvStream`` writing the
    file as the run goes) and to ``statistics``; with ``keep`` false the rows are not kept
    in memory (the command line: a run of any length in constant memory), so ``data``
    and ``column`` are not available, while ``len`` and the summary are."""

    columns: list[str]
    rows: list[np.ndarray] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"
    message: str = ""
    #: dynamic runs: the stability monitor's report (``solver.analysis.stability``)
    stability: dict[str, Any] | None = None
    #: the number of requested-quantity columns at the end of ``columns``
    n_requested: int = 0
    keep: bool = True
    sinks: list[Callable[[np.ndarray], None]] = field(default_factory=list)
    statistics: RunStatistics = field(default_factory=RunStatistics)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its sinks (open files, callbacks): a result crosses to another
        process (the workbench's) with its rows and summary."""
        return {**self.__dict__, "sinks": []}

    @classmethod
    def for_system(cls, system) -> Result:
        return cls(columns_for(system))

    def frame_row(self, system, frame: Frame, requested: np.ndarray | None = None) -> np.ndarray:
        """The CSV row of ``frame``; the requested quantities are ``requested`` (NaN when
        not given: a preview of a step between outputs)."""
        states = system.state_columns
        row = np.empty(1 + states.width + len(TAIL) + self.n_requested)
        row[0] = frame.t
        states.write(frame.q, frame.qd, row, 1)
        at = 1 + states.width
        row[at : at + len(TAIL)] = (
            frame.kinetic,
            frame.potential,
            frame.elastic,
            frame.work,
            frame.total,
            frame.constraint_position,
            frame.constraint_velocity,
        )
        if self.n_requested:
            row[at + len(TAIL) :] = np.nan if requested is None else requested
        return row

    def append(self, system, frame: Frame, requested: np.ndarray | None = None) -> Frame:
        frame.row = self.frame_row(system, frame, requested)
        self.add_row(frame.row)
        return frame

    def add_row(self, row: np.ndarray) -> None:
        """Append one row: kept (if ``keep``), counted, handed to every sink."""
        if self.keep:
            self.rows.append(row)
        self.statistics.add(row, self.columns, self.n_requested)
        for sink in self.sinks:
            sink(row)

    @property
    def data(self) -> np.ndarray:
        if not self.keep and self.statistics.frames:
            raise ValueError(
                "this result did not keep its rows (keep=False): they went to its sinks"
            )
        return np.array(self.rows).reshape(len(self.rows), len(self.columns))

    def __len__(self) -> int:
        return self.statistics.frames if not self.keep else len(self.rows)

    def column(self, name: str) -> np.ndarray:
        if name not in self.columns:
            raise KeyError(f'no column "{name}" (columns: {", ".join(self.columns[:8])}, ...)')
        return self.data[:, self.columns.index(name)]

    @property
    def t(self) -> np.ndarray:
        return self.column("t")

    # ---- requested quantities (``outputs`` of the model) --------------------------------
    def _block(self, prefix: str, fields) -> np.ndarray:
        return np.column_stack([self.column(f"{prefix}.{f}") for f in fields])

    def reaction(self, joint: str, axes: str = "global") -> tuple[np.ndarray, np.ndarray]:
        """``(F, T)``, each (frames × 3): the reaction of ``joint`` on its body2 at the joint
        point (N, N·m), in the global axes or (``axes="body"``) in body2's axes."""
        suffix = "_body" if axes == "body" else ""
        prefix = f"reaction.{joint}"
        return (
            self._block(prefix, [f"F{c}{suffix}" for c in "xyz"]),
            self._block(prefix, [f"T{c}{suffix}" for c in "xyz"]),
        )

    def effort(self, driver: str) -> np.ndarray:
        """The torque (N·m) or force (N) of ``driver`` on body2 about/along +axis."""
        for kind in ("torque", "force"):
            if f"effort.{driver}.{kind}" in self.columns:
                return self.column(f"effort.{driver}.{kind}")
        raise KeyError(f'no effort of driver "{driver}" in the results (request it in outputs)')

    def acceleration(self, body: str) -> tuple[np.ndarray, np.ndarray | None]:
        """``(a, α)``: the centre of mass's acceleration (m/s²) and the angular acceleration
        (rad/s², ``None`` for a point mass), global, each (frames × 3)."""
        a = self._block(body, ("ax", "ay", "az"))
        if f"{body}.alphax" not in self.columns:
            return a, None
        return a, self._block(body, ("alphax", "alphay", "alphaz"))

    def joint_coordinate(self, joint: str, coordinate: str | None = None):
        """``(value, rate)`` of a joint's ``angle`` (rad) or ``displacement`` (m); the
        default is the joint's only coordinate, the angle of a cylindrical joint."""
        if coordinate is None:
            coordinate = "angle" if f"joint.{joint}.angle" in self.columns else "displacement"
        prefix = f"joint.{joint}.{coordinate}"
        return self.column(prefix), self.column(f"{prefix}_rate")

    def max_energy_drift(self) -> float:
        total = self.column("energy.total")
        return float(np.abs(total - total[0]).max()) if len(total) else 0.0

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write the columns with full double precision (``repr`` of each float)."""
        from solver.csv_stream import CsvStream

        with CsvStream(path, self.columns) as out:
            for row in self.data:
                out(row)

    def write_summary(self, path: str | os.PathLike) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.summary, fh, indent=2)
            fh.write("\n")


def read_csv(path: str | os.PathLike) -> tuple[list[str], np.ndarray]:
    """Columns and data of a results CSV (for tests and post-processing)."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        data = np.array([[float(v) for v in row] for row in reader])
    return header, data.reshape(-1, len(header))
