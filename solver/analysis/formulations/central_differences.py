"""DIMCD: second-order central differences with a double null space (Urkullu (2019) ch. 4–6).

Equations (our 7-coordinate q, Euler-parameter norm rows included in Φ)
----------------------------------------------------------------------
The body equations are discretised at time t with the central differences

    q̇ₜ = (q⁺ − q⁻)/2Δt,   q̈ₜ = (q⁺ − 2q + q⁻)/Δt²      (q⁻ = q(t−Δt), q = q(t), q⁺ = q(t+Δt))

and every matrix is evaluated at the known q(t) (Urkullu (2019) ch. 5):

    R(q⁺) = M(q) q̈ₜ − Q̃(q, q̇ₜ, t) = −Φ_q(q, t)ᵀ λ.

``Q̃`` is the applied force (gravity and force elements, evaluated at ``(q, q̇ₜ)``) plus
the gyroscopic term of Euler's equations written in the Euler-parameter rows,
``−2 G(p)ᵀ (ω̄ × J ω̄)`` with ``ω̄ = 2 G(p) ṗₜ`` (body frame, Urkullu (2019) §4.1). It replaces the
Lagrangian quadratic-velocity force of ``MultibodySystem.forces`` because the two differ
by ``4 (p·ṗₜ) Gᵀ J ω̄``, and with central-difference velocities p·ṗₜ = O(Δt²) ≠ 0.

This 7-row-per-body form is the thesis's 6-row (δr, δθ) form exactly: with ``T =
blockdiag(I₃, ½ G(p)ᵀ)`` (δq = T [δr; δθ̄]) and ``T̃ = blockdiag(I₃, 2 G(p)ᵀ)`` one has
``R₇ = T̃ R₆ + p·c`` and ``Tᵀ T̃ = I``, ``Tᵀ p = 0``; the thesis's force-direction matrix is
``G_F = Φ_q T``. So ``R₆ ∈ range(G_Fᵀ)`` ⇔ ``R₇ ∈ range(Φ_qᵀ)`` once the norm rows (whose
Jacobian 2p carries the p-components) are in Φ_q. Hence the thesis's projection with
``N_G = null(G_F)`` is ours with ``N_G = null(Φ_q(q, t))`` (n × s, s = DOF), and
``dim null`` is the same: 6n − rank G_F = 7n − rank Φ_q.

Double null space (Urkullu (2019) §6.1), per Newton iterate q⁺ⱼ:

* constraints at t+Δt, linearised: ``H δ = −Φ(q⁺ⱼ, t+Δt)``, ``H = Φ_q(q⁺ⱼ, t+Δt)``;
  ``δ = δ_p + N_H α`` with ``δ_p`` the truncated (rank n − s) SVD minimum-norm solution
  and ``N_H`` the s right singular vectors of H with the smallest singular values;
* reactions removed with ``N_G`` from the SVD of ``Φ_q(q, t)`` — fixed for the step; its
  rank (s) is the one used for H, so the reduced system is square even where H, off the
  constraint manifold, loses or gains rank (redundant joints, singular positions);
* ``N_Gᵀ A N_H α = −N_Gᵀ [R(q⁺ⱼ) + A δ_p]``, ``A = ∂R/∂q⁺ = M/Δt² − (∂Q̃/∂q̇)/2Δt``
  (the exact linearisation of the gyroscopic term and of velocity-dependent forces);
* ``q⁺ⱼ₊₁ = q⁺ⱼ + δ_p + N_H α``, then every Euler-parameter vector is normalised;
  converged when ``max|q⁺ⱼ₊₁ − q⁺ⱼ| ≤ tolerance``.

First step (Urkullu (2019) ch. 6–7): ``q̇₀`` is known, ``q⁻`` is eliminated with
``q⁻ = q⁺ − 2Δt q̇₀``, giving ``R₀(q⁺) = 2M(q⁺ − q − Δt q̇₀)/Δt² − Q̃(q, q̇₀, t)``.

What each returned state holds
------------------------------
The central-difference velocity at t needs q(t+Δt), so the stepper runs one step ahead:
``start`` computes q(Δt) and ``step`` from the state at tₖ computes q(tₖ₊₂) and returns
tₖ₊₁ with ``q = q(tₖ₊₁)``, ``qd = (q(tₖ₊₂) − q(tₖ))/2Δt``, ``qdd = (q(tₖ₊₂) − 2q(tₖ₊₁) +
q(tₖ))/Δt²``, ``lam`` from ``Φ_q(q(tₖ₊₁))ᵀ λ = −R`` (the discrete multipliers, the sign
convention of ``base``, norm rows included) and ``iterations`` = the Newton iterations
spent on q(tₖ₊₂). The initial state keeps the given q̇₀; its ``iterations`` add those of
q(Δt). So the time loop's energy at t uses the thesis's definition (Urkullu (2019) §3.5), and every
frame's (q, q̇) is a CD pair: the look-ahead costs one extra step beyond t_end. The
look-ahead lives in ``state.carry`` (:class:`CDLookahead`): ``q_next`` (q(tₖ₊₂)), ``q_prev`` (q(tₖ), for the
quadratic predictor), ``h``, ``dof`` (s of the step: it grows at a singular position) and
``svd_next`` (the SVD of Φ_q at q_next when the last Newton correction was at rounding
level, reused as the next step's force-direction matrix). A ``step`` with a different Δt
restarts from the state (q, q̇) with a first step.

Positions satisfy Φ to the Newton tolerance at every step; velocities are CD values, so
``Φ_q q̇ + Φ_t`` is O(Δt²), not zero (Urkullu (2019) §8.1: velocity violations are not meaningful).

Rolling without slip (Urkullu (2019) §6.3.7): a velocity constraint ``B(q) q̇ = 0`` (the no-slip rows
of rolling discs, ``constraints.rolling``) is written with the central-difference velocity
at t, ``B(q(t)) (q⁺ − q⁻)/2Δt = 0``, which is linear in q⁺: the rows ``B(q) q⁺ = B(q) q⁻``
are stacked under the linearised position constraints (the 2Δt cancels), and the
reactions are removed with ``N_G = null [Φ_q(q, t); B(q)]`` (their directions are
``Bᵀ``). So the no-slip rows hold exactly for every CD velocity and the DOF count s is
that of the velocities. The first step, where q⁻ is eliminated with q̇₀ (which already
satisfies ``B q̇₀ = 0``), imposes them at acceleration level instead:
``B(q₀) q̈₀ = γ_B`` with ``q̈₀ = 2(q⁺ − q₀ − Δt q̇₀)/Δt²``. The multipliers are then
``[λ; μ]`` (holonomic rows, no-slip rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import Carry, DynamicState, Formulation
from solver.analysis.linalg import DenseLU, dense, full_svd
from solver.kernels.system import normalise_parameters
from solver.mechanics.rotations import g_matrix, skew

#: a final Newton correction this small (relative) changes nothing but rounding
ROUNDING = 1e-13


@dataclass
class CDLookahead(Carry):
    """The look-ahead of a central-difference state at tₖ₊₁: ``q_next`` q(tₖ₊₂),
    ``q_prev`` q(tₖ) (for the quadratic predictor; ``None`` after a first step), ``h`` the
    step it was made with (s), ``dof`` the step's degrees of freedom (they grow at a
    singular position) and ``svd_next`` the SVD of Φ_q at ``q_next`` when the last Newton
    correction was at rounding level (else ``None``)."""

    q_next: np.ndarray | None = None
    q_prev: np.ndarray | None = None
    h: float | None = None
    dof: int = 0
    svd_next: tuple | None = None


def _normalise(system, q: np.ndarray) -> np.ndarray:
    """``q`` (a new float array) with every rigid body's Euler parameters at unit length."""
    normalise_parameters(system.arrays, q)
    return q


class CentralDifferences(Formulation):
    """Central differences on the body equations, constraints at position level (DIMCD)."""

    name = "central_differences"
    velocity_constraints = True  # handles rolling without slip (Urkullu (2019) §6.3.7)
    defaults = {
        # singular values of Φ_q(q(t)) below rank_tolerance · σ_max count as zero (DOF)
        "rank_tolerance": 1e-8,
        # Newton predictor for q(t+Δt): "quadratic" (3q − 3q⁻ + q⁻⁻) or "linear" (2q − q⁻)
        "predictor": "quadratic",
    }

    def __new__(cls, system, settings):
        """DIMCD for ``variant: standard`` with Euler parameters; the reformulated scheme,
        the CD family and the other orientation sets run ``CentralDifferencesFamily``."""
        variant = settings.parameters.get("variant", "standard")
        if cls is CentralDifferences and (
            variant != "standard" or settings.orientation != "euler_parameters"
        ):
            from solver.analysis.formulations.central_differences_family import (
                CentralDifferencesFamily,
            )

            return CentralDifferencesFamily(system, settings)
        return super().__new__(cls)

    def __init__(self, system, settings) -> None:
        super().__init__(system, settings)
        s = system
        self.pcols = s.rigid.cols[:, 3:] if len(s.rigid) else np.zeros((0, 4), np.int64)
        self.rtol = float(self.params["rank_tolerance"])
        self.predictor = str(self.params["predictor"])
        self._has_forces = not s.gravity_only

    # ---- pieces of the residual ----------------------------------------------------------
    def _applied(self, q: np.ndarray, qd: np.ndarray, t: float) -> np.ndarray:
        """Gravity and force elements at ``(q, q̇, t)``, without quadratic-velocity terms."""
        s = self.system
        if not self._has_forces:
            return s.gravity_forces()
        return s.forces(q, qd, t, s.marker_state(q, qd), inertial=False)

    def _applied_model(self, q: np.ndarray, qd: np.ndarray, t: float):
        """The applied forces of a step (positions fixed at q(t)) as a function of q̇.

        Returns ``(Q(q̇), K_d)`` with ``K_d = ∂Q/∂q̇`` at ``qd``, computed once per step:
        every force element is affine in q̇ at fixed positions (dampers), so K_d is exact;
        Q itself is re-evaluated whenever K_d ≠ 0 (so a non-affine element would still
        converge to the right answer, only more slowly). Without velocity-dependent
        forces Q is evaluated once.
        """
        s = self.system
        if not self._has_forces:
            grav = s.gravity_forces()
            return (lambda v: grav), None
        ms = s.marker_state(q, qd)
        q0 = s.forces(q, qd, t, ms, inertial=False)
        kd = dense(s.force_jacobians(q, qd, t, ms, inertial=False)[1])
        if not np.any(kd):
            return (lambda v: q0), None
        return (lambda v: self._applied(q, v, t)), kd

    def _gyroscopic(self, q: np.ndarray, qd: np.ndarray):
        """Euler's gyroscopic force in the Euler-parameter rows, ``−2Gᵀ(ω̄ × Jω̄)``, and its
        Jacobian with respect to ṗ, per body ``((n, 4), (n, 4, 4))``."""
        inertia = self.system.rigid.inertia
        p, pd = q[self.pcols], qd[self.pcols]
        g = g_matrix(p)
        gt = np.swapaxes(g, 1, 2)
        w = 2.0 * np.matmul(g, pd[:, :, None])[:, :, 0]
        jw = np.matmul(inertia, w[:, :, None])[:, :, 0]
        force = -2.0 * np.matmul(gt, np.cross(w, jw)[:, :, None])[:, :, 0]
        dgyro = np.matmul(skew(w), inertia) - skew(jw)
        return force, -4.0 * np.matmul(np.matmul(gt, dgyro), g)

    def _forces(self, q, qd, applied, kd, with_jacobian: bool = True):
        """``Q̃(q, q̇)`` and ``∂Q̃/∂q̇`` (dense) from a step's applied-force model."""
        n = self.system.n
        out = np.array(applied(qd), float)
        jac = None
        if with_jacobian:
            jac = np.zeros((n, n)) if kd is None else kd.copy()
        if len(self.pcols):
            force, blk = self._gyroscopic(q, qd)
            out[self.pcols] += force
            if with_jacobian:
                pc = self.pcols
                jac[pc[:, :, None], pc[:, None, :]] += blk
        return out, jac

    def _null_g(self, q: np.ndarray, t: float, svd=None):
        """SVD of ``Φ_q(q, t)``: ``(N_G, s, (U_r, σ_r, V_r))`` with s the DOF count.

        ``svd`` is the full SVD ``(U, σ, Vᵀ)`` of Φ_q at (q, t) if already known: the last
        Newton iterate of the previous step, when it differs from q only by rounding.
        """
        s = self.system
        n = s.n
        if s.m == 0 and not s.m_nh:
            return np.eye(n), n, None
        if s.m_nh:  # the no-slip rows' reaction directions Bᵀ too
            rows = [dense(s.position_constraints(q, t)[1]), self._no_slip(q, t)[0]]
            svd = full_svd(np.vstack(rows))
        elif svd is None:
            svd = full_svd(dense(s.position_constraints(q, t)[1]))
        u, sv, vt = svd
        rank = int(np.sum(sv > self.rtol * sv[0])) if len(sv) and sv[0] > 0 else 0
        return vt[rank:].T, n - rank, (u[:, :rank], sv[:rank], vt[:rank].T)

    def _no_slip(self, q: np.ndarray, t: float, qd: np.ndarray | None = None):
        """``(B, γ_B)`` of the no-slip rows at ``(q, q̇)`` (dense; γ_B needs q̇)."""
        s = self.system
        b, gamma = s.velocity_constraints(q, np.zeros(s.n) if qd is None else qd, t)
        return dense(b), gamma

    # ---- Newton iteration for q(t+Δt) --------------------------------------------------------
    def _solve(self, t, h, x0, ng, dof, residual, first_step: bool, linear=None):
        """Newton with the double null space; ``residual(x) → (R, A)``; ``linear`` =
        ``(B, c)``: rows ``B q⁺ = c`` stacked under the position constraints (no slip).

        Returns ``(x, iterations, svd)``: ``svd`` is the full SVD of Φ_q at the last
        iterate where the final correction was at rounding level (so it is Φ_q at x and
        serves as the next step's force-direction matrix), else ``None``.
        """
        s = self.system
        n = s.n
        rows = s.m + (0 if linear is None else len(linear[1]))
        x = _normalise(self.system, x0.copy())
        t1 = t + h
        step_size = np.inf
        phi = np.zeros(0)
        for it in range(1, self.max_iterations + 1):
            r, a = residual(x)
            if rows:
                phi, phi_q = s.position_constraints(x, t1)
                phi_q = dense(phi_q)
                if linear is not None:
                    phi = np.concatenate([phi, linear[0] @ x - linear[1]])
                    phi_q = np.vstack([phi_q, linear[0]])
                # one finite test of both (a sum of squares overflows only beyond 1e150)
                if not math.isfinite(phi @ phi + r @ r):
                    break
                u, sv, vt = full_svd(phi_q)
                rank = n - dof
                k = min(rank, len(sv))
                sk = sv[:k]
                if k and sk[-1] > 1e-14 * sv[0]:  # σ descending: every one is kept
                    inv = 1.0 / sk
                else:
                    inv = np.divide(1.0, sk, out=np.zeros_like(sk), where=sk > 1e-14 * sv[0])
                dp = -vt[:k].T @ ((u[:, :k].T @ phi) * inv)
                nh = vt[n - dof :].T
            else:
                dp = np.zeros(n)
                nh = np.eye(n)
            if dof:
                red = ng.T @ a @ nh
                rhs = -ng.T @ (r + a @ dp)
                lu = DenseLU(red)
                if not lu.ok:  # exactly singular (finite input)
                    raise SimulationError(
                        t,
                        f"central differences: the reduced {dof}×{dof} dynamic matrix is "
                        f"singular at dt = {h:g} s",
                        "reduce dt, or raise solver.parameters.rank_tolerance if the "
                        "mechanism is at a singular position",
                    )
                delta = dp + nh @ lu.solve(rhs)
            else:
                delta = dp
            xn = _normalise(self.system, x + delta)
            step_size = float(np.abs(xn - x).max())
            x = xn
            if not math.isfinite(step_size):
                break
            if step_size <= self.tolerance:
                rounding = step_size <= ROUNDING * max(1.0, float(np.abs(x).max()))
                reuse = s.m and rounding and linear is None  # the SVD of Φ_q alone
                return x, it, (u, sv, vt) if reuse else None
        worst = float(np.abs(phi).max()) if len(phi) else 0.0
        if not np.isfinite(step_size) or not np.isfinite(worst):
            raise SimulationError(
                t,
                f"central differences: the solution became non-finite at dt = {h:g} s "
                "(the explicit scheme is unstable for this step)",
                "reduce dt below 2/ω_max of the stiffest element (springs, contacts), or "
                "use an implicit formulation (augmented_lagrangian, null_space)",
            )
        what = "first step" if first_step else "step"
        raise SimulationError(
            t,
            f"central differences: Newton iteration for the {what} to t = {t1:.6g} s did not "
            f"converge in {self.max_iterations} iterations (last correction {step_size:.3g}, "
            f"constraint residual {worst:.3g}) at dt = {h:g} s",
            "reduce dt (e.g. halve it; central differences are only conditionally stable, "
            "dt < 2/ω_max), raise solver.max_iterations or loosen solver.tolerance, or use "
            "an implicit formulation (augmented_lagrangian, null_space)",
        )

    def _multipliers(self, svd, r: np.ndarray) -> np.ndarray | None:
        """Minimum-norm λ with ``Φ_qᵀ λ = −R`` from the SVD of Φ_q at the same instant."""
        if svd is None:
            return np.zeros(0)
        u, sv, v = svd
        return -u @ ((v.T @ r) / sv)

    # ---- the stepper ---------------------------------------------------------------------------
    def _first(self, t: float, q: np.ndarray, qd: np.ndarray, h: float):
        """q(t+h) from (q, q̇) at t; returns (q₁, q̈, λ, iterations, s, SVD at q₁)."""
        s = self.system
        q = _normalise(self.system, np.array(q, float))
        mass = dense(s.mass(q))
        ng, dof, svd = self._null_g(q, t)
        applied, kd = self._applied_model(q, qd, t)
        f, _ = self._forces(q, qd, applied, kd, with_jacobian=False)
        a = 2.0 * mass / h**2
        base = q + h * qd

        def residual(x):
            return a @ (x - base) - f, a

        linear = None
        if s.m_nh:  # B(q₀) q̈₀ = γ_B with q̈₀ = 2(q⁺ − q₀ − Δt q̇₀)/Δt²
            b, gamma = self._no_slip(q, t, np.asarray(qd, float))
            linear = (b, b @ base + 0.5 * h * h * gamma)
        x1, its, svd1 = self._solve(t, h, base, ng, dof, residual, True, linear)
        r, _ = residual(x1)
        qdd = 2.0 * (x1 - base) / h**2
        return x1, qdd, self._multipliers(svd, r), its, dof, svd1

    def _advance(self, t, qm, q, guess, h, svd_q=None):
        """q(t+h) from q(t−h), q(t); returns (q⁺, q̇ₜ, q̈ₜ, λₜ, iterations, s, SVD at q⁺)."""
        s = self.system
        mass = dense(s.mass(q))
        ng, dof, svd = self._null_g(q, t, svd_q)
        inv2h = 0.5 / h
        target = 2.0 * q - qm
        mh = mass / h**2
        applied, kd = self._applied_model(q, (guess - qm) * inv2h, t)
        if kd is None and not len(self.pcols):  # Q̃ constant over the step, A = M/Δt²
            f0 = applied(None)

            def residual(x):
                return mh @ (x - target) - f0, mh

        else:

            def residual(x):
                v = (x - qm) * inv2h
                f, kqd = self._forces(q, v, applied, kd)
                return mh @ (x - target) - f, mh - inv2h * kqd

        linear = None
        if s.m_nh:  # B(q) (q⁺ − q⁻)/2Δt = 0
            b = self._no_slip(q, t)[0]
            linear = (b, b @ qm)
        x1, its, svd1 = self._solve(t, h, guess, ng, dof, residual, False, linear)
        r, _ = residual(x1)
        qd = (x1 - qm) * inv2h
        qdd = (x1 - target) / h**2
        return x1, qd, qdd, self._multipliers(svd, r), its, dof, svd1

    def start(self, state: DynamicState) -> DynamicState:
        h = self.settings.dt
        x1, qdd, lam, its, dof, svd1 = self._first(state.t, state.q, state.qd, h)
        q = _normalise(self.system, np.array(state.q, float))
        return DynamicState(
            state.t,
            q,
            np.array(state.qd, float),
            qdd,
            lam,
            state.iterations + its,
            CDLookahead(q_next=x1, q_prev=None, h=h, dof=dof, svd_next=svd1),
        )

    def step(self, state: DynamicState, h: float) -> DynamicState:
        look = state.carry if isinstance(state.carry, CDLookahead) else CDLookahead()
        t = state.t
        extra_its = 0
        if look.q_next is None or abs((h if look.h is None else look.h) - h) > 1e-12 * h:
            # no look-ahead for this Δt: restart from (q, q̇) with a first step
            x1, _, _, extra_its, _, svd_q = self._first(t, state.q, state.qd, h)
            qm, q = state.q, x1
            q_prev2 = None
        else:
            qm, q = state.q, look.q_next
            q_prev2 = look.q_prev
            svd_q = look.svd_next
        if self.predictor == "quadratic" and q_prev2 is not None:
            guess = 3.0 * q - 3.0 * qm + q_prev2
        else:
            guess = 2.0 * q - qm
        t1 = t + h
        x2, qd, qdd, lam, its, dof, svd2 = self._advance(t1, qm, q, guess, h, svd_q)
        return DynamicState(
            t1,
            q,
            qd,
            qdd,
            lam,
            its + extra_its,
            CDLookahead(q_next=x2, q_prev=qm, h=h, dof=dof, svd_next=svd2),
        )
