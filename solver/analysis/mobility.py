"""Degrees of freedom and redundancy from the numerical rank of the constraint Jacobian.

At an assembled configuration, ``DOF = n − rank(Φ_q)`` (Euler-parameter norms
included in both), ``redundant = rows − rank``. The constraints taking part in a
redundancy are the rows with weight in the left null space of ``Φ_q``; a singular
position shows as a rank lower than the model's generic rank, or as a tiny smallest
singular value. Among the freedoms, the *passive* ones (a body's spin that moves none of
its attachment points, ``passive``) are listed apart: ``active_dof`` is what drivers or
the dynamics determine.

Small systems (dense ``Φ_q``) take the SVD; large ones (sparse ``Φ_q``, above
``SPARSE_THRESHOLD`` coordinates) the blocked sparse QR of ``sparse_rank``, whose time
and memory grow linearly with the number of bodies; its smallest and largest singular
values are the pivot estimates.

Rows of ``Φ_q`` that are identically zero (the out-of-plane rows of a joint between two
nodes of planar beams: both sides keep z constant) restrict nothing and are not counted as
equations: a row is dropped when it is exactly zero at ``q`` and at a perturbed ``q``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.kinematics import describe_items
from solver.analysis.linalg import dense, rank_and_left_null_space
from solver.analysis.passive import PassiveFreedom, describe_passive, passive_freedoms
from solver.analysis.sparse_rank import blocked_rank, column_groups
from solver.lazy_scipy import issparse
from solver.lazy_scipy import sparse as sp
from solver.mechanics.system import MultibodySystem


@dataclass
class Mobility:
    coordinates: int
    equations: int
    rank: int
    redundant_items: list[str] = field(default_factory=list)
    smallest_singular_value: float = 0.0
    largest_singular_value: float = 0.0
    passive: list[PassiveFreedom] = field(default_factory=list)

    @property
    def dof(self) -> int:
        """All freedoms, ``coordinates − rank`` (passive ones included)."""
        return self.coordinates - self.rank

    @property
    def passive_dof(self) -> int:
        return sum(f.count for f in self.passive)

    @property
    def active_dof(self) -> int:
        """The freedoms that move some joint, force or output point: ``dof − passive``."""
        return self.dof - self.passive_dof

    def describe_passive(self) -> str:
        """``1 passive freedom: coupler spin about J1–J2`` (empty when there is none)."""
        return describe_passive(self.passive)

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
    """Mask of the rows of ``jac`` (``Φ_q`` without the norm rows, dense or sparse) that are
    zero at ``q`` and at a perturbed configuration, i.e. zero whatever the configuration."""
    zero = ~_nonzero_rows(jac)
    if zero.any():
        rng = np.random.default_rng(12345)
        scale = max(1.0, float(np.abs(q).max()))
        other = system.constraints(q + 1e-3 * scale * rng.standard_normal(len(q)), None, t).phi_q
        zero &= ~_nonzero_rows(other)[: len(zero)]
    return zero


def _nonzero_rows(a) -> np.ndarray:
    if issparse(a):
        a = sp.csr_matrix(a)
        rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
        return np.bincount(rows[a.data != 0.0], minlength=a.shape[0]) > 0
    return np.any(np.asarray(a) != 0.0, axis=1)


def _all_rows(system: MultibodySystem, q: np.ndarray, t: float, phi_q):
    """The rows ``phi_q`` with the rolling rows below them."""
    if not system.m_nh:
        return phi_q
    b, _ = system.velocity_constraints(q, np.zeros(system.n), t)
    if issparse(phi_q):
        return sp.vstack([phi_q, sp.csr_matrix(dense(b))]).tocsr()
    return np.vstack([phi_q, dense(b)])


def mobility(system: MultibodySystem, q: np.ndarray, t: float = 0.0, sparse=None) -> Mobility:
    """Rank, DOF, the constraints involved in redundancies and the passive freedoms at
    ``q``; ``sparse`` forces the blocked sparse QR (``True``) or the SVD (``False``)."""
    c = system.constraints(q, None, t)
    if sparse is None:
        sparse = issparse(c.phi_q)
    full = _all_rows(system, q, t, c.phi_q)
    mob = _sparse_mobility(system, q, t, c.phi_q) if sparse else _dense_mobility(system, q, t, c)
    mob.passive = passive_freedoms(system, q, full)
    return mob


def _labels(system: MultibodySystem, rows: np.ndarray) -> list[str]:
    labels = [system.joint_of_row(r) for r in rows]
    for key, nh in system.velocity_rows.items():
        labels += [key] * len(nh)
    return labels


def _tangent_projector(system: MultibodySystem, q: np.ndarray) -> sp.csr_matrix:
    """``I − Σ p̂ p̂ᵀ`` on each body's Euler-parameter columns (sparse, n × n)."""
    proj = sp.identity(system.n, format="csr")
    if not len(system.rigid):
        return proj
    pc = system.rigid.cols[:, 3:]
    p = q[pc] / np.linalg.norm(q[pc], axis=1, keepdims=True)
    outer = -np.einsum("bi,bj->bij", p, p)
    rows = np.repeat(pc, 4, axis=1).ravel()
    cols = np.tile(pc, (1, 4)).ravel()
    return (proj + sp.csr_matrix((outer.ravel(), (rows, cols)), shape=proj.shape)).tocsr()


def _sparse_mobility(system: MultibodySystem, q: np.ndarray, t: float, phi_q) -> Mobility:
    """Blocked sparse QR of the joint, driver and rolling rows projected onto the tangent
    of the Euler-parameter norms (each norm row adds exactly 1 to the rank), as the SVD."""
    a = sp.csr_matrix(phi_q)[: system.norm_row0]
    zero = identically_zero_rows(system, q, t, a)
    rows = np.flatnonzero(~zero)
    a = _all_rows(system, q, t, a[rows]) @ _tangent_projector(system, q)
    labels = _labels(system, rows)
    ranges = [(s.offset, s.offset + s.size) for s in system.slots.values()]
    result = blocked_rank(a, column_groups(system.n, ranges))
    rank = result.rank + system.n_norm
    items: list[str] = []
    for y in result.left_null:
        weight = np.abs(y) / max(float(np.abs(y).max()), 1e-300)
        items += [labels[r] for r in np.flatnonzero(weight > 1e-6)]
    items = list(dict.fromkeys(items))
    piv = result.pivots
    return Mobility(
        coordinates=system.n,
        equations=system.m + system.m_nh - int(zero.sum()),
        rank=rank,
        redundant_items=items,
        smallest_singular_value=float(piv.min()) if len(piv) else 0.0,
        largest_singular_value=float(piv.max()) if len(piv) else 0.0,
    )


def _dense_mobility(system: MultibodySystem, q: np.ndarray, t: float, c) -> Mobility:
    # The Euler-parameter norm rows are always independent: project the joint and
    # driver rows onto the tangent of the norm constraints and count those alone, so
    # that a redundancy is reported among joints only.
    rows = np.arange(system.norm_row0)
    jac = dense(c.phi_q)[rows]
    zero = identically_zero_rows(system, q, t, jac)
    rows, jac = rows[~zero], jac[~zero]
    labels = _labels(system, rows)
    if system.m_nh:  # rolling without slip restricts velocities too
        b, _ = system.velocity_constraints(q, np.zeros(system.n), t)
        jac = np.vstack([jac, dense(b)])
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
