"""Static equilibrium: Newton–Raphson with load stepping (García Vallejo (2006) ch. 5).

Equilibrium at time t (loads and drivers at t, velocities zero):

    R(q, λ) = [ Φ_qᵀ λ − Q(q, 0, t) ;  Φ(q, t) ] = 0,

solved by Newton with the exact tangent

    [[K_T, Φ_qᵀ], [Φ_q, 0]] [Δq; Δλ] = −R,   K_T = −∂Q/∂q + ∂(Φ_qᵀ λ)/∂q,

(the analytic elastic Jacobians of the ANCF elements, García Vallejo (2006) eq. (3.32), and the
exact constraint Hessians), with a minimum-norm solve when constraints are redundant (planar beams
in the spatial system give some, see ``ancf.kind``). Converged when the position correction is
below ``tol·max(1, |q|∞)`` and ``|Φ|∞ ≤ tol``.

**Load stepping.** The external loads (gravity and the force elements) are applied as
``s·Q_ext`` with the flexible elements' elastic forces always complete
(``MultibodySystem.elastic_forces``);
``s`` goes from 0 (the assembled, unstressed initial configuration) to 1 in increments that
start at ``1/load_steps``, halve when Newton fails and double after a success. Later
instants of a quasi-static run start from the previous equilibrium and sub-divide the time
interval the same way.

**Quasi-static run** (``biela run --analysis static``): one equilibrium per output instant
``t = 0, output_dt, …, t_end`` (loads and drivers follow their time functions); frames have
zero velocities, and ``energy.work`` is the work of the loads since the first frame, which on
a quasi-static path is the change of stored energy (so ``energy.total`` stays at its first
value and the summary's energy drift is 0).

Parameters (``solver.parameters``): ``load_steps`` (the first increment is ``1/load_steps``;
default 1, i.e. try the full load first).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from solver.analysis.errors import SimulationError
from solver.analysis.kinematics import AssemblyError, assemble, normalise_quaternions
from solver.analysis.linalg import saddle_solve
from solver.mechanics.system import MultibodySystem
from solver.model.description import SolverSettings
from solver.results import Frame

#: Smallest load (or time) increment, as a fraction of the whole, before giving up.
MIN_INCREMENT = 1.0 / 4096


@dataclass
class StaticSolution:
    """An equilibrium: positions, multipliers (constraint forces ``−Φ_qᵀλ``), and effort."""

    t: float
    q: np.ndarray
    lam: np.ndarray
    iterations: int = 0
    increments: int = 0
    residual: float = 0.0
    history: list[float] = field(default_factory=list)


def kkt_solve(k, a, f: np.ndarray, g: np.ndarray, scale: float):
    """``[[K, Aᵀ], [A, −εI]] [x; μ] = [f; g]`` with ``ε = 10⁻¹⁰ scale``: the tiny
    regularisation makes redundant (and identically zero) constraint rows harmless — their
    multipliers share the load as in a minimum-norm solution — so one LU factorisation
    (dense LAPACK or sparse SuperLU) always applies; falls back to ``saddle_solve``."""
    n, m = len(f), len(g)
    eps = 1e-10 * scale
    rhs = np.concatenate([f, g])
    try:
        if sp.issparse(k) or sp.issparse(a):
            kkt = sp.bmat(
                [[sp.csr_matrix(k), sp.csr_matrix(a).T], [sp.csr_matrix(a), -eps * sp.identity(m)]],
                format="csc",
            )
            sol = spla.splu(kkt).solve(rhs)
        else:
            kkt = np.zeros((n + m, n + m))
            kkt[:n, :n] = k
            kkt[:n, n:] = np.asarray(a).T
            kkt[n:, :n] = a
            kkt[n:, n:] = -eps * np.eye(m)
            with warnings.catch_warnings():  # ill-conditioning is judged by the result below
                warnings.simplefilter("ignore", sla.LinAlgWarning)
                sol = sla.solve(kkt, rhs, check_finite=False)
        if np.all(np.isfinite(sol)):
            return sol[:n], sol[n:]
    except (RuntimeError, ValueError, np.linalg.LinAlgError):
        pass
    return saddle_solve(k, a, f, g)


class StaticSolver:
    """Newton iterations for the equilibrium of ``system`` (see the module docstring)."""

    def __init__(
        self, system: MultibodySystem, tol: float = 1e-10, max_iterations: int = 25
    ) -> None:
        self.system = system
        self.tol = tol
        self.max_iterations = max_iterations
        self.zero = np.zeros(system.n)

    def forces(self, q: np.ndarray, t: float, s: float, jacobian: bool = True):
        """``Q = Q_int + s Q_ext`` and ``∂Q/∂q`` at ``(q, q̇ = 0, t)``."""
        sysm = self.system
        ms = sysm.marker_state(q, self.zero)
        full = sysm.forces(q, self.zero, t, ms)
        if s == 1.0:
            internal, kint = 0.0, None
        else:
            internal, kint = sysm.elastic_forces(q, t, jacobian)
        force = s * full + (1.0 - s) * internal
        if not jacobian:
            return force, None, ms
        kfull, _ = sysm.force_jacobians(q, self.zero, t, ms)
        if s != 1.0:
            kfull = s * kfull + (1.0 - s) * kint
        return force, kfull, ms

    def _residuals(self, q, lam, t, s):
        force, _, ms = self.forces(q, t, s, jacobian=False)
        c = self.system.constraints(q, self.zero, t, ms)
        return c.phi_q.T @ lam - force, c.phi

    def newton(self, q: np.ndarray, lam: np.ndarray, t: float, s: float = 1.0):
        """Equilibrium at ``(t, s)`` from ``(q, λ)``: ``(q, λ, iterations, converged)``.

        Plain Newton steps (a residual line search hinders beams, whose full steps first
        raise the axial forces); robustness comes from the load stepping. Converged when the
        position correction is below the tolerance, the multiplier correction below 10⁻⁶
        of the multipliers, the forces balance to 10⁻⁶ of their size (both up to a
        round-off floor) and ``|Φ|∞ ≤ tol``."""
        sysm = self.system
        q = normalise_quaternions(sysm, np.array(q, float))
        lam = np.array(lam, float)
        tol_q = self.tol * max(1.0, float(np.abs(q).max()) if len(q) else 1.0)
        for it in range(1, self.max_iterations + 1):
            force, kq, ms = self.forces(q, t, s)
            c = sysm.constraints(q, self.zero, t, ms)
            r1 = c.phi_q.T @ lam - force
            hess, _ = sysm.constraint_second_order(q, self.zero, lam, t, ms)
            tangent = hess - kq
            # balance the constraint rows against the stiffness (λ = α μ) so that the
            # factorisation does not treat them as negligible
            diag = tangent.diagonal() if sp.issparse(tangent) else np.diag(tangent)
            alpha = max(
                float(np.abs(diag).max()) if len(diag) else 0.0,
                float(np.abs(force).max()) if len(force) else 0.0,
                1e-12,
            )
            try:
                dq, dmu = kkt_solve(tangent, alpha * c.phi_q, -r1, -alpha * c.phi, alpha)
            except (ValueError, RuntimeError, np.linalg.LinAlgError):
                return q, lam, it, False
            dlam = alpha * dmu
            if not (np.all(np.isfinite(dq)) and np.all(np.isfinite(dlam))):
                return q, lam, it, False
            q, lam = q + dq, lam + dlam
            err_q = float(np.abs(dq).max()) if len(dq) else 0.0
            err_lam = float(np.abs(dlam).max()) if len(dlam) else 0.0
            lam_scale = float(np.abs(lam).max()) if len(lam) else 0.0
            floor = 1e3 * np.finfo(float).eps * alpha * max(1.0, float(np.abs(q).max()))
            if err_q > tol_q or err_lam > 1e-6 * lam_scale + floor:
                continue
            rn, phi = self._residuals(q, lam, t, s)
            f_scale = max(float(np.abs(force).max()) if len(force) else 0.0, lam_scale)
            balanced = float(np.abs(rn).max()) if len(rn) else 0.0
            if balanced <= 1e-6 * f_scale + floor and (
                len(phi) == 0 or float(np.abs(phi).max()) <= self.tol
            ):
                return q, lam, it, True
        return q, lam, self.max_iterations, False

    def residual(self, q: np.ndarray, lam: np.ndarray, t: float) -> float:
        force, _, ms = self.forces(q, t, 1.0, jacobian=False)
        c = self.system.constraints(q, self.zero, t, ms)
        return float(np.abs(c.phi_q.T @ lam - force).max()) if len(q) else 0.0

    def continuation(self, q, lam, t0: float, t1: float, s0: float, s1: float, first: float):
        """Follow the equilibrium from ``(t0, s0)`` to ``(t1, s1)`` in adaptive increments."""
        pos, step = 0.0, min(1.0, first)
        total_it = increments = 0
        while pos < 1.0:
            step = min(step, 1.0 - pos)
            nxt = pos + step
            t = t0 + (t1 - t0) * nxt
            s = s0 + (s1 - s0) * nxt
            qn, lamn, it, ok = self.newton(q, lam, t, s)
            total_it += it
            if ok:
                q, lam, pos = qn, lamn, nxt
                increments += 1
                step *= 2.0
            else:
                step *= 0.5
                if step < MIN_INCREMENT:
                    raise SimulationError(
                        t,
                        "no static equilibrium found: Newton did not converge even with a "
                        f"load or time increment of {step:.2g} of the whole"
                        + (f" (at load factor {s:.3g})" if s1 != s0 else ""),
                        "check that every rigid-body motion is restrained (a mechanism has no "
                        "static equilibrium against loads in its free directions), or raise "
                        "max_iterations",
                    )
        return q, lam, total_it, increments


def initial_configuration(system: MultibodySystem, t: float, tol: float, max_iterations: int):
    try:
        return assemble(system, system.q0, t, tol=tol, max_iterations=max(max_iterations, 50)).q
    except AssemblyError as exc:
        raise SimulationError(
            t, str(exc), "correct the initial positions or the joint data"
        ) from None


def static_equilibrium(
    system: MultibodySystem,
    t: float = 0.0,
    q: np.ndarray | None = None,
    *,
    tol: float = 1e-10,
    max_iterations: int = 25,
    load_steps: int = 1,
) -> StaticSolution:
    """The equilibrium at time ``t`` under the full loads, by load stepping from the
    assembled initial configuration (or from ``q``, taken as unloaded). Raises
    ``SimulationError`` when none is found."""
    solver = StaticSolver(system, tol, max_iterations)
    if q is None:
        q = initial_configuration(system, t, tol, max_iterations)
    lam = np.zeros(system.m)
    q, lam, it, inc = solver.continuation(q, lam, t, t, 0.0, 1.0, 1.0 / max(1, int(load_steps)))
    return StaticSolution(t, q, lam, it, inc, solver.residual(q, lam, t))


def _frame(system: MultibodySystem, sol: StaticSolution, stored0: float | None = None) -> Frame:
    """A frame at an equilibrium; ``energy.work`` is the work of the loads along the
    quasi-static path, which equals the change of stored energy (potential + elastic) since
    the first frame (``stored0``)."""
    zero = np.zeros(system.n)
    ms = system.marker_state(sol.q, zero)
    c = system.constraints(sol.q, zero, sol.t, ms)
    potential = system.gravitational_energy(sol.q)
    elastic = system.elastic_energy(sol.q, ms)
    return Frame(
        t=sol.t,
        q=sol.q.copy(),
        qd=zero.copy(),
        kinetic=0.0,
        potential=potential,
        elastic=elastic,
        work=0.0 if stored0 is None else potential + elastic - stored0,
        constraint_position=float(np.abs(c.phi).max()) if len(c.phi) else 0.0,
        constraint_velocity=float(np.abs(c.phi_t).max()) if len(c.phi) else 0.0,
        iterations=sol.iterations,
    )


def static_frames(system: MultibodySystem, settings: SolverSettings) -> Iterator[tuple[Frame, int]]:
    """Quasi-static run: ``(frame, step)`` at every output instant (module docstring)."""
    tol, max_it = settings.tolerance, settings.max_iterations
    load_steps = int(settings.parameters.get("load_steps", 1) or 1)
    sol = static_equilibrium(system, 0.0, tol=tol, max_iterations=max_it, load_steps=load_steps)
    first = _frame(system, sol)
    stored0 = first.potential + first.elastic
    yield first, 0
    dt = settings.dt
    steps = int(round(settings.t_end / dt))
    every = max(1, int(round((settings.output_dt or dt) / dt)))
    ks = list(range(every, steps + 1, every))
    if steps and (not ks or ks[-1] != steps):
        ks.append(steps)
    solver = StaticSolver(system, tol, max_it)
    t_prev = 0.0
    for k in ks:
        t = k * dt
        q, lam, it, inc = solver.continuation(sol.q, sol.lam, t_prev, t, 1.0, 1.0, 1.0)
        sol = StaticSolution(t, q, lam, it, inc)
        t_prev = t
        yield _frame(system, sol, stored0), k
