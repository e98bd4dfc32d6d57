"""Step control: a time step that fails is retried in smaller substeps.

A dynamic formulation's ``step(state, h)`` may fail: its Newton iteration does not
converge, a matrix is singular, or the new state is not finite. Instead of ending the run
there, ``StepControl.step`` takes the same interval [t, t + h] again as two half steps,
each of which is halved again where it fails, down to ``h / 2**MAX_HALVINGS`` (h/1024).
The time loop still sees one step of size h, so the outputs stay on the ``output_dt``
grid; only a failure at the smallest substep ends the run (with the error of the step of
size h, which says what to try).

Formulations accept a changed h: the one-step schemes (trapezoidal, Newmark, the
generalized-α augmented Lagrangian, whose acceleration variable ``a`` does not depend on
h) carry their state unchanged; the central-difference schemes keep a look-ahead computed
for one h and restart with a first step from (q, q̇) when h changes.

On by default; ``solver.parameters.step_control: false`` turns it off (a failed step then
ends the run as before). The run's summary counts the retried steps and the smallest
substep, and warns where they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.errors import SimulationError

#: a failed step is split into halves at most this many times (smallest substep h/1024)
MAX_HALVINGS = 10
#: how many retry times the warning lists
LISTED = 5


@dataclass
class StepControl:
    """Retries failed steps in halves (``step``); ``record`` keeps the count, the smallest
    substep and the first times for the summary."""

    enabled: bool = True
    retried: int = 0
    smallest: float | None = None
    times: list[float] = field(default_factory=list)

    @classmethod
    def for_settings(cls, settings) -> StepControl:
        return cls(enabled=bool(settings.parameters.get("step_control", True)))

    def step(self, formulation, state, h: float):
        """``formulation.step(state, h)``, or the same interval in substeps if it fails;
        returns ``(state, smallest substep or None)``."""
        try:
            return _checked(formulation.step(state, h)), None
        except (SimulationError, np.linalg.LinAlgError, FloatingPointError) as failure:
            if not self.enabled:
                raise
            first = failure
        try:
            new, smallest = self._halves(formulation, state, h, 1)
        except _Exhausted:
            if isinstance(first, SimulationError):
                first.reason += f" (retried in substeps down to {h / 2**MAX_HALVINGS:.3g} s)"
                first.args = (first.message,)
            raise first from None
        return new, smallest

    def record(self, t: float, smallest: float | None) -> None:
        """Count a step that started at ``t`` and needed substeps down to ``smallest``."""
        if smallest is None:
            return
        self.retried += 1
        self.smallest = smallest if self.smallest is None else min(self.smallest, smallest)
        if len(self.times) < LISTED:
            self.times.append(float(t))

    def _halves(self, formulation, state, h: float, level: int):
        """Two steps of h/2 from ``state``, each split again where it fails."""
        if level > MAX_HALVINGS:
            raise _Exhausted
        sub = 0.5 * h
        smallest = sub
        for _ in range(2):
            try:
                state = _checked(formulation.step(state, sub))
            except (SimulationError, np.linalg.LinAlgError, FloatingPointError):
                state, deeper = self._halves(formulation, state, sub, level + 1)
                smallest = min(smallest, deeper)
        return state, smallest

    def summary(self, dt: float) -> dict:
        """The summary's entries: counts, smallest substep and a warning when retried."""
        out = {"retried_steps": self.retried, "smallest_substep": self.smallest}
        if self.retried:
            where = ", ".join(f"{t:.6g}" for t in self.times)
            more = " …" if self.retried > len(self.times) else ""
            out["warning"] = (
                f"{self.retried} step(s) failed and were retried in substeps (smallest "
                f"{self.smallest:.3g} s = dt/{dt / self.smallest:.0f}), from t = {where}{more} s; "
                "a smaller dt or another formulation may be faster there"
            )
        return out


class _Exhausted(Exception):
    """The smallest substep failed too."""


def _checked(state):
    if not (np.all(np.isfinite(state.q)) and np.all(np.isfinite(state.qd))):
        raise SimulationError(state.t, "the solution became non-finite", "reduce dt")
    return state
