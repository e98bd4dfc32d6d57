"""Errors of an analysis run (the model itself was valid)."""

from __future__ import annotations


class SimulationError(RuntimeError):
    """The solver could not go on at time ``t``: ``reason`` says why, ``hint`` what to try."""

    def __init__(self, t: float, reason: str, hint: str = "") -> None:
        self.t = t
        self.reason = reason
        self.hint = hint
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"solver stopped at t = {self.t:.6g} s: {self.reason}"
        return f"{text}; try: {self.hint}" if self.hint else text
