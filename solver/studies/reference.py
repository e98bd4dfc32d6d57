"""The distance of a case's points from a reference solution.

The reference is a run of the study (``auto``: the successful case with the smallest Δt,
the first such case on a tie) or a results CSV (``biela run --csv``). The distance of a case
is the largest Euclidean distance (m), over its output times within the reference's time
span and over its points (:func:`solver.studies.run.point_names`), between the case's point
and the reference's, the reference interpolated linearly in time (exact where the output
times coincide, which they do when both runs share ``output_dt``).
"""

from __future__ import annotations

import os

import numpy as np

from solver.results import read_csv
from solver.studies.errors import StudyError


class Reference:
    """Point trajectories: ``t`` (k,) and ``points`` {name: (k, 3) array}."""

    def __init__(self, t: np.ndarray, points: dict[str, np.ndarray], label: str) -> None:
        self.t = np.asarray(t, dtype=float)
        self.points = points
        self.label = label

    @classmethod
    def from_rows(cls, columns: list[str], rows: np.ndarray, names: list[str], label: str):
        return cls(rows[:, columns.index("t")], _points(columns, rows, names), label)

    @classmethod
    def from_csv(cls, path: str | os.PathLike, names: list[str]) -> Reference:
        """A results CSV holding ``t`` and ``P.x P.y P.z`` of every point in ``names``."""
        label = os.path.basename(str(path))
        try:
            columns, rows = read_csv(path)
        except FileNotFoundError:
            raise StudyError("", f"reference {path} does not exist") from None
        except (OSError, ValueError, StopIteration) as exc:
            raise StudyError("", f"reference {label} is not a results CSV ({exc})") from None
        missing = [f"{p}.{c}" for p in names for c in "xyz" if f"{p}.{c}" not in columns]
        if "t" not in columns:
            missing.insert(0, "t")
        if missing:
            raise StudyError("", f"reference {label} has no column {', '.join(missing[:6])}")
        if len(rows) == 0:
            raise StudyError("", f"reference {label} has no rows")
        if np.any(np.diff(rows[:, columns.index("t")]) <= 0):
            raise StudyError("", f"reference {label}: the times t must increase")
        return cls.from_rows(columns, rows, names, label)

    def distance(self, columns: list[str], rows: np.ndarray) -> float:
        """Largest distance (m) of the points of ``rows`` from the reference; NaN when no
        output time of the case lies within the reference's span."""
        t = rows[:, columns.index("t")]
        span = 1e-9 * max(1.0, abs(self.t[-1]))
        inside = (t >= self.t[0] - span) & (t <= self.t[-1] + span)
        if not inside.any():
            return float("nan")
        worst = 0.0
        case = _points(columns, rows[inside], list(self.points))
        for name, ref in self.points.items():
            here = np.column_stack([np.interp(t[inside], self.t, ref[:, k]) for k in range(3)])
            worst = max(worst, float(np.linalg.norm(case[name] - here, axis=1).max()))
        return worst


def _points(columns: list[str], rows: np.ndarray, names: list[str]) -> dict[str, np.ndarray]:
    return {p: rows[:, [columns.index(f"{p}.{c}") for c in "xyz"]] for p in names}
