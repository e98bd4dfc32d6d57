"""The null-space Newmark method ("local minimal coordinates";
the null-space Newmark thesis, ch. 5–7).

Every Newton iteration k works at the current estimate ``(x⁰, ẋ⁰, ẍ⁰)`` of the state at
``t + h`` (the null-space Newmark thesis ch. 5–7):

1. Linearise the constraints at all three levels (the null-space Newmark thesis eqs. 5.3, 5.6, 5.12)
   with
   ``H = Φ_q``, ``Ḣ = ∂(Φ_q ẋ)/∂x``, ``Ḧ = ∂(Φ_q ẍ)/∂x`` and ``∂γ/∂ẋ = −2Ḣ``:

       H δx = −Φ,   H δẋ = −Φ̇ − Ḣ δx,   H δẍ = −(Φ_q ẍ⁰ − γ) − Ḧ δx − 2Ḣ δẋ.

2. Parametrise their solutions by the null space ``N`` of ``H`` (orthonormal, from an
   SVD, so redundant rows are fine) and minimum-norm particular solutions
   (the null-space Newmark thesis eqs. 5.4, 5.8, 5.14; written for the increments δ = new −
   iterate):

       δx = p + N a,   δẋ = v + N b + V a,   δẍ = w + N c + W₁ a + W₂ b,
       V = −H⁺ Ḣ N,   W₁ = −H⁺(Ḧ N + 2Ḣ V),   W₂ = 2V   (= Ẋ_P, Ẍ_P1, Ẍ_P2).

   With orthonormal N and minimum-norm particular solutions the local minimal
   coordinates are ``α = Nᵀx``, ``α̇ = Nᵀẋ``, ``α̈ = Nᵀẍ``; the start-of-step state is
   projected onto the same parametrisation (the null-space Newmark thesis eqs. 5.22–5.24: ``α_n =
   Nᵀx_n`` …).

3. Newmark on α only (the null-space Newmark thesis eqs. 7.7–7.8) makes ``b = a₅ a + b₀`` and ``c =
   a₀ a + c₀``.

4. Premultiplying the linearised equations of motion
   ``M ẍ + C ẋ + K x = f + Φ_qᵀλ`` by ``Nᵀ`` removes the multipliers and leaves the
   d×d system of the null-space Newmark thesis eqs. 7.9–7.10,

       Nᵀ[a₀ M N + a₅ (M W₂ + C N) + M W₁ + C V + K N] a = −Nᵀ[r⁰ + M(w + N c₀ + W₂ b₀)
                                                             + C(v + N b₀) + K p],

   ``r⁰ = M ẍ⁰ − Q + Φ_qᵀλ`` the residual at the iterate; ``K`` includes the
   constraint-force term ``∂(Φ_qᵀλ)/∂x`` with λ recovered from the unreduced equations
   by least squares at the iterate (the null-space Newmark thesis §5.2).

5. Update, renormalise the Euler parameters (the null-space Newmark thesis §7.2.1), and stop when
   ``‖δx‖ + h‖δẋ‖ + h²‖δẍ‖ ≤ tol·max(1, ‖x‖)`` (the test of an independent
prototype of the method).
   ``K``, ``C``, ``Ḣ``, ``Ḧ`` are re-evaluated in every iteration until the corrections
   fall below ``√tol``; after that the previous ones are kept (the residuals, Φ_q, N and
   λ are always fresh), which leaves the convergence rate unchanged and makes the final,
   checking iteration cheap.

At convergence the state satisfies Φ = 0, Φ̇ = 0 and Φ̈ = 0 together, Newmark holds for
the tangential projections, and ``Nᵀ(M ẍ − Q) = 0``. The iteration is Newton's method
except for two frozen pieces that the thesis also freezes: the projection basis N, and
the third-derivative part ``∂γ/∂x`` at fixed ẋ of the acceleration constraints (zero for
constraints quadratic in q); both vanish as h → 0 and only slow convergence slightly.

The reduced matrices ``M_R = NᵀMN`` and ``K_R = Nᵀ(K N + C V + M W₁)`` of the last
iteration give the highest frequency ω_max and the stability limit of the scheme
(the null-space Newmark thesis ch. 6), reported in ``state.carry`` (:class:`NewmarkReport`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.formulations import no_slip
from solver.analysis.formulations.base import Carry, DynamicState
from solver.analysis.formulations.null_space_common import (
    Linearisation,
    NewmarkScheme,
    rank_tolerance,
    refresh_needed,
    renormalise,
)
from solver.analysis.linalg import dense
from solver.mechanics.system import MultibodySystem


@dataclass
class NewmarkReport(Carry):
    """What a null-space Newmark step reports: ``dof`` the degrees of freedom of the step,
    ``omega_max`` the highest frequency of its reduced system (rad/s; NaN where it could
    not be computed) and ``dt_max`` the scheme's stability limit for it (s; ∞ when the
    scheme has none)."""

    dof: int = 0
    omega_max: float = 0.0
    dt_max: float = math.inf


class SVDSpaces:
    """Rank, orthonormal null space ``N`` and the pseudo-inverse of ``H`` (dense SVD).

    Off the constraint manifold, equations that are redundant on it stop being exactly
    dependent (Bricard: a singular value of about ‖Φ‖/10 appears at an iterate off by
    ‖Φ‖); counting that as rank would make the minimum-norm solutions divide by it. So
    the rank used in a step is capped by ``cap``, the rank on the manifold at the start
    of the step, and ``rank_here`` (singular values above ``rank_tolerance``, which
    discounts those of the size of ‖Φ‖) is what the next step takes as its cap.

    ``floor`` (a fraction of σ_max) leaves out of the minimum-norm solves, for this step only,
    singular values that are rank but too small to divide by (``keep``: at most that many
    singular values, the count the step's first iteration chose): within a step's reach of
    a singular position (A02: all links horizontal) σ_min → 0 and the corrections ``H⁺Φ``
    would grow like 1/σ and throw the iteration about. Those directions stay out of N too:
    the step does not move the state along them (the predictor's motion stands), neither
    constraining nor integrating them.

    ``weights`` (one positive number per coordinate, default all 1) sets the metric in which
    ``N`` is orthonormal and the particular solutions have minimum norm: the SVD is that of
    ``H W⁻¹`` (``W = diag(weights)``), ``N`` is returned in the original coordinates
    (``Nᵀ W² N = I``) and ``P = Nᵀ W²`` is its left inverse, the projection onto the local
    minimal coordinates (``P = Nᵀ`` without weights).
    """

    def __init__(
        self,
        h: np.ndarray,
        phi: np.ndarray,
        cap: int | None = None,
        floor: float = 0.0,
        keep: int | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        m, n = h.shape
        self._w = weights
        if m == 0:
            self.rank = self.rank_here = 0
            self.N = np.eye(n)
            self._u = np.zeros((0, 0))
            self._s = np.zeros(0)
            self._v = np.zeros((n, 0))
            self._weigh()
            return
        u, s, vt = np.linalg.svd(h if weights is None else h / weights)
        self.rank_here = int(np.sum(s > rank_tolerance(h.shape, s[0], phi)))
        r = self.rank_here
        if cap is not None:
            r = min(cap, int(np.sum(s > rank_tolerance(h.shape, s[0], np.zeros(0)))))
        self.N = vt[r:].T
        if floor > 0.0:
            r = min(r, int(np.sum(s > floor * s[0])))
        if keep is not None:
            r = min(r, keep)
        self.rank = r
        self._u, self._s, self._v = u[:, :r], s[:r], vt[:r].T
        self._weigh()

    def _weigh(self) -> None:
        """``N`` back in the original coordinates and its left inverse ``P``."""
        w = self._w
        if w is None:
            self.P = self.N.T
            return
        self.P = (self.N * w[:, None]).T
        self.N = self.N / w[:, None]
        self._v = self._v / w[:, None]

    def solve(self, b: np.ndarray) -> np.ndarray:
        """Minimum-norm least-squares solution of ``H y = b`` (b a vector or columns)."""
        t = self._u.T @ b
        t = t / (self._s[:, None] if t.ndim == 2 else self._s)
        return self._v @ t

    def solve_transposed(self, b: np.ndarray) -> np.ndarray:
        """Least-squares solution of ``Hᵀ λ = b`` (minimum norm in λ; with weights, the
        residual is measured in the dual metric ``W⁻¹``)."""
        return self._u @ ((self._v.T @ b) / self._s)


def rotation_weights(system: MultibodySystem, rotation_length: float) -> np.ndarray | None:
    """The metric of the local minimal coordinates: ``None`` (plain coordinates) when
    ``rotation_length`` is 0.5 m, else weight ``2 · rotation_length`` (m/rad) on the Euler
    parameter columns, so that a rotation dθ counts as a displacement ``rotation_length · dθ``
    (an Euler parameter moves by dθ/2). 1 m is the (x, y, θ) metric of a planar model
    in SI units."""
    if rotation_length == 0.5 or not len(system.rigid):
        return None
    w = np.ones(system.n)
    w[system.rigid.cols[:, 3:].ravel()] = 2.0 * rotation_length
    return w


#: Singular values of Φ_q below this fraction of the largest are not divided by within a
#: step (``SVDSpaces`` ``floor``): √(Newton tolerance 1e-10) for unit-sized models.
CONDITION_FLOOR = 1e-5


class NewmarkNullSpace:
    """Stepper for ``method = "newmark"``."""

    def __init__(
        self,
        system: MultibodySystem,
        scheme: NewmarkScheme,
        tol: float,
        max_iterations: int,
        rotation_length: float = 0.5,
    ) -> None:
        self.system = system
        self.scheme = scheme
        self.tol = tol
        self.max_iterations = max_iterations
        self._rank = None  # (q, rank of Φ_q on the manifold at q) from the last step
        self.weights = rotation_weights(system, rotation_length)

    def rank_at(self, q: np.ndarray, t: float) -> int:
        """The rank of ``Φ_q`` on the manifold at ``q`` (kept from the last step)."""
        if self._rank is not None and np.array_equal(self._rank[0], q):
            return self._rank[1]
        c = self.system.constraints(q, None, t)
        return SVDSpaces(dense(c.phi_q), c.phi).rank_here

    def step(self, state: DynamicState, h: float) -> DynamicState:
        s = self.system
        t = state.t + h
        a0, a1, a2, a5, a6, a7 = self.scheme.coefficients(h)
        xn, vn, an = state.q, state.qd, state.qdd
        rank = self.rank_at(xn, state.t)
        # predictor: constant acceleration
        x = xn + h * vn + 0.5 * h * h * an
        v = vn + h * an
        a = an.copy()
        renormalise(s, x, v, a)
        err = math.inf
        prev = None
        for it in range(1, self.max_iterations + 1):
            scale = max(1.0, float(np.abs(x).max()))
            lin = Linearisation(s, x, v, a, t)
            if it == 1:  # the step's working rank: conditioned singular values only
                sv = SVDSpaces(lin.H, lin.phi, rank, CONDITION_FLOOR, weights=self.weights)
                working = sv.rank
            else:
                sv = SVDSpaces(lin.H, lin.phi, rank, keep=working, weights=self.weights)
            lin.B = None
            if s.m_nh:  # rolling without slip: [λ; μ] of [Φ_q; B]
                lin.B = no_slip.rows(s, x, v, t, lin.ms)[0]
                lam, lin.mu = no_slip.multipliers(lin.H, lin.B, lin.residual_force())
            else:
                lam = sv.solve_transposed(lin.residual_force())
            if prev is None or refresh_needed(err, self.tol, scale):
                lin.derivatives(lam)
                if s.m_nh:  # ∂(Bᵀμ)/∂x, and ∂(B ẋ)/∂x at fixed ẋ
                    k_b, lin.Dv = no_slip.second_order(s, x, v, lin.mu)
                    lin.K = lin.K + k_b
            else:
                lin.reuse(prev, lam)
                lin.Dv = getattr(prev, "Dv", None)
            prev = lin
            dx, dv, da, reduced = self._correction(lin, sv, xn, vn, an, h)
            x, v, a = x + dx, v + dv, a + da
            renormalise(s, x, v, a)
            err = (
                np.abs(x - lin.q).max()
                + h * np.abs(v - lin.qd).max()
                + h * h * np.abs(a - lin.qdd).max()
            )
            if not np.isfinite(err):
                break
            if err <= self.tol * scale:
                omega_max, dt_max = self._stability(*reduced)
                report = NewmarkReport(dof=reduced[0].shape[0], omega_max=omega_max, dt_max=dt_max)
                self._rank = (x.copy(), sv.rank_here)
                if s.m_nh:
                    lam = np.concatenate([lam, lin.mu])
                return DynamicState(t, x, v, a, lam, it, report)
        raise SimulationError(
            t,
            f"the null-space Newmark iterations did not converge in {self.max_iterations} "
            f"iterations (last correction {err:.3g}) at dt = {h:g} s",
            self._hint(h),
        )

    def _correction(self, lin: Linearisation, sv: SVDSpaces, xn, vn, an, h: float):
        """Increments ``(δx, δẋ, δẍ)`` of one iteration and ``(M_R, K_R)``."""
        a0, a1, a2, a5, a6, a7 = self.scheme.coefficients(h)
        H, Hd, Hdd, M, C, K = lin.H, lin.Hd, lin.Hdd, lin.M, lin.C, lin.K
        N = sv.N
        # particular solutions (minimum norm) of the linearised constraints
        p = sv.solve(-lin.phi)
        vel = H @ lin.qd + lin.phi_t
        vp = sv.solve(-vel - Hd @ p)
        acc = H @ lin.qdd - lin.gamma
        V = -sv.solve(Hd @ N)
        W1 = -sv.solve(Hdd @ N + 2.0 * Hd @ V)
        W2 = 2.0 * V
        wp = sv.solve(-acc - Hdd @ p - 2.0 * Hd @ vp)
        # start-of-step state projected on the current parametrisation; Newmark on α
        P = sv.P  # the projection onto α (Nᵀ for the plain metric)
        e0 = P @ (lin.q - xn)
        b0 = a5 * e0 - a6 * (P @ vn) - a7 * (P @ an) - P @ lin.qd
        c0 = a0 * e0 - a1 * (P @ vn) - a2 * (P @ an) - P @ lin.qdd
        # reduced equations of motion
        r0 = M @ lin.qdd - lin.Q + H.T @ lin.lam
        if lin.B is not None:
            r0 = r0 + lin.B.T @ lin.mu
        MN, CN = M @ N, C @ N
        KR = N.T @ (K @ N + C @ V + M @ W1)
        A = N.T @ (a0 * MN + a5 * (M @ W2 + CN)) + KR
        rhs = -N.T @ (r0 + M @ (wp + N @ c0 + W2 @ b0) + C @ (vp + N @ b0) + K @ p)
        mr = N.T @ MN
        if lin.B is not None:
            # rolling without slip: the dynamics only along the directions Z of N that
            # keep B ẋ = 0, and B ẋ = 0 on the integrator's velocity at t + h
            B, Dv = lin.B, lin.Dv
            Z = no_slip.null_space(B @ N)
            rows_v = B @ (a5 * N + V) + Dv @ N
            rhs_v = -(B @ (lin.qd + vp + N @ b0) + Dv @ p)
            A, rhs = np.vstack([Z.T @ A, rows_v]), np.concatenate([Z.T @ rhs, rhs_v])
            mr, KR = Z.T @ mr @ Z, Z.T @ KR @ Z
        alpha = np.linalg.solve(A, rhs) if len(rhs) else np.zeros(0)
        b = a5 * alpha + b0
        c = a0 * alpha + c0
        dx = p + N @ alpha
        dv = vp + N @ b + V @ alpha
        da = wp + N @ c + W1 @ alpha + W2 @ b
        return dx, dv, da, (mr, KR)

    def _stability(self, mr: np.ndarray, kr: np.ndarray) -> tuple[float, float]:
        """``(ω_max, step limit)`` of the reduced system (``K_R φ = ω² M_R φ``)."""
        if not len(mr):
            return 0.0, math.inf
        try:
            w2 = np.linalg.eigvals(np.linalg.solve(mr, kr))
        except np.linalg.LinAlgError:
            return math.nan, math.nan
        w2 = w2[np.isfinite(w2)].real
        omega = float(math.sqrt(max(float(w2.max()), 0.0))) if len(w2) else 0.0
        return omega, self.scheme.dt_max(omega)

    def _hint(self, h: float) -> str:
        sch = self.scheme
        if 0.5 * sch.gamma - sch.beta > 0.0:
            return (
                f"reduce dt (γ = {sch.gamma:g}, β = {sch.beta:.4g} is stable only for "
                "dt ≤ √(1/(γ/2 − β))/ω_max), or use scheme trapezoidal"
            )
        return "reduce dt, or check the model near this time (a singular position?)"
