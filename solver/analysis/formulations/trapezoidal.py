"""Shared pieces of the implicit formulations integrated with the trapezoidal rule
(``augmented_lagrangian`` and ``penalty``).

* ``Newmark``: the trapezoidal rule (Newmark β = ¼, γ = ½) and the generalized-α family
  of Chung and Hulbert in the form of Arnold and Brüls (an acceleration-like variable
  ``a`` carries the numerical dissipation; the equations of motion hold exactly at
  ``t_{n+1}``), selected by the spectral radius at infinite frequency ``ρ∞``:

      α_m = (2ρ∞ − 1)/(ρ∞ + 1),   α_f = ρ∞/(ρ∞ + 1),
      γ = ½ − α_m + α_f,          β = ¼ (1 − α_m + α_f)²,
      q_{n+1} = q_n + h q̇_n + h² (½ − β) a_n + h² β a_{n+1},
      q̇_{n+1} = q̇_n + h (1 − γ) a_n + h γ a_{n+1},
      (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q̈_{n+1} + α_f q̈_n.

  ρ∞ = 1 is the trapezoidal rule (``a`` = ``q̈``); ``ρ∞ = None`` uses it directly.
  With positions as the Newton unknowns, ``q̇_{n+1}`` and ``q̈_{n+1}`` are affine in
  ``q_{n+1}`` with slopes ``γ' = γ/(β h)`` and ``β' = (1 − α_m)/((1 − α_f) β h²)``
  (``2/h`` and ``4/h²`` for the trapezoidal rule).

* ``Factorized``: one LU factorisation (dense LAPACK or sparse SuperLU) reused for several
  right-hand sides.

* ``constrained_solve``: the augmented-Lagrangian solution of
  ``M x + Φ_qᵀ σ = f``, ``Φ_q x = g`` with the matrix ``M + α Φ_qᵀ Φ_q`` factorised once and
  the multipliers iterated, ``σ_{k+1} = σ_k + α (Φ_q x_{k+1} − g)``. With ``f = M x*`` it is
  the mass-orthogonal projection of ``x*`` onto ``Φ_q x = g`` (Bayo and Ledesma). It needs
  neither a full-rank ``Φ_q`` (redundant rows are fine) nor an invertible ``M`` (the
  Euler-parameter p-blocks are singular along p; their norm rows supply that direction).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.linalg import DenseLU
from solver.lazy_scipy import issparse
from solver.lazy_scipy import sparse as sp
from solver.lazy_scipy import sparse_linalg as spla


@dataclass(frozen=True)
class Newmark:
    """Generalized-α coefficients (trapezoidal rule when ``rho_inf`` is ``None``)."""

    alpha_m: float = 0.0
    alpha_f: float = 0.0
    beta: float = 0.25
    gamma: float = 0.5

    @classmethod
    def from_rho(cls, rho_inf: float | None) -> Newmark:
        if rho_inf is None:
            return cls()
        rho = float(rho_inf)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"rho_inf must be in [0, 1], got {rho}")
        am = (2.0 * rho - 1.0) / (rho + 1.0)
        af = rho / (rho + 1.0)
        return cls(am, af, 0.25 * (1.0 - am + af) ** 2, 0.5 - am + af)

    def slopes(self, h: float) -> tuple[float, float]:
        """``(γ', β')`` = ``(∂q̇/∂q, ∂q̈/∂q)`` at the end of a step of size ``h``."""
        return (
            self.gamma / (self.beta * h),
            (1.0 - self.alpha_m) / ((1.0 - self.alpha_f) * self.beta * h * h),
        )

    def predict(self, q, qd, a, h: float) -> np.ndarray:
        """Positions at ``t + h`` for ``a_{n+1} = a_n`` (the Newton starting point)."""
        return q + h * qd + (0.5 * h * h) * a

    def update(self, q1, q, qd, qdd, a, h: float):
        """``(q̇, q̈, a)`` at ``t + h`` from the positions ``q1`` there."""
        a1 = (q1 - q - h * qd - (h * h * (0.5 - self.beta)) * a) / (self.beta * h * h)
        qd1 = qd + h * ((1.0 - self.gamma) * a + self.gamma * a1)
        if self.alpha_m == 0.0 and self.alpha_f == 0.0:  # q̈ = a (the terms below vanish)
            return qd1, a1, a1
        qdd1 = ((1.0 - self.alpha_m) * a1 + self.alpha_m * a - self.alpha_f * qdd) / (
            1.0 - self.alpha_f
        )
        return qd1, qdd1, a1

    def acceleration_variable(self, qdd1, qdd, a) -> np.ndarray:
        """``a_{n+1}`` consistent with the (projected) accelerations ``q̈_{n+1}``."""
        return ((1.0 - self.alpha_f) * qdd1 + self.alpha_f * qdd - self.alpha_m * a) / (
            1.0 - self.alpha_m
        )


#: column ordering chosen per sparsity (shape, number of entries): "NATURAL" or "COLAMD"
_ORDERING: dict[tuple, str] = {}


def _sparse_lu(a: sp.csc_matrix):
    """SuperLU of ``a``. The first matrix of a sparsity is factorised with both the natural
    and the COLAMD column order; the natural one is kept when it fills in at most 25 % more
    (banded systems such as chains: there its triangular solves are several times faster).
    Partial pivoting is SuperLU's in both cases."""
    key = (a.shape, a.nnz)
    spec = _ORDERING.get(key)
    if spec is not None:
        return spla.splu(a, permc_spec=spec)
    colamd = spla.splu(a, permc_spec="COLAMD")
    natural = spla.splu(a, permc_spec="NATURAL")
    fill = lambda lu: lu.L.nnz + lu.U.nnz  # noqa: E731
    spec = "NATURAL" if fill(natural) <= 1.25 * fill(colamd) else "COLAMD"
    if len(_ORDERING) > 256:  # many sparsities (a long run of changing patterns): start over
        _ORDERING.clear()
    _ORDERING[key] = spec
    return natural if spec == "NATURAL" else colamd


class Factorized:
    """An LU factorisation of a square matrix, dense (``solver.analysis.linalg.DenseLU``)
    or sparse (SuperLU); ``solve(b)``. A singular matrix raises
    ``numpy.linalg.LinAlgError``."""

    def __init__(self, a) -> None:
        self.sparse = issparse(a)
        if self.sparse:
            self._lu = _sparse_lu(sp.csc_matrix(a))
            return
        self._lu = DenseLU(a)
        if not self._lu.ok:
            raise np.linalg.LinAlgError("singular matrix")

    def solve(self, b: np.ndarray) -> np.ndarray:
        return self._lu.solve(b)


def mass_scale(system, q: np.ndarray) -> float:
    """The largest diagonal entry of ``M(q)`` (kg for the usual models): the scale of the
    penalty factors, so that a model in grams behaves like one in kilograms."""
    m = system.mass(q)
    diag = m.diagonal() if issparse(m) else np.diag(m)
    scale = float(np.max(diag)) if len(diag) else 1.0
    return scale if scale > 0.0 else 1.0


def gram(phi_q, weight: float):
    """``weight · Φ_qᵀ Φ_q`` (dense or sparse like ``Φ_q``)."""
    if issparse(phi_q):
        return weight * (phi_q.T @ phi_q)
    return weight * (phi_q.T @ phi_q)


def add(a, b):
    """``a + b`` for dense/sparse operands, dense unless both are sparse."""
    if type(a) is np.ndarray and type(b) is np.ndarray:  # the common small-system case
        return a + b
    if issparse(a) and issparse(b):
        return (a + b).tocsr()
    if issparse(a):
        a = a.toarray()
    if issparse(b):
        b = b.toarray()
    return a + b


def constrained_solve(
    fac: Factorized,
    mass,
    phi_q,
    f: np.ndarray,
    g: np.ndarray,
    alpha: float,
    tol: float,
    x0: np.ndarray | None = None,
    max_iterations: int = 20,
):
    """``(x, σ, iterations)`` with ``M x + Φ_qᵀ σ = f`` and ``Φ_q x = g``.

    ``fac`` factorises ``A = M + α Φ_qᵀ Φ_q``. The iteration works on increments, from
    ``x0`` (for a projection, the point projected) and ``σ = 0``:

        Δ = A⁻¹ [f − M x − Φ_qᵀ σ − α Φ_qᵀ (Φ_q x − g)],  x ← x + Δ,  σ ← σ + α (Φ_q x − g),

    so that the rounding error of the (ill-conditioned, cond ~ α/M) solves is relative to
    the small correction, not to ``x``; a projection then leaves the velocities along the
    constraints untouched to machine precision. Stops when ``|Φ_q x − g|∞ ≤ tol`` or, for
    inconsistent right-hand sides of redundant rows, when the residual stalls.
    """
    m = phi_q.shape[0]
    x = np.zeros(len(f)) if x0 is None else np.array(x0, dtype=float)
    sigma = np.zeros(m)
    prev = np.inf
    res = phi_q @ x - g
    phi_qt = phi_q.T
    for it in range(1, max_iterations + 1):
        x = x + fac.solve(f - mass @ x - phi_qt @ (sigma + alpha * res))
        if m == 0:
            return x, sigma, it
        res = phi_q @ x - g  # also the next iteration's residual
        sigma = sigma + alpha * res
        err = float(np.abs(res).max())
        if err <= tol or err >= prev:
            return x, sigma, it
        prev = err
    return x, sigma, max_iterations


def newton_correction(
    tangent, residual: np.ndarray, t: float, h: float, name: str, hint: str, factorize=None
):
    """``(Δq, factorisation)`` of one Newton iteration, ``Δq = −T⁻¹ r`` (the factorisation is
    kept for further right-hand sides; ``factorize``, ``Factorized`` by default, makes it);
    a singular tangent or a non-finite correction becomes a ``SimulationError`` naming the
    formulation, the time and the step."""
    try:
        fac = (factorize or Factorized)(tangent)
        dq = -fac.solve(residual)
    except (RuntimeError, ValueError, np.linalg.LinAlgError):
        dq = None
    if dq is None or not np.all(np.isfinite(dq)):
        raise SimulationError(
            t,
            f"the {name} iteration matrix is singular or the iteration diverged at dt = {h:g} s",
            hint,
        )
    return dq, fac


def newton_failure(
    name: str,
    t: float,
    h: float,
    iterations: int,
    error: float,
    what: str,
    hint: str = "a smaller dt, a larger max_iterations, or another formulation "
    "(null_space, central_differences)",
) -> SimulationError:
    """The ``SimulationError`` of a step whose Newton iteration did not converge."""
    return SimulationError(
        t,
        f"the {name} Newton iteration did not converge in {iterations} iterations at "
        f"dt = {h:g} s ({what} {error:.3g})",
        hint,
    )
