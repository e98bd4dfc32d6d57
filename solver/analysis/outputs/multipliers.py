"""Accelerations and constraint multipliers at a state, from the equations of motion alone.

With ``A = [Φ_q; B]`` (holonomic and non-holonomic rows) and ``A q̈ = γ``::

    [[M, Aᵀ], [A, 0]] [q̈; λ] = [Q; γ],     M q̈ = Q − Aᵀ λ,

so the constraint forces are ``−Aᵀ λ``, the sign convention of the formulations. For
dynamic runs this is the index-1 problem at the run's ``(q, q̇, t)``; for a kinematic
analysis (fully driven) ``q̈`` is the kinematic acceleration and λ the inverse dynamics;
for a static analysis ``q̈ = 0`` and ``Aᵀ λ = Q``. With redundant constraints ``q̈`` is still
unique and λ is the minimum-norm solution (the reactions of a statically indeterminate
mechanism are not determined by rigid-body mechanics; the minimum-norm share is one choice).
"""

from __future__ import annotations

import numpy as np

from solver.analysis.kinematics import all_velocity_rows
from solver.analysis.linalg import SaddleHint, min_norm_solve, saddle_solve
from solver.mechanics.system import MultibodySystem


def accelerations_and_multipliers(
    system: MultibodySystem,
    q: np.ndarray,
    qd: np.ndarray,
    t: float,
    static: bool = False,
    hint: SaddleHint | None = None,
):
    """``(q̈, λ, A)`` at ``(q, q̇, t)``; ``static``: equilibrium (``q̈ = 0``); ``hint``:
    what the last state's solve found (``solver.analysis.linalg.SaddleHint``)."""
    ms = system.marker_state(q, qd)
    a, _, gamma = all_velocity_rows(system, q, qd, t, ms=ms)
    forces = system.forces(q, qd, t, ms)
    if static:
        qdd = np.zeros(system.n)
        lam = min_norm_solve(a.T, forces) if a.shape[0] else np.zeros(0)
        return qdd, lam, a
    qdd, lam = saddle_solve(system.mass(q), a, forces, gamma, hint=hint)
    return qdd, lam, a
