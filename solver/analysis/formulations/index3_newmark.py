"""``index3_newmark``: the traditional index-3 Newmark method (the null-space Newmark thesis
ch. 6, Fig. 6.1).

The baseline that the null-space Newmark method replaces. The Newmark rule (γ, β) is
applied to every coordinate,

    q̈_{n+1} = a₀ (q_{n+1} − q_n) − a₁ q̇_n − a₂ q̈_n,
    q̇_{n+1} = a₅ (q_{n+1} − q_n) − a₆ q̇_n − a₇ q̈_n        (``NewmarkScheme``),

and the equations of motion with multipliers and the *position* constraints are solved at
``t_{n+1}`` for ``(q_{n+1}, λ_{n+1})`` by Newton–Raphson:

    M q̈ − Q + Φ_qᵀ λ = 0,     Φ(q, t) = 0.

Velocities and accelerations come from the Newmark rule only: with N coordinates and N_R
constraints there are 3N + N_R unknowns for 3N + 3N_R equations, so only one constraint
level can be imposed (the null-space Newmark thesis §6.1); here the position level, and the velocity and
acceleration constraints are violated by O(h) amounts that are not corrected.

Newton matrix, with the equations of motion scaled by βh² and ``λ̂ = βh² λ`` (the
usual scaling of index-3 iteration matrices; without it their condition grows as h⁻²):

    [ M + γh C + βh² K   Φ_qᵀ ] [Δq]     [ βh² (M q̈ − Q + Φ_qᵀλ) ]
    [ Φ_q                0    ] [Δλ̂] = − [ Φ                      ],

``K = ∂(M q̈)/∂q − ∂Q/∂q + ∂(Φ_qᵀλ)/∂q``, ``C = −∂Q/∂q̇`` (``Linearisation``), solved by
least squares when Φ_q has redundant rows. The Euler-parameter norms are among the rows of
Φ, so no renormalisation is done. Convergence: the correction below
``tol·max(1, |q|∞)`` and ``|Φ|∞ ≤ tol``.

What the thesis shows with it (ch. 6) and the tests reproduce: the multipliers act like a
mode of infinite frequency, so the method is stable only where ``γ/2 − β ≤ 0``; with
Fox–Goodwin (β = 1/12) it fails at every step size, where the null-space method with the
same parameters has the predictable limit ``√6/ω_max``. Near the trapezoidal rule it can
fail too on stiff problems (the double pendulum of Negrut et al. (2007)).

Parameters: ``scheme`` (``trapezoidal`` default, ``fox_goodwin``, ``linear_acceleration``,
``custom`` with ``gamma`` and ``beta``), as for ``null_space``.
"""

from __future__ import annotations

import math

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import DynamicState, Formulation
from solver.analysis.formulations.null_space_common import Linearisation, NewmarkScheme
from solver.analysis.kinematics import accelerations
from solver.mechanics.system import MultibodySystem
from solver.model.description import SolverSettings


def solve(jac: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``jac⁻¹ rhs``; the minimum-norm least-squares solution when ``jac`` is singular
    (redundant constraint rows make the multipliers undetermined along their null space)."""
    with np.errstate(all="ignore"):
        try:
            sol = np.linalg.solve(jac, rhs)
            if np.isfinite(sol).all():
                mismatch = np.abs(jac @ sol - rhs).max(initial=0.0)
                if mismatch <= 1e-9 * max(1.0, float(np.abs(rhs).max(initial=0.0))):
                    return sol
        except np.linalg.LinAlgError:
            pass
    return np.linalg.lstsq(jac, rhs, rcond=None)[0]


class Index3Newmark(Formulation):
    name = "index3_newmark"
    defaults = {"scheme": "trapezoidal", "gamma": 0.5, "beta": 0.25}

    def __init__(self, system: MultibodySystem, settings: SolverSettings) -> None:
        super().__init__(system, settings)
        self.scheme = NewmarkScheme.from_parameters(self.params)

    def start(self, state: DynamicState) -> DynamicState:
        """Complete the consistent initial state with ``q̈`` and ``λ`` (index-1 system)."""
        qdd, lam = accelerations(self.system, state.q, state.qd, state.t)
        return DynamicState(state.t, state.q, state.qd, qdd, lam, state.iterations)

    def equations(self, q, lam, start: DynamicState, h: float):
        """The scaled residual ``[βh² (M q̈ − Q + Φ_qᵀλ); Φ]`` at ``(q, λ)`` and its
        Jacobian with respect to ``(q, λ̂ = βh² λ)``; also ``(q̇, q̈)`` from the rule."""
        a0, a1, a2, a5, a6, a7 = self.scheme.coefficients(h)
        bh2, gh = self.scheme.beta * h * h, self.scheme.gamma * h
        dq = q - start.q
        qdd = a0 * dq - a1 * start.qd - a2 * start.qdd
        qd = a5 * dq - a6 * start.qd - a7 * start.qdd
        lin = Linearisation(self.system, q, qd, qdd, start.t + h)
        lin.derivatives(lam)
        residual = np.concatenate([bh2 * (lin.M @ qdd - lin.Q + lin.H.T @ lam), lin.phi])
        m = len(lin.phi)
        tangent = lin.M + gh * lin.C + bh2 * lin.K
        jac = np.block([[tangent, lin.H.T], [lin.H, np.zeros((m, m))]])
        return residual, jac, qd, qdd

    def step(self, state: DynamicState, h: float) -> DynamicState:
        s = self.system
        t = state.t + h
        bh2 = self.scheme.beta * h * h
        lam = np.zeros(s.m) if state.lam is None else state.lam[: s.m].copy()
        q = state.q + h * state.qd + 0.5 * h * h * state.qdd  # constant-acceleration predictor
        err = math.inf
        for it in range(1, self.max_iterations + 1):
            residual, jac, qd, qdd = self.equations(q, lam, state, h)
            small = err <= self.tolerance * max(1.0, float(np.abs(q).max()))
            if small and float(np.abs(residual[s.n :]).max(initial=0.0)) <= self.tolerance:
                return DynamicState(t, q, qd, qdd, lam, it - 1)
            sol = solve(jac, -residual)
            step_q, step_l = sol[: s.n], sol[s.n :] / bh2
            if not (np.isfinite(step_q).all() and np.isfinite(step_l).all()):
                break
            q = q + step_q
            lam = lam + step_l
            err = float(np.abs(step_q).max(initial=0.0))
        raise SimulationError(
            t,
            f"the index-3 Newmark iterations did not converge in {self.max_iterations} "
            f"iterations (last correction {err:.3g}) at dt = {h:g} s",
            self._hint(),
        )

    def _hint(self) -> str:
        sch = self.scheme
        if 0.5 * sch.gamma - sch.beta > 0.0:
            return (
                f"γ = {sch.gamma:g}, β = {sch.beta:.4g} is not stable with Lagrange multipliers "
                "at any dt (γ/2 − β > 0); use formulation null_space with these parameters"
            )
        return (
            "reduce dt, add numerical damping (γ > 1/2, β ≥ (γ + 1/2)²/4), or use "
            "formulation null_space"
        )
