"""The R-matrix (orthogonal complement) formulation of Saura et al. §2.2 with a Newmark rule.

Independent coordinates ``z`` are a subset of ``q`` (coordinate partitioning): at the start
of every step a QR factorisation of ``Φ_q`` with column pivoting picks the ``r = rank Φ_q``
best-conditioned columns as the dependent coordinates ``q_D`` and leaves the rest as
``z = q_I`` (so the partition follows the motion through positions where any fixed choice
would become singular; a one-step rule needs nothing else to restart). With ``Φ_D``,
``Φ_I`` the columns of Φ_q:

* positions: ``Φ(q_D, z, t) = 0`` by Newton–Raphson on q_D (least squares on ``Φ_D``, so
  redundant rows are fine);
* velocities: ``q̇ = R ż + s``, ``R = [R_D; I]`` with ``Φ_D R_D = −Φ_I`` (so ``Φ_q R = 0``)
  and ``Φ_D s_D = −Φ_t``;
* accelerations: ``q̈ = R z̈ + Ṙż`` with ``Ṙż`` the acceleration problem at ``z̈ = 0``:
  ``Φ_D q̈_D = γ − Φ_I z̈``;
* dynamics: ``Rᵀ M R z̈ = Rᵀ(Q − M Ṙż)``, i.e. ``F(z) = Rᵀ(M q̈ − Q) = 0``.

The Newmark rule (trapezoidal by default, as in Saura et al.) acts on z with ``z_{n+1}`` as the
Newton unknown: ``z̈ = a₀Δz − a₁ż_n − a₂z̈_n``, ``ż = a₅Δz − a₆ż_n − a₇z̈_n``. The position
and velocity problems are solved in every iteration, so Φ = 0, Φ̇ = 0 and Φ̈ = 0 hold at
every accepted step.

The Newton matrix is the derivative of F along the constraint manifold:
``dq = R dz``, ``dq̇ = a₅R dz − S Ḣ dq``, ``dq̈ = a₀R dz − S(Ḧ dq + 2Ḣ dq̇)`` (``S v``: the
dependent-coordinate solve of ``Φ_D y = v``), and, because ``Φ_q R ≡ 0``,
``dRᵀ Φ_qᵀλ = −Rᵀ ∂(Φ_qᵀλ)/∂q dq`` with the multipliers ``Φ_Dᵀλ = (Q − M q̈)_D``:

    J = Rᵀ [ (∂(M q̈)/∂q − ∂Q/∂q + ∂(Φ_qᵀλ)/∂q) R − ∂Q/∂q̇ dq̇/dz + M dq̈/dz ].

As in the Newmark null-space method, the derivative matrices are kept from the previous
iteration once the corrections are below ``√tol``, and ``∂γ/∂q`` at fixed q̇ (a third-derivative term, zero
for constraints quadratic in q) is left out; it vanishes as h → 0.
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
)
from solver.analysis.linalg import dense
from solver.lazy_scipy import linalg as sla
from solver.mechanics.system import MultibodySystem


@dataclass
class RMatrixReport(Carry):
    """What an R-matrix step reports: ``dof`` the degrees of freedom of the step and
    ``position_iterations`` the Newton iterations of its position problems."""

    dof: int = 0
    position_iterations: int = 0


def partition(h: np.ndarray, phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dependent, independent)`` column indices of ``Φ_q`` by pivoted QR."""
    m, n = h.shape
    if m == 0:
        return np.zeros(0, np.int64), np.arange(n)
    r_fac, piv = sla.qr(h, mode="r", pivoting=True)
    d = np.abs(np.diag(r_fac))
    rank = int(np.sum(d > rank_tolerance(h.shape, d[0], phi))) if len(d) else 0
    return np.sort(piv[:rank]), np.sort(piv[rank:])


class DependentSolver:
    """Least-squares solves with the dependent columns ``Φ_D`` (m × r, full column rank).

    (The triangular solves use ``numpy.linalg.solve``: on small matrices it is as fast as
    a triangular solve and avoids scipy's threaded BLAS, which is very slow on a busy
    machine.)
    """

    def __init__(self, hd: np.ndarray) -> None:
        self.q, self.r = np.linalg.qr(hd)
        d = np.abs(np.diag(self.r))
        self.ok = len(d) == 0 or d.min() > 1e-13 * d.max()

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``y`` with ``Φ_D y = b`` (b consistent; least squares otherwise)."""
        return np.linalg.solve(self.r, self.q.T @ b)

    def solve_transposed(self, b: np.ndarray) -> np.ndarray:
        """Minimum-norm ``λ`` with ``Φ_Dᵀ λ = b``."""
        return self.q @ np.linalg.solve(self.r.T, b)


class RMatrix:
    """Stepper for ``method = "r_matrix"``."""

    def __init__(
        self, system: MultibodySystem, scheme: NewmarkScheme, tol: float, max_iterations: int
    ) -> None:
        self.system = system
        self.scheme = scheme
        self.tol = tol
        self.max_iterations = max_iterations
        self._last = None  # (q, Φ, Φ_q) at the end of the last step

    # ---- kinematics on the manifold ------------------------------------------------------
    def _constraints(self, q: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``(Φ, Φ_q)`` at ``q`` (kept from the end of the last step when it is ``q``)."""
        if self._last is not None and np.array_equal(self._last[0], q):
            return self._last[1], self._last[2]
        c = self.system.constraints(q, None, t)
        return c.phi, dense(c.phi_q)

    def _position(self, q: np.ndarray, dep: np.ndarray, t: float):
        """Newton–Raphson on ``q_D`` (``q_I`` fixed); ``(q, constraints, Φ_q, solver,
        iterations)``."""
        s = self.system
        q = q.copy()
        for it in range(self.max_iterations + 1):
            c = s.constraints(q, None, t)
            res = float(np.abs(c.phi).max()) if len(c.phi) else 0.0
            h = dense(c.phi_q)
            dsolve = DependentSolver(h[:, dep])
            if res <= self.tol:
                return q, c, h, dsolve, it
            if not (np.isfinite(res) and dsolve.ok):
                break
            q[dep] -= dsolve.solve(c.phi)
        raise SimulationError(
            t,
            f"the position problem of the R-matrix method did not converge (residual {res:.3g})",
            "reduce dt, or use method newmark (a singular position?)",
        )

    # ---- step ------------------------------------------------------------------------------
    def step(self, state: DynamicState, h: float) -> DynamicState:
        s = self.system
        t = state.t + h
        a0, a1, a2, a5, a6, a7 = self.scheme.coefficients(h)
        qn, vn, an = state.q, state.qd, state.qdd
        phi_n, h_n = self._constraints(qn, state.t)
        dep, ind = partition(h_n, phi_n)
        d = len(ind)
        zn, zdn, zddn = qn[ind], vn[ind], an[ind]
        z = zn + h * zdn + 0.5 * h * h * zddn
        q_guess = qn + h * vn + 0.5 * h * h * an
        inner = 0
        err = math.inf
        prev = None
        for it in range(1, self.max_iterations + 1):
            scale = max(1.0, float(np.abs(z).max()) if d else 1.0)
            dz_ = z - zn
            zdd = a0 * dz_ - a1 * zdn - a2 * zddn
            zd = a5 * dz_ - a6 * zdn - a7 * zddn
            q_guess[ind] = z
            q, c, hq, dsolve, k = self._position(q_guess, dep, t)
            inner += k
            hi = hq[:, ind]
            qd = np.empty(s.n)
            qd[ind] = zd
            qd[dep] = dsolve.solve(-c.phi_t - hi @ zd)
            ms = s.marker_state(q, qd)
            c = s.constraints(q, qd, t, ms)
            qdd = np.empty(s.n)
            qdd[ind] = zdd
            qdd[dep] = dsolve.solve(c.gamma - hi @ zdd)
            lin = Linearisation(s, q, qd, qdd, t, ms, c)
            w = lin.residual_force()  # Q − M q̈ = Φ_qᵀλ on the dependent rows
            if s.m_nh:  # rolling without slip: [λ; μ] of [Φ_q; B]
                bmat = no_slip.rows(s, q, qd, t, ms)[0]
                lam, mu = no_slip.multipliers(hq, bmat, w)
            else:
                lam = dsolve.solve_transposed(w[dep])
            R = np.zeros((s.n, d))
            R[ind] = np.eye(d)
            R[dep] = -dsolve.solve(hi)
            F = -(R.T @ w)
            if prev is None or refresh_needed(err, self.tol, scale):
                lin.derivatives(lam)
                if s.m_nh:  # ∂(Bᵀμ)/∂q, and ∂(B q̇)/∂q at fixed q̇
                    k_b, lin.Dv = no_slip.second_order(s, q, qd, mu)
                    lin.K = lin.K + k_b
            else:
                lin.reuse(prev, lam)
                lin.Dv = getattr(prev, "Dv", None)
            prev = lin
            dqd = a5 * R
            dqd[dep] -= dsolve.solve(lin.Hd @ R)
            dqdd = a0 * R
            dqdd[dep] -= dsolve.solve(lin.Hdd @ R + 2.0 * lin.Hd @ dqd)
            J = R.T @ (lin.K @ R + lin.C @ dqd + lin.M @ dqdd)
            if s.m_nh:
                # the dynamics along the directions Z of z that keep B q̇ = 0 (R Z spans
                # the null space of [Φ_q; B]), and B q̇ = 0 on the integrator's velocity
                Z = no_slip.null_space(bmat @ R)
                J = np.vstack([Z.T @ J, bmat @ dqd + lin.Dv @ R])
                F = np.concatenate([Z.T @ F, bmat @ qd])
            dz = -np.linalg.solve(J, F) if d else np.zeros(0)
            err = float(np.abs(dz).max()) if d else 0.0
            if not np.isfinite(err):
                break
            if err <= self.tol * scale:
                # the last correction, to first order along the manifold (what is left
                # is O(dz²)); the state at z itself would keep a residual F ≈ a₀ M dz
                q, qd, qdd = q + R @ dz, qd + dqd @ dz, qdd + dqdd @ dz
                self._last = (q.copy(), c.phi, hq)
                report = RMatrixReport(dof=d - s.m_nh, position_iterations=inner)
                if s.m_nh:
                    lam = np.concatenate([lam, mu])
                return DynamicState(t, q, qd, qdd, lam, it, report)
            z = z + dz
            q_guess = q + R @ dz
        raise SimulationError(
            t,
            f"the R-matrix iterations did not converge in {self.max_iterations} iterations "
            f"(last correction {err:.3g}) at dt = {h:g} s",
            "reduce dt, or use method newmark",
        )
