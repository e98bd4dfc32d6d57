"""Linearised vibration modes about a configuration (García Vallejo (2006) ch. 5 and ch. 6).

About an equilibrium ``(q₀, λ₀)`` at rest, small motions ``q = q₀ + N η`` that keep the
constraints satisfied to first order (``N`` an orthonormal basis of the null space of
``Φ_q``, Euler-parameter norms included) obey

    M̄ η̈ + C̄ η̇ + K̄ η = 0,   M̄ = Nᵀ M N,  C̄ = −Nᵀ ∂Q/∂q̇ N,
    K̄ = Nᵀ [−∂Q/∂q + ∂(Φ_qᵀ λ₀)/∂q] N,

(the constraint Hessian term is the geometric stiffness of loaded joints; the thesis's
clamped single-element eigenproblem (6.17)–(6.20) is the case λ₀ = 0 with N selecting the
free coordinates). The eigenvalues of ``K̄ u = ω² M̄ u`` are returned as ``eigenvalues`` (ω²;
a negative one is an unstable direction, e.g. a beam spun past its critical speed in a
rotating frame, García Vallejo (2006) eq. (6.18)–(6.19)), with ``omega = sign(ω²)·√|ω²|`` (rad/s),
``frequency_hz`` and mass-normalised mode shapes ``shapes`` over q (``shapesᵀ M shapes = I``).
Rigid-body modes have ω² ≈ 0. With internal damping, ``damping_ratio`` is the modal estimate
``ξ_i = φ_iᵀ C φ_i/(2 ω_i)`` (exact for damping proportional to stiffness, e.g. a uniform
material damping factor γ, where ξ = γω/2).

By default the configuration is the static equilibrium at t (``statics``), so a loaded
structure is linearised about its deflected shape (E1); ``equilibrium=False`` uses the
assembled initial configuration instead, with the multipliers that best balance the forces
there.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from solver.analysis.linalg import dense, min_norm_solve, rank_and_null_spaces
from solver.analysis.statics import _frame, initial_configuration, static_equilibrium
from solver.mechanics.system import MultibodySystem
from solver.model.description import SolverSettings
from solver.results import Frame


@dataclass
class Modes:
    """Eigenvalues (ω², ascending), circular and natural frequencies, mass-normalised shapes
    ``(n, k)`` over the coordinates q, about the configuration ``q`` at time ``t``."""

    t: float
    q: np.ndarray
    eigenvalues: np.ndarray
    shapes: np.ndarray
    damping_ratio: np.ndarray | None = None

    @property
    def omega(self) -> np.ndarray:
        return np.sign(self.eigenvalues) * np.sqrt(np.abs(self.eigenvalues))

    @property
    def frequency_hz(self) -> np.ndarray:
        return self.omega / (2.0 * np.pi)

    def __len__(self) -> int:
        return len(self.eigenvalues)

    def table(self) -> list[dict]:
        """One row per mode: ``mode`` (1-based), ``eigenvalue`` (ω², 1/s²), ``omega_rad_s``,
        ``frequency_hz`` and, when the model is damped, ``damping_ratio``."""
        rows = []
        for i, (lam, w, f) in enumerate(
            zip(self.eigenvalues, self.omega, self.frequency_hz, strict=True)
        ):
            row = {
                "mode": i + 1,
                "eigenvalue": float(lam),
                "omega_rad_s": float(w),
                "frequency_hz": float(f),
            }
            if self.damping_ratio is not None:
                row["damping_ratio"] = float(self.damping_ratio[i])
            rows.append(row)
        return rows

    def shape_configuration(self, mode: int, scale: float = 1.0) -> np.ndarray:
        """``q₀ + scale · φ`` for mode ``mode`` (1-based), e.g. to draw or animate a mode;
        φ is normalised to a largest coordinate of 1 first."""
        phi = self.shapes[:, mode - 1]
        return self.q + scale * phi / max(float(np.abs(phi).max()), 1e-300)

    def to_csv(self, path: str | os.PathLike, system: MultibodySystem | None = None) -> None:
        """The table, then the shape: columns ``mode eigenvalue omega_rad_s frequency_hz
        [damping_ratio]`` and, when ``system`` is given, its body columns (as in the results CSV:
        node positions of flexible bodies …) evaluated on the unit-amplitude shape
        ``q₀ + φ/|φ|∞`` minus those of ``q₀`` (i.e. displacements); otherwise ``q0 q1 …``."""
        rows = self.table()
        head = list(rows[0]) if rows else ["mode", "eigenvalue", "omega_rad_s", "frequency_hz"]
        if system is not None:
            names = [f"{b}.{f}" for b in system.slots for f in system.state_fields(b)]
            zero = np.zeros(len(self.q))
            base = np.concatenate(list(system.body_state(self.q, zero).values()))
        else:
            names = [f"q{i}" for i in range(len(self.q))]
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(head + names)
            for i, row in enumerate(rows):
                if system is not None:
                    moved = system.body_state(self.shape_configuration(i + 1), zero)
                    shape = np.concatenate(list(moved.values())) - base
                else:
                    phi = self.shapes[:, i]
                    shape = phi / max(float(np.abs(phi).max()), 1e-300)
                writer.writerow([repr(v) for v in row.values()] + [repr(float(v)) for v in shape])


def linear_modes(
    system: MultibodySystem,
    q: np.ndarray | None = None,
    t: float = 0.0,
    *,
    lam: np.ndarray | None = None,
    equilibrium: bool = True,
    tol: float = 1e-10,
    max_iterations: int = 25,
    load_steps: int = 1,
) -> Modes:
    """Modes about ``q`` (with multipliers ``lam``), or about the static equilibrium at ``t``
    (``equilibrium``), or about the assembled initial configuration."""
    if q is None:
        if equilibrium:
            sol = static_equilibrium(
                system, t, tol=tol, max_iterations=max_iterations, load_steps=load_steps
            )
            q, lam = sol.q, sol.lam
        else:
            q = initial_configuration(system, t, tol, max_iterations)
    q = np.asarray(q, float)
    zero = np.zeros(system.n)
    ms = system.marker_state(q, zero)
    c = system.constraints(q, zero, t, ms)
    phi_q = dense(c.phi_q)
    if lam is None:
        lam = min_norm_solve(phi_q.T, system.forces(q, zero, t, ms)) if len(c.phi) else zero[:0]
    kq, kqd = system.force_jacobians(q, zero, t, ms)
    hess, _ = system.constraint_second_order(q, zero, lam, t, ms)
    k = dense(hess) - dense(kq)
    m = dense(system.mass(q))
    cmat = -dense(kqd)
    if len(c.phi):
        _, _, _, basis = rank_and_null_spaces(phi_q)
    else:
        basis = np.eye(system.n)
    kbar = basis.T @ k @ basis
    mbar = basis.T @ m @ basis
    kbar = 0.5 * (kbar + kbar.T)
    mbar = 0.5 * (mbar + mbar.T)
    if basis.shape[1] == 0:
        return Modes(t, q, np.zeros(0), np.zeros((system.n, 0)))
    values, vectors = sla.eigh(kbar, mbar)
    shapes = basis @ vectors
    ratio = None
    if np.any(cmat):
        cbar = basis.T @ cmat @ basis
        modal_c = np.einsum("ik,ij,jk->k", vectors, cbar, vectors)
        w = np.sqrt(np.abs(values))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(w > 0, modal_c / (2.0 * w), np.inf)
    return Modes(t, q, values, shapes, ratio)


def modes_frames(
    system: MultibodySystem, settings: SolverSettings, result
) -> Iterator[tuple[Frame, int]]:
    """``biela run --analysis modes``: the modes about the static equilibrium at t = 0, or,
    when the model gives initial velocities, about that steady motion
    (``solver.analysis.steady_modes``: a vehicle running straight, a spinning rotor).

    Yields one frame (the reference state) and stores the ``Modes`` (or ``SteadyModes``)
    as ``result.modes``; ``Simulation`` copies ``result.modes.table()`` into the summary."""
    if np.any(system.qd0 != 0.0):  # initial velocities given: about the steady motion
        from solver.analysis.dynamic import initial_state, state_frame
        from solver.analysis.steady_modes import steady_motion_modes

        state = initial_state(system, settings.tolerance, max(settings.max_iterations, 50))

        result.modes = steady_motion_modes(system, state.q, state.qd, 0.0, tol=settings.tolerance)
        ms = system.marker_state(state.q, state.qd)
        yield state_frame(system, state, ms, 0.0), 0  # the steady state: no work yet
        return
    load_steps = int(settings.parameters.get("load_steps", 1) or 1)
    sol = static_equilibrium(
        system,
        0.0,
        tol=settings.tolerance,
        max_iterations=settings.max_iterations,
        load_steps=load_steps,
    )
    result.modes = linear_modes(system, sol.q, 0.0, lam=sol.lam)
    yield _frame(system, sol), 0
