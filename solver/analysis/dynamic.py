"""Dynamic simulation: consistent initial conditions, then a formulation's steps.

Energies at every step: kinetic, gravitational, elastic, and the work of
non-conservative forces and drivers, so ``energy.total`` = T + V + V_e − W is constant for
an exact solution. Drivers: trapezoidal rule on their power λ·Φ_t. Forces (applied loads,
actuators, dampers, material damping) with a fixed-step formulation: ``W += ½ (Q_n +
Q_n+1)·(q_n+1 − q_n)`` per step, the work the trapezoidal rule itself does, so abrupt loads
and ringing high-frequency modes do not show as a drift of ``energy.total`` (see
``PowerMeter.secant_correction``). An adaptive formulation (``lagrange_baumgarte``) takes
many internal steps per dt, over which the chord Δq of a spinning body's Euler parameters
is not its path: there the trapezoidal rule on the forces' power is kept.

Contacts: every accepted state is handed to ``force_set.accept`` (the contacts commit
their onset speeds there; the adaptive formulation also hands over its internal steps),
and the contacts integrate their own work over those states (an impact is shorter than
an output step), which replaces their share of the power here. A fixed-step formulation
whose step is too large for a contact that starts is stopped (``contact.check_step``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.formulations import DynamicState, formulation_class
from solver.analysis.kinematic import driver_rows
from solver.analysis.kinematics import AssemblyError, assemble, consistent_velocities
from solver.analysis.linalg import min_norm_solve
from solver.analysis.rolling_consistency import (
    check_formulation_handles_rolling,
    check_rolling_consistency,
)
from solver.mechanics.forces.contact import check_step
from solver.mechanics.system import MultibodySystem
from solver.model.description import SolverSettings
from solver.results import Frame


def initial_state(system: MultibodySystem, tol: float, max_iter: int) -> DynamicState:
    """Assembled positions and the nearest consistent velocities at t = 0."""
    try:
        res = assemble(system, system.q0, 0.0, tol=tol, max_iterations=max_iter)
    except AssemblyError as exc:
        raise SimulationError(
            0.0, str(exc), "correct the initial positions or the joint data"
        ) from None
    qd = consistent_velocities(system, res.q, system.qd0, 0.0)
    return DynamicState(0.0, res.q, qd, iterations=res.iterations)


def velocity_error(system: MultibodySystem, state: DynamicState, c, ms) -> float:
    """``max |Φ_q q̇ + Φ_t|`` and, with rolling without slip, ``max |B q̇|``."""
    err = float(np.abs(c.phi_q @ state.qd + c.phi_t).max()) if len(c.phi) else 0.0
    if system.m_nh:
        b, _ = system.velocity_constraints(state.q, state.qd, state.t, ms)
        err = max(err, float(np.abs(b @ state.qd).max()))
    return err


class PowerMeter:
    """Power of non-conservative forces and drivers at a state (W)."""

    def __init__(self, system: MultibodySystem) -> None:
        self.system = system
        self.drows = driver_rows(system)
        fs = system.force_set
        self.elements = len(fs) > len(fs.contacts)  # force elements other than contacts
        self.kinds = [k for k in system.kinds if k.dissipative]  # internal damping
        self.forces = self.elements or bool(self.kinds)

    def _element_power(self, q: np.ndarray, v: np.ndarray, t: float) -> float:
        """Power of the non-conservative force elements (not contacts) at ``(q, v)``."""
        fs = self.system.force_set
        ms = self.system.marker_state(q, v)
        p = fs.nonconservative_power(ms, q, v, t)
        return p - fs.contacts.power(ms) if len(fs.contacts) else p

    def state(self, q: np.ndarray, qd: np.ndarray, t: float):
        """What ``secant_correction`` needs of an accepted state: ``(q, q̇, t, P, Q_d)``, P
        the force elements' power, Q_d the body kinds' damping forces
        (``BodyKind.dissipative_forces``) or ``None``."""
        qk = None
        for kind in self.kinds:
            f = kind.dissipative_forces(q, qd)
            qk = f if qk is None else qk + f
        power = self._element_power(q, qd, t) if self.elements else 0.0
        return q.copy(), qd.copy(), t, power, qk

    def secant_correction(self, prev, cur, dt: float) -> float:
        """``½ (Q_n + Q_n+1)·Δq − ½ Δt (Q_n·q̇_n + Q_n+1·q̇_n+1)``: turns the trapezoidal
        rule on the forces' power into their work along the step (``prev``/``cur`` from
        ``state``). ``Q·w`` of the force elements comes from their power P(v) = Q(q, v)·v by
        polarisation, ``½ [P(q̇ + w) − P(q̇) − P(−w)]``: exact for forces affine in the
        velocities with a symmetric velocity part (applied loads, actuators, viscous
        dampers: every force element but contact friction)."""
        v = (cur[0] - prev[0]) / dt
        out = 0.0
        for q, qd, t, power, qk in (prev, cur):
            w = v - qd
            if self.elements:
                p = self._element_power
                out += 0.5 * (p(q, v, t) - power - p(q, -w, t))
            if qk is not None:
                out += float(qk @ w)
        return 0.5 * dt * out

    def __call__(self, state: DynamicState, ms, c) -> float:
        s = self.system
        power = s.nonconservative_power(state.q, state.qd, state.t, ms)
        if len(self.drows):
            lam = state.lam
            if lam is not None and len(lam) == s.m + s.m_nh:  # [holonomic; no-slip rows]
                lam = lam[: s.m]
            if lam is None or len(lam) != s.m:
                rhs = s.forces(state.q, state.qd, state.t, ms) - s.mass(state.q) @ state.qdd
                lam = min_norm_solve(c.phi_q.T, rhs)
            power += float(lam[self.drows] @ c.phi_t[self.drows])
        return power


def dynamic_frames(
    system: MultibodySystem, settings: SolverSettings, formulation=None
) -> Iterator[tuple[Frame, int]]:
    """Yield ``(frame, step)`` for every step up to ``settings.t_end`` (with the settings'
    formulation, or a given stepper with the same interface)."""
    if formulation is None:
        formulation = formulation_class(settings.formulation)(system, settings)
    check_formulation_handles_rolling(system, settings.formulation, formulation)
    contacts = system.force_set.contacts
    contacts.reset()
    state = initial_state(system, settings.tolerance, settings.max_iterations)
    if system.m_nh:  # conflicting no-slip conditions of wheels: a model error
        check_rolling_consistency(system, state.q, state.t)
    state = formulation.start(state)
    meter = PowerMeter(system)
    work, power_prev = 0.0, None
    prev = None  # the previous step's PowerMeter.state
    # an adaptive integrator takes many steps per dt: there the power is the better record
    secant = meter.forces and not getattr(formulation, "adaptive", False)
    dt = settings.dt
    steps = int(round(settings.t_end / dt))
    for k in range(steps + 1):
        if k:
            state = formulation.step(state, dt)
            if not (np.all(np.isfinite(state.q)) and np.all(np.isfinite(state.qd))):
                raise SimulationError(
                    state.t,
                    f"the solution became non-finite with {settings.formulation} at dt = {dt:g} s",
                    "reduce dt, or use an implicit formulation (augmented_lagrangian, null_space)",
                )
        ms = system.marker_state(state.q, state.qd)
        c = system.constraints(state.q, state.qd, state.t, ms)
        if state.qdd is None:
            state.qdd = np.zeros(system.n)
        power = meter(state, ms, c)
        if len(contacts):
            onsets = system.force_set.accept(ms, state.t)
            if not getattr(formulation, "adaptive", False):
                check_step(onsets, dt, settings.formulation)
            power -= contacts.power(ms)  # integrated by the contacts themselves
        if power_prev is not None:
            work += 0.5 * (power + power_prev) * dt
        cur = meter.state(state.q, state.qd, state.t) if secant else None
        if secant and prev is not None:  # forces: ½(Q_n + Q_n+1)·Δq (PowerMeter)
            work += meter.secant_correction(prev, cur, dt)
        power_prev = power
        prev = cur
        frame = Frame(
            t=state.t,
            q=state.q.copy(),
            qd=state.qd.copy(),
            kinetic=system.kinetic_energy(state.q, state.qd),
            potential=system.gravitational_energy(state.q),
            elastic=system.elastic_energy(state.q, ms),
            work=work + (contacts.work(state.t) if len(contacts) else 0.0),
            constraint_position=float(np.abs(c.phi).max()) if len(c.phi) else 0.0,
            constraint_velocity=velocity_error(system, state, c, ms),
            iterations=state.iterations,
            qdd=None if state.qdd is None else state.qdd.copy(),
        )
        yield frame, k
