"""The errors of an analysis run, as the analyses import them (defined in
:mod:`solver.errors`, where the mechanics can raise them too)."""

from solver.errors import NonFiniteFunction, SimulationError

__all__ = ["NonFiniteFunction", "SimulationError"]
