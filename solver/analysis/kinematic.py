"""Driven kinematic simulation: position, velocity and acceleration at every step.

The model must be fully driven: every freedom left is *passive* (a body's spin that moves
none of its joint, force or output points, e.g. the coupler of an RSSR four-bar; see
``passive``). At each step the position problem is solved by minimum-norm Newton from a
second-order prediction, then ``Φ_q q̇ = −Φ_t`` and ``Φ_q q̈ = γ`` by minimum-norm least
squares: a passive freedom is held where it is, with zero rate and acceleration of its
spin (the minimum-norm solution has no component along it). Inverse dynamics gives the multipliers, hence the power the drivers
deliver, so the energy columns balance: ``energy.work`` is the work of the drivers and
of the non-conservative forces.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.kinematics import AssemblyError, all_velocity_rows, assemble
from solver.analysis.linalg import min_norm_solve
from solver.analysis.mobility import mobility
from solver.mechanics.system import MultibodySystem
from solver.results import Frame


def driver_rows(system: MultibodySystem) -> np.ndarray:
    rows = [r for k, r in system.item_rows.items() if k.startswith("driver:")]
    return np.concatenate(rows) if rows else np.zeros(0, np.int64)


def kinematic_frames(
    system: MultibodySystem, dt: float, t_end: float, tol: float, max_iter: int
) -> Iterator[tuple[Frame, int]]:
    """Yield ``(frame, step)`` for every step ``t = k·dt`` up to ``t_end``."""
    try:
        start = assemble(system, system.q0, 0.0, tol=tol, max_iterations=max_iter)
    except AssemblyError as exc:
        raise SimulationError(
            0.0, str(exc), "correct the initial positions or the joint data"
        ) from None
    mob = mobility(system, start.q)
    if mob.active_dof > 0:
        passive = f" besides {mob.describe_passive()}" if mob.passive else ""
        raise SimulationError(
            0.0,
            "a kinematic analysis needs the motion fully driven, but "
            f"{mob.active_dof} degree(s) of freedom remain{passive}",
            "add drivers to the remaining joints, or run a dynamic analysis",
        )
    drows = driver_rows(system)
    q = start.q
    qd = qdd = np.zeros(system.n)
    work, power_prev = 0.0, None
    steps = int(round(t_end / dt))
    for k in range(steps + 1):
        t = k * dt
        if k:
            guess = q + qd * dt + 0.5 * qdd * dt * dt
            try:
                res = assemble(system, guess, t, tol=tol, max_iterations=max_iter)
            except AssemblyError as exc:
                raise SimulationError(
                    t,
                    "the position problem has no solution here: the mechanism has reached a "
                    f"limit or singular position ({exc})",
                    "check the driver functions against the mechanism's range of motion, or reduce dt",
                ) from None
            q, iterations = res.q, res.iterations
        else:
            iterations = start.iterations
        ms = system.marker_state(q, np.zeros_like(q))
        a, v, _ = all_velocity_rows(system, q, np.zeros_like(q), t, ms=ms)
        qd = min_norm_solve(a, v)
        ms = system.marker_state(q, qd)
        c = system.constraints(q, qd, t, ms)
        a, v, gamma = all_velocity_rows(system, q, qd, t, c=c, ms=ms)
        qdd = min_norm_solve(a, gamma)
        # inverse dynamics: M q̈ = Q − Aᵀ λ  →  driver power λ_dᵀ Φ_t,d
        mass = system.mass(q)
        lam = min_norm_solve(a.T, system.forces(q, qd, t, ms) - mass @ qdd)
        power = float(lam[drows] @ c.phi_t[drows]) + system.nonconservative_power(q, qd, t, ms)
        if power_prev is not None:
            work += 0.5 * (power + power_prev) * dt
        power_prev = power
        frame = Frame(
            t=t,
            q=q.copy(),
            qd=qd.copy(),
            kinetic=system.kinetic_energy(q, qd),
            potential=system.gravitational_energy(q),
            elastic=system.elastic_energy(q, ms),
            work=work,
            constraint_position=float(np.abs(c.phi).max()) if len(c.phi) else 0.0,
            constraint_velocity=float(np.abs(a @ qd - v).max()) if len(v) else 0.0,
            iterations=iterations,
            qdd=qdd.copy(),
        )
        yield frame, k
