"""Pieces shared by the two ``null_space`` methods (Newmark null space, R matrix).

* ``NewmarkScheme``: the Newmark family (γ, β) in displacement form (the null-space Newmark thesis
  ch. 7, with the corrected a₇ of §4.14): with ``u`` any coordinate and ``Δu = u_{n+1} − u_n``,

      ü_{n+1} = a₀ Δu − a₁ u̇_n − a₂ ü_n,     u̇_{n+1} = a₅ Δu − a₆ u̇_n − a₇ ü_n,
      a₀ = 1/(βh²), a₁ = 1/(βh), a₂ = 1/(2β) − 1,
      a₅ = γ/(βh),  a₆ = γ/β − 1, a₇ = (h/2)(γ/β − 2).

  Presets: trapezoidal (½, ¼), Fox–Goodwin (½, 1/12), linear acceleration (½, 1/6).
  The reduced (minimal-coordinate) system is stable for ``h ≤ √(1/(γ/2 − β))/ω_max`` when
  ``β < γ/2`` and unconditionally when ``2β ≥ γ ≥ ½`` (the null-space Newmark thesis ch. 6, eq.
  6.6).

* ``Linearisation``: everything the Newton iterations need at one ``(q, q̇, q̈, t)``:
  ``M``, ``Q``, ``Φ``, ``Φ_q``, ``Φ_t``, ``γ`` and the exact first-order terms
  ``K = ∂(M q̈)/∂q − ∂Q/∂q + ∂(Φ_qᵀλ)/∂q``, ``C = −∂Q/∂q̇``,
  ``Ḣ = ∂(Φ_q q̇)/∂q`` and ``Ḧ = ∂(Φ_q q̈)/∂q`` (all dense).

* ``rank_tolerance``: which singular values of Φ_q are zero, allowing for the spurious
  ones (of the size of ‖Φ‖) that redundant equations show off the constraint manifold.

* ``refresh_needed``: when the Newton iterations may keep the derivative matrices of the
  previous iterate (only once the corrections are already below ``√tol``).

* ``renormalise``: Euler parameters back on the unit sphere with the minimum-norm
  corrections of their first and second derivatives (the null-space Newmark thesis §7.2.1, eqs.
  7.11, 7.16, 7.21).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.analysis.linalg import dense
from solver.kernels.system import renormalise_parameters
from solver.mechanics.system import MultibodySystem
from solver.model.errors import ModelError

#: scheme name → (γ, β)
SCHEMES = {
    "trapezoidal": (0.5, 0.25),
    "fox_goodwin": (0.5, 1.0 / 12.0),
    "linear_acceleration": (0.5, 1.0 / 6.0),
}


@dataclass(frozen=True)
class NewmarkScheme:
    gamma: float
    beta: float

    @classmethod
    def from_parameters(cls, params: dict) -> NewmarkScheme:
        """The scheme named by ``params["scheme"]`` (``custom``: ``gamma`` and ``beta``)."""
        name = params.get("scheme", "trapezoidal")
        if name == "custom":
            gamma, beta = float(params["gamma"]), float(params["beta"])
        elif name in SCHEMES:
            gamma, beta = SCHEMES[name]
        else:
            raise ModelError(
                "solver.parameters",
                f'"{name}" is not a Newmark scheme ({", ".join([*SCHEMES, "custom"])})',
                "scheme",
            )
        if not beta > 0.0:
            raise ModelError(
                "solver.parameters",
                "must be positive for the null_space formulation (β = 0 is explicit; use "
                "central_differences)",
                "beta",
            )
        if gamma < 0.5:
            raise ModelError(
                "solver.parameters",
                f"({gamma:g}) below 1/2 makes the Newmark scheme unstable (negative damping)",
                "gamma",
            )
        return cls(gamma, beta)

    def coefficients(self, h: float) -> tuple[float, float, float, float, float, float]:
        """``(a₀, a₁, a₂, a₅, a₆, a₇)`` for step ``h``."""
        g, b = self.gamma, self.beta
        return (
            1.0 / (b * h * h),
            1.0 / (b * h),
            0.5 / b - 1.0,
            g / (b * h),
            g / b - 1.0,
            0.5 * h * (g / b - 2.0),
        )

    def dt_max(self, omega_max: float) -> float:
        """Largest stable step for the highest frequency ``omega_max`` (``inf`` if none)."""
        margin = 0.5 * self.gamma - self.beta
        if margin <= 0.0 or not omega_max > 0.0:
            return math.inf
        return math.sqrt(1.0 / margin) / omega_max


def rank_tolerance(shape: tuple[int, int], smax: float, phi: np.ndarray) -> float:
    """Singular values (or pivots) of ``Φ_q`` at or below this count as zero.

    The round-off floor ``10³ ε max(m, n) σ_max``, raised to ``10‖Φ‖``: at a point off
    the constraint manifold by ‖Φ‖, equations that are redundant on the manifold
    (revolute pairs, Bricard) show singular values of the order of ‖Φ‖ that are not rank.
    """
    floor = 1e3 * np.finfo(float).eps * max(shape) * smax
    return max(floor, 10.0 * float(np.abs(phi).max())) if len(phi) else floor


def renormalise(system: MultibodySystem, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> None:
    """In place: ``p ← p/|p|``, ``ṗ ← ṗ − p(pᵀṗ)``, ``p̈ ← p̈ − p(ṗᵀṗ + pᵀp̈)`` (float
    arrays)."""
    renormalise_parameters(system.arrays, q, qd, qdd)


class Linearisation:
    """The system at ``(q, q̇, q̈, t)`` (dense arrays): ``M``, ``Q``, ``Φ``, ``Φ_q``, ``Φ_t``,
    ``γ``; ``derivatives(λ)`` adds the exact first-order terms (or ``reuse`` takes them
    from the previous iterate). ``ms`` and ``constraints`` may pass evaluations the
    caller already has at the same ``(q, q̇, t)``.
    """

    def __init__(
        self,
        system: MultibodySystem,
        q: np.ndarray,
        qd: np.ndarray,
        qdd: np.ndarray,
        t: float,
        ms=None,
        constraints=None,
    ) -> None:
        s = system
        self.system = s
        self.q, self.qd, self.qdd, self.t = q, qd, qdd, t
        self.ms = ms if ms is not None else s.marker_state(q, qd)
        c = constraints if constraints is not None else s.constraints(q, qd, t, self.ms)
        self.phi, self.phi_t, self.gamma = c.phi, c.phi_t, c.gamma
        self.H = dense(c.phi_q)
        self.M = dense(s.mass(q))
        self.Q = s.forces(q, qd, t, self.ms)

    def residual_force(self) -> np.ndarray:
        """``Q − M q̈``: what the constraint forces ``Φ_qᵀλ`` must balance."""
        return self.Q - self.M @ self.qdd

    def derivatives(self, lam: np.ndarray) -> None:
        """``K``, ``C``, ``Ḣ``, ``Ḧ`` with the multipliers ``lam`` (kept as ``self.lam``)."""
        s, q, qd, qdd, t = self.system, self.q, self.qd, self.qdd, self.t
        self.lam = lam
        k_lam, hd = s.constraint_second_order(q, qd, lam, t, self.ms)
        ms2 = s.marker_state(q, qdd)
        _, hdd = s.constraint_second_order(q, qdd, np.zeros(s.m), t, ms2)
        kq, kqd = s.force_jacobians(q, qd, t, self.ms)
        self.K = dense(s.mass_times_jacobian(q, qdd)) - dense(kq) + dense(k_lam)
        self.C = -dense(kqd)
        self.Hd = dense(hd)
        # ∂(Φ_q q̈ − γ)/∂q without ∂γ/∂q at fixed q̇ (a third-derivative contraction the
        # system does not provide): the thesis's Ḧ (the null-space Newmark thesis eq. 5.35), exact
        # for constraints quadratic in q; the omission only affects the Newton rate, not the
        # solution.
        self.Hdd = dense(hdd)

    def reuse(self, other: Linearisation, lam: np.ndarray) -> None:
        """Take ``K``, ``C``, ``Ḣ``, ``Ḧ`` from the previous iterate ``other``."""
        self.lam = lam
        self.K, self.C, self.Hd, self.Hdd = other.K, other.C, other.Hd, other.Hdd


def refresh_needed(correction: float, tol: float, scale: float) -> bool:
    """Whether the derivative matrices must be re-evaluated after a Newton correction.

    Once a correction is below ``√tol`` (relative), the matrices of the previous iterate
    differ from the current ones by about that much, so reusing them leaves the next
    error at ``√tol × (current error)``: convergence to ``tol`` is not slowed, and the
    final iteration (the convergence check) costs no second derivatives.
    """
    return not correction <= np.sqrt(tol) * scale
