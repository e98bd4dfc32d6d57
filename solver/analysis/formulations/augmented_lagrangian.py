"""Index-3 augmented Lagrangian with mass-orthogonal projections.

The equations of motion with the constraints penalised at position level and iterated
multipliers (Bayo, García de Jalón and Serna; Cuadrado et al.; the IFToMM "Solution 1" of
Urkullu (2019) §8.3; the null-space Newmark thesis §2.3):

    M q̈ + Φ_qᵀ (λ* + α Φ) = Q,        λ* ← λ* + α Φ   (after every Newton iteration),

are discretised at ``t_{n+1}`` with the trapezoidal rule, or the generalized-α method when
``rho_inf`` is given (see ``trapezoidal.Newmark``), positions being the unknowns:
``q̇_{n+1} = γ' q_{n+1} + …``, ``q̈_{n+1} = β' q_{n+1} + …`` (2/h and 4/h² for the
trapezoidal rule). Newton–Raphson solves ``f(q) = [M q̈ − Q + Φ_qᵀ (λ* + α Φ)] / β' = 0``
with the exact tangent

    f_q = M + (γ'/β') C + (K + α Φ_qᵀ Φ_q) / β',
    C = −∂Q/∂q̇,    K = ∂(M q̈)/∂q − ∂Q/∂q + ∂(Φ_qᵀ λ)/∂q   (λ = λ* + α Φ),

(``constraint_second_order`` gives ∂(Φ_qᵀλ)/∂q). After each correction the multipliers
are updated with Φ at the *new* positions — updating them with Φ at the old ones makes
the (q, λ*) iteration oscillate without converging. Start: λ* = the previous step's, and
``q`` from whichever of two predictors came closer (max norm) to the previous step's
solution: the Newmark predictor ``a_{n+1} = a_n`` (``q + h q̇ + h²/2 a``: exact to O(h³)
for a smooth motion; the first step uses it) or the last positions ``q_{n+1} = q_n``. The
second wins when the motion has components the step does not resolve (a flexible beam's
bending modes with ω h ≫ 1, which the trapezoidal rule keeps without damping and
aliases to about the Nyquist frequency): extrapolating their velocities and accelerations
lands about ω²h²/2 times their amplitude away (slope errors of 5e-3 on the fixed-angle slider
of García Vallejo (2006) §5.1.2 at 1 ms, 50 times the distance to the last positions), where
the penalty forces of the constraints' second-order terms make the residual far from linear:
15 iterations per step and two steps in three retried in substeps there; 6 per step from the
last positions (4 with the angle row of ``sliding`` scaled like the point rows). The choice
costs nothing (a comparison at the end of a step) and is the Newmark predictor in every step
of the other examples. Convergence: ``|Φ|∞ ≤ tol`` and the next
correction, computed with the last factorised tangent, below ``tol·max(1, |q|∞)``; that
correction is applied (it costs a back-substitution, and leaving a 1e-10 position error
each step would show in the energy: velocities come from positions with a factor 2/h).
Before the convergence test has passed, that correction is applied as a modified Newton
correction (the last tangent and its α kept) when both it and ``|Φ|∞`` have at least halved
since the pass before and, shrinking at the same rate, should be below their tolerances at
the next pass (``modified_newton``); otherwise, and at the pass after a modified
correction, the tangent is formed again at the same positions, with the α of the schedule
below. At the pass after a modified correction the convergence test also asks that the
errors left after its correction, estimated at the rate just seen, be below 1 % of the
tolerances (``converged_after_modified``): a linear rate is no reason to stop with larger
errors than Newton's quadratic one leaves (they would show in the energy, through the
velocities). Like the convergence test's correction, a modified correction is not counted
among the Newton iterations (``max_iterations`` and the reported iterations count the
tangents formed). On the spatial four-bar at 1 ms the first correction leaves λ* to
converge (by ``1/(1 + κσ²)`` per iteration, below): the second is a back-substitution
instead of the tangent's assembly and factorisation, and a step forms one tangent instead
of two. Far from the solution (large steps) the corrections do not shrink that fast, and
near singular positions, where λ* converges slowly at a small κ, the rate does not hold:
the tangent is formed again, with the growing α.

Line search. A force law that is continuous but piecewise linear with a narrow middle piece
(the trilinear friction of ``pulley_contact``: about 1e-3 m/s wide) can make the iterates
cycle (a point's slip jumps across the middle piece, the tangent of the branch it lands on
sends it back: García Vallejo's belt drive has cycles of two and of three corrections) or
wander off. So from the second correction of a step on, once a correction does not
contract (max norm at least ``NEWTON_CONTRACTION`` = 0.9 times the last one's), this and
every later correction of the step is searched along: the step takes the first of the
lengths 1, ½, ¼, … (``NEWTON_DAMPING``, at most ``LINE_SEARCH_TRIALS`` = 10 of them)
whose residual ``R = (M q̈ − Q + Φ_qᵀ(λ* + αΦ) [+ Bᵀ(μ* + α_v B q̇)]) / β'`` at the trial
positions has a 2-norm at most ``1 − 10⁻⁴ s`` times the iterate's (Armijo's sufficient
decrease, ``sufficient_decrease``), else the length of the least residual met. Each trial
costs one evaluation of the residual without Jacobians; the next correction starts from
the full length again, so Newton's rate returns once the iterate is on the right piece,
and an iteration that oscillates but converges keeps its full corrections (they decrease
the residual). Steps whose corrections contract are untouched. On the belt drive (1 ms, 12
iterations at most) 17 steps of 1000 still fail and are retried in substeps, against 52
when a correction that led back to the iterate before was halved instead (that ended
two-cycles, not three-cycles or growing corrections). The converged solution is that of
the same equations.

Penalty factor. α is a stiffness (force per unit of Φ); what matters is ``κ = α/(β' m_ref)``
(``m_ref`` = largest diagonal entry of M): λ* converges by ``1/(1 + κ σ²)`` per iteration
(σ: singular values of Φ_q in the M metric), while the Newton error constant grows like κ
(the penalty force α Φ of an inconsistent predictor turns with the constraint normals).
Default: κ = 10³ for the first iteration of a step (one iteration per step at 1 ms on the
IFToMM examples), ×100 for each further one, up to 10⁸, which lets λ* converge in a few
iterations near singular positions (σ → 0: the A02 double four-bar). A fixed α may be given
as ``penalty`` (the literature's 10⁷…10⁹ for unit-sized models; slow at small steps).

Projections. The integrator's velocities and accelerations satisfy the velocity and
acceleration constraints only approximately; they are replaced by their mass-orthogonal
projections (Bayo and Ledesma), with one factorisation of ``M + α_p Φ_qᵀ Φ_q``
(α_p = 10⁷ m_ref) for both:

    min ½ (q̇ − q̇*)ᵀ M (q̇ − q̇*)   subject to  Φ_q q̇ = −Φ_t,
    min ½ (q̈ − q̈*)ᵀ M (q̈ − q̈*)   subject to  Φ_q q̈ = γ,

each by the augmented-Lagrangian iteration of ``trapezoidal.constrained_solve`` on
increments, to rounding level. Nothing here needs a full-rank ``Φ_q``: redundant
constraints are handled as they are. The Euler-parameter norm rows are part of Φ.

Multipliers. The reported λ are the index-1 multipliers of the state (q, q̇): those of
``M q̈ + Φ_qᵀ λ = Q(q, q̇)``, ``Φ_q q̈ = γ``, which the time loop integrates into the drivers'
work. ``λ* + σ`` (σ of the acceleration projection) goes with the projected q̈ up to the
Newton residual ``R = M q̈* − Q + Φ_qᵀ λ*`` (and Q's change with the velocity projection).
Small as the last position correction is, R lies mostly in the constraint normals, where the
tangent is α Φ_qᵀΦ_q/β': λ* carries α times the rounding of Φ (about 1 N on the three-bar
slider of García Vallejo (2006) §5.1.1 at 0.1 ms, α ≈ 8e14 N/m, whatever the tolerance),
and a driver's work computed from λ* + σ becomes a random walk. So the remainder is
projected too, with the same factorisation: ``M x + Φ_qᵀ ρ = Q − M q̈ − Φ_qᵀ (λ* + σ)``,
``Φ_q x = 0``, and ``λ = λ* + σ + ρ`` (x, below the position tolerance's level, is left out
of q̈: the steps are those of the scheme above). λ* alone is the trapezoidal equilibrium's
and differs by O(h).

With generalized-α the acceleration-like variable ``a`` is recomputed from the projected
accelerations (ρ∞ = 1 then reproduces the trapezoidal rule with projections exactly).

Rolling without slip (non-holonomic rows ``B q̇ = 0``, ``constraints.rolling``): the same
augmented Lagrangian at velocity level, ``M q̈ + Φ_qᵀ(λ* + αΦ) + Bᵀ(μ* + α_v B q̇) = Q`` with
``μ* ← μ* + α_v B q̇`` after every Newton iteration and ``α_v = α/γ'`` (so that its tangent
``(γ'/β') α_v BᵀB = α BᵀB/β'`` is scaled like the position penalty). The tangent has the
exact no-slip terms ``∂(Bᵀμ)/∂q + α_v Bᵀ ∂(B q̇)/∂q`` (``RollingNoSlip.second_order``); the
iteration stops when ``max(|Φ|, h|B q̇|) ≤ tol``. The projections use ``[Φ_q; B]`` with
right-hand sides ``[−Φ_t; 0]`` and ``[γ; γ_nh]``, and the multipliers returned are
``[λ; μ]``.

Parameters: ``penalty`` (α, optional), ``rho_inf`` (ρ∞ ∈ [0, 1]: generalized-α;
absent: trapezoidal rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.banded import BandAssembler
from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import Carry, DynamicState, Formulation
from solver.analysis.formulations.trapezoidal import (
    Factorized,
    Newmark,
    add,
    constrained_solve,
    gram,
    mass_scale,
    newton_correction,
    newton_failure,
)
from solver.analysis.kinematics import all_velocity_rows
from solver.compiled.augmented_lagrangian import (
    LINE_SEARCH_TRIALS,
    converged_after_modified,
    modified_newton,
    sufficient_decrease,
)
from solver.lazy_scipy import sparse as sp

#: α/(β' m_ref) in the first Newton iteration of a step when no ``penalty`` is given, its
#: growth per further iteration and its ceiling.
PENALTY_RATIO_FIRST = 1e3
PENALTY_RATIO_GROWTH = 100.0
PENALTY_RATIO_MAX = 1e8
#: α_p / m_ref for the velocity and acceleration projections.
PROJECTION_PENALTY_RATIO = 1e7
#: from the first Newton correction of a step that is not below ``NEWTON_CONTRACTION`` times
#: the last one, the step's corrections are searched along, with the lengths 1,
#: ``NEWTON_DAMPING``, its square, …
NEWTON_CONTRACTION = 0.9
NEWTON_DAMPING = 0.5


@dataclass(frozen=True)
class Trial:
    """What the residual of a step's Newton iteration at other positions needs: the state
    the step starts from, its ``a``, its step ``h`` and ``β'`` (``Newmark.slopes``), and the
    multipliers and penalties of the iteration (``λ*``, ``μ*``, α, α_v)."""

    state: DynamicState
    a0: np.ndarray
    h: float
    bp: float
    lam_star: np.ndarray
    mu_star: np.ndarray
    alpha: float
    alpha_v: float


@dataclass
class ALCarry(Carry):
    """What an augmented-Lagrangian step carries to the next: ``a`` the scheme's
    acceleration variable (``q̈`` for the trapezoidal rule), ``lam_star`` the multipliers λ*
    the next iteration starts from (``None``: the state's λ), ``mu_star`` those of the
    no-slip rows (``None``: the state's), ``extrapolate`` whether the next step starts from
    the Newmark predictor; and what it reports: ``newton_corrections``, max |Δq| (m, rad)
    of each Newton iteration."""

    a: np.ndarray | None = None
    lam_star: np.ndarray | None = None
    mu_star: np.ndarray | None = None
    extrapolate: bool = True
    newton_corrections: list[float] = field(default_factory=list)


def closer_to_extrapolation(q1: np.ndarray, extrapolated: np.ndarray, q0: np.ndarray) -> bool:
    """Whether the Newmark predictor ``extrapolated`` of a step that ended at ``q1`` from
    ``q0`` was at least as close to ``q1`` (max norm) as ``q0``: the predictor of the next
    step."""
    if not len(q1):
        return True
    return bool(np.abs(q1 - extrapolated).max() <= np.abs(q1 - q0).max())


class AugmentedLagrangian(Formulation):
    name = "augmented_lagrangian"
    velocity_constraints = True  # handles rolling without slip (non-holonomic rows)
    defaults = {"penalty": None, "rho_inf": None}

    def __init__(self, system, settings) -> None:
        super().__init__(system, settings)
        self.scheme = Newmark.from_rho(self.params["rho_inf"])
        self.m_ref = 1.0
        # sparse systems: matrices assembled and factorised in band storage when banded
        self._band = BandAssembler(system.n) if system.sparse else None

    # ---- projections -------------------------------------------------------------------
    def _projector(self, q: np.ndarray, phi_q):
        mass = self.system.mass(q, copy=False)  # read only
        alpha_p = PROJECTION_PENALTY_RATIO * self.m_ref
        try:
            flat = (
                None
                if self._band is None
                else self._band.assemble([(1.0, mass)], [(alpha_p, phi_q)])
            )
            if flat is not None:  # symmetric positive definite: band Cholesky
                fac = self._band.factor(flat, spd=True)
            else:
                fac = Factorized(add(mass, gram(phi_q, alpha_p)))
        except (RuntimeError, ValueError, np.linalg.LinAlgError):
            fac = None
        return mass, fac, alpha_p

    def _project(self, t: float, fac, mass, phi_q, g: np.ndarray, alpha_p: float, x0, f=None):
        """The point nearest ``x0`` in the metric M with ``Φ_q x = g`` (or, given ``f``, the
        solution of ``M x + Φ_qᵀ σ = f``, ``Φ_q x = g``), and its multipliers σ."""
        if fac is None:
            raise SimulationError(
                t,
                "the projection matrix M + α Φ_qᵀΦ_q is singular (a body without mass or "
                "inertia in a direction no constraint fixes)",
                "give every body a mass and a positive-definite inertia",
            )
        # to rounding level (the iteration stops when it stalls): a residual at the Newton
        # tolerance would, step after step, add up in the invariants (L_z of the top)
        f = mass @ x0 if f is None else f
        solve = fac.constrained_solve if getattr(fac, "cholesky", False) else None  # banded
        if solve is None:
            x, sigma, _ = constrained_solve(
                fac, mass, phi_q, f, g, alpha_p, 1e-4 * self.tolerance, x0=x0
            )
        else:  # band Cholesky of a sparse banded system: the same iteration, compiled
            x, sigma, _ = solve(mass, phi_q, f, g, alpha_p, 1e-4 * self.tolerance, x0)
        if not np.all(np.isfinite(x)):
            raise SimulationError(
                t,
                "the projection of velocities or accelerations failed (non-finite values)",
                "a smaller dt, or another formulation (null_space, central_differences)",
            )
        return x, sigma

    def _rolling_stiffness(self, q, qd, ms, mu, bmat, alpha_v):
        """``∂(Bᵀμ)/∂q + α_v Bᵀ ∂(B q̇)/∂q`` (sparse), the no-slip rows' Newton terms."""
        k, d = self.system.velocity_second_order(q, qd, mu, ms)
        k, d = sp.csr_matrix(k), sp.csr_matrix(d)
        return k + alpha_v * (sp.csr_matrix(bmat).T @ d)

    def _residual_norm(self, trial: Trial, q: np.ndarray) -> float:
        """``‖R(q)‖₂`` of the step's Newton iteration at the positions ``q`` with its
        multipliers and penalties ``trial`` (``R = (M q̈ − Q + Φ_qᵀ(λ* + αΦ) [+ Bᵀ(μ* +
        α_v B q̇)]) / β'``); infinite where a sliding joint's point is off its beam."""
        s, sch, st = self.system, self.scheme, trial.state
        t1 = st.t + trial.h
        qd, qdd, _ = sch.update(q, st.q, st.qd, st.qdd, trial.a0, trial.h)
        ms = s.marker_state(q, qd)
        try:
            c = s.constraints(q, qd, t1, ms)
        except SimulationError:  # the point of a sliding joint off its beam
            return np.inf
        r = s.mass(q, copy=False) @ qdd - s.forces(q, qd, t1, ms)
        r = r + c.phi_q.T @ (trial.lam_star + trial.alpha * c.phi)
        if s.m_nh:
            bmat, _ = s.velocity_constraints(q, qd, t1, ms)
            r = r + bmat.T @ (trial.mu_star + trial.alpha_v * (bmat @ qd))
        return float(np.linalg.norm(r)) / trial.bp

    def _line_search(self, trial: Trial, q: np.ndarray, dq: np.ndarray, norm0: float) -> float:
        """The step length along the Newton correction ``dq`` from ``q`` (residual 2-norm
        ``norm0`` there): the first of ``1, ρ, ρ², …`` (``ρ = NEWTON_DAMPING``,
        ``LINE_SEARCH_TRIALS`` of them) that passes ``sufficient_decrease``, else the one
        with the smallest residual (the compiled step's ``_line_search``)."""
        length, best, best_length = 1.0, np.inf, 1.0
        for _ in range(LINE_SEARCH_TRIALS):
            norm = self._residual_norm(trial, q + length * dq)
            if sufficient_decrease(norm, norm0, length):
                return length
            if norm < best:
                best, best_length = norm, length
            length *= NEWTON_DAMPING
        return best_length

    def _newton_correction(self, mass, kqd, stiff, phi_q, bmat, alpha, gp, bp, res, t1, h):
        """``(Δq, factorisation)`` with the tangent
        ``M − (γ'/β') ∂Q/∂q̇ + (Σ stiff + α Φ_qᵀΦ_q [+ α BᵀB]) / β'`` (``stiff``: pairs
        ``(coefficient, matrix)``), assembled in band storage when the system is banded."""
        hint = "a smaller dt, or another formulation (null_space, central_differences)"
        if self._band is not None:
            grams = [(alpha / bp, phi_q)] + ([] if bmat is None else [(alpha / bp, bmat)])
            terms = [(1.0, mass), (-gp / bp, kqd)] + [(k / bp, a) for k, a in stiff]
            flat = self._band.assemble(terms, grams)
            if flat is not None:
                return newton_correction(
                    flat, res, t1, h, "augmented Lagrangian", hint, self._band.factor
                )
        k = None
        for coef, a in stiff:
            a = a if coef == 1.0 else coef * a
            k = a if k is None else add(k, a)
        penalty = gram(phi_q, alpha)
        if bmat is not None:
            penalty = add(penalty, gram(bmat, alpha))
        tangent = add(add(mass, (-gp / bp) * kqd), (1.0 / bp) * add(k, penalty))
        return newton_correction(tangent, res, t1, h, "augmented Lagrangian", hint)

    # ---- interface --------------------------------------------------------------------
    def start(self, state: DynamicState) -> DynamicState:
        s = self.system
        q, qd, t = state.q.copy(), state.qd.copy(), state.t
        self.m_ref = mass_scale(s, q)
        rows, v, _ = all_velocity_rows(s, q, qd, t)
        mass, fac, alpha_p = self._projector(q, rows)
        qd, _ = self._project(t, fac, mass, rows, v, alpha_p, qd)
        ms = s.marker_state(q, qd)
        rows, _, gamma = all_velocity_rows(s, q, qd, t, ms=ms)
        f = s.forces(q, qd, t, ms)
        qdd, lam = self._project(t, fac, mass, rows, gamma, alpha_p, np.zeros_like(q), f)
        return DynamicState(t, q, qd, qdd, lam, state.iterations, ALCarry(a=qdd.copy()))

    def step(self, state: DynamicState, h: float) -> DynamicState:
        s, sch = self.system, self.scheme
        t1 = state.t + h
        own = state.carry if isinstance(state.carry, ALCarry) else ALCarry()
        a0 = state.qdd if own.a is None else own.a
        gp, bp = sch.slopes(h)
        fixed = self.params["penalty"]
        q_ext = sch.predict(state.q, state.qd, a0, h)
        q = q_ext if own.extrapolate else state.q.copy()
        lam_star = state.lam if own.lam_star is None else own.lam_star
        lam_star = np.zeros(s.m) if lam_star is None else lam_star[: s.m].copy()
        nh = s.m_nh > 0
        mu_star = own.mu_star
        if mu_star is None:
            mu_star = np.zeros(s.m_nh) if state.lam is None else state.lam[s.m :].copy()
        mu_star = mu_star.copy() if len(mu_star) == s.m_nh else np.zeros(s.m_nh)
        tol_q = self.tolerance * max(1.0, float(np.abs(q).max()) if len(q) else 1.0)
        alpha = alpha_v = 0.0
        bmat, v_nh = None, np.zeros(0)
        fac = None
        corrections: list[float] = []
        searching = False  # a correction has not contracted: line searches from then on
        last_newton = 0.0  # the last Newton correction's max norm (0: none yet in the step)
        err_q = err_phi = np.inf
        reused = False  # the last correction was a modified Newton one
        converged = False
        it = 0
        while True:
            qd, qdd, _ = sch.update(q, state.q, state.qd, state.qdd, a0, h)
            ms = s.marker_state(q, qd)
            c = s.constraints(q, qd, t1, ms)
            if nh:  # no-slip rows at the new state
                bmat, _ = s.velocity_constraints(q, qd, t1, ms)
                v_nh = bmat @ qd
            if fac is not None:  # multiplier update with Φ at the new positions
                lam_star = lam_star + alpha * c.phi
                mu_star = mu_star + alpha_v * v_nh
            mass = s.mass(q, copy=False)  # read only
            base = mass @ qdd - s.forces(q, qd, t1, ms)
            if nh:
                base = base + bmat.T @ (mu_star + alpha_v * v_nh)
            last_phi, err_phi = err_phi, float(np.abs(c.phi).max()) if len(c.phi) else 0.0
            if nh:
                err_phi = max(err_phi, h * float(np.abs(v_nh).max()))
            if fac is not None:
                # the next correction with the last tangent and its α: below the tolerance,
                # apply it (free) and stop; if the one after it should be below (the same
                # rate of shrinking), apply it as a modified Newton iteration
                dq = -fac.solve((base + c.phi_q.T @ (lam_star + alpha * c.phi)) / bp)
                last, err_q = err_q, float(np.abs(dq).max())
                tol = self.tolerance
                if reused:
                    done = converged_after_modified(err_q, last, tol_q, err_phi, last_phi, tol)
                else:
                    done = err_phi <= tol and err_q <= tol_q
                if done:
                    q = q + dq
                    qd, qdd, _ = sch.update(q, state.q, state.qd, state.qdd, a0, h)
                    c = s.constraints(q, qd, t1)
                    lam_star = lam_star + alpha * c.phi
                    if nh:
                        bmat, _ = s.velocity_constraints(q, qd, t1)
                        mu_star = mu_star + alpha_v * (bmat @ qd)
                    converged = True
                    break
                if not reused and it < self.max_iterations:
                    reused = modified_newton(err_q, last, tol_q, err_phi, last_phi, tol)
                    if reused:
                        q = q + dq
                        corrections.append(err_q)
                        continue
            if it == self.max_iterations:
                break
            it += 1
            alpha = (
                float(fixed)
                if fixed
                else min(PENALTY_RATIO_FIRST * PENALTY_RATIO_GROWTH ** (it - 1), PENALTY_RATIO_MAX)
                * self.m_ref
                * bp
            )
            if nh:  # α_v B q̇ adds (γ'/β') α_v BᵀB = α BᵀB / β' to the tangent
                base = base + bmat.T @ ((alpha / gp - alpha_v) * v_nh)
                alpha_v = alpha / gp
            lam = lam_star + alpha * c.phi
            res = (base + c.phi_q.T @ lam) / bp
            kq, kqd = s.force_jacobians(q, qd, t1, ms)
            hess, _ = s.constraint_second_order(q, qd, lam, t1, ms, velocity=False)
            stiff = [(1.0, s.mass_times_jacobian(q, qdd)), (-1.0, kq), (1.0, hess)]
            if nh:  # ∂(Bᵀμ)/∂q and Bᵀ α_v ∂(B q̇)/∂q (q̇ fixed)
                stiff.append(
                    (
                        1.0,
                        self._rolling_stiffness(q, qd, ms, mu_star + alpha_v * v_nh, bmat, alpha_v),
                    )
                )
            dq, fac = self._newton_correction(
                mass, kqd, stiff, c.phi_q, bmat if nh else None, alpha, gp, bp, res, t1, h
            )
            reused = False
            err_q = float(np.abs(dq).max())
            if last_newton and not searching:  # a correction that does not contract
                searching = err_q >= NEWTON_CONTRACTION * last_newton
            if searching:
                trial = Trial(state, a0, h, bp, lam_star, mu_star, alpha, alpha_v)
                q = q + self._line_search(trial, q, dq, float(np.linalg.norm(res))) * dq
            else:
                q = q + dq
            last_newton = err_q
            corrections.append(err_q)
        if not converged:
            raise newton_failure(
                "augmented Lagrangian",
                t1,
                h,
                it,
                max(err_q, err_phi),
                "last position correction / constraint violation",
            )
        # velocities and accelerations of the integrator, then their projections
        rows, v, _ = all_velocity_rows(s, q, qd, t1, c=c)  # Φ_q, Φ_t of the converged q
        mass, fac, alpha_p = self._projector(q, rows)
        qd, _ = self._project(t1, fac, mass, rows, v, alpha_p, qd)
        ms = s.marker_state(q, qd)
        rows, _, gamma = all_velocity_rows(s, q, qd, t1, ms=ms)
        qdd, sigma = self._project(t1, fac, mass, rows, gamma, alpha_p, qdd)
        a1 = sch.acceleration_variable(qdd, state.qdd, a0)
        # the index-1 multipliers of the state: λ* + σ + ρ with M x + Φ_qᵀ ρ = Q − M q̈ −
        # Φ_qᵀ (λ* + σ), Φ_q x = 0 (the Newton residual's normal part, see the docstring)
        lam = (np.concatenate([lam_star, mu_star]) if nh else lam_star) + sigma
        rest = s.forces(q, qd, t1, ms) - mass @ qdd - rows.T @ lam
        _, rho = self._project(
            t1, fac, mass, rows, np.zeros(len(lam)), alpha_p, np.zeros_like(qdd), rest
        )
        lam = lam + rho
        carry = ALCarry(
            a=a1,
            lam_star=lam_star,
            mu_star=mu_star if nh else None,
            extrapolate=closer_to_extrapolation(q, q_ext, state.q),
            newton_corrections=corrections,
        )
        return DynamicState(t1, q, qd, qdd, lam, it, carry)
