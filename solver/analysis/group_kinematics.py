"""Position, velocity and acceleration problems solved group by group (Saura et al. §3.2).

The groups of a ``structural_groups.Decomposition`` are visited level by level: every
group of a level depends only on coordinates of earlier levels (its inputs ``h``) and on
the independent coordinates ``z`` of its input rows, so a level is solved at once, each
group with its own square Jacobian ``Φ_φ``:

* position: Newton–Raphson ``Φ_φ Δφ = −Φ`` per level until ``|Φ|∞ ≤ tol`` (plus one step
  if the residual is not yet far below ``tol``, so that the result does not depend on the
  iteration path);
* velocity: ``Φ_φ φ̇ = −Φ_t − Φ_h ḣ`` (+ ``ż`` on input rows, where ``∂Φ/∂z = −1``);
* acceleration: ``Φ_φ φ̈ = γ − Φ_h ḧ`` (+ ``z̈`` on input rows): the standard
  ``Φ_φ φ̈ = −(Φ_h ḧ + Φ̇_{q_G} q̇_G)`` of Saura et al. eq. (12) without its double-counted term;
* R matrix, ``q̇ = R ż``: the velocity problem with ``ż = e_i`` and no ``Φ_t`` for each
  column — the chain rule ``R_φz = R_φh R_hz`` of Saura et al. eq. (11);
* ``Ṙż``: the acceleration problem with ``z̈ = 0``.

A level's groups are split into parts (their irreducible diagonal blocks), solved by
block forward substitution. With the compiled kernels (``group_kernels``, when
``group_kernels.enabled()``) every part is LU-factorised once per Jacobian and all
right-hand sides at that Jacobian reuse the factors; the sweeps (velocity, acceleration,
R) run on k × n arrays and subtract ``Φ_h`` inside the solve; a level of quadratic rows
and at most one angle part runs its whole Newton loop in one compiled call (the same
steps as the Python loop). Without them, parts of equal size are stacked and solved
together (batched LAPACK solves, "independent groups in parallel", Saura et al. ref. [4]). A group
larger than ``DENSE_MAX`` (the global method's single group) uses a sparse LU. The
Jacobian of the last position evaluation, at the converged configuration, serves
velocity, acceleration and R.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from solver.analysis import group_evaluation, group_kernels
from solver.analysis.errors import SimulationError
from solver.analysis.group_evaluation import RowEval, RowSet, _AnglePart

#: groups up to this size are solved as batched dense systems, larger ones sparse
DENSE_MAX = 48
#: a converged position residual above POLISH × tolerance gets up to MAX_POLISH more steps
POLISH = 1e-2
MAX_POLISH = 3
#: factorise and solve the dense parts with the compiled kernels of ``group_kernels`` (when
#: ``group_kernels.enabled()``); False: batched NumPy solves per class of equal-size parts
USE_COMPILED = True


@dataclass
class _DenseClass:
    rows: np.ndarray  # (G, s) local rows
    cols: np.ndarray  # (G, s) local columns
    size: int
    offset: int  # in the flat block array
    sublevel: int


@dataclass
class _CompiledPlan:
    """The arrays ``group_kernels.factor`` and ``group_kernels.solve`` take for one level:
    its parts in solution order (earlier internal levels first) and, by part, the
    coupling entries to earlier parts of the same group — for the sweeps over system
    vectors also the entries on earlier levels' columns (``Φ_h``)."""

    head: tuple  # (offsets in the flat block array, sizes, row pointers, local rows)
    cols: np.ndarray  # the parts' columns, local (``LevelSolver.cols`` order) ...
    gcols: np.ndarray  # ... and as system coordinates
    couple: tuple  # (pointers by part, entries, positions of their rows in the part)
    c_col: np.ndarray  # the coupling entries' local columns
    sweep: tuple  # ``couple`` with the Φ_h entries added ...
    s_gcol: np.ndarray  # ... and their columns as system coordinates
    blk_entry: np.ndarray  # entries of the diagonal blocks ...
    blk_flat: np.ndarray  # ... and their places in the flat block array

    @staticmethod
    def build(
        parts, order, start, c_ent, ext, ep, pos, ec, entry_cols, flat, level_cols
    ) -> _CompiledPlan:
        """``order``: the parts by internal level; ``c_ent``: the coupling entries,
        ``ext`` those on other levels' columns; by entry: ``ep`` its part, ``pos`` its
        row's position in the part, ``ec`` its local column, ``entry_cols`` its system
        column; ``flat``: its place in the flat block array (−1: not in a block)."""
        order = np.asarray(order, np.int64)
        sizes = np.array([len(parts[pi][0]) for pi in order], np.int64)
        p_row = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        cat = [np.zeros(0, np.int64)]
        rows = np.concatenate(cat + [parts[pi][0] for pi in order]).astype(np.int64)
        cols = np.concatenate(cat + [parts[pi][1] for pi in order]).astype(np.int64)
        rank = np.empty(len(parts), np.int64)
        rank[order] = np.arange(len(order))

        def by_part(ent):
            ent = ent[np.argsort(rank[ep[ent]], kind="stable")].astype(np.int64)
            ptr = np.searchsorted(rank[ep[ent]], np.arange(len(order) + 1)).astype(np.int64)
            return (ptr, ent, pos[ent].astype(np.int64))

        couple = by_part(c_ent)
        sweep = by_part(np.concatenate([c_ent, ext]))
        in_block = np.flatnonzero(flat >= 0)
        return _CompiledPlan(
            (start[order].astype(np.int64), sizes, p_row, rows),
            cols,
            level_cols[cols],
            couple,
            ec[couple[1]].astype(np.int64),
            sweep,
            entry_cols[sweep[1]].astype(np.int64),
            in_block.astype(np.int64),
            flat[in_block].astype(np.int64),
        )


class LevelFactor:
    """The Jacobian blocks of every group of a level at one evaluation; ``solve`` maps local
    rows to the level's columns by block forward substitution through the groups' parts.
    Equal-size parts of one internal level are solved as one batch (1×1 parts divided
    directly); large parts get a sparse LU, kept for the other solves with the same
    Jacobian."""

    def __init__(self, level: LevelSolver, values: np.ndarray) -> None:
        self.level = level
        self.values = values
        self._blocks = None
        self._lu = None  # compiled path: (factors, pivots), on the first solve
        self.mats = [
            sp.csc_matrix(
                (values[grp["entries"]], (grp["r"], grp["c"])), shape=(grp["size"], grp["size"])
            )
            for grp in level.sparse_groups
        ]
        self.lus: list = [None] * len(self.mats)

    @property
    def blocks(self) -> list[np.ndarray]:
        """The dense diagonal blocks, one (G, s, s) array per class."""
        if self._blocks is None:
            level = self.level
            flat = np.bincount(
                level.flat[level.in_block],
                weights=self.values[level.in_block],
                minlength=level.n_flat,
            )
            self._blocks = [
                flat[cl.offset : cl.offset + len(cl.rows) * cl.size * cl.size].reshape(
                    len(cl.rows), cl.size, cl.size
                )
                for cl in level.classes
            ]
        return self._blocks

    def _factors(self) -> tuple:
        """``(lu, piv)`` of the compiled path, factorised on the first solve."""
        if self._lu is None:
            lv = self.level
            plan = lv.plan
            lu, piv, ok = group_kernels.factor(
                self.values, plan.blk_entry, plan.blk_flat, lv.n_flat, *plan.head[:3]
            )
            if not ok:
                raise np.linalg.LinAlgError("singular group")
            self._lu = (lu, piv)
        return self._lu

    def _compiled(self, rhs: np.ndarray, out: np.ndarray, system: bool) -> None:
        """The compiled solve of ``rhs`` (k × local rows) into ``out``: k × level columns,
        or with ``system`` k system vectors, less ``Φ_h out`` (see ``solve_into``)."""
        plan = self.level.plan
        if system:
            cols, couple, c_col = plan.gcols, plan.sweep, plan.s_gcol
        else:
            cols, couple, c_col = plan.cols, plan.couple, plan.c_col
        b = np.ascontiguousarray(rhs, dtype=float)
        lu, piv = self._factors()
        group_kernels.solve(lu, piv, self.values, *plan.head, cols, *couple, c_col, b, out)

    def solve_into(self, rhs: np.ndarray, x: np.ndarray) -> None:
        """``Φ_φ x_L = rhs − Φ_h x`` for the k system vectors ``x`` (k × n) known on the
        earlier levels' columns and zero on this level's and later ones (a sweep level by
        level): ``rhs`` is k × local rows, ``x_L`` written into ``x`` at the level's
        columns."""
        lv = self.level
        if lv.plan is not None:
            self._compiled(rhs, x, True)
        else:
            rhs = rhs - lv.inputs_product(self.values, x)
            x[:, lv.cols] = self.solve(rhs.T).T

    def _dense(self, ci: int, b: np.ndarray) -> np.ndarray:
        a = self.blocks[ci]
        if a.shape[1] == 1:
            piv = a[:, 0, 0]
            if np.any(piv == 0.0):
                raise np.linalg.LinAlgError("singular group")
            return b / (piv[:, None] if b.ndim == 2 else piv[:, None, None])
        # one batched LU solve per call: cheaper than an inverse for the one to three
        # right-hand sides a Jacobian serves (a Newton step; or velocity with R, then
        # acceleration)
        x = np.linalg.solve(a, b[..., None] if b.ndim == 2 else b)
        return x[..., 0] if b.ndim == 2 else x

    def _sparse(self, k: int, b: np.ndarray, trans: str = "N") -> np.ndarray:
        if self.lus[k] is None:
            try:
                self.lus[k] = spla.splu(self.mats[k])
            except RuntimeError:
                raise np.linalg.LinAlgError("singular group") from None
        return self.lus[k].solve(np.ascontiguousarray(b), trans=trans)

    # ---- interface -------------------------------------------------------------------------
    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``Φ_φ x = rhs`` for every group; ``rhs`` over local rows, ``x`` over the level's
        columns (``level.cols`` order); ``rhs`` may have a second dimension."""
        lv = self.level
        if lv.plan is not None:
            out = np.zeros((1 if rhs.ndim == 1 else rhs.shape[1], len(lv.cols)))
            self._compiled(rhs[None, :] if rhs.ndim == 1 else rhs.T, out, False)
            return out[0] if rhs.ndim == 1 else out.T
        out = np.zeros((len(lv.cols),) + rhs.shape[1:])
        for s, (classes, sparse) in enumerate(lv.sublevels):
            b = rhs
            idx = lv.coupling[s]
            if len(idx):  # the parts solved before, within the same groups
                vals, r, c = self.values[idx], lv.entry_row[idx], lv.entry_col[idx]
                if rhs.ndim == 1:
                    b = rhs - np.bincount(r, weights=vals * out[c], minlength=len(rhs))
                else:
                    b = rhs - np.stack(
                        [
                            np.bincount(r, weights=vals * out[c, j], minlength=len(rhs))
                            for j in range(rhs.shape[1])
                        ],
                        axis=1,
                    )
            for ci in classes:
                cl = lv.classes[ci]
                out[cl.cols] = self._dense(ci, b[cl.rows])
            for k in sparse:
                grp = lv.sparse_groups[k]
                out[grp["cols"]] = self._sparse(k, b[grp["rows"]])
        return out

    def solve_transposed(self, rhs: np.ndarray) -> np.ndarray:
        """``Φ_φᵀ y = rhs`` for every group; ``rhs`` over the level's columns, ``y`` over
        local rows (backward substitution through the parts)."""
        lv = self.level
        out = np.zeros(lv.rowset.n_rows)
        for s in reversed(range(len(lv.sublevels))):
            classes, sparse = lv.sublevels[s]
            b = rhs
            idx = lv.coupling_t[s]
            if len(idx):
                vals, r, c = self.values[idx], lv.entry_row[idx], lv.entry_col[idx]
                b = rhs - np.bincount(c, weights=vals * out[r], minlength=len(rhs))
            for ci in classes:
                cl = lv.classes[ci]
                at = np.transpose(self.blocks[ci], (0, 2, 1))
                out[cl.rows] = np.linalg.solve(at, b[cl.cols][..., None])[..., 0]
            for k in sparse:
                grp = lv.sparse_groups[k]
                out[grp["rows"]] = self._sparse(k, b[grp["cols"]], trans="T")
        return out


class LevelSolver:
    """The groups of one level: their rows (a ``RowSet``) and their factorisation plan."""

    def __init__(self, system, groups, inputs, dense_max: int = DENSE_MAX) -> None:
        m = system.m
        sys_rows, input_ids = [], []
        for g in groups:
            sys_rows += [int(r) for r in g.rows if r < m]
            input_ids += [int(r) - m for r in g.rows if r >= m]
        self.input_ids = np.array(input_ids, np.int64)
        self.rowset = RowSet(system, sys_rows, [inputs[i] for i in input_ids])
        local = {r: k for k, r in enumerate(sys_rows)}
        for k, i in enumerate(input_ids):
            local[m + i] = len(sys_rows) + k
        self.input_rows = len(sys_rows) + np.arange(len(input_ids))
        self.cols = np.concatenate([g.cols for g in groups]).astype(np.int64)
        col_local = np.full(system.n, -1, np.int64)
        col_local[self.cols] = np.arange(len(self.cols))
        n_rows = self.rowset.n_rows
        # parts: (local rows, local cols, internal level, group)
        parts = []
        for gi, g in enumerate(groups):
            for rows, cols, sub in g.parts:
                lr = np.array([local[int(r)] for r in rows], np.int64)
                parts.append((lr, col_local[np.asarray(cols)], int(sub), gi))
        row_part = np.full(n_rows, -1, np.int64)
        row_pos = np.zeros(n_rows, np.int64)
        col_part = np.full(len(self.cols), -1, np.int64)
        col_pos = np.zeros(len(self.cols), np.int64)
        for pi, (lr, lc, _, _) in enumerate(parts):
            row_part[lr] = pi
            row_pos[lr] = np.arange(len(lr))
            col_part[lc] = pi
            col_pos[lc] = np.arange(len(lc))
        er = self.rowset.entry_rows
        ec = col_local[self.rowset.entry_cols]  # -1: a column of an earlier level
        ep = row_part[er]
        cp = np.where(ec >= 0, col_part[np.maximum(ec, 0)], -1)
        self.entry_row, self.entry_col = er, ec
        n_sub = 1 + max((p[2] for p in parts), default=0)
        # dense classes by (internal level, size); large parts sparse
        by_key: dict[tuple[int, int], list[int]] = {}
        sparse_ids = []
        for pi, (lr, _, sub, _) in enumerate(parts):
            if len(lr) <= dense_max:
                by_key.setdefault((sub, len(lr)), []).append(pi)
            else:
                sparse_ids.append(pi)
        self.classes: list[_DenseClass] = []
        start = np.zeros(len(parts), np.int64)
        offset = 0
        self.sublevels: list[tuple[list[int], list[int]]] = [([], []) for _ in range(n_sub)]
        for (sub, size), ids in sorted(by_key.items()):
            cl = _DenseClass(
                np.array([parts[i][0] for i in ids]).reshape(len(ids), size),
                np.array([parts[i][1] for i in ids]).reshape(len(ids), size),
                size,
                offset,
                sub,
            )
            for k, pi in enumerate(ids):
                start[pi] = offset + k * size * size
            self.sublevels[sub][0].append(len(self.classes))
            self.classes.append(cl)
            offset += len(ids) * size * size
        self.n_flat = offset
        sizes = np.array([len(p[0]) for p in parts], np.int64)
        dense_part = np.ones(len(parts), bool)
        dense_part[sparse_ids] = False
        diag = (cp == ep) & (ep >= 0)
        sel = np.flatnonzero(diag & dense_part[np.maximum(ep, 0)])
        flat = np.full(len(er), -1, np.int64)
        p_sel = ep[sel]
        flat[sel] = start[p_sel] + row_pos[er[sel]] * sizes[p_sel] + col_pos[ec[sel]]
        self.flat = flat
        self.in_block = np.flatnonzero(flat >= 0)
        # entries coupling a part to an earlier part of its group, by the row's level
        sub_of = np.array([p[2] for p in parts], np.int64)
        couple = (cp >= 0) & (cp != ep)
        self.coupling = [
            np.flatnonzero(couple & (sub_of[np.maximum(ep, 0)] == s)) for s in range(n_sub)
        ]
        # for the transposed solve: the same entries by the column's level
        self.coupling_t = [
            np.flatnonzero(couple & (sub_of[np.maximum(cp, 0)] == s)) for s in range(n_sub)
        ]
        self.sparse_groups = []
        for pi in sparse_ids:
            lr, lc, sub, _ = parts[pi]
            sel_p = np.flatnonzero(diag & (ep == pi))
            self.sparse_groups.append(
                {
                    "entries": sel_p,
                    "r": row_pos[er[sel_p]],
                    "c": col_pos[ec[sel_p]],
                    "size": len(lr),
                    "rows": lr,
                    "cols": lc,
                }
            )
            self.sublevels[sub][1].append(len(self.sparse_groups) - 1)
        # Φ_h: the entries on columns of earlier levels (the others multiply zeros in the
        # velocity, acceleration and R sweeps)
        ext = np.flatnonzero(ec < 0)
        self.ext_entries, self.ext_rows = ext, er[ext]
        self.ext_cols = self.rowset.entry_cols[ext]
        # the compiled factorisation (all parts dense); as above, only the coupling to
        # parts of earlier internal levels counts (the structure makes the others zero)
        self.plan = None
        if group_kernels.enabled() and USE_COMPILED and not sparse_ids:
            order = [pi for _, ids in sorted(by_key.items()) for pi in ids]
            c_ent = np.flatnonzero(couple)
            c_ent = c_ent[sub_of[cp[c_ent]] < sub_of[ep[c_ent]]]
            self.plan = _CompiledPlan.build(
                parts,
                order,
                start,
                c_ent,
                ext,
                ep,
                row_pos[er],
                ec,
                self.rowset.entry_cols,
                flat,
                self.cols,
            )
        # the whole Newton loop compiled: quadratic rows and at most one angle part, all
        # parts dense
        self.newton_args = None
        rows = self.rowset.compiled_rows
        if self.plan is not None and rows is not None and group_evaluation.USE_COMPILED:
            p = self.plan
            self.newton_args = (
                rows,
                (p.blk_entry, p.blk_flat, self.n_flat, *p.head, p.cols, *p.couple, p.c_col)
                + (self.cols,),
            )
        self.groups = groups
        self.last = None  # the RowEval at the converged position
        self.factor = None

    def factorise(self, values: np.ndarray) -> LevelFactor:
        return LevelFactor(self, values)

    def inputs_product(self, values: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``Φ_h x`` (k × local rows) for the k system vectors ``x`` (k × n) that are zero
        on this level's columns and later ones, as in the sweeps level by level: only
        the entries on earlier levels' columns are read."""
        w = values[self.ext_entries]
        out = np.zeros((len(x), self.rowset.n_rows))
        if len(w):  # (bincount of nothing is an integer array)
            for j, xj in enumerate(x):
                out[j] = np.bincount(
                    self.ext_rows, weights=w * xj[self.ext_cols], minlength=out.shape[1]
                )
        return out


def _singular(t: float) -> SimulationError:
    return SimulationError(
        t,
        "a structural group is singular here (a singular position of the mechanism)",
        "use group_method global, or avoid the singular configuration",
    )


def _diverged(t: float, err: float, it: int) -> SimulationError:
    return SimulationError(
        t,
        f"the position problem of a structural group did not converge "
        f"(residual {err:.3g} after {it} iterations)",
        "reduce the step, or use group_method global",
    )


class GroupKinematics:
    """Kinematic problems of a system over a ``Decomposition`` (see the module docstring)."""

    def __init__(self, system, decomposition, tol: float, max_iterations: int) -> None:
        self.system = system
        self.decomposition = decomposition
        self.tol = tol
        self.max_iterations = max_iterations
        self.levels = [
            LevelSolver(system, [decomposition.groups[i] for i in ids], decomposition.inputs)
            for ids in decomposition.levels
        ]
        self.n_inputs = len(decomposition.inputs)
        #: some row depends on time (drivers): Φ_t ≠ 0
        self.rheonomic = any(lv.rowset.rheonomic for lv in self.levels)

    def _factorise(self, lv: LevelSolver, values: np.ndarray, t: float) -> LevelFactor:
        return lv.factorise(values)

    @staticmethod
    def _solve(fac: LevelFactor, rhs: np.ndarray, t: float = math.nan) -> np.ndarray:
        try:
            x = fac.solve(rhs)
        except np.linalg.LinAlgError:
            x = None
        if x is None or not np.all(np.isfinite(x)):
            raise _singular(t)
        return x

    def position(self, q: np.ndarray, t: float, z=None) -> tuple[np.ndarray, int]:
        """Solve ``Φ(q, t; z) = 0`` level by level from ``q``; ``(q, Newton iterations)``.
        Every level keeps the factorisation at its solution for the other problems."""
        q = np.array(q, float)
        iterations = 0
        for lv in self.levels:
            if lv.newton_args is not None:
                iterations += self._compiled_position(lv, q, t, z)
                continue
            extra, prev = 0, np.inf
            for it in range(self.max_iterations + 1):
                ev = lv.rowset.evaluate(q, None, t, z)
                err = float(np.abs(ev.phi).max()) if len(ev.phi) else 0.0
                fac = self._factorise(lv, ev.values, t)
                if err <= self.tol:
                    # more steps while the residual is not yet far below the tolerance
                    # and still falls: the solution is then exact to round-off, whatever
                    # path the iterations took (groups or global)
                    if err <= POLISH * self.tol or err > 0.25 * prev or extra == MAX_POLISH:
                        break
                    extra += 1
                prev = err
                if it == self.max_iterations or not np.isfinite(err):
                    raise _diverged(t, err, it)
                q[lv.cols] -= self._solve(fac, ev.phi, t)
                iterations += 1
            lv.last, lv.factor = ev, fac
        return q, iterations

    def _sweep(self, k: int, rhs_of, t: float = math.nan) -> np.ndarray:
        """``x`` (k × n): the levels' solves in turn, ``rhs_of(level, x)`` giving each
        level's right-hand sides (k × local rows) from the columns found before."""
        x = np.zeros((k, self.system.n))
        for lv in self.levels:
            try:
                lv.factor.solve_into(rhs_of(lv, x), x)
            except np.linalg.LinAlgError:
                raise _singular(t) from None
        if not np.all(np.isfinite(x)):
            raise _singular(t)
        return x

    def _compiled_position(self, lv: LevelSolver, q: np.ndarray, t: float, z) -> int:
        """The Newton loop of ``position`` for one level of quadratic and angle rows in
        one compiled call (``group_kernels.newton``, the same steps); ``q`` updated in
        place."""
        (form, angle), plan = lv.newton_args
        if z is not None and lv.rowset.n_inputs:
            lv.rowset.set_inputs(np.asarray(z, float))
        angle_rows = _AnglePart.none() if angle is None else angle.kernel_args(t)
        status, its, err, it, phi, values = group_kernels.newton(
            q, self.tol, self.max_iterations, POLISH, MAX_POLISH, form, angle_rows, plan
        )
        if status == group_kernels.NEWTON_SINGULAR:
            raise _singular(t)
        if status != group_kernels.NEWTON_OK:
            raise _diverged(t, err, it)
        phit = np.zeros(lv.rowset.n_rows)
        if angle is not None:
            phit[angle.loc] = -angle.prim.target(t)[1]
        lv.last = RowEval(phi, values, phit, None)
        lv.factor = self._factorise(lv, values, t)
        return its

    def velocity(self, zd=None) -> np.ndarray:
        """``q̇`` at the last position (``ż`` for the input rows)."""

        def rhs_of(lv, x):
            ev = lv.last
            rhs = np.tile(-ev.phit, (len(x), 1))
            if len(lv.input_ids):
                rhs[0, lv.input_rows] += zd[lv.input_ids]
            return rhs

        return self._sweep(1, rhs_of)[0]

    def acceleration(self, q: np.ndarray, qd: np.ndarray, t: float, zdd=None, z=None):
        """``q̈`` at the last position with velocities ``qd`` (``z̈`` for the input rows)."""

        def rhs_of(lv, x):
            rhs = lv.rowset.gamma(q, qd, t, z)[None, :]
            if len(lv.input_ids) and zdd is not None:
                rhs[0, lv.input_rows] += zdd[lv.input_ids]
            return rhs

        return self._sweep(1, rhs_of, t)[0]

    def velocity_and_r(self, zd) -> tuple[np.ndarray, np.ndarray]:
        """``(q̇, R)`` at the last position in one sweep (R = ∂q/∂z, n × g); without
        rheonomic rows (``Φ_t = 0``) ``q̇ = R ż``, one right-hand side fewer."""
        if not self.rheonomic:
            r = self.r_matrix()
            return r @ np.asarray(zd, float), r

        def rhs_of(lv, x):
            ev = lv.last
            rhs = np.zeros((len(x), lv.rowset.n_rows))
            rhs[0] -= ev.phit
            if len(lv.input_ids):
                rhs[0, lv.input_rows] += zd[lv.input_ids]
                rhs[1 + lv.input_ids, lv.input_rows] += 1.0
            return rhs

        x = self._sweep(1 + self.n_inputs, rhs_of)
        return x[0], x[1:].T.copy()

    def r_matrix(self) -> np.ndarray:
        """``R = ∂q/∂z`` (n × g) at the last position."""

        def rhs_of(lv, x):
            rhs = np.zeros((len(x), lv.rowset.n_rows))
            if len(lv.input_ids):
                rhs[lv.input_ids, lv.input_rows] += 1.0
            return rhs

        return self._sweep(self.n_inputs, rhs_of).T.copy()

    def multipliers(self, f: np.ndarray) -> np.ndarray:
        """``λ`` with ``Φ_qᵀ λ = f`` (system rows, inputs last) by the transposed
        block-triangular solve, levels in reverse order."""
        m = self.system.m
        lam = np.zeros(m + self.n_inputs)
        rest = np.array(f, float)
        for lv in reversed(self.levels):
            y = lv.factor.solve_transposed(rest[lv.cols])
            rest -= lv.rowset.transpose_product(lv.last.values, y, self.system.n)
            n_sys = lv.rowset.n_rows - len(lv.input_ids)
            sys_rows = np.array([int(r) for g in lv.groups for r in g.rows if r < m], np.int64)
            lam[sys_rows] = y[:n_sys]
            lam[m + lv.input_ids] = y[n_sys:]
        return lam
