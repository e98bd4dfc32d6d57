"""The interface every dynamic formulation implements.

A formulation is a stepper: ``start`` completes a consistent initial state (positions
and velocities already satisfy the constraints), ``step`` advances it by ``h``. Both
return a ``DynamicState``. A step that cannot be taken raises ``SimulationError`` with
the time, the cause and what to try (a smaller step, another formulation, ...).

Conventions: equations of motion ``M q̈ = Q − Φ_qᵀ λ`` with ``Φ_q q̈ = γ``; ``λ`` are
the multipliers in that sign convention (constraint forces ``−Φ_qᵀ λ``), used by the time
loop for the work of drivers. A formulation that does not compute them leaves ``lam``
as ``None`` and the loop recovers them by least squares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from solver.mechanics.system import MultibodySystem
from solver.model.description import SolverSettings


@dataclass
class Carry:
    """Base of a formulation's own part of a state (``DynamicState.carry``): what its next
    step needs and what its step reports, one dataclass per formulation. ``work`` (J, from
    the start) is set by a formulation that integrates the forces' and drivers' work with
    the motion; the time loop then takes it instead of its own record."""

    work: float | None = None


@dataclass
class DynamicState:
    """State at time ``t``; ``iterations`` counts the Newton iterations of the last step;
    ``carry`` is the formulation's own part (a :class:`Carry` of its module, or ``None``:
    a step given another formulation's state, or none, starts as from ``(q, q̇)``)."""

    t: float
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray | None = None
    lam: np.ndarray | None = None
    iterations: int = 0
    carry: Carry | None = None


class Formulation:
    """Base class; subclasses set ``name`` and ``defaults`` (their own parameters)."""

    name = ""
    #: The formulation's own parameters (``solver.parameters`` keys) and their defaults.
    defaults: dict[str, Any] = {}

    def __init__(self, system: MultibodySystem, settings: SolverSettings) -> None:
        self.system = system
        self.settings = settings
        self.params = {
            **self.defaults,
            **{k: v for k, v in settings.parameters.items() if k in self.defaults},
        }
        self.tolerance = settings.tolerance
        self.max_iterations = settings.max_iterations

    def start(self, state: DynamicState) -> DynamicState:
        raise NotImplementedError

    def step(self, state: DynamicState, h: float) -> DynamicState:
        raise NotImplementedError
