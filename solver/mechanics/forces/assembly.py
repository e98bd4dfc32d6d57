"""Scattering force-element terms into the system vector and sparse Jacobians.

Every element group hands over per-instance blocks over the columns of the bodies it
touches (``(m, K)`` column sets, ``-1`` where a body has fewer coordinates or for
ground); :class:`Accumulator` sums them into ``Q``, ``∂Q/∂q`` and ``∂Q/∂q̇``.

Most elements are *marker loads*: a force ``F_a(u, u̇, t)`` on each of a few markers
``a`` (points or directions). With ``J_a = ∂u_a/∂q`` and ``J̇'_a = ∂u̇_a/∂q`` (the
marker table's ``jdot``) the chain rule gives

    Q        = Σ_a J_aᵀ F_a
    ∂Q/∂q    = Σ_a J_aᵀ Σ_b (∂F_a/∂u_b J_b + ∂F_a/∂u̇_b J̇'_b) + Σ_a ∂(J_aᵀ F_a)/∂q|_F
    ∂Q/∂q̇   = Σ_a J_aᵀ Σ_b ∂F_a/∂u̇_b J_b

which :func:`add_marker_loads` evaluates. A force that also depends on q directly (a
force given in body axes) supplies ``∂F_a/∂q`` over the columns of its own marker.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from solver.mechanics.markers import Markers, MarkerState
from solver.mechanics.sparse_pattern import FixedPattern


class SparsityCache:
    """Sparsity patterns of ``∂Q/∂q`` and ``∂Q/∂q̇``, computed on the first evaluation.

    The element groups add their blocks in the same order, with the same columns, at every
    evaluation, so the positions of the kept entries and the map from entries to CSR
    storage (duplicates summed) are computed once and reused: later evaluations only sum
    values with ``bincount``.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.blocks: dict[tuple[str, int], tuple[tuple, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.csr: dict[str, tuple[int, np.ndarray, np.ndarray, np.ndarray]] = {}

    def block(self, store: str, k: int, rows, cols, shape):
        """``(keep, r, c)`` of the k-th block added to ``store``."""
        hit = self.blocks.get((store, k))
        if hit is not None and hit[0] == shape:
            return hit[1:]
        r = np.broadcast_to(rows[:, :, None], shape)
        c = np.broadcast_to(cols[:, None, :], shape)
        keep = (r >= 0) & (c >= 0)
        entry = (shape, keep, r[keep], c[keep])
        self.blocks[(store, k)] = entry
        return entry[1:]

    def matrix(self, store: str, r: list, c: list, v: np.ndarray) -> sp.csr_matrix:
        hit = self.csr.get(store)
        if hit is None or hit[0] != len(v):
            empty = np.zeros(0, np.int64)
            rows = np.concatenate(r) if r else empty
            cols = np.concatenate(c) if c else empty
            hit = self.csr[store] = (len(v), FixedPattern(rows, cols, (self.n, self.n)))
        return hit[1].csr(v)


class Accumulator:
    """Sums generalised forces and their Jacobians of all element groups."""

    def __init__(self, n: int, jacobians: bool = False, cache: SparsityCache | None = None) -> None:
        self.n = n
        self.jacobians = jacobians
        self.q = np.zeros(n)
        self.cache = cache or SparsityCache(n)
        self._store: dict[str, tuple[list, list, list]] = {"kq": ([], [], []), "kqd": ([], [], [])}

    def add_vector(self, cols: np.ndarray, vals: np.ndarray) -> None:
        """``Q[cols] += vals`` for ``(m, K)`` arrays, skipping ``-1`` columns."""
        keep = cols >= 0
        np.add.at(self.q, cols[keep], vals[keep])

    def _block(self, store: str, rows, cols, blocks) -> None:
        rs, cs, vs = self._store[store]
        keep, r, c = self.cache.block(store, len(vs), rows, cols, blocks.shape)
        rs.append(r)
        cs.append(c)
        vs.append(blocks[keep])

    def add_kq(self, rows: np.ndarray, cols: np.ndarray, blocks: np.ndarray) -> None:
        """``∂Q/∂q[rows, cols] += blocks``: rows ``(m, Ka)``, cols ``(m, Kb)``, blocks ``(m, Ka, Kb)``."""
        self._block("kq", rows, cols, blocks)

    def add_kqd(self, rows: np.ndarray, cols: np.ndarray, blocks: np.ndarray) -> None:
        """``∂Q/∂q̇[rows, cols] += blocks`` (shapes as :meth:`add_kq`)."""
        self._block("kqd", rows, cols, blocks)

    def _matrix(self, store: str) -> sp.csr_matrix:
        rs, cs, vs = self._store[store]
        v = np.concatenate(vs) if vs else np.zeros(0)
        return self.cache.matrix(store, rs, cs, v)

    def matrices(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """``(∂Q/∂q, ∂Q/∂q̇)`` as CSR matrices (duplicate entries summed, indices sorted)."""
        return self._matrix("kq"), self._matrix("kqd")


@dataclass
class MarkerLoads:
    """Forces on the marker slots of m element instances and their derivatives.

    ``idx[a]`` marker indices of slot a, ``(m,)``; ``force[a]`` ``F_a``, ``(m, 3)``;
    ``du[a, b]`` ``∂F_a/∂u_b`` and ``dv[a, b]`` ``∂F_a/∂u̇_b``, ``(m, 3, 3)`` (absent
    pairs are zero); ``dq[a]`` ``∂F_a/∂q`` over slot a's own marker columns, ``(m, 3, K)``,
    for a direct dependence on q.
    """

    idx: list[np.ndarray]
    force: list[np.ndarray]
    du: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    dv: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    dq: dict[int, np.ndarray] = field(default_factory=dict)


def _t(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, 1, 2)


def add_marker_loads(
    acc: Accumulator, markers: Markers, ms: MarkerState, loads: MarkerLoads
) -> None:
    """Add ``Q = Σ J_aᵀ F_a`` and, if ``acc.jacobians``, its exact Jacobians (module docstring)."""
    idx = loads.idx
    jac = [ms.jac[i] for i in idx]
    cols = [markers.cols[i] for i in idx]
    for a, f in enumerate(loads.force):
        acc.add_vector(cols[a], np.einsum("mik,mi->mk", jac[a], f))
    if not acc.jacobians:
        return
    jdot = ms.jdot
    for a in range(len(idx)):
        jta = _t(jac[a])
        own = markers.force_jacobian(idx[a], loads.force[a])
        if a in loads.dq:
            own = own + jta @ loads.dq[a]
        for b in range(len(idx)):
            du, dv = loads.du.get((a, b)), loads.dv.get((a, b))
            inner = None if du is None else du @ jac[b]
            if dv is not None:
                jv = dv @ jdot[idx[b]]
                inner = jv if inner is None else inner + jv
                acc.add_kqd(cols[a], cols[b], jta @ dv @ jac[b])
            block = None if inner is None else jta @ inner
            if a == b:
                block = own if block is None else block + own
            if block is not None:
                acc.add_kq(cols[a], cols[b], block)
