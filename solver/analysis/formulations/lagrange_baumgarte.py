"""Index-1 Lagrange multipliers with Baumgarte stabilisation, adaptive explicit Runge–Kutta.

The accelerations come from (003 §2.6, eq. 52 and 56)

    [[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [Q; γ − 2α Φ̇ − β² Φ],   Φ̇ = Φ_q q̇ + Φ_t,

and ``y = [q, q̇]`` is integrated by scipy's adaptive explicit Runge–Kutta (RK45, RK23 or
DOP853; tolerances ``rtol``, ``atol``). The integrator chooses its own steps; the
formulation returns the state at every multiple of ``dt`` from the integrator's dense
output, so ``dt`` only sets the output grid and the energy bookkeeping. With α = β = 0
the constraints drift; α, β > 0 (default 5, as Flores suggests) damp the drift.
Redundant constraints are tolerated (least-squares saddle-point solve). Every internal
step the integrator accepts is handed to the contacts (``force_set.accept``), which commit
their impact state there; the step control itself adapts to the impacts (``adaptive``).

Singular positions (Φ_q loses rank, e.g. the A02 links all horizontal): the saddle-point
solve is Tikhonov-regularised (``regularisation`` μ, relative to the mass scale), so the
accelerations stay bounded instead of dividing by the vanishing singular value (which made
the step control crawl: 373 000 right-hand sides in 1 ms of A02). Past such a point an
index-1 solution may continue on another branch of the constraint manifold (A02: the
parallelogram turned antiparallelogram, 16 J off), so the run stops there with a message
naming the formulations that pass singular positions (``SINGULAR_RATIO``).

The work of non-conservative forces and drivers (not contacts, which book their own) is
integrated with the motion as one more state, ``Ẇ = P(q, q̇, t, λ)``, so it is as accurate
as the trajectory (``state.extra["work"]``, J, from the start).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853, RK23, RK45

from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import DynamicState, Formulation
from solver.analysis.formulations.trapezoidal import mass_scale
from solver.analysis.kinematics import all_velocity_rows
from solver.analysis.linalg import dense, saddle_solve
from solver.analysis.power import PowerMeter

#: A singular value of Φ_q that falls below this fraction of the largest during a run
#: marks a singular position (``_check_regular``).
SINGULAR_RATIO = 1e-3
INTEGRATORS = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}


class LagrangeBaumgarte(Formulation):
    name = "lagrange_baumgarte"
    velocity_constraints = True  # handles rolling without slip (non-holonomic rows)
    adaptive = True
    defaults = {
        "baumgarte_alpha": 5.0,
        "baumgarte_beta": 5.0,
        "integrator": "RK45",
        "rtol": 1e-9,
        "atol": 1e-11,
        "regularisation": 1e-12,
    }

    def accelerations(self, t: float, q: np.ndarray, qd: np.ndarray):
        s = self.system
        ms = s.marker_state(q, qd)
        c = s.constraints(q, qd, t, ms)
        a, b = self.params["baumgarte_alpha"], self.params["baumgarte_beta"]
        rhs = c.gamma - 2.0 * a * (c.phi_q @ qd + c.phi_t) - b * b * c.phi
        rows = c.phi_q
        if s.m_nh:  # rolling without slip: B q̈ = γ_nh − α B q̇ (first-order stabilisation)
            rows, _, gamma_all = all_velocity_rows(s, q, qd, t, c=c, ms=ms)
            rhs = np.concatenate([rhs, gamma_all[s.m :] - a * (rows[s.m :] @ qd)])
        qdd, lam = saddle_solve(s.mass(q), rows, s.forces(q, qd, t, ms), rhs, self._mu)
        if self._power is not None:
            self._power = self._meter.power(q, qd, t, ms, c, lam, qdd)
            if len(s.force_set.contacts):
                self._power -= s.force_set.contacts.power(ms)
        return qdd, lam

    def _rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        n = self.system.n
        qdd, _ = self.accelerations(t, y[:n], y[n : 2 * n])
        if self._power is None:
            return np.concatenate([y[n:], qdd])
        return np.concatenate([y[n : 2 * n], qdd, [self._power]])

    _rank: int | None = None  # conditioned rank of Φ_q at the start (dense systems)
    _mu = 0.0  # Tikhonov regularisation of the saddle-point solve (1/kg)
    _power: float | None = None  # the last P while the work is integrated, else None

    def start(self, state: DynamicState) -> DynamicState:
        cls = INTEGRATORS[self.params["integrator"]]
        self._mu = self.params["regularisation"] / mass_scale(self.system, state.q)
        self._meter = PowerMeter(self.system)
        works = self._meter.forces or len(self._meter.drows)
        self._power = 0.0 if works else None
        y0 = np.concatenate([state.q, state.qd, [0.0] if works else []])
        self.ode = cls(
            self._rhs,
            state.t,
            y0,
            t_bound=self.settings.t_end * (1.0 + 1e-9) + 1e-12,
            rtol=self.params["rtol"],
            atol=self.params["atol"],
        )
        state.qdd, state.lam = self.accelerations(state.t, state.q, state.qd)
        self._rank = self._conditioned_rank(state.q, state.t)
        return state

    def _conditioned_rank(self, q: np.ndarray, t: float) -> int | None:
        """Singular values of Φ_q above ``SINGULAR_RATIO`` σ_max (dense systems only)."""
        s = self.system
        if s.sparse or not s.m:
            return None
        sv = np.linalg.svd(dense(s.constraints(q, None, t).phi_q), compute_uv=False)
        return int(np.sum(sv > SINGULAR_RATIO * sv[0]))

    def _check_regular(self, t: float, q: np.ndarray) -> None:
        """Stop at a singular position: there Φ_q loses rank, the index-1 accelerations
        divide by a vanishing singular value and the run either crawls (exact solve) or
        may leave on another branch of the constraint manifold (regularised solve), e.g.
        the A02 parallelogram turning into an antiparallelogram (16 J off in 0.1 s)."""
        if self._rank is None or self._conditioned_rank(q, t) >= self._rank:
            return
        raise SimulationError(
            t,
            "lagrange_baumgarte reached a singular position (the constraint Jacobian lost "
            "rank): an index-1 formulation cannot pass it reliably",
            "use central_differences, augmented_lagrangian or null_space, which pass "
            "singular positions",
        )

    def step(self, state: DynamicState, h: float) -> DynamicState:
        target = state.t + h
        ode, n = self.ode, self.system.n
        evaluations = ode.nfev
        while ode.t < target and ode.status == "running":
            message = ode.step()
            if ode.status == "failed":
                raise SimulationError(
                    ode.t,
                    f"the adaptive Runge–Kutta integrator failed ({message})",
                    "loosen rtol/atol, check the model for very stiff springs, or use an implicit formulation",
                )
            if len(self.system.force_set.contacts):
                ms = self.system.marker_state(ode.y[:n], ode.y[n : 2 * n])
                self.system.force_set.accept(ms, ode.t)
            self._check_regular(ode.t, ode.y[:n])
        y = ode.dense_output()(target) if ode.t > target else ode.y.copy()
        q, qd = y[:n], y[n : 2 * n]
        qdd, lam = self.accelerations(target, q, qd)
        extra = {"evaluations": ode.nfev - evaluations}
        if self._power is not None:
            extra["work"] = float(y[2 * n])
        return DynamicState(target, q, qd, qdd, lam, iterations=0, extra=extra)
