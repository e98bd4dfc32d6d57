"""The no-slip rows of rolling discs as the fixed-step formulations need them (dense).

Rolling without slip is a velocity constraint ``B(q) q̇ = 0`` (``constraints.rolling``;
``B q̈ = γ_B`` at acceleration level). The implicit fixed-step formulations impose it on
their integrator's velocity at the end of the step and remove its reactions ``Bᵀμ``
together with the joints' ``Φ_qᵀλ``; this module gives them, at one state:

* ``rows``: ``B`` and ``γ_B``;
* ``second_order``: ``∂(Bᵀμ)/∂q`` at fixed μ (the reactions' stiffness) and
  ``∂(B v)/∂q`` at fixed v (how the rows turn with the positions);
* ``multipliers``: the minimum-norm ``[λ; μ]`` with ``[Φ_q; B]ᵀ [λ; μ] = f``;
* ``null_space``: an orthonormal basis of the null space of a matrix (SVD), e.g. of
  ``B N`` for the directions of a basis N of null Φ_q that keep ``B q̇ = 0``.
"""

from __future__ import annotations

import numpy as np

from solver.analysis.linalg import dense
from solver.mechanics.system import MultibodySystem

#: singular values below this fraction of the largest count as zero in ``null_space``
RANK_TOLERANCE = 1e-10


def rows(system: MultibodySystem, q: np.ndarray, qd: np.ndarray, t: float, ms=None):
    """``(B, γ_B)`` at ``(q, q̇, t)``: ``B`` dense ``m_nh × n``."""
    b, gamma = system.velocity_constraints(q, qd, t, ms)
    return dense(b), gamma


def second_order(system: MultibodySystem, q: np.ndarray, v: np.ndarray, mu: np.ndarray):
    """``(∂(Bᵀμ)/∂q, ∂(B v)/∂q)``, dense ``n × n`` and ``m_nh × n`` (exact; the first at
    fixed μ, the second at fixed v)."""
    k, d = system.velocity_second_order(q, v, mu)
    return dense(k), dense(d)


def multipliers(phi_q: np.ndarray, b: np.ndarray, f: np.ndarray):
    """Minimum-norm ``(λ, μ)`` with ``Φ_qᵀλ + Bᵀμ = f`` (least squares)."""
    a = np.vstack([phi_q, b])
    nu = np.linalg.lstsq(a.T, f, rcond=None)[0]
    return nu[: len(phi_q)], nu[len(phi_q) :]


def null_space(a: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the null space of ``a`` (columns), by SVD."""
    if a.shape[0] == 0:
        return np.eye(a.shape[1])
    _, sv, vt = np.linalg.svd(a)
    rank = int(np.sum(sv > RANK_TOLERANCE * sv[0])) if len(sv) and sv[0] > 0 else 0
    return vt[rank:].T
