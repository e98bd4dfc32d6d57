"""Force elements of a system (gravity is applied by the system itself)."""

from solver.mechanics.forces.force_set import ForceSet

__all__ = ["ForceSet"]
