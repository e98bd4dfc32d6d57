"""Where a results row holds each body's state and each output point.

After the time column, a row has per body (in the model's order) its state, then six
columns ``x y z vx vy vz`` per output point (``solver.results``). :class:`StateColumns`
writes them at ``(q, q̇)`` in one compiled call (:func:`solver.kernels.states.write_states`)
for the rigid bodies, the point masses, the natural-coordinate bodies (their rows of the
kernel's tables: ``BodyKind.state_table``) and the output points; the ANCF beams write
theirs through ``BodyKind.state``.
"""

from __future__ import annotations

import numpy as np

from solver.kernels import states as kst
from solver.mechanics.markers import _f64


class StateColumns:
    """The state columns of ``system``'s rows: ``width`` of them, per body the span
    ``spans[name] = (first, end)`` and the output points from ``points`` on."""

    def __init__(self, system) -> None:
        built, self.owned, natural = [], [], []
        self.spans: dict[str, tuple[int, int]] = {}
        col = 0
        for name, s in system.slots.items():
            width = len(system.state_fields(name))
            table = None if s.owner is None else s.owner.state_table(s)
            if table is not None:
                built.append((table[0], len(natural), col))
                natural.append(table[1:])
            elif s.owner is not None:
                self.owned.append((s, col, width))
            else:
                code = kst.RIGID_STATE if s.kind == "rigid" else kst.POINT_STATE
                built.append((code, s.offset, col))
            self.spans[name] = (col, col + width)
            col += width
        self.slots = np.array(built, dtype=np.int64).reshape(-1, 3)
        #: the natural-coordinate bodies' tables ``(cols, fixed, coef, last)``: ``last``, the
        #: Euler parameters last written, changes with every row
        self.natural = (
            np.array([t[0] for t in natural], np.int64).reshape(-1, 4),
            np.array([t[1] for t in natural], float).reshape(-1, 4, 3),
            np.array([t[2] for t in natural], float).reshape(-1, 16),
            np.array([t[3] for t in natural], float).reshape(-1, 4),
        )
        self.points = col
        self.width = col + 6 * len(system.output_markers)
        self.table = system.markers.subset(np.asarray(system.output_markers, dtype=np.int64))

    def write(self, q: np.ndarray, qd: np.ndarray, row: np.ndarray, start: int = 0) -> None:
        """The state columns at ``(q, q̇)`` into ``row[start : start + width]``."""
        q, qd = _f64(q), _f64(qd)
        kst.write_states(self.slots, self.natural, self.points, *self.table, q, qd, row, start)
        for s, col, width in self.owned:
            row[start + col : start + col + width] = s.owner.state(s, q, qd)

    def body_state(self, q: np.ndarray, qd: np.ndarray) -> dict[str, np.ndarray]:
        """Per body its state columns at ``(q, q̇)`` (views of one row)."""
        row = np.empty(self.width)
        self.write(q, qd, row)
        return {name: row[a:b] for name, (a, b) in self.spans.items()}
