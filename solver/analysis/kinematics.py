"""Position, velocity and acceleration problems.

* ``assemble``: minimum-norm Newton–Raphson on ``Φ(q, t) = 0`` from an inexact
  configuration (drivers are constraints, so driven coordinates are held at f(t));
  quadratic convergence with the exact ``Φ_q``; redundant rows are fine.
* ``consistent_velocities``: the velocities closest to the given ones (in the kinetic
  energy metric) that satisfy ``Φ_q q̇ = −Φ_t``.
* ``accelerations``: ``[[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [Q; γ]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.linalg import min_norm_solve, saddle_solve
from solver.lazy_scipy import issparse
from solver.lazy_scipy import sparse as sp
from solver.mechanics.system import MultibodySystem


class AssemblyError(RuntimeError):
    """The position problem has no solution near the given configuration. ``items``: the
    joints and drivers that stay violated; ``residual``: max |Φ| left; ``report``: set by
    ``check`` to its report without the numerical part (None elsewhere)."""

    def __init__(self, message: str, residual: float, items: list[str]) -> None:
        super().__init__(message)
        self.residual = residual
        self.items = items
        self.report = None


@dataclass
class AssemblyResult:
    q: np.ndarray
    iterations: int
    residuals: list[float] = field(default_factory=list)

    @property
    def residual(self) -> float:
        return self.residuals[-1] if self.residuals else 0.0


def describe_items(keys) -> str:
    """``joints "J2", "J3" and driver "motor"`` from row-owner keys."""
    kinds: dict[str, list[str]] = {}
    for k in keys:
        kind, _, name = str(k).partition(":")
        kinds.setdefault(kind, []).append(f'"{name}"')
    words = {"joint": "joint", "driver": "driver", "norm": "Euler-parameter norm of body"}
    parts = []
    for kind, names in kinds.items():
        label = words.get(kind, kind)
        parts.append(
            f"{label}{'s' if len(names) > 1 and kind != 'norm' else ''} {', '.join(names)}"
        )
    return " and ".join(parts)


def normalise_quaternions(system: MultibodySystem, q: np.ndarray) -> np.ndarray:
    """Project each body's Euler parameters onto the unit sphere (in place)."""
    if len(system.rigid):
        c = system.rigid.cols[:, 3:]
        p = q[c]
        q[c] = p / np.linalg.norm(p, axis=1, keepdims=True)
    return q


def assemble(
    system: MultibodySystem,
    q: np.ndarray,
    t: float = 0.0,
    tol: float = 1e-10,
    max_iterations: int = 50,
) -> AssemblyResult:
    """Solve ``Φ(q, t) = 0`` by minimum-norm Newton from ``q``; raise ``AssemblyError``."""
    q = normalise_quaternions(system, np.array(q, float))
    residuals = []
    for it in range(max_iterations + 1):
        c = system.constraints(q, None, t)
        res = float(np.abs(c.phi).max()) if len(c.phi) else 0.0
        residuals.append(res)
        if res <= tol:
            return AssemblyResult(q, it, residuals)
        if it == max_iterations or not np.isfinite(res):
            break
        step = min_norm_solve(c.phi_q, -c.phi)
        # damp huge steps (far from a solution) so Newton does not leap to nonsense
        size = float(np.abs(step).max())
        if size > 1.0:
            step *= 1.0 / size
        q = q + step
    # the least-squares minimum: which constraints cannot be satisfied together
    c = system.constraints(q, None, t)
    res = float(np.abs(c.phi).max())
    bad = np.flatnonzero(np.abs(c.phi) > max(1e-6 * res, tol))
    items = list(dict.fromkeys(system.joint_of_row(r) for r in bad))
    raise AssemblyError(
        f"cannot assemble at t = {t:g} s: {describe_items(items)} stay violated by "
        f"{res:.3g} (m or rad) after {len(residuals) - 1} iterations; check their "
        "points, axes and link lengths",
        res,
        items,
    )


def velocity_matrix(system: MultibodySystem, q: np.ndarray):
    """A positive-definite metric for velocities: ``M`` plus, on each body's Euler
    parameters, the missing direction along p (so ``M`` is invertible)."""
    m = system.mass(q)
    if len(system.rigid):
        c = system.rigid.cols[:, 3:]
        p = q[c]
        scale = np.trace(system.rigid.inertia, axis1=1, axis2=2)
        add = 4.0 * scale[:, None, None] * np.einsum("ni,nj->nij", p, p)
        rows = np.repeat(c, 4, axis=1).ravel()
        cols = np.tile(c, (1, 4)).ravel()
        if issparse(m):
            m = m + sp.csr_matrix((add.ravel(), (rows, cols)), shape=m.shape)
        else:
            m = m.copy()
            np.add.at(m, (rows, cols), add.ravel())
    return m


def all_velocity_rows(
    system: MultibodySystem, q: np.ndarray, qd: np.ndarray, t: float, c=None, ms=None
):
    """Holonomic and non-holonomic rows together: ``(A, v, γ)`` with ``A q̇ = v`` and
    ``A q̈ = γ`` (``A = [Φ_q; B]``, ``v = [−Φ_t; 0]``, ``γ = [γ_h; γ_nh]``)."""
    c = c or system.constraints(q, qd, t, ms)
    if not system.m_nh:
        return c.phi_q, -c.phi_t, c.gamma
    b, gamma_nh = system.velocity_constraints(q, qd, t, ms)
    a = sp.vstack([c.phi_q, b]).tocsr() if issparse(c.phi_q) else np.vstack([c.phi_q, b])
    return a, np.concatenate([-c.phi_t, np.zeros(system.m_nh)]), np.concatenate([c.gamma, gamma_nh])


def consistent_velocities(
    system: MultibodySystem, q: np.ndarray, qd: np.ndarray, t: float = 0.0
) -> np.ndarray:
    """The velocities nearest ``qd`` (kinetic-energy metric) with ``Φ_q q̇ + Φ_t = 0``."""
    a, v, _ = all_velocity_rows(system, q, qd, t)
    w = velocity_matrix(system, q)
    dv, _ = saddle_solve(w, a, np.zeros(len(qd)), v - a @ qd)
    return qd + dv


def accelerations(system: MultibodySystem, q: np.ndarray, qd: np.ndarray, t: float = 0.0):
    """``(q̈, λ)`` from the index-1 equations of motion."""
    ms = system.marker_state(q, qd)
    a, _, gamma = all_velocity_rows(system, q, qd, t, ms=ms)
    return saddle_solve(system.mass(q), a, system.forces(q, qd, t, ms), gamma)
