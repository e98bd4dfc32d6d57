"""Index-1 Lagrange multipliers with Baumgarte stabilisation, adaptive explicit Runge–Kutta.

The accelerations come from (Villar Alegría (2018) §1.7, eq. 52 and 56)

    [[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [Q; γ − 2α Φ̇ − β² Φ],   Φ̇ = Φ_q q̇ + Φ_t,

and ``y = [q, q̇]`` is integrated by an adaptive explicit Runge–Kutta pair (``RK45``:
Dormand–Prince 5(4), ``RK23``: Bogacki–Shampine 3(2), ``DOP853``; tolerances ``rtol``,
``atol``). They run compiled, step after step in one call on the compiled accelerations
(``solver.analysis.compiled_runge_kutta``); models with ANCF sliding joints take SciPy's
integrator of the same name, on the same compiled accelerations. The integrator chooses
its own steps; the formulation returns the state at every multiple of ``dt`` from the
integrator's dense output, so ``dt`` only sets the output grid and the energy
bookkeeping. With α = β = 0 the constraints drift; α, β > 0 (default 5, as Flores
suggests) damp the drift. Redundant constraints are tolerated (least-squares
saddle-point solve). Every internal step the integrator accepts is handed to the
contacts (``force_set.accept``), which commit their impact state there; the step control
itself adapts to the impacts (``adaptive``).

Singular positions (Φ_q loses rank, e.g. the A02 links all horizontal): the saddle-point
solve is Tikhonov-regularised (``regularisation`` μ, relative to the mass scale), so the
accelerations stay bounded instead of dividing by the vanishing singular value (which made
the step control crawl: 373 000 right-hand sides in 1 ms of A02). Past such a point an
index-1 solution may continue on another branch of the constraint manifold (A02: the
parallelogram turned antiparallelogram, 16 J off). So when a singular value of Φ_q falls
below ``SINGULAR_RATIO`` σ_max the output step is taken again from its start by the index-3
augmented Lagrangian (``BRIDGE_SUBSTEPS`` steps, ``_bridge``), and so on until the state is
away from the singular position, where the Runge–Kutta integrator restarts; those frames
carry ``LBCarry.bridged``. Models with contacts or rolling wheels stop there instead.

The work of non-conservative forces and drivers (not contacts, which book their own) is
integrated with the motion as one more state, ``Ẇ = P(q, q̇, t, λ)``, so it is as accurate
as the trajectory (``state.carry.work``, J, from the start).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import Carry, DynamicState, Formulation
from solver.analysis.formulations.trapezoidal import mass_scale
from solver.analysis.linalg import dense
from solver.analysis.power import PowerMeter
from solver.lazy_scipy import integrate

#: A singular value of Φ_q that falls below this fraction of the largest during a run
#: marks a singular position (``_regular``).
SINGULAR_RATIO = 1e-3
#: Augmented-Lagrangian steps per output step while bridging a singular position.
BRIDGE_SUBSTEPS = 10
#: the smallest relative tolerance the integrator takes (100 ε, as SciPy's integrators):
#: below it the step size control would ask for more than the rounding of y allows
RTOL_MIN = 100 * np.finfo(float).eps
FAILED_HINT = (
    "loosen rtol/atol, check the model for very stiff springs, or use an implicit formulation"
)


@dataclass
class LBCarry(Carry):
    """What a Lagrange–Baumgarte output step reports besides the work (``Carry.work``,
    with non-conservative forces or drivers): ``bridged`` whether the augmented
    Lagrangian took it (near a singular position), ``evaluations`` the right-hand sides
    the Runge–Kutta integrator evaluated for it."""

    bridged: bool = False
    evaluations: int = 0


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
        """``(q̈, λ)`` at ``(t, q, q̇)`` (compiled: ``solver.compiled.lagrange_baumgarte``);
        the power of forces and drivers into ``_power`` while the work is integrated."""
        qdd, lam, power = self._core.evaluate(t, q, qd)
        if self._power is not None:
            self._power = power
        return qdd, lam

    def _rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        n = self.system.n
        qdd, _ = self.accelerations(t, y[:n], y[n : 2 * n])
        if self._power is None:
            return np.concatenate([y[n:], qdd])
        return np.concatenate([y[n : 2 * n], qdd, [self._power]])

    _bridging = False  # near a singular position: steps by the augmented Lagrangian
    _rank: int | None = None  # conditioned rank of Φ_q at the start (dense systems)
    _mu = 0.0  # Tikhonov regularisation of the saddle-point solve (1/kg)
    _power: float | None = None  # the last P while the work is integrated, else None
    _core = None  # the compiled accelerations and integrator (CompiledRungeKutta), from start
    _rk = None  # _core where it integrates the run, else None (SciPy's integrator)
    ode = None  # SciPy's integrator, where the compiled one does not take the run
    _dense = None  # (integrator, its t, its dense output) of the last step interpolated

    def start(self, state: DynamicState) -> DynamicState:
        self._mu = self.params["regularisation"] / mass_scale(self.system, state.q)
        self._meter = PowerMeter(self.system)
        works = self._meter.forces or len(self._meter.drows)
        self._power = 0.0 if works else None
        self._rank = self._conditioned_rank(state.q, state.t)
        self._core = self._compiled_core()
        self._rk = self._core if self._integrates_compiled() else None
        self._start_ode(state.t, state.q, state.qd, 0.0)
        if self._rk is None:
            state.qdd, state.lam = self.accelerations(state.t, state.q, state.qd)
        else:  # (the compiled integrator starts here)
            self._rk.advance(state.t)
            state.qdd, state.lam = self._rk.out.qdd[0].copy(), self._rk.out.lam[0].copy()
        return state

    def _t_bound(self) -> float:
        return self.settings.t_end * (1.0 + 1e-9) + 1e-12

    def _integrates_compiled(self) -> bool:
        """Whether the compiled integrator takes the run: not with an ANCF sliding joint,
        whose position the accelerations check in Python at every right-hand side."""
        return not self.system.blocks

    def _compiled_core(self):
        """The compiled accelerations and Runge–Kutta integrator of this run
        (``solver.analysis.compiled_runge_kutta``)."""
        from solver.analysis.compiled_runge_kutta import CompiledRungeKutta, tableau
        from solver.compiled.lagrange_baumgarte import RKSettings

        tab = tableau(self.params["integrator"])
        p = self.params
        cfg = RKSettings(
            max(float(p["rtol"]), RTOL_MIN), float(p["atol"]), self._t_bound(),
            float(p["baumgarte_alpha"]), float(p["baumgarte_beta"]), float(self._mu), 0.0,
            -1 if self._rank is None else int(self._rank), SINGULAR_RATIO,
            self._power is not None,
        )  # fmt: skip
        return CompiledRungeKutta(self.system, tab, cfg)

    def _start_ode(self, t: float, q, qd, work: float) -> None:
        """The integrator from ``(t, q, q̇)`` with the work ``work`` done (J): the compiled
        one where it takes the run, else SciPy's."""
        y0 = np.concatenate([q, qd, [work] if self._power is not None else []])
        if self._rk is not None:
            self._rk.start(t, y0)
            return
        cls = getattr(integrate, self.params["integrator"])  # SciPy's class of that name
        self.ode = cls(
            self._rhs,
            t,
            y0,
            t_bound=self._t_bound(),
            rtol=self.params["rtol"],
            atol=self.params["atol"],
        )

    def _interpolant(self, ode):
        """The integrator's dense output over its last step, built once per step (DOP853's
        costs three more right-hand sides; several output times may fall in one step)."""
        kept = self._dense
        if kept is None or kept[0] is not ode or kept[1] != ode.t:
            kept = self._dense = (ode, ode.t, ode.dense_output())
        return kept[2]

    def _conditioned_rank(self, q: np.ndarray, t: float) -> int | None:
        """Singular values of Φ_q above ``SINGULAR_RATIO`` σ_max (dense systems with joint
        rows only: the Euler-parameter norm rows of different bodies, ``2 pᵀ`` with p ≠ 0,
        never lose rank)."""
        s = self.system
        if s.sparse or s.m == s.n_norm:
            return None
        sv = np.linalg.svd(dense(s.position_constraints(q, t)[1]), compute_uv=False)
        return int(np.sum(sv > SINGULAR_RATIO * sv[0]))

    def _regular(self, t: float, q: np.ndarray) -> bool:
        """False near a singular position: a singular value of Φ_q has fallen below
        ``SINGULAR_RATIO`` σ_max (the conditioned rank is below the start's)."""
        return self._rank is None or self._conditioned_rank(q, t) >= self._rank

    def _bridge(self, state: DynamicState, h: float) -> DynamicState:
        """From the output state ``state`` to ``state.t + h`` with ``BRIDGE_SUBSTEPS`` steps
        of the index-3 augmented Lagrangian (trapezoidal rule, projections; Newton
        tolerance at most 1e-12), which passes singular positions; the work of forces
        and drivers by the trapezoidal rule on their power. Once the end state is away
        from the singular position the Runge–Kutta integrator restarts there."""
        s = self.system
        if s.m_nh or len(s.force_set.contacts):
            raise SimulationError(
                state.t,
                "lagrange_baumgarte reached a singular position (the constraint Jacobian "
                "lost rank) in a model with contacts or rolling wheels, where it cannot "
                "bridge it",
                "use augmented_lagrangian or central_differences",
            )
        from solver.analysis.formulations.augmented_lagrangian import AugmentedLagrangian

        settings = replace(
            self.settings,
            formulation="augmented_lagrangian",
            parameters={},
            tolerance=min(self.settings.tolerance, 1e-12),
        )
        bridge = AugmentedLagrangian(s, settings)
        cur = bridge.start(DynamicState(state.t, state.q.copy(), state.qd.copy()))
        work = 0.0 if state.carry is None or state.carry.work is None else state.carry.work
        power = self._bridge_power(cur)
        iterations = 0
        for k in range(1, BRIDGE_SUBSTEPS + 1):
            sub = state.t + h * k / BRIDGE_SUBSTEPS - cur.t
            cur = bridge.step(cur, sub)
            iterations += cur.iterations
            if self._power is not None:
                new = self._bridge_power(cur)
                work += 0.5 * (power + new) * sub
                power = new
        self._bridging = not self._regular(cur.t, cur.q)
        if not self._bridging:
            self._start_ode(cur.t, cur.q, cur.qd, work)
        carry = LBCarry(work=work if self._power is not None else None, bridged=True)
        return DynamicState(cur.t, cur.q, cur.qd, cur.qdd, cur.lam, iterations, carry)

    def _bridge_power(self, state: DynamicState) -> float:
        if self._power is None:
            return 0.0
        s = self.system
        ms = s.marker_state(state.q, state.qd)
        return self._meter(state, ms, s.constraints(state.q, state.qd, state.t, ms))

    def step(self, state: DynamicState, h: float) -> DynamicState:
        if self._bridging:
            return self._bridge(state, h)
        if self._rk is not None:
            return self._compiled_step(state, h)
        target = state.t + h
        ode, n = self.ode, self.system.n
        evaluations = ode.nfev
        while ode.t < target and ode.status == "running":
            message = ode.step()
            if ode.status == "failed":
                raise SimulationError(
                    ode.t, f"the adaptive Runge–Kutta integrator failed ({message})", FAILED_HINT
                )
            if len(self.system.force_set.contacts):
                ms = self.system.marker_state(ode.y[:n], ode.y[n : 2 * n])
                self.system.force_set.accept(ms, ode.t)
            if not self._regular(ode.t, ode.y[:n]):  # this output step, bridged instead
                self._bridging = True
                return self._bridge(state, h)
        y = self._interpolant(ode)(target) if ode.t > target else ode.y.copy()
        qdd, lam = self.accelerations(target, y[:n], y[n : 2 * n])
        return self._output(target, y, qdd, lam, ode.nfev - evaluations)

    def _output(self, t: float, y, qdd, lam, evaluations: int) -> DynamicState:
        """The output state at ``t`` from the integrator's ``y`` and the accelerations and
        multipliers there."""
        n = self.system.n
        carry = LBCarry(
            work=float(y[2 * n]) if self._power is not None else None, evaluations=evaluations
        )
        return DynamicState(t, y[:n].copy(), y[n : 2 * n].copy(), qdd, lam, 0, carry)

    def _compiled_step(self, state: DynamicState, h: float) -> DynamicState:
        """:meth:`step` by the compiled integrator, which commits the contacts at the
        steps it accepts (their events read after each call, ``Contacts.drain``)."""
        from solver.compiled import lagrange_baumgarte as clb

        rk, s = self._rk, self.system
        contacts = s.force_set.contacts
        target = state.t + h
        before = rk.clock[clb.NFEV]
        done = 0
        while not done:
            status, done = rk.advance(target)
            if len(contacts):
                contacts.drain()
            if status == clb.STATUS_SMALL:
                raise SimulationError(
                    float(rk.clock[clb.T]),
                    "the adaptive Runge–Kutta integrator failed (the step size fell below the "
                    "spacing of the floating-point numbers)",
                    FAILED_HINT,
                )
            if status == clb.STATUS_SINGULAR:  # this output step, bridged instead
                self._bridging = True
                return self._bridge(state, h)
        out, evaluations = rk.out, int(rk.clock[clb.NFEV] - before)
        return self._output(target, out.y[0], out.qdd[0].copy(), out.lam[0].copy(), evaluations)
