"""Central differences written on velocities and accelerations (the null-space
Newmark thesis §9.2) for constrained multibody systems, with any orientation parameter set
(§9.1).

``central_differences`` runs this stepper (instead of DIMCD on positions) when its
``variant`` is ``reformulated``, ``family``, ``fourth_degree`` or ``fifth_degree``, or when
``solver.orientation`` is not ``euler_parameters`` (then the scheme is ``reformulated``
unless a variant is given). Coordinates are the chart's ``y`` (``OrientationChart``).

At each time t the positions y(t) and the history (ẋ, ẍ, … at t − Δt) are known; the
unknown is the acceleration a = ÿ(t). The scheme (``solver.analysis.cd_family``) makes

    y(t+Δt) = y + d₀ + c_x a,    ẏ(t) = v₀ + c_v a,

and a, together with the multipliers, solves

    M_y(y) a − Q_y(y, ẏ(a), t) = −Φ_y(y, t)ᵀ λ,    Φ(y(t+Δt), t+Δt) = 0,

by Newton's method with the double null space of DIMCD (Urkullu (2019) §6.1): the reactions are
removed with ``N_G = null Φ_y(y, t)`` (s columns, s = DOF), the constraints at t+Δt are
linearised, ``c_x δa = δ_p + N_H α`` (``N_H`` the s weakest right singular vectors of
``Φ_y`` at the iterate) and ``N_Gᵀ A N_H α = −N_Gᵀ(c_x R + A δ_p)``, ``A = M_y − c_v ∂Q_y/∂ẏ``.
Rolling without slip (``B q̇ = 0``) holds on the scheme's velocity at t, ``B_y (v₀ + c_v a)
= 0`` with ``B_y = B ∂q/∂y``: rows linear in a, stacked under the position constraints
and into ``N_G = null [Φ_y; B_y]`` as in DIMCD (at the first step, where ẏ(0) is given,
``B q̈ = γ_B`` instead).
Converged when the position correction ``max|c_x δa| ≤ tolerance``. The positions are
updated by adding the (small) increment ``d₀ + c_x a`` once: no difference of nearly equal
positions is ever divided by Δt² (the cancellation of ``(x⁺ − 2x + x⁻)/Δt²``).

The returned state at t holds ``q(y(t))``, ``q̇``, ``q̈`` mapped to the system's Euler
parameters (so energies, constraints and outputs are those of ``MultibodySystem``), and
the look-ahead ``y(t+Δt)`` in ``state.carry`` as DIMCD does. A body whose parameter set reaches
its singularity stops the run (``SimulationError`` naming the body, the time and the set
to use instead).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.analysis.cd_family import Scheme, first_coefficients
from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import Carry, DynamicState, Formulation
from solver.analysis.linalg import dense, full_svd
from solver.mechanics.orientation_chart import OrientationChart
from solver.mechanics.orientation_sets import SETS, SINGULAR, orientation_set
from solver.model.errors import ModelError, UnsupportedFeature

#: near a singularity (measure below this) a failed step is reported as the singularity
NEAR_SINGULAR = 0.05


@dataclass
class FamilyLookahead(Carry):
    """The look-ahead of a state of the family at tₖ₊₁ in the integrated coordinates y:
    ``y`` y(tₖ₊₁), ``y_next`` y(tₖ₊₂), ``hist`` the scheme's history (its velocities and
    accelerations, ``Scheme.history``) and ``h`` the step it was made with (s)."""

    y: np.ndarray | None = None
    y_next: np.ndarray | None = None
    hist: tuple | None = None
    h: float | None = None


class CentralDifferencesFamily(Formulation):
    """Reformulated central differences and the CD family on a chart of the system."""

    name = "central_differences"
    velocity_constraints = True  # rolling without slip: B ẏ(t) = 0 on the scheme's ẏ
    defaults = {
        "rank_tolerance": 1e-8,
        "variant": "reformulated",
        "alpha": None,
        "beta": None,
        "gamma": None,
        "zeta": None,
    }

    def __init__(self, system, settings) -> None:
        super().__init__(system, settings)
        if system.coordinates != "reference_point" and settings.orientation != "euler_parameters":
            raise UnsupportedFeature(
                "solver",
                f'"{settings.orientation}" orientation parameters apply to rigid bodies in '
                "reference-point coordinates, not to natural coordinates",
                "orientation",
            )
        if settings.orientation not in SETS:
            raise ModelError(
                "solver",
                f'"{settings.orientation}" is not an orientation set ({", ".join(SETS)})',
                "orientation",
            )
        self.scheme = Scheme.from_parameters(self.params)
        self.chart = OrientationChart(system, orientation_set(settings.orientation))
        self.rtol = float(self.params["rank_tolerance"])
        self._has_forces = not system.gravity_only

    # ---- pieces ---------------------------------------------------------------------------
    def _constraints(self, y: np.ndarray, t: float):
        """``(Φ, Φ_y)`` at (y, t) without the identically-zero rows."""
        ch = self.chart
        phi, phi_q = self.system.position_constraints(ch.to_q(y), t)
        rows = ch.rows
        with np.errstate(invalid="ignore", over="ignore"):
            return phi[rows], dense(phi_q)[rows] @ ch.jacobian(y)

    def _applied(self, q, qd, t):
        s = self.system
        return s.forces(q, qd, t, s.marker_state(q, qd), inertial=False)

    def _force_model(self, y: np.ndarray, yd_guess: np.ndarray, t: float):
        """``Q_y(ẏ)`` at the step's positions and ``K = ∂Q_y/∂ẏ`` (applied part, fixed)."""
        s, ch = self.system, self.chart
        q = ch.to_q(y)
        pj = ch.jacobian(y)
        if not self._has_forces:
            grav = pj.T @ s.gravity_forces()
            applied, kd = (lambda yd: grav), None
        else:
            qd = pj @ yd_guess
            kqd = dense(s.force_jacobians(q, qd, t, inertial=False)[1])
            kd = pj.T @ kqd @ pj if np.any(kqd) else None
            if kd is None:
                q0 = pj.T @ self._applied(q, qd, t)
                applied = lambda yd: q0  # noqa: E731
            else:
                applied = lambda yd: pj.T @ self._applied(q, pj @ yd, t)  # noqa: E731

        inertial = ch.inertial_model(y) if len(ch.ocols) else None

        def forces(yd, with_jacobian=True):
            out = np.array(applied(yd), float)
            jac = None
            if with_jacobian:
                jac = np.zeros((ch.ny, ch.ny)) if kd is None else kd.copy()
            if inertial is not None:
                f, blk = inertial(yd, with_jacobian)
                out[ch.ocols] += f
                if with_jacobian:
                    oc = ch.ocols
                    jac[oc[:, :, None], oc[:, None, :]] += blk
            return out, jac

        return forces

    def _null_g(self, y, t, b_y=None):
        n = self.chart.ny
        _, jac = self._constraints(y, t)
        if b_y is not None:  # the no-slip rows' reaction directions too
            jac = np.vstack([jac, b_y])
        if not len(jac):
            return np.eye(n), n, None
        u, sv, vt = full_svd(jac)
        rank = int(np.sum(sv > self.rtol * sv[0])) if len(sv) and sv[0] > 0 else 0
        return vt[rank:].T, n - rank, (u[:, :rank], sv[:rank], vt[:rank].T)

    def _no_slip(self, y, pj, v0, cv, t):
        """Rolling without slip at t: ``(B_y, residual)`` with ``B_y = B(q) ∂q/∂y`` and
        ``residual(a, c_x)`` the rows' value as a position error (``B_y δy⁺ = −residual``
        for ``δy⁺ = c_x δa``): ``B_y ẏ(t) = 0`` on the scheme's velocity ``ẏ = v₀ + c_v a``
        (times c_x/c_v), or at the first step, where ẏ(0) is given (c_v = 0), at
        acceleration level, ``B q̈ = γ_B`` (times c_x). ``None`` without no-slip rows."""
        s, ch = self.system, self.chart
        if not s.m_nh:
            return None
        q, qd = ch.to_q(y), pj @ v0
        b, gamma = s.velocity_constraints(q, qd, t)
        b = dense(b)
        b_y = b @ pj
        if cv == 0.0:

            def residual(a, cx):
                return cx * (b @ ch.velocities(y, v0, a)[1] - gamma)

        else:

            def residual(a, cx):
                return (cx / cv) * (b_y @ (v0 + cv * a))

        return b_y, residual

    def _check(self, y: np.ndarray, t: float, limit: float = SINGULAR) -> None:
        meas = self.chart.measure(y)
        bad = np.flatnonzero(~(meas >= limit))
        if len(bad):
            self._singular(int(bad[0]), t)

    def _singular(self, body: int, t: float):
        oset = self.chart.oset
        raise SimulationError(
            t,
            f'body "{self.chart.names[body]}": the {oset.name} orientation parameters reach '
            f"their singularity ({oset.singularity}); results past it would be wrong",
            'use solver.orientation "euler_parameters" (no singularity; on the command '
            "line --orientation euler_parameters)",
        )

    # ---- one solve --------------------------------------------------------------------------
    def _solve(self, t, h, y, coeffs, a_guess, first: bool):
        """The acceleration at t: returns ``(a, ẏ, y(t+h), λ, iterations)``."""
        ch = self.chart
        n = ch.ny
        d0, cx, v0, cv = coeffs
        pj = ch.jacobian(y)
        mass = pj.T @ dense(self.system.mass(ch.to_q(y))) @ pj
        forces = self._force_model(y, v0 + cv * a_guess, t)
        no_slip = self._no_slip(y, pj, v0, cv, t)
        ng, dof, svd = self._null_g(y, t, None if no_slip is None else no_slip[0])
        a = np.array(a_guess, float)
        t1 = t + h
        y1 = y
        step = np.inf
        phi = np.zeros(0)
        for it in range(1, self.max_iterations + 1):
            yd = v0 + cv * a
            f, kqd = forces(yd)
            r = mass @ a - f
            amat = mass - cv * kqd
            y1 = y + (d0 + cx * a)
            phi, jac = self._constraints(y1, t1)
            if no_slip is not None:
                b_y, residual = no_slip
                phi = np.concatenate([phi, residual(a, cx)])
                jac = np.vstack([jac, b_y])
            if not (np.isfinite(phi).all() and np.isfinite(r).all() and np.isfinite(jac).all()):
                break
            if len(phi):
                u, sv, vt = full_svd(jac)
                k = min(n - dof, len(sv))
                sk = sv[:k]
                inv = np.divide(1.0, sk, out=np.zeros_like(sk), where=sk > 1e-14 * sv[0])
                dp = -vt[:k].T @ ((u[:, :k].T @ phi) * inv)
                nh = vt[n - dof :].T
            else:
                dp, nh = np.zeros(n), np.eye(n)
            if dof:
                red = ng.T @ amat @ nh
                try:
                    alpha = np.linalg.solve(red, -ng.T @ (cx * r + amat @ dp))
                except np.linalg.LinAlgError:
                    break
                dx = dp + nh @ alpha
            else:
                dx = dp
            a = a + dx / cx
            step = float(np.abs(dx).max())
            if not np.isfinite(step):
                break
            if step <= self.tolerance:
                yd = v0 + cv * a
                f, _ = forces(yd, with_jacobian=False)
                lam = None
                if svd is not None:
                    uu, ss, vv = svd
                    lam = -uu @ ((vv.T @ (mass @ a - f)) / ss)
                return a, yd, y + (d0 + cx * a), lam, it
        self._check(y, t, NEAR_SINGULAR)
        self._check(y1, t1, NEAR_SINGULAR)
        worst = float(np.abs(phi).max()) if len(phi) else 0.0
        what = "first step" if first else "step"
        raise SimulationError(
            t,
            f"{self.scheme.label}: Newton iteration for the {what} to t = {t1:.6g} s did not "
            f"converge in {self.max_iterations} iterations (last correction {step:.3g}, "
            f"constraint residual {worst:.3g}) at dt = {h:g} s",
            "reduce dt (the explicit schemes are conditionally stable: see dt_max_estimate "
            "in the summary), or use an implicit formulation (augmented_lagrangian, null_space)",
        )

    def _state(self, t, y, yd, a, lam, its, carry) -> DynamicState:
        ch = self.chart
        qd, qdd = ch.velocities(y, yd, a)
        lam_q = None
        if lam is not None and len(ch.rows) == self.system.m:
            lam_q = lam
        return DynamicState(t, ch.to_q(y), qd, qdd, lam_q, its, carry)

    # ---- the stepper --------------------------------------------------------------------------
    def start(self, state: DynamicState) -> DynamicState:
        h = self.settings.dt
        y, yd = self.chart.from_q(np.asarray(state.q, float), np.asarray(state.qd, float))
        self._check(y, state.t)
        coeffs = first_coefficients(h, yd)
        a, _, y1, lam, its = self._solve(state.t, h, y, coeffs, np.zeros_like(y), True)
        hist = self.scheme.first_history(yd, a)
        carry = FamilyLookahead(y=y, y_next=y1, hist=hist, h=h)
        return self._state(state.t, y, yd, a, lam, state.iterations + its, carry)

    def step(self, state: DynamicState, h: float) -> DynamicState:
        ex = state.carry if isinstance(state.carry, FamilyLookahead) else FamilyLookahead()
        if ex.y_next is None or abs((h if ex.h is None else ex.h) - h) > 1e-12 * h:
            # another Δt: restart from the state as at t = 0 of a new run
            self.settings = _with_dt(self.settings, h)
            restarted = self.start(DynamicState(state.t, state.q, state.qd))
            ex = restarted.carry
            its0 = restarted.iterations
        else:
            its0 = 0
        t1 = state.t + h
        y = ex.y_next
        self._check(y, t1)
        hist = ex.hist
        coeffs = self.scheme.coefficients(h, hist)
        a, yd, y2, lam, its = self._solve(t1, h, y, coeffs, hist[1], False)
        self._check(y2, t1 + h)
        hist = self.scheme.history(h, hist, yd, a)
        carry = FamilyLookahead(y=y, y_next=y2, hist=hist, h=h)
        return self._state(t1, y, yd, a, lam, its + its0, carry)


def _with_dt(settings, h):
    from dataclasses import replace

    return replace(settings, dt=h)
