"""``sliding`` joints: a point of body2 slides along the centreline of a flexible body1
(García Vallejo (2006) §4.6), the bookkeeping around their equations.

The equations, their Jacobian and second derivatives, and the element switching as the arc
length ``s`` crosses a node are the kernels' (``solver.kernels.sliding``, laid out by
``solver.mechanics.packing``). Here: each joint's markers (body2's point and, with
``rotation = "locked"``, its direction normal to the beam's tangent at t = 0), the column of
its ``s`` (one extra coordinate of the system, no inertia), its rows, and the check that
stops a run whose point has left the beam by more than half an element (a
``SimulationError`` naming the joint; inside that margin the kernels extrapolate the end
element).
"""

from __future__ import annotations

import numpy as np

from solver.errors import SimulationError


class Slider:
    """One sliding joint: body2's point marker ``marker`` on ``beam``; ``s`` at ``col``;
    ``lock``: body2's direction marker normal to the centreline at t = 0 (locked rotation)
    or ``None`` (rotations free)."""

    def __init__(
        self, key: str, name: str, beam, col: int, marker: int, lock: int | None = None
    ) -> None:
        self.key, self.name, self.beam, self.col, self.marker = key, name, beam, col, marker
        self.lock = lock
        self.rows = 3 + (lock is not None)
        self.l = beam.length / beam.n_elements  # element length (m)
        self.z0 = float(beam.start[2])
        self._low, self._high = -0.5 * self.l, beam.length + 0.5 * self.l

    def check(self, s: float, t: float) -> None:
        """Raise the run's ``SimulationError`` if ``s`` (m) is off the beam (the kernels'
        ``sliding.on_beam``)."""
        if not self._low <= s <= self._high:
            b = self.beam
            raise SimulationError(
                t,
                f'the point of sliding joint "{self.name}" left flexible body "{b.name}" '
                f"(s = {s:.6g} m; the beam is {b.length:g} m long)",
                "keep the slider on the beam (shorter run, stops or a longer beam)",
            )


class SlidingJoints:
    """All sliding joints on the beams of one ``AncfBodies``: a constraint block, whose
    rows the system places at ``row0``."""

    def __init__(self) -> None:
        self.sliders: list[Slider] = []
        self.start: list[int] = []  # first local row of each slider
        self.row0 = 0

    def add(self, slider: Slider) -> None:
        self.start.append(self.rows)
        self.sliders.append(slider)

    @property
    def rows(self) -> int:
        return sum(sl.rows for sl in self.sliders)

    def items(self) -> dict[str, np.ndarray]:
        return {
            sl.key: r + np.arange(sl.rows) for r, sl in zip(self.start, self.sliders, strict=True)
        }

    def check(self, q: np.ndarray, t: float) -> None:
        """Stop the run (``SimulationError``) if a joint's point has left its beam at q."""
        for sl in self.sliders:
            sl.check(float(q[sl.col]), t)
