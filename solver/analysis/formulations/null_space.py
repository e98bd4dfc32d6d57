"""``null_space``: orthogonal-complement / null-space formulations (the null-space Newmark thesis;
Saura et al.).

Parameters (``solver.parameters``):

* ``method``: ``"newmark"`` (default) — the null-space Newmark method of the null-space Newmark
  thesis: constraints linearised at t + h at position, velocity and acceleration level, the local
  minimal coordinates ``α`` of the null space of Φ_q integrated by Newmark, the start-of-step
  state projected onto the same parametrisation, a d×d solve per Newton iteration and
  Euler-parameter renormalisation (see ``null_space_newmark``).
  ``"r_matrix"`` — the R-matrix formulation of Saura et al.: independent coordinates z (a subset
  of q chosen by pivoted QR of Φ_q at the start of every step), ``q̇ = R ż`` with
  ``Φ_q R = 0`` and ``Rᵀ M R z̈ = Rᵀ(Q − M Ṙż)``, the Newmark rule on z, and the
  position and velocity problems solved in every iteration so that the constraints
  hold exactly (see ``null_space_r_matrix``).
* ``scheme``: ``"trapezoidal"`` (γ = ½, β = ¼; default), ``"fox_goodwin"`` (½, 1/12),
  ``"linear_acceleration"`` (½, 1/6) or ``"custom"`` (``gamma``, ``beta``; the two numbers
  are ignored for the named schemes).
* ``rotation_length`` (m, default 0.5; ``newmark`` only): the metric of the local minimal
  coordinates. N is orthonormal, and the particular solutions have minimum norm, in
  coordinates where a rotation dθ of a rigid body counts as a displacement
  ``rotation_length · dθ``; 0.5 m is the Euler parameters as they are (they move by dθ/2),
  1 m the (x, y, θ) coordinates of a planar model in SI units. The converged step depends
  on it at O(Δt²) (the charts differ), never the solution the steps converge to as Δt → 0.

Rolling without slip (velocity rows ``B q̇ = 0``, ``constraints.rolling``): positions keep
the null space of Φ_q (their freedoms), velocities that of ``[Φ_q; B]``. Both methods
project the equations of motion on the directions of their basis that keep ``B q̇ = 0``
(``Z``, the null space of ``B N`` or ``B R``: ``N Z`` and ``R Z`` span the null space of
``[Φ_q; B]``, so the reactions ``Bᵀμ`` drop out like ``Φ_qᵀλ``), and complete the square
system with ``B q̇ = 0`` on the Newmark velocity at t + h, a condition on the step's
positions as in central differences. The Newton matrix has the no-slip terms
``∂(Bᵀμ)/∂q`` and ``∂(B q̇)/∂q`` (``no_slip``); ``[λ; μ]`` are returned.

Both methods tolerate redundant constraints (SVD / pivoted QR with a rank tolerance) and
report ``state.iterations`` (Newton iterations of the step) and, in ``state.carry``, the
number of degrees of freedom; the Newmark method also reports the highest frequency of
the reduced system and the step limit of the scheme (``omega_max``, ``dt_max``).
"""

from __future__ import annotations

from solver.analysis.formulations.base import DynamicState, Formulation
from solver.analysis.formulations.null_space_common import NewmarkScheme
from solver.analysis.formulations.null_space_newmark import NewmarkNullSpace
from solver.analysis.formulations.null_space_r_matrix import RMatrix
from solver.analysis.kinematics import accelerations
from solver.mechanics.system import MultibodySystem
from solver.model.description import SolverSettings
from solver.model.errors import ModelError


class NullSpace(Formulation):
    name = "null_space"
    velocity_constraints = True  # handles rolling without slip (non-holonomic rows)
    defaults = {
        "method": "newmark",
        "scheme": "trapezoidal",
        "gamma": 0.5,
        "beta": 0.25,
        "rotation_length": 0.5,
    }

    def __init__(self, system: MultibodySystem, settings: SolverSettings) -> None:
        super().__init__(system, settings)
        self.scheme = NewmarkScheme.from_parameters(self.params)
        method = self.params["method"]
        if method == "newmark":
            cls = NewmarkNullSpace
        elif method == "r_matrix":
            cls = RMatrix
        else:
            raise ModelError(
                "solver.parameters", f'"{method}" is not one of newmark, r_matrix', "method"
            )
        if method == "newmark":
            length = float(self.params["rotation_length"])  # checked positive by the reader
            self.stepper = cls(system, self.scheme, self.tolerance, self.max_iterations, length)
        else:
            self.stepper = cls(system, self.scheme, self.tolerance, self.max_iterations)

    def start(self, state: DynamicState) -> DynamicState:
        """Complete the consistent initial state with ``q̈`` and ``λ`` (index-1 system)."""
        qdd, lam = accelerations(self.system, state.q, state.qd, state.t)
        return DynamicState(state.t, state.q, state.qd, qdd, lam, state.iterations)

    def step(self, state: DynamicState, h: float) -> DynamicState:
        return self.stepper.step(state, h)
