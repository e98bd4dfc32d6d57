"""Dynamics of Saura et al. in natural coordinates: penalty and R matrix with the implicit
trapezoidal rule, on the structural groups or on the whole system (Saura et al. §2.2, §3.3).

Both need a constant mass matrix (natural coordinates): ``M`` and the constant forces
(gravity) are assembled once; the variable forces (force elements) are evaluated when
the model has any.

**R matrix** (``GroupRMatrix``): the independent coordinates ``z`` are the DOF inputs of
the decomposition (the crank angle of the slider-crank). Each evaluation at ``(z, ż, t)``
solves the position and velocity problems group by group, builds ``R`` and ``Ṙż`` (the
acceleration problem with ``z̈ = 0``) and solves ``Rᵀ M R z̈ = Rᵀ (Q − M Ṙż)`` (Saura et al. eq.
10); then ``q̈ = R z̈ + Ṙż``.

**Penalty** (``GroupPenalty``): ``(M + α Φ_qᵀ Φ_q) q̈ = Q − α Φ_qᵀ (Φ̇_q q̇ + 2ξω Φ̇ + ω² Φ)``
(Saura et al. eq. 7, with ``Φ̇_q q̇ + Φ̇_t = −γ``). With structural groups the rows are evaluated
and the matrix ``Σ_G Φ_{q_G}ᵀ Φ_{q_G}`` (over each group's rows and all their columns, Saura et al.
eq. 13) is assembled group by group into a fixed sparsity pattern, ordered by the
structure (later groups first, so that the LU of the arrow-shaped matrix has no fill
beyond the groups); the global method builds ``Φ_qᵀ Φ_q`` as one sparse product and
leaves the ordering to SuperLU. Mathematically the two are the same matrix.

**Integrator** (Saura et al. §4.2): the trapezoidal rule ``x₁ = x₀ + h/2 (ẋ₀ + ẋ₁)``,
``ẋ₁ = ẋ₀ + h/2 (ẍ₀ + ẍ₁)`` on ``x = z`` (R matrix) or ``x = q`` (penalty), with a
fixed-point corrector from a predictor (``ẍ₁`` extrapolated linearly from the last two
steps), iterated until the change of ``x``, and of ``ẋ`` relative to its largest
component (at least 1), is below ``corrector_tolerance`` (Saura et al.: 1e-5); the state is the
last evaluated one (consistent kinematics). Parameters: penalty
``α`` (``penalty``, default 1e7, relative to the mass scale of the model — the largest
diagonal entry of ``M`` — exactly as in the ``penalty`` formulation), ``ξ`` (``xi``, 1) and
``ω`` (``omega``, 10).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import Carry, DynamicState
from solver.analysis.formulations.trapezoidal import mass_scale
from solver.analysis.group_evaluation import RowSet
from solver.analysis.group_kinematics import GroupKinematics


@dataclass
class CorrectorCarry(Carry):
    """What a structural-group step carries to the next: ``accel_prev`` the previous
    step's accelerations (the predictor extrapolates from them; ``None`` after the
    start), and what it reports: ``corrector_iterations`` the fixed-point iterations of
    the step."""

    accel_prev: np.ndarray | None = None
    corrector_iterations: int = 0


@dataclass
class GroupRMatrixCarry(CorrectorCarry):
    """:class:`CorrectorCarry` of the R-matrix steps, in the independent coordinates z:
    ``z``, ``zd``, ``zdd`` at the state (``accel_prev`` is the previous step's z̈), and
    ``newton`` the position iterations of the step's evaluations."""

    z: np.ndarray | None = None
    zd: np.ndarray | None = None
    zdd: np.ndarray | None = None
    newton: int = 0


class ConstantDynamics:
    """``M`` (constant, sparse) and ``Q(q, q̇, t)`` of a natural-coordinate system."""

    def __init__(self, system) -> None:
        self.system = system
        self.mass = sp.csr_matrix(system.mass(system.q0))
        self.gravity = system.gravity_forces()
        self.variable = not system.gravity_only

    def forces(self, q: np.ndarray, qd: np.ndarray, t: float) -> np.ndarray:
        if self.variable:
            return self.system.forces(q, qd, t)
        return self.gravity


class _Trapezoidal:
    """The fixed-point trapezoidal corrector shared by both formulations."""

    def __init__(self, tol: float, max_iterations: int) -> None:
        self.tol = tol
        self.max_iterations = max_iterations

    def step(self, x0, v0, a0, h: float, t1: float, evaluate, name: str, a_prev=None):
        """``evaluate(x, v) → (a, payload)``; returns ``(x, v, a, payload, iterations)``.
        With the previous step's ``a_prev`` the predictor extrapolates the acceleration
        linearly (fewer corrector iterations; the converged result is the same)."""
        a_p = a0 if a_prev is None else 2.0 * a0 - a_prev
        v = v0 + 0.5 * h * (a0 + a_p)
        x = x0 + 0.5 * h * (v0 + v)
        change = np.inf
        for it in range(1, self.max_iterations + 1):
            a, payload = evaluate(x, v)
            v_new = v0 + 0.5 * h * (a0 + a)
            x_new = x0 + 0.5 * h * (v0 + v_new)
            # x absolutely, ẋ relative to the largest rate (rad/s or m/s)
            vscale = max(1.0, float(np.abs(v_new).max(initial=0.0)))
            change = max(
                float(np.abs(x_new - x).max(initial=0.0)),
                float(np.abs(v_new - v).max(initial=0.0)) / vscale,
            )
            if change <= self.tol:
                return x, v, a, payload, it
            if not np.isfinite(change):
                break
            x, v = x_new, v_new
        raise SimulationError(
            t1,
            f"the {name} trapezoidal corrector did not converge in {self.max_iterations} "
            f"iterations at dt = {h:g} s (last change {change:.3g})",
            "reduce dt",
        )


class GroupRMatrix:
    """The R-matrix formulation (see the module docstring) as a stepper."""

    name = "R-matrix"

    def __init__(
        self,
        system,
        decomposition,
        tol: float = 1e-10,
        max_iterations: int = 25,
        corrector_tolerance: float = 1e-5,
        max_corrector: int = 50,
    ) -> None:
        self.system = system
        self.kin = GroupKinematics(system, decomposition, tol, max_iterations)
        self.dyn = ConstantDynamics(system)
        self.inputs = RowSet(system, [], decomposition.inputs)
        self.corrector = _Trapezoidal(corrector_tolerance, max_corrector)
        self.evaluations = 0

    def coordinates(self, q: np.ndarray, qd: np.ndarray, t: float):
        """``(z, ż)`` of the DOF inputs at a state."""
        ev = self.inputs.evaluate(q, None, t, np.zeros(self.inputs.n_inputs))
        return ev.phi.copy(), self.inputs.product(ev.values, qd)

    def evaluate(self, z, zd, t: float, q_guess: np.ndarray):
        """``(q, q̇, q̈, z̈, Newton iterations)`` at ``(z, ż, t)``."""
        self.evaluations += 1
        kin = self.kin
        q, its = kin.position(q_guess, t, z)
        qd, r = kin.velocity_and_r(zd)
        rzd = kin.acceleration(q, qd, t, None, z)
        m = self.dyn.mass
        f = self.dyn.forces(q, qd, t) - m @ rzd
        mr = m @ r
        a, b = r.T @ mr, r.T @ f
        if len(b) == 1:  # one DOF: LAPACK's 1 × 1 solve is this division
            if a[0, 0] == 0.0:
                raise np.linalg.LinAlgError("Singular matrix")
            zdd = b / a[0, 0]
        else:
            zdd = np.linalg.solve(a, b)
        return q, qd, rzd + r @ zdd, zdd, its

    def start(self, state: DynamicState) -> DynamicState:
        z, zd = self.coordinates(state.q, state.qd, state.t)
        q, qd, qdd, zdd, its = self.evaluate(z, zd, state.t, state.q)
        carry = GroupRMatrixCarry(z=z, zd=zd, zdd=zdd)
        return DynamicState(state.t, q, qd, qdd, None, state.iterations + its, carry)

    def step(self, state: DynamicState, h: float) -> DynamicState:
        t1 = state.t + h
        ex = state.carry
        guess = {"q": state.q + h * state.qd + 0.5 * h * h * state.qdd}
        newton = [0]

        def evaluate(z, zd):
            q, qd, qdd, zdd, its = self.evaluate(z, zd, t1, guess["q"])
            guess["q"] = q
            newton[0] += its
            return zdd, (q, qd, qdd)

        z, zd, zdd, (q, qd, qdd), it = self.corrector.step(
            ex.z, ex.zd, ex.zdd, h, t1, evaluate, self.name, ex.accel_prev
        )
        carry = GroupRMatrixCarry(
            accel_prev=ex.zdd, corrector_iterations=it, z=z, zd=zd, zdd=zdd, newton=newton[0]
        )
        return DynamicState(t1, q, qd, qdd, None, it, carry)


class GroupPenalty:
    """The penalty formulation (see the module docstring) as a stepper."""

    name = "penalty"

    def __init__(
        self,
        system,
        decomposition,
        penalty: float = 1e7,
        xi: float = 1.0,
        omega: float = 10.0,
        corrector_tolerance: float = 1e-5,
        max_corrector: int = 50,
    ) -> None:
        self.system = system
        self.dyn = ConstantDynamics(system)
        # as in the ``penalty`` formulation: α relative to the mass scale of the model
        self.alpha = float(penalty) * mass_scale(system, system.q0)
        self.xi, self.omega = float(xi), float(omega)
        self.corrector = _Trapezoidal(corrector_tolerance, max_corrector)
        self.structured = decomposition.method != "global"
        self.evaluations = 0
        m = system.m
        if self.structured:
            self._build_groups(decomposition)
        else:
            self.rowsets = [RowSet(system, np.arange(m))]

    # ---- group-wise assembly plan -----------------------------------------------------------
    def _build_groups(self, dec) -> None:
        s, m, n = self.system, self.system.m, self.system.n
        self.rowsets, self._plans = [], []
        # ordering: the structure's coordinates, last groups first
        order = np.concatenate([g.cols for g in reversed(dec.groups)])
        self.perm = order  # new position k holds coordinate order[k]
        inv = np.empty(n, np.int64)
        inv[order] = np.arange(n)
        self.inv = inv
        pat_r, pat_c = [sp.find(self.dyn.mass)[0]], [sp.find(self.dyn.mass)[1]]
        plans = []
        for ids in dec.levels:
            rows = [int(r) for i in ids for r in dec.groups[i].rows if r < m]
            rs = RowSet(s, rows)
            self.rowsets.append(rs)
            local = {r: k for k, r in enumerate(rows)}
            by_shape: dict[tuple, list] = {}
            for i in ids:
                g_rows = np.array([local[int(r)] for r in dec.groups[i].rows if r < m], np.int64)
                if not len(g_rows):
                    continue
                sel = np.flatnonzero(np.isin(rs.entry_rows, g_rows))
                cols = np.unique(rs.entry_cols[sel])
                by_shape.setdefault((len(g_rows), len(cols)), []).append((g_rows, cols, sel))
            for (nr, nc), items in by_shape.items():
                # dense (G, nr, nc) blocks from entries; Gram (G, nc, nc)
                flat, src = [], []
                for k, (g_rows, cols, sel) in enumerate(items):
                    ri = np.searchsorted(np.sort(g_rows), rs.entry_rows[sel])
                    ci = np.searchsorted(cols, rs.entry_cols[sel])
                    flat.append((k * nr + ri) * nc + ci)
                    src.append(sel)
                cols_all = np.array([c for _, c, _ in items]).reshape(len(items), nc)
                pr = np.repeat(cols_all, nc, axis=1).ravel()
                pc = np.tile(cols_all, (1, nc)).ravel()
                pat_r.append(pr)
                pat_c.append(pc)
                plans.append(
                    {
                        "level": len(self.rowsets) - 1,
                        "shape": (len(items), nr, nc),
                        "flat": np.concatenate(flat),
                        "src": np.concatenate(src),
                        "pr": pr,
                        "pc": pc,
                    }
                )
        # the fixed pattern of M̄ in the structural order, and where each term goes
        r = inv[np.concatenate(pat_r)]
        c = inv[np.concatenate(pat_c)]
        key = np.unique(c * n + r)  # CSC: column-major
        self._indices = (key % n).astype(np.int32)
        counts = np.bincount(key // n, minlength=n)
        self._indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        mr, mc, mv = sp.find(self.dyn.mass)
        self._mass_pos = np.searchsorted(key, inv[mc] * n + inv[mr])
        self._mass_val = mv
        for plan in plans:
            plan["pos"] = np.searchsorted(key, inv[plan["pc"]] * n + inv[plan["pr"]])
        self._plans = plans
        self._nnz = len(key)

    # ---- evaluation ---------------------------------------------------------------------------
    def _rows(self, q, qd, t):
        evs = [rs.evaluate(q, qd, t) for rs in self.rowsets]
        return evs

    def accelerations(self, q: np.ndarray, qd: np.ndarray, t: float) -> np.ndarray:
        self.evaluations += 1
        s, a, xi, w = self.system, self.alpha, self.xi, self.omega
        n = s.n
        rhs = self.dyn.forces(q, qd, t).copy()
        evs = self._rows(q, qd, t)
        for rs, ev in zip(self.rowsets, evs, strict=True):
            phid = rs.product(ev.values, qd) + ev.phit
            c = -ev.gamma + 2.0 * xi * w * phid + w * w * ev.phi
            rhs -= a * rs.transpose_product(ev.values, c, n)
        if not self.structured:
            rs, ev = self.rowsets[0], evs[0]
            jac = sp.csr_matrix((ev.values, (rs.entry_rows, rs.entry_cols)), shape=(rs.n_rows, n))
            mbar = (self.dyn.mass + a * (jac.T @ jac)).tocsc()
            return spla.splu(mbar).solve(rhs)
        data = np.zeros(self._nnz)
        np.add.at(data, self._mass_pos, self._mass_val)
        for plan in self._plans:
            ev = evs[plan["level"]]
            g, nr, nc = plan["shape"]
            blocks = np.bincount(
                plan["flat"], weights=ev.values[plan["src"]], minlength=g * nr * nc
            ).reshape(g, nr, nc)
            gram = a * np.einsum("gri,grj->gij", blocks, blocks)
            np.add.at(data, plan["pos"], gram.ravel())
        mbar = sp.csc_matrix((data, self._indices, self._indptr), shape=(n, n))
        lu = spla.splu(mbar, permc_spec="NATURAL")
        return lu.solve(rhs[self.perm])[self.inv]

    def start(self, state: DynamicState) -> DynamicState:
        qdd = self.accelerations(state.q, state.qd, state.t)
        return DynamicState(state.t, state.q, state.qd, qdd, None, state.iterations)

    def step(self, state: DynamicState, h: float) -> DynamicState:
        t1 = state.t + h

        def evaluate(q, qd):
            return self.accelerations(q, qd, t1), None

        q, qd, qdd, _, it = self.corrector.step(
            state.q, state.qd, state.qdd, h, t1, evaluate, self.name, _accel_prev(state)
        )
        carry = CorrectorCarry(accel_prev=state.qdd, corrector_iterations=it)
        return DynamicState(t1, q, qd, qdd, None, it, carry)


def _accel_prev(state: DynamicState) -> np.ndarray | None:
    """The previous step's accelerations a state carries (``None`` after the start)."""
    return state.carry.accel_prev if isinstance(state.carry, CorrectorCarry) else None
