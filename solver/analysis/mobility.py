"""Degrees of freedom and redundancy from the numerical rank of the constraint Jacobian.

At an assembled configuration, ``DOF = n − rank(Φ_q)`` (Euler-parameter norms
included in both), ``redundant = rows − rank``. The constraints taking part in a
redundancy are the rows with weight in the left null space of ``Φ_q``; a singular
position shows as a rank lower than the model's generic rank, or as a tiny smallest
singular value.

Rows of ``Φ_q`` that are identically zero (the out-of-plane rows of a joint between two
nodes of planar beams: both sides keep z constant) restrict nothing and are not counted as
equations: a row is dropped when it is exactly zero at ``q`` and at a perturbed ``q``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.kinematics import describe_items
from solver.analysis.linalg import dense, rank_and_left_null_space
from solver.mechanics.system import MultibodySystem


@dataclass
class Mobility:
    coordinates: int
    equations: int
    rank: int
    redundant_items: list[str] = field(default_factory=list)
    smallest_singular_value: float = 0.0
    largest_singular_value: float = 0.0

    @property
    def dof(self) -> int:
        return self.coordinates - self.rank

    @property
    def redundant(self) -> int:
        return self.equations - self.rank

    @property
    def condition(self) -> float:
        """Ratio of the smallest non-zero to the largest singular value of ``Φ_q``."""
        if self.largest_singular_value == 0.0:
            return 1.0
        return self.smallest_singular_value / self.largest_singular_value

    def describe_redundancy(self) -> str:
        return describe_items(self.redundant_items) if self.redundant_items else ""


def identically_zero_rows(system: MultibodySystem, q: np.ndarray, t: float, jac) -> np.ndarray:
    """Mask of the rows of ``jac`` (``Φ_q`` without the norm rows) that are zero at ``q`` and
    at a perturbed configuration, i.e. zero whatever the configuration."""
    zero = ~np.any(jac != 0.0, axis=1)
    if zero.any():
        rng = np.random.default_rng(12345)
        scale = max(1.0, float(np.abs(q).max()))
        other = dense(
            system.constraints(q + 1e-3 * scale * rng.standard_normal(len(q)), None, t).phi_q
        )
        zero &= ~np.any(other[: len(zero)] != 0.0, axis=1)
    return zero


def mobility(system: MultibodySystem, q: np.ndarray, t: float = 0.0) -> Mobility:
    """Rank, DOF and the constraints involved in redundancies at ``q``."""
    c = system.constraints(q, None, t)
    # The Euler-parameter norm rows are always independent: project the joint and
    # driver rows onto the tangent of the norm constraints and count those alone, so
    # that a redundancy is reported among joints only.
    rows = np.arange(system.norm_row0)
    jac = dense(c.phi_q)[rows]
    zero = identically_zero_rows(system, q, t, jac)
    rows, jac = rows[~zero], jac[~zero]
    labels = [system.joint_of_row(r) for r in rows]
    if system.m_nh:  # rolling without slip restricts velocities too
        b, _ = system.velocity_constraints(q, np.zeros(system.n), t)
        jac = np.vstack([jac, dense(b)])
        for key, nh in system.velocity_rows.items():
            labels += [key] * len(nh)
    if len(system.rigid):
        pc = system.rigid.cols[:, 3:]
        p = q[pc] / np.linalg.norm(q[pc], axis=1, keepdims=True)
        blk = jac[:, pc]  # (rows, bodies, 4)
        jac[:, pc] = blk - np.einsum("rb,bj->rbj", np.einsum("rbj,bj->rb", blk, p), p)
    rank, s, left = rank_and_left_null_space(jac)
    rank += system.n_norm
    items: list[str] = []
    if left.shape[1]:
        weight = np.sqrt(np.sum(left * left, axis=1))
        items = list(dict.fromkeys(labels[r] for r in np.flatnonzero(weight > 1e-6)))
    nonzero = s[: rank - system.n_norm]
    return Mobility(
        coordinates=system.n,
        equations=system.m + system.m_nh - int(zero.sum()),
        rank=rank,
        redundant_items=items,
        smallest_singular_value=float(nonzero[-1]) if len(nonzero) else 0.0,
        largest_singular_value=float(nonzero[0]) if len(nonzero) else 0.0,
    )
