"""Dynamic simulation: consistent initial conditions, then a formulation's steps.

Energies at every step: kinetic, gravitational, elastic, and the work of
non-conservative forces and drivers, so ``energy.total`` = T + V + V_e − W is constant for
an exact solution. Drivers: trapezoidal rule on their power λ·Φ_t. Forces (applied loads,
actuators, dampers, material damping) with a fixed-step formulation: ``W += ½ (Q_n +
Q_n+1)·(q_n+1 − q_n)`` per step, the work the trapezoidal rule itself does, so abrupt loads
and ringing high-frequency modes do not show as a drift of ``energy.total`` (see
``solver.analysis.power``). An adaptive formulation (``lagrange_baumgarte``) integrates
the work with the motion and reports it (``state.carry.work``); the loop takes it.

Contacts: every accepted state is handed to ``force_set.accept`` (the contacts commit
their onset speeds there; the adaptive formulation also hands over its internal steps),
and the contacts integrate their own work over those states (an impact is shorter than
an output step), which replaces their share of the power here. A fixed-step formulation
whose step is too large for a contact that starts is stopped (``contact.check_step``).

A step that fails is retried in substeps (``step_control``); its frame records the
smallest substep (``Frame.substep``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.analysis.compiled_steps import compiled_stepper
from solver.analysis.errors import SimulationError
from solver.analysis.formulations import DynamicState, formulation_class
from solver.analysis.kinematics import AssemblyError, assemble, consistent_velocities
from solver.analysis.power import PowerMeter
from solver.analysis.rolling_consistency import (
    check_formulation_handles_rolling,
    check_rolling_consistency,
)
from solver.analysis.step_control import StepControl
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


def state_frame(
    system: MultibodySystem, state: DynamicState, ms, work: float, substep=None
) -> Frame:
    """The frame of ``state``: its energies, ``work`` done so far (J) and constraint errors
    (``ms``: its marker state; ``MultibodySystem.frame_values``)."""
    values = system.frame_values(state.q, state.qd, state.t, ms)
    return Frame(
        t=state.t,
        q=state.q.copy(),
        qd=state.qd.copy(),
        kinetic=values[0],
        potential=values[1],
        elastic=values[2],
        work=work,
        constraint_position=values[3],
        constraint_velocity=values[4],
        iterations=state.iterations,
        qdd=None if state.qdd is None else state.qdd.copy(),
        substep=substep,
    )


def dynamic_frames(
    system: MultibodySystem,
    settings: SolverSettings,
    formulation=None,
    every: int = 1,
    sample: int = 0,
) -> Iterator[tuple[Frame, int]]:
    """Yield ``(frame, step)`` for every step up to ``settings.t_end`` (with the settings'
    formulation, or a given stepper with the same interface).

    With the settings' formulation and a model the compiled path covers
    (``solver.analysis.compiled_steps``), the steps after the first frame are compiled;
    they yield the frames of every ``every``-th and every ``sample``-th step only (and the
    last of each compiled call and of the run), whose ``iterations`` count the steps left
    out (``_CompiledStepper.thin``)."""
    built = formulation is None
    if formulation is None:
        formulation = formulation_class(settings.formulation)(system, settings)
    check_formulation_handles_rolling(system, settings.formulation, formulation)
    system.force_set.contacts.reset()
    state = initial_state(system, settings.tolerance, settings.max_iterations)
    if system.m_nh:  # conflicting no-slip conditions of wheels: a model error
        check_rolling_consistency(system, state.q, state.t)
    state = formulation.start(state)
    steps = int(round(settings.t_end / settings.dt))
    compiled = compiled_stepper(system, settings, formulation) if built else None
    if compiled is None:
        yield from numpy_frames(system, settings, formulation, state, 0, steps)
        return
    yield from numpy_frames(system, settings, formulation, state, 0, 0)
    compiled.thin(every, sample)
    yield from compiled.frames(state, steps)


def numpy_frames(
    system: MultibodySystem,
    settings: SolverSettings,
    formulation,
    state: DynamicState,
    k0: int,
    steps: int,
    first: bool = True,
    work: float = 0.0,
    last: list | None = None,
    until=None,
) -> Iterator[tuple[Frame, int]]:
    """The time loop from ``state`` at step ``k0`` to step ``steps``, or to the first step
    whose state makes ``until(state)`` true: the frame of ``state`` itself (unless ``first`` is
    false), then each step's (the work of forces goes on from ``work``, J, done up to
    ``k0``, without the contacts' own); the last state, that work at it and its step are
    appended to ``last`` if given."""
    contacts = system.force_set.contacts
    meter = PowerMeter(system)
    power_prev = None
    prev = None  # the previous step's PowerMeter.state
    # an adaptive integrator takes many steps per dt: there the power is the better record
    secant = meter.forces and not getattr(formulation, "adaptive", False)
    dt = settings.dt
    control = StepControl.for_settings(settings)  # a failed step: retried in substeps
    for k in range(k0, steps + 1):
        substep = None
        if k > k0:
            try:
                state, substep = control.step(formulation, state, dt)
            except SimulationError as exc:
                if "non-finite" not in exc.reason:
                    raise
                raise SimulationError(
                    exc.t,
                    f"the solution became non-finite with {settings.formulation} at dt = {dt:g} s",
                    "reduce dt, or use an implicit formulation (augmented_lagrangian, null_space)",
                ) from None
        ms = system.marker_state(state.q, state.qd)
        c = None  # the constraints, evaluated when the power needs them
        if state.qdd is None:
            state.qdd = np.zeros(system.n)
        if len(contacts):
            onsets = system.force_set.accept(ms, state.t)
            if not getattr(formulation, "adaptive", False):
                check_step(onsets, dt, settings.formulation)
        if state.carry is not None and state.carry.work is not None:
            work, power = state.carry.work, None  # integrated by the formulation
        else:
            if len(meter.drows):  # the drivers' power: their rows' Φ_t (and λ)
                c = system.constraints(state.q, state.qd, state.t, ms)
            power = meter(state, ms, c)  # contacts integrate their own work
            if power_prev is not None:
                work += 0.5 * (power + power_prev) * dt
        cur = meter.state(state.q, state.qd, state.t) if secant else None
        if secant and prev is not None:  # forces: ½(Q_n + Q_n+1)·Δq (PowerMeter)
            work += meter.secant_correction(prev, cur, dt)
        power_prev = power
        prev = cur
        work_done = work + (contacts.work(state.t) if len(contacts) else 0.0)
        frame = state_frame(system, state, ms, work_done, substep)
        if k > k0 or first:
            yield frame, k
        if k > k0 and until is not None and until(state):
            break
    if last is not None:
        last.extend((state, work, k))
