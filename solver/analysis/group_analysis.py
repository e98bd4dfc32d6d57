"""Kinematic and dynamic analyses by the structural-group method: the time loops behind
``structural_groups.structural_group_frames`` (same frames, energies and work as
``kinematic.kinematic_frames`` and ``dynamic.dynamic_frames``).

* Kinematics (Saura et al. KIN): at every step the position problem from a second-order
  prediction, then velocities and accelerations, group by group; the driver work comes
  from the multipliers of inverse dynamics, ``Φ_qᵀ λ = Q − M q̈``, solved by the
  transposed block-triangular system (groups in reverse order).
* Dynamics (Saura et al. DIN): ``group_dynamics.GroupRMatrix`` (``null_space`` with
  ``method: r_matrix``) or ``group_dynamics.GroupPenalty`` (``penalty``) as the stepper
  of the usual dynamic time loop (``dynamic.dynamic_frames``).
"""

from __future__ import annotations

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.group_dynamics import GroupPenalty, GroupRMatrix
from solver.analysis.group_kinematics import GroupKinematics
from solver.analysis.kinematic import driver_rows
from solver.analysis.kinematics import AssemblyError, assemble
from solver.analysis.structural_groups import (
    NoDecomposition,
    choose_inputs,
    decompose,
    require_natural,
)
from solver.results import Frame

#: penalty parameters of Saura et al. (α, ξ, ω) and its corrector tolerance
PENALTY_DEFAULTS = {"penalty": 1e7, "xi": 1.0, "omega": 10.0}
CORRECTOR_TOLERANCE = 1e-5


def _assembled(system, settings) -> np.ndarray:
    try:
        return assemble(
            system, system.q0, 0.0, tol=settings.tolerance, max_iterations=settings.max_iterations
        ).q
    except AssemblyError as exc:
        raise SimulationError(
            0.0, str(exc), "correct the initial positions or the joint data"
        ) from None


class KinematicPlan:
    def __init__(self, system, settings) -> None:
        require_natural(system)
        self.system, self.settings = system, settings
        try:
            self.q0 = _assembled(system, settings)
        except SimulationError as exc:
            raise NoDecomposition(exc.message) from None
        if system.m != system.n:
            raise NoDecomposition(
                "a kinematic analysis by structural groups needs the motion fully driven "
                f"({system.n} coordinates, {system.m} equations)"
            )
        self.decomposition = decompose(system, self.q0, [])
        self.summary = "structural groups: " + self.decomposition.summary()

    def frames(self):
        s, st = self.system, self.settings
        kin = GroupKinematics(s, self.decomposition, st.tolerance, st.max_iterations)
        mass = s.mass(self.q0)
        drows = driver_rows(s)
        q = self.q0
        qd = qdd = np.zeros(s.n)
        work, power_prev = 0.0, None
        dt = st.dt
        for k in range(int(round(st.t_end / dt)) + 1):
            t = k * dt
            guess = q + qd * dt + 0.5 * qdd * dt * dt if k else q
            q, iterations = kin.position(guess, t)
            qd = kin.velocity()
            qdd = kin.acceleration(q, qd, t)
            ms = s.marker_state(q, qd)
            c = s.constraints(q, qd, t, ms)
            lam = kin.multipliers(s.forces(q, qd, t, ms) - mass @ qdd)
            power = float(lam[drows] @ c.phi_t[drows]) + s.nonconservative_power(q, qd, t, ms)
            if power_prev is not None:
                work += 0.5 * (power + power_prev) * dt
            power_prev = power
            yield (
                Frame(
                    t=t,
                    q=q.copy(),
                    qd=qd.copy(),
                    kinetic=s.kinetic_energy(q, qd),
                    potential=s.gravitational_energy(q),
                    elastic=s.elastic_energy(q, ms),
                    work=work,
                    constraint_position=float(np.abs(c.phi).max()) if len(c.phi) else 0.0,
                    constraint_velocity=float(np.abs(c.phi_q @ qd + c.phi_t).max())
                    if len(c.phi)
                    else 0.0,
                    iterations=iterations,
                    qdd=qdd.copy(),
                ),
                k,
            )


class DynamicPlan:
    def __init__(self, system, settings) -> None:
        from solver.analysis.dynamic import initial_state

        require_natural(system)
        if system.m_nh:
            raise NoDecomposition("velocity-level constraints (rolling without slip)")
        self.system, self.settings = system, settings
        self.state = initial_state(system, settings.tolerance, settings.max_iterations)
        inputs = choose_inputs(system, self.state.q)
        self.decomposition = decompose(system, self.state.q, inputs)
        params = settings.parameters
        if settings.formulation == "penalty":
            p = {k: params.get(k, v) for k, v in PENALTY_DEFAULTS.items()}
            self.stepper = GroupPenalty(
                system,
                self.decomposition,
                p["penalty"],
                p["xi"],
                p["omega"],
                corrector_tolerance=CORRECTOR_TOLERANCE,
            )
        else:
            self.stepper = GroupRMatrix(
                system,
                self.decomposition,
                settings.tolerance,
                settings.max_iterations,
                corrector_tolerance=CORRECTOR_TOLERANCE,
            )
        self.summary = f"structural groups ({self.stepper.name}): " + self.decomposition.summary()

    def frames(self):
        from solver.analysis.dynamic import dynamic_frames

        return dynamic_frames(self.system, self.settings, formulation=self.stepper)
