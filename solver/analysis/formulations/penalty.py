"""Penalty formulation (Villar Alegría (2018) §1.7, Saura et al. §2.2), implicit trapezoidal rule.

Every constraint is replaced by a stiff, damped, massive spring: the multipliers are

    λ = α (Φ̈ + 2ξω Φ̇ + ω² Φ),   Φ̇ = Φ_q q̇ + Φ_t,   Φ̈ = Φ_q q̈ − γ,

so the equations of motion ``M q̈ + Φ_qᵀ λ = Q`` become the ODE

    (M + α Φ_qᵀ Φ_q) q̈ = Q − α Φ_qᵀ (−γ + 2ξω Φ̇ + ω² Φ)

(Saura et al. eq. 7): any constraint violation is a damped oscillation of frequency ω and damping
ratio ξ, driven by the constraint forces with a gain ``1/α``. Redundant constraints need
no special treatment (``Φ_qᵀ Φ_q`` is merely singular in directions ``M`` fills). The
Euler-parameter norm rows are penalised like any joint. The constraints are not satisfied
exactly: that is the nature of the method (Saura et al. note its energy dissipation).

Size of the violation. Statically it is ``|λ| / (α ω²)`` (~10⁻⁸ with the defaults). With a
fixed-step integrator the truncation error of the fast motion along the constraint normals
also feeds it, at a rate ~``h² |q̇|³/(12 L²)``, and the penalty removes it only on the
slow time scale ``1/ω``: ~10⁻⁶ for the A01 pendulum at 1 ms and ω = 10, ~10⁻⁴ for a
swinging link at 10 ms. It falls as ``h²/ω``, so with the implicit rule (stable for any ω) a
larger ω (100 … 1000) is the cure when the violation matters. It matters at singular
positions: a violation in the direction the constraint gradient loses there can only be
removed by forces ∝ violation/σ_min, and with the defaults the A02 double four-bar locks
at its second singular passage (t ≈ 1.23 s) for every Δt ≤ 2 ms tried; with ω = 100 it
passes (the validation tests use that). Evaluating Φ̇ and Φ̈ by the trapezoidal rule
applied to the sequence ``Φ(q_n)`` instead would keep the positions on the constraints,
but then nothing controls the velocities along the normals and the rule's undamped
``(−1)ⁿ`` mode grows there (index-3 behaviour, which ``augmented_lagrangian`` removes with
its projections), so the textbook form is kept.

Integration: the trapezoidal rule (Newmark β = ¼, γ = ½) with positions as the Newton
unknowns, ``q̇_{n+1} = (2/h) q_{n+1} + …``, ``q̈_{n+1} = (4/h²) q_{n+1} + …``. The residual
``f(q) = [M q̈ − Q + Φ_qᵀ λ] h²/4`` has the tangent

    f_q = M + (h/2) C + (h²/4) [∂(M q̈)/∂q − ∂Q/∂q + ∂(Φ_qᵀ λ)/∂q + Φ_qᵀ ∂λ/∂q],
    ∂λ/∂q = α [ (4/h² + 2ξω·2/h + ω²) Φ_q + ∂(Φ_q v)/∂q ],   v = q̈ + (4/h + 2ξω) q̇,

with ``C = −∂Q/∂q̇``. Every term is exact except ``∂γ/∂q`` at fixed ``q̇`` (third
derivatives of Φ), which is left out of the tangent only: it is ``O(h²)`` smaller than the
``Φ_q`` term it sits beside (relative size ``h² |q̇|²/(4 L²)`` for a link of length L),
so Newton still converges in one or two iterations per step (``∂Φ_t/∂q = 0`` for the
drivers here, ``Φ = f(u) − c(t)``). The converged step is accepted when the next Newton
correction, computed with the last factorised tangent, is below the tolerance; that
correction is then applied.

Rolling without slip (non-holonomic rows ``B q̇ = 0``, ``constraints.rolling``): the slip
velocity ``s = B q̇`` is penalised at its own level, as a massive damper,

    μ = α (ṡ + ω s),   ṡ = B q̈ − γ_B,

so a slip decays as ``e^{−ωt}`` (ω the constraints' frequency) and ``(M + α Φ_qᵀΦ_q +
α BᵀB) q̈ = Q − α Φ_qᵀ(…) − α Bᵀ(−γ_B + ω B q̇)``. Its tangent has ``∂(Bᵀμ)/∂q`` and
``α Bᵀ [(4/h² + ω 2/h) B + ∂(B v)/∂q]`` with ``v = q̈ + (ω + 2·2/h) q̇`` (the term of
``∂γ_B/∂q̇`` written as for holonomic rows, ``−2 ∂(B q̇)/∂q``; for the non-holonomic rows it
also has ``Ḃ − ∂(B q̇)/∂q``, an O(h) part of the tangent that only slows the Newton rate).
The multipliers returned are ``[λ; μ]``.

Parameters: ``penalty`` α, ``xi`` ξ, ``omega`` ω (defaults 10⁷, 1, 10 as in Saura et al.).
``penalty`` is relative to the mass scale ``m_ref`` (the largest diagonal entry of ``M``)
so that it means the same for a model in grams as in kilograms: the penalty mass used is
``α m_ref`` (10⁷ kg for the unit-mass IFToMM models, the value of Villar Alegría (2018) and Saura et
al.).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.formulations import no_slip
from solver.analysis.formulations.base import Carry, DynamicState, Formulation
from solver.analysis.formulations.trapezoidal import (
    Factorized,
    Newmark,
    add,
    gram,
    mass_scale,
    newton_correction,
    newton_failure,
)
from solver.analysis.linalg import dense


@dataclass
class PenaltyCarry(Carry):
    """What a penalty step reports: ``newton_corrections``, max |Δq| (m, rad) of each
    Newton iteration."""

    newton_corrections: list[float] = field(default_factory=list)


class Penalty(Formulation):
    name = "penalty"
    velocity_constraints = True  # handles rolling without slip (non-holonomic rows)
    defaults = {"penalty": 1e7, "xi": 1.0, "omega": 10.0}

    def __init__(self, system, settings) -> None:
        super().__init__(system, settings)
        self.scheme = Newmark()
        self.alpha = float(self.params["penalty"])
        self.xi = float(self.params["xi"])
        self.omega = float(self.params["omega"])

    def _drive(self, c, qd: np.ndarray) -> np.ndarray:
        """``−γ + 2ξω Φ̇ + ω² Φ`` (so that ``λ = α (Φ_q q̈ + this)``)."""
        phid = c.phi_q @ qd + c.phi_t
        return -c.gamma + 2.0 * self.xi * self.omega * phid + self.omega**2 * c.phi

    def _slip_drive(self, b, gamma_b: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """``−γ_B + ω B q̇`` (so that ``μ = α (B q̈ + this)``)."""
        return -gamma_b + self.omega * (b @ qd)

    def start(self, state: DynamicState) -> DynamicState:
        s = self.system
        q, qd, t = state.q.copy(), state.qd.copy(), state.t
        self.alpha = float(self.params["penalty"]) * mass_scale(s, q)
        ms = s.marker_state(q, qd)
        c = s.constraints(q, qd, t, ms)
        drive = self._drive(c, qd)
        mat = add(s.mass(q), gram(c.phi_q, self.alpha))
        rhs = s.forces(q, qd, t, ms) - self.alpha * (c.phi_q.T @ drive)
        if s.m_nh:
            b, gamma_b = s.velocity_constraints(q, qd, t, ms)
            slip = self._slip_drive(b, gamma_b, qd)
            mat = add(mat, gram(b, self.alpha))
            rhs = rhs - self.alpha * (b.T @ slip)
        try:
            qdd = Factorized(mat).solve(rhs)
        except (RuntimeError, ValueError, np.linalg.LinAlgError):
            qdd = np.full_like(q, np.nan)
        if not np.all(np.isfinite(qdd)):
            raise SimulationError(
                t,
                "the penalty matrix M + α Φ_qᵀΦ_q is singular (a body without mass or "
                "inertia in a direction no constraint fixes)",
                "give every body a mass and a positive-definite inertia",
            )
        lam = self.alpha * (c.phi_q @ qdd + drive)
        if s.m_nh:
            lam = np.concatenate([lam, self.alpha * (b @ qdd + slip)])
        return DynamicState(t, q, qd, qdd, lam, state.iterations)

    def step(self, state: DynamicState, h: float) -> DynamicState:
        s, sch = self.system, self.scheme
        t1 = state.t + h
        gp, bp = sch.slopes(h)
        alpha, xi, omega = self.alpha, self.xi, self.omega
        q = sch.predict(state.q, state.qd, state.qdd, h)
        tol_q = self.tolerance * max(1.0, float(np.abs(q).max()) if len(q) else 1.0)
        fac = None
        corrections: list[float] = []
        err_q = np.inf
        converged = False
        it = 0
        while True:
            qd, qdd, _ = sch.update(q, state.q, state.qd, state.qdd, state.qdd, h)
            ms = s.marker_state(q, qd)
            c = s.constraints(q, qd, t1, ms)
            mass = s.mass(q)
            lam = alpha * (c.phi_q @ qdd + self._drive(c, qd))
            res = (mass @ qdd - s.forces(q, qd, t1, ms) + c.phi_q.T @ lam) / bp
            if s.m_nh:  # the slip's massive damper
                b, gamma_b = s.velocity_constraints(q, qd, t1, ms)
                mu = alpha * (b @ qdd + self._slip_drive(b, gamma_b, qd))
                res = res + (b.T @ mu) / bp
            if fac is not None:
                # the next correction with the last tangent: apply it and stop if tiny
                dq = -fac.solve(res)
                err_q = float(np.abs(dq).max())
                if err_q <= tol_q:
                    q = q + dq
                    qd, qdd, _ = sch.update(q, state.q, state.qd, state.qdd, state.qdd, h)
                    converged = True
                    break
            if it == self.max_iterations:
                break
            it += 1
            kq, kqd = s.force_jacobians(q, qd, t1, ms)
            # ∂(Φ_q v)/∂q is linear in v: one call gives every velocity-product term
            v = qdd + (2.0 * gp + 2.0 * xi * omega) * qd
            hess, dv = s.constraint_second_order(q, v, lam, t1)
            coef = bp + 2.0 * xi * omega * gp + omega**2
            dlam = add(coef * c.phi_q, dv)
            stiff = add(add(s.mass_times_jacobian(q, qdd), -kq), hess)
            stiff = add(stiff, alpha * (c.phi_q.T @ dlam))
            if s.m_nh:  # ∂(Bᵀμ)/∂q + α Bᵀ ∂μ/∂q (see the module's docstring)
                k_b, d_b = no_slip.second_order(s, q, qdd + (omega + 2.0 * gp) * qd, mu)
                dmu = (bp + omega * gp) * dense(b) + d_b
                stiff = add(stiff, k_b + alpha * (dense(b).T @ dmu))
            tangent = add(add(mass, (-gp / bp) * kqd), (1.0 / bp) * stiff)
            dq, fac = newton_correction(
                tangent,
                res,
                t1,
                h,
                "penalty",
                "a smaller dt, or another formulation (augmented_lagrangian, null_space)",
            )
            q = q + dq
            err_q = float(np.abs(dq).max())
            corrections.append(err_q)
        if not converged:
            raise newton_failure(
                "penalty",
                t1,
                h,
                it,
                err_q,
                "last position correction",
                "a smaller dt, a larger omega (stiffer constraints, e.g. 100), or another "
                "formulation (augmented_lagrangian, null_space)",
            )
        c = s.constraints(q, qd, t1)
        lam = alpha * (c.phi_q @ qdd + self._drive(c, qd))
        if s.m_nh:
            b, gamma_b = s.velocity_constraints(q, qd, t1)
            lam = np.concatenate([lam, alpha * (b @ qdd + self._slip_drive(b, gamma_b, qd))])
        return DynamicState(t1, q, qd, qdd, lam, it, PenaltyCarry(newton_corrections=corrections))
