"""Banded assembly and factorisation of the sparse iteration matrices of chain-like systems.

The matrices of the implicit formulations, ``M + c₁ K + w Φ_qᵀ Φ_q`` and the like, couple a
body only with the bodies it is jointed to. For chains, trees of short branches and
beam meshes, a reverse Cuthill–McKee renumbering of the coordinates gathers every entry
within a narrow band ``|i − j| ≤ b`` of the diagonal, and LAPACK's band LU (``gbtrf``,
partial pivoting, O(n b²)) or band Cholesky (``pbtrf``) factorises it several times faster
than a general sparse LU; assembling straight into the band storage also avoids forming
sparse sums and products.

* ``BandLayout``: the renumbering ``perm`` (new → old) of a structural (symmetrised)
  pattern and its half-bandwidth ``b``; ``None`` from ``BandLayout.build`` when the band
  would not pay (it holds many more entries than the pattern). Storage is LAPACK's general
  band form with room for the LU's fill, ``ab[2b + i − j, j]`` (renumbered ``i, j``),
  of shape ``(3b + 1, n)`` in Fortran order, handled as the flat array ``ab.T.ravel()``.
* ``BandAssembler``: sums ``Σ cₖ Aₖ + w Φᵀ Φ`` of CSR matrices into that storage; the
  slot of every entry of a pattern, and the blocks of rows of ``Φ`` sharing their columns
  (``Φᵀ Φ = Σ Bᵀ B``), are found once per pattern (a new pattern outside the band rebuilds
  the layout).
* ``BandFactor``: the factorisation of an assembled matrix, ``solve(b)`` in the original
  numbering (``numpy.linalg.LinAlgError`` when it is singular).

The scatter-adds and the projection iteration run in compiled kernels
(:mod:`solver.analysis.band_kernels`).
"""

from __future__ import annotations

import functools

import numpy as np

from solver.analysis.reordering import reverse_cuthill_mckee
from solver.lazy_scipy import issparse
from solver.lazy_scipy import linalg as sla
from solver.lazy_scipy import sparse as sp


@functools.cache
def _lapack():
    """LAPACK's ``(gbtrf, gbtrs, pbtrf, pbtrs)`` for float64."""
    return sla.get_lapack_funcs(("gbtrf", "gbtrs", "pbtrf", "pbtrs"), (np.zeros(1),))


#: the band is used when its entries (3b + 1 per column) are at most this many times
#: the entries of the pattern, and the half-bandwidth at most ``MAX_HALF_BANDWIDTH``
MAX_FILL_RATIO = 12.0
MAX_HALF_BANDWIDTH = 96


def _csr(a) -> sp.csr_matrix:
    return a if issparse(a) and a.format == "csr" else sp.csr_matrix(a)


def _address(x: np.ndarray) -> tuple[int, int]:
    return x.__array_interface__["data"][0], x.shape[0]


def _dense_last(ptr: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray | None:
    """The RCM renumbering of the pattern (entries ``(r, c)``, row by row; row pointers
    ``ptr``) without its dense columns (coupled to more than half of the coordinates),
    those after it: an arrow, whose elimination keeps its fill in the arrow (a pulley
    touching every element of a belt). ``None`` without such columns, or with too many of
    them (over a quarter)."""
    n = len(ptr) - 1
    dense = np.flatnonzero(np.diff(ptr) > n // 2)
    if len(dense) == 0 or 4 * len(dense) > n:
        return None
    rest = np.setdiff1d(np.arange(n), dense)
    index = np.full(n, -1, np.int64)
    index[rest] = np.arange(len(rest))
    keep = (index[r] >= 0) & (index[c] >= 0)
    sub_r, sub_c = index[r[keep]], index[c[keep]]  # still row by row
    sub_ptr = np.zeros(len(rest) + 1, np.int64)
    np.cumsum(np.bincount(sub_r, minlength=len(rest)), out=sub_ptr[1:])
    order = reverse_cuthill_mckee(sub_ptr, sub_c)
    return np.concatenate([rest[order], dense]).astype(np.int64)


def _work(r: np.ndarray, c: np.ndarray, n: int, perm: np.ndarray) -> float:
    """The work of a factorisation of the pattern ``(r, c)`` (``n × n``) in the
    renumbering ``perm`` that skips zeros outside each row's envelope: ``Σ_j c_j²``,
    ``c_j`` the rows below j whose first entry is at or before column j (where its fill
    can reach)."""
    inv = np.empty(n, np.int64)
    inv[perm] = np.arange(n)
    first = np.full(n, n, np.int64)
    np.minimum.at(first, inv[r], inv[c])
    # c_j = #{i > j : first_i ≤ j} = #{i : first_i ≤ j} − (j + 1) (every i ≤ j has first_i ≤ i)
    started = np.cumsum(np.bincount(first, minlength=n + 1)[:n])
    count = started - np.arange(1, n + 1)
    return float(np.sum(count.astype(float) ** 2))


class BandLayout:
    """A renumbering of ``n`` coordinates and the half-bandwidth ``b`` it gives a pattern."""

    def __init__(self, perm: np.ndarray, b: int) -> None:
        self.n = len(perm)
        self.perm = perm.astype(np.int64)
        self.inv = np.empty_like(self.perm)
        self.inv[self.perm] = np.arange(self.n)
        self.b = int(b)
        self.ldab = 3 * self.b + 1
        self.size = self.ldab * self.n

    @classmethod
    def build(
        cls, rows: np.ndarray, cols: np.ndarray, n: int, always: bool = False, perm=None
    ) -> BandLayout | None:
        """The RCM layout of the pattern ``(rows, cols)`` (``n × n``; or the renumbering
        ``perm`` given), or ``None`` when a band would hold too many entries to pay (unless
        ``always``: small matrices, whose band may be the whole matrix)."""
        diag = np.arange(n)
        # the pattern, its transpose and the diagonal, each position once, row by row
        keys = np.unique(np.concatenate([rows * n + cols, cols * n + rows, diag * (n + 1)]))
        r, c = np.divmod(keys, n)
        ptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(r, minlength=n), out=ptr[1:])
        if perm is None:
            perm = reverse_cuthill_mckee(ptr, c)
            if always:
                arrow = _dense_last(ptr, r, c)
                if arrow is not None and _work(r, c, n, arrow) < _work(r, c, n, perm):
                    perm = arrow
        inv = np.empty(n, np.int64)
        inv[perm] = diag
        b = int(np.abs(inv[r] - inv[c]).max()) if n else 0
        if not always and (b > MAX_HALF_BANDWIDTH or (3 * b + 1) * n > MAX_FILL_RATIO * len(keys)):
            return None
        return cls(perm, b)

    def slots(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
        """Flat storage index of each entry ``(rows, cols)`` (original numbering), or
        ``None`` if one lies outside the band."""
        i, j = self.inv[rows], self.inv[cols]
        d = i - j
        if len(d) and np.abs(d).max() > self.b:
            return None
        return j * self.ldab + (2 * self.b + d)

    def dense(self, flat: np.ndarray) -> np.ndarray:
        """The ``n × n`` matrix (original numbering) held in the flat storage ``flat``."""
        ab = flat.reshape(self.n, self.ldab)  # ab[j, 2b + i − j]
        out = np.zeros((self.n, self.n))
        j, k = np.nonzero(ab)
        i = j + k - 2 * self.b
        out[self.perm[i], self.perm[j]] = ab[j, k]
        return out


class _Pattern:
    """A CSR pattern seen by the assembler: its arrays (to recognise it), its entries'
    storage slots and, for a ``Φ``, its rows grouped by column set (for ``Φᵀ Φ``)."""

    def __init__(self, a: sp.csr_matrix) -> None:
        self.indptr = a.indptr.copy()
        self.indices = a.indices.copy()
        # the arrays' memory (kept alive here, so no other array can take it): to recognise
        # the very same index arrays at no cost
        self._keep = (a.indices, a.indptr)
        self._src = (_address(a.indices), _address(a.indptr))
        self.rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
        self.slots = None  # for the current layout
        self._blocks = None
        self.gram_slots = None  # per block class, the slots of its (G, K, K) products

    def same(self, a: sp.csr_matrix) -> bool:
        if _address(a.indices) == self._src[0] and _address(a.indptr) == self._src[1]:
            return True  # the very arrays (a FixedPattern's matrices share them)
        return np.array_equal(self.indices, a.indices) and np.array_equal(self.indptr, a.indptr)

    def blocks(self) -> list[np.ndarray]:
        """The rows grouped by their (sorted) column sets — the rows of one joint, as a
        rule: per class of ``r`` rows over ``K`` columns, the ``(G, r, K)`` positions of
        the entries in ``data``. ``Φᵀ Φ`` is the sum of the blocks' ``Bᵀ B``."""
        if self._blocks is None:
            ptr, idx = self.indptr, self.indices
            groups: dict[bytes, list[int]] = {}
            for i in range(len(ptr) - 1):
                if ptr[i + 1] > ptr[i]:
                    groups.setdefault(idx[ptr[i] : ptr[i + 1]].tobytes(), []).append(i)
            classes: dict[tuple[int, int], list[np.ndarray]] = {}
            for rows in groups.values():
                k = int(ptr[rows[0] + 1] - ptr[rows[0]])
                entries = ptr[rows].astype(np.int64)[:, None] + np.arange(k)
                classes.setdefault((len(rows), k), []).append(entries)
            self._blocks = [np.stack(v) for v in classes.values()]
        return self._blocks

    def gram_entries(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows and columns of the ``(G, K, K)`` products of every block class."""
        rows, cols = [], []
        for e in self.blocks():
            c = self.indices[e[:, 0, :]].astype(np.int64)
            rows.append(np.broadcast_to(c[:, :, None], c.shape + c.shape[1:]).ravel())
            cols.append(np.broadcast_to(c[:, None, :], c.shape + c.shape[1:]).ravel())
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(rows), np.concatenate(cols)


class BandAssembler:
    """Sums of sparse ``n × n`` matrices and Gram products ``w Φᵀ Φ`` in band storage.

    ``assemble(terms, grams)`` with ``terms = [(c, A), …]`` (CSR, ``n × n``) and
    ``grams = [(w, Φ), …]`` (CSR, ``m × n``) returns the flat band storage of
    ``Σ c A + Σ w ΦᵀΦ``, or ``None`` when the matrices are not banded enough (then the
    caller uses a general sparse solver; the verdict is kept until the patterns change).
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.layout: BandLayout | None = None
        self.rejected = False
        self._patterns: list[_Pattern] = []

    # ---- patterns and layout --------------------------------------------------------
    def _pattern(self, a: sp.csr_matrix) -> _Pattern:
        for p in self._patterns:  # the pattern of the last call first: usually the same
            if len(p.indices) == len(a.indices) and p.same(a):
                return p
        p = _Pattern(a)
        if len(self._patterns) > 64:  # patterns keep changing: start over
            self._patterns.clear()
        self._patterns.append(p)
        self.rejected = False  # a new pattern: judge the band again
        return p

    def _entries(self, p: _Pattern, gram: bool):
        return p.gram_entries() if gram else (p.rows, p.indices)

    def _relayout(self, used: list[tuple[_Pattern, bool]]) -> None:
        """A new layout from the union of the patterns of one assembly."""
        rows, cols = zip(*(self._entries(p, g) for p, g in used), strict=True)
        self.layout = BandLayout.build(np.concatenate(rows), np.concatenate(cols), self.n)
        for p in self._patterns:
            p.slots = p.gram_slots = None
        self.rejected = self.layout is None

    def _slots(self, p: _Pattern, gram: bool):
        lay = self.layout
        if gram:
            if p.gram_slots is None:
                s = lay.slots(*p.gram_entries())
                if s is None:
                    return None
                # per block class, (G, K, K) like its products
                sizes = [e.shape[0] * e.shape[2] ** 2 for e in p.blocks()]
                parts = np.split(s, np.cumsum(sizes)[:-1])
                p.gram_slots = [
                    part.reshape(e.shape[0], e.shape[2], e.shape[2])
                    for part, e in zip(parts, p.blocks(), strict=True)
                ]
            return p.gram_slots
        if p.slots is None:
            s = lay.slots(p.rows, p.indices)
            if s is None:
                return None
            p.slots = s
        return p.slots

    # ---- assembly ---------------------------------------------------------------------
    def assemble(self, terms, grams=()) -> np.ndarray | None:
        terms = [(c, _csr(a)) for c, a in terms]
        grams = [(w, _csr(a)) for w, a in grams]
        used = [(self._pattern(a), False) for _, a in terms]
        used += [(self._pattern(a), True) for _, a in grams]
        if self.rejected:
            return None
        for _ in range(2):
            if self.layout is None:
                self._relayout(used)
                if self.layout is None:
                    return None
            slots = [self._slots(p, g) for p, g in used]
            if all(s is not None for s in slots):
                break
            self.layout = None  # an entry outside the band: a layout for these patterns
        else:
            return None
        out = np.zeros(self.layout.size)
        gram_parts = zip(grams, used[len(terms) :], slots[len(terms) :], strict=True)
        from solver.analysis.band_kernels import add_gram_blocks, add_scaled  # Numba: lazily

        for (w, a), (p, _), s in gram_parts:
            for e, slot in zip(p.blocks(), s, strict=True):
                add_gram_blocks(out, a.data, e, slot, float(w))
        for (c, a), s in zip(terms, slots, strict=False):
            add_scaled(out, s, a.data, float(c))
        return out

    def factor(self, flat: np.ndarray, spd: bool = False) -> BandFactor:
        return BandFactor(self.layout, flat, spd)


class BandFactor:
    """Band Cholesky (``spd``, falling back to LU when the matrix is not positive
    definite) or band LU with partial pivoting of an assembled matrix."""

    def __init__(self, layout: BandLayout, flat: np.ndarray, spd: bool = False) -> None:
        self.layout = layout
        b = layout.b
        ab = flat.reshape(layout.n, layout.ldab).T  # (3b + 1, n), Fortran order
        gbtrf, _, pbtrf, _ = _lapack()
        self.cholesky = False
        if spd:
            low = np.asfortranarray(ab[2 * b :])  # ab[i − j, j] for i ≥ j
            c, info = pbtrf(low, lower=1, overwrite_ab=1)
            if info == 0:
                self.cholesky, self._c = True, c
                return
        lu, piv, info = gbtrf(ab, b, b, overwrite_ab=1)
        if info != 0:
            raise np.linalg.LinAlgError("singular matrix" if info > 0 else "bad argument")
        self._lu, self._piv = lu, piv

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        lay = self.layout
        _, gbtrs, _, pbtrs = _lapack()
        r = rhs[lay.perm]
        if self.cholesky:
            x, info = pbtrs(self._c, r, lower=1, overwrite_b=1)
        else:
            x, info = gbtrs(self._lu, lay.b, lay.b, r, self._piv, overwrite_b=1)
        if info != 0:
            raise np.linalg.LinAlgError("bad argument to the band solve")
        return x[lay.inv]

    def constrained_solve(self, mass, phi_q, f, g, alpha: float, tol: float, x0, max_iterations=20):
        """``trapezoidal.constrained_solve`` with this factorisation of ``M + α Φ_qᵀΦ_q``
        (band Cholesky only), compiled: ``(x, σ, iterations)``."""
        if not self.cholesky:
            raise ValueError("the compiled constrained solve needs the band Cholesky")
        m, a = _csr(mass), _csr(phi_q)
        from solver.analysis.band_kernels import constrained_solve_cholesky  # Numba: lazily

        return constrained_solve_cholesky(
            self._c,
            self.layout.perm,
            m.indptr,
            m.indices,
            m.data,
            a.indptr,
            a.indices,
            a.data,
            np.ascontiguousarray(f, dtype=float),
            np.ascontiguousarray(g, dtype=float),
            float(alpha),
            float(tol),
            np.array(x0, dtype=float),
            int(max_iterations),
        )
