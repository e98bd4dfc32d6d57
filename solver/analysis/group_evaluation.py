"""Evaluation of a subset of a system's constraint rows (plus virtual input rows).

The structural-group method solves a few rows at a time; evaluating the whole system for
each of them would cost O(n) per group. ``RowSet`` evaluates only the primitive
instances that own its rows, on a private marker table holding only their markers,
with the same primitive classes and the same formulas as ``MultibodySystem.constraints``
(``Φ_q = Σ blocks·J``, ``γ = −Σ blocks·(J̇q̇) − quad − phitt``).

*Input rows* are the DOF inputs of a mechanism: the relative angle of a revolute joint
(``Angle``) or the relative displacement of a prismatic or cylindrical joint
(``PointPlane``), measured from the initial configuration like a driver, whose target
is an independent coordinate ``z`` instead of a function of time:
``Φ = θ(q) − z``, so ``∂Φ/∂z = −1``.

The Jacobian comes back as ``values`` over a fixed list of entries ``(row, col)``
(``entry_rows`` local, ``entry_cols`` global; repeated pairs add up), so that callers can
scatter them into dense blocks or sparse matrices through precomputed indices.

Speed: with natural coordinates every marker is linear in q, so the rows of coincident
points, dot products, points on planes and distances are exactly quadratic in q and are
compiled once into ``Φ = κ + gᵀq + ½ qᵀHq`` (``_QuadraticPart``); angle rows (drivers,
DOF inputs) are ``atan2`` of two such forms (``_AnglePart``). Each compiled part is
checked against its primitive at a random state when it is built (Saura et al.: "group
equations generated symbolically"); anything else is evaluated through its primitive.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from solver.analysis import group_kernels
from solver.mechanics.constraints.joints import normals
from solver.mechanics.constraints.primitives import Angle, Dot, PointPlane, wrap_angle
from solver.mechanics.markers import GROUND, LINEAR, Markers
from solver.model import description as d

#: evaluate the quadratic and angle rows with the compiled kernels of ``group_kernels``
#: (when ``group_kernels.enabled()``); False: the NumPy formulas (the same sums)
USE_COMPILED = True


@dataclass
class InputRow:
    """A DOF input: a joint whose relative coordinate becomes an independent coordinate."""

    joint: d.Joint
    coordinate: str  # "angle" | "displacement"

    @property
    def label(self) -> str:
        return f'{self.coordinate} of joint "{self.joint.name}"'


def input_candidates(model: d.Model) -> list[InputRow]:
    """Joints whose relative coordinate can be a DOF input, joints to ground first (in
    model order), then the others: revolute (angle), prismatic and cylindrical
    (displacement; a cylindrical joint also offers its angle)."""
    first, rest = [], []
    for j in model.joints:
        rows = []
        if j.type == "revolute":
            rows.append(InputRow(j, "angle"))
        elif j.type in ("prismatic", "cylindrical"):
            rows.append(InputRow(j, "displacement"))
            if j.type == "cylindrical":
                rows.append(InputRow(j, "angle"))
        (first if d.GROUND in (j.body1, j.body2) else rest).extend(rows)
    return first + rest


def copy_marker(src: Markers, i: int, dst: Markers) -> int:
    """Add marker ``i`` of the frozen table ``src`` to ``dst``; its index there."""
    kind = int(src.kind[i])
    cols = [int(c) for c in src.cols[i] if c >= 0]
    if kind == LINEAR:
        return dst.add_linear(cols, src._coef[i], src.local[i], bool(src.is_point[i]))
    return dst.add(kind, cols, src.local[i], bool(src.is_point[i]))


def input_markers(system, row: InputRow, table: Markers) -> tuple[type, tuple[int, ...]]:
    """The primitive class and markers (in ``table``) of an input row, built like the
    driver of the same joint (``JointBuilder.driver``)."""
    j = row.joint
    a, n1, n2 = normals(j.axis)

    def vector(body, xyz):
        return _marker(system, table, body, xyz, False)

    def point(body, xyz):
        return _marker(system, table, body, xyz, True)

    if row.coordinate == "angle":
        return Angle, (vector(j.body1, n1), vector(j.body1, n2), vector(j.body2, n1))
    return PointPlane, (point(j.body1, j.point), point(j.body2, j.point), vector(j.body1, a))


def _marker(system, table: Markers, body: str, xyz, is_point: bool) -> int:
    xyz = np.asarray(xyz, float)
    if body == d.GROUND:
        return table.add(GROUND, [], xyz, is_point)
    slot = system.slots[body]
    owner = slot.owner
    if owner is None or not hasattr(owner, "linear_marker"):
        raise NotImplementedError(f'body "{body}" is not in natural coordinates')
    return owner.linear_marker(table, slot, xyz, is_point)


@dataclass
class RowEval:
    phi: np.ndarray
    values: np.ndarray
    phit: np.ndarray
    gamma: np.ndarray | None


class RowSet:
    """Rows ``rows`` of ``system`` (in that order) followed by the input rows ``inputs``.

    ``evaluate(q, q̇, t, z)`` gives Φ, the Jacobian values over ``entry_rows`` ×
    ``entry_cols``, Φ_t and (with q̇) γ, all in local row order. ``z`` holds the targets
    of the input rows.
    """

    def __init__(self, system, rows, inputs: list[InputRow] = ()) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        self.system = system
        self.n_rows = len(rows) + len(inputs)
        self.n_inputs = len(inputs)
        local_of = {int(r): k for k, r in enumerate(rows)}
        table = Markers()
        remap: dict[int, int] = {}
        src = system.markers

        def mk(i: int) -> int:
            if i not in remap:
                remap[i] = copy_marker(src, i, table)
            return remap[i]

        self._parts = []  # (primitive, local row of each (instance, row), -1 if not ours)
        for g, r0 in zip(system.groups, system.group_rows, strict=True):
            n = len(g) * g.rows
            mine = rows[(rows >= r0) & (rows < r0 + n)]
            if not len(mine):
                continue
            inst = np.unique((mine - r0) // g.rows)
            sub = copy.copy(g)
            sub.index = [np.array([mk(int(i)) for i in ix[inst]], np.int64) for ix in g.index]
            sub.const = g.const[inst].copy()
            sub._const = list(sub.const)  # len(sub)
            sub._markers = list(zip(*sub.index, strict=True))
            sub._funcs = [g._funcs[k] for k in inst]
            sub.driven = [k for k, f in enumerate(sub._funcs) if f is not None]
            grow = r0 + inst[:, None] * g.rows + np.arange(g.rows)  # (m, r) system rows
            loc = np.array([local_of.get(int(r), -1) for r in grow.ravel()], np.int64)
            self._parts.append((sub, loc))
        self._input_parts = []  # (primitive, indices of its instances among the inputs)
        if len(inputs):
            by_class: dict[type, list] = {}
            for k, row in enumerate(inputs):
                cls, markers = input_markers(system, row, table)
                by_class.setdefault(cls, []).append((k, markers))
            for cls, items in by_class.items():
                prim = cls()
                for _, markers in items:
                    prim.add(markers, 0.0)
                prim.freeze()
                ks = np.array([k for k, _ in items], np.int64)
                self._parts.append((prim, len(rows) + ks))
                self._input_parts.append((prim, ks))
        table.freeze()
        input_ids = {id(prim) for prim, _ in self._input_parts}
        compiled, generic = [], []
        self._angles = []
        for prim, loc in self._parts:
            if isinstance(prim, Angle):
                part = _AnglePart.compile(prim, loc, table, system.n)
                if part is not None:
                    self._angles.append(part)
                    continue
            quad = None
            if id(prim) not in input_ids and not prim.driven:
                quad = _QuadraticPart.compile(prim, loc, table, system.n)
            (compiled if quad is not None else generic).append(quad or (prim, loc))
        self._quadratic = _QuadraticPart.merge(compiled, self.n_rows)
        # the generic parts evaluate on a table of their own markers only
        runtime = Markers()
        remap: dict[int, int] = {}
        self._parts = []
        for prim, loc in generic:
            for k, ix in enumerate(prim.index):
                new_ix = []
                for i in ix:
                    if int(i) not in remap:
                        remap[int(i)] = copy_marker(table, int(i), runtime)
                    new_ix.append(remap[int(i)])
                prim.index[k] = np.array(new_ix, np.int64)
            self._parts.append((prim, loc))
        runtime.freeze()
        self.markers = runtime
        # the fixed list of Jacobian entries: the quadratic rows, then the generic parts
        er, ec, self._keeps = [self._quadratic.rows], [self._quadratic.cols], []
        for part in self._angles:
            er.append(part.entry_rows)
            ec.append(part.entry_cols)
        cols = runtime.cols
        for prim, loc in self._parts:
            m, r = len(prim), prim.rows
            lr = loc.reshape(m, r)
            for idx in prim.index:
                c = cols[idx]  # (m, K)
                rr = np.broadcast_to(lr[:, :, None], (m, r, c.shape[1]))
                cc = np.broadcast_to(c[:, None, :], (m, r, c.shape[1]))
                keep = (rr >= 0) & (cc >= 0)
                self._keeps.append(np.flatnonzero(keep.ravel()))
                er.append(rr[keep])
                ec.append(cc[keep])
        self.entry_rows = np.concatenate(er).astype(np.int64)
        self.entry_cols = np.concatenate(ec).astype(np.int64)

    @property
    def rheonomic(self) -> bool:
        """Whether a row can depend on time (a driver: ``Φ_t`` not identically zero)."""
        prims = [part.prim for part in self._angles] + [prim for prim, _ in self._parts]
        return any(len(getattr(prim, "driven", ())) for prim in prims)

    @property
    def compiled_rows(self) -> tuple | None:
        """``(quadratic form, angle part or None)`` when every row is a compiled
        quadratic row or belongs to at most one compiled angle part (the arguments of
        ``group_kernels.newton``'s evaluation), else None."""
        if self._parts or len(self._angles) > 1:
            return None
        quad = self._quadratic
        form = (quad.kappa, quad.g, quad.rows, quad.cols, *quad._h)
        return form, (self._angles[0] if self._angles else None)

    def set_inputs(self, z: np.ndarray) -> None:
        """Targets of the input rows (in the order the inputs were given)."""
        for prim, ks in self._input_parts:
            prim.const[:] = z[ks]

    def evaluate(self, q, qd=None, t: float = 0.0, z=None) -> RowEval:
        if z is not None and self.n_inputs:
            self.set_inputs(np.asarray(z, float))
        want_gamma = qd is not None
        quad = self._quadratic
        phi, vals0, gamma = quad.evaluate(q, qd)
        phit = np.zeros(self.n_rows)
        vals = [vals0]
        for part in self._angles:
            vals.append(part.evaluate(q, qd, t, phi, phit, gamma))
        if self._parts:
            ms = self.markers.evaluate(q, qd if want_gamma else np.zeros_like(q))
            k = 0
            for prim, loc in self._parts:
                ev = prim.evaluate(ms, t)
                keep = loc >= 0
                where = loc[keep]
                phi[where] = ev.phi.ravel()[keep]
                phit[where] = ev.phit.ravel()[keep]
                acc = -ev.quad - ev.phitt if want_gamma else None
                for idx, blk in zip(prim.index, ev.blocks, strict=True):
                    v = np.einsum("mri,mik->mrk", blk, ms.jac[idx]).ravel()
                    vals.append(v[self._keeps[k]])
                    k += 1
                    if want_gamma:
                        acc = acc - np.einsum("mri,mi->mr", blk, ms.jdq[idx])
                if want_gamma:
                    gamma[where] = acc.ravel()[keep]
        values = np.concatenate(vals) if len(vals) > 1 else vals0
        return RowEval(phi, values, phit, gamma if want_gamma else None)

    def gamma(self, q, qd, t: float = 0.0, z=None) -> np.ndarray:
        """``γ`` alone (cheaper than ``evaluate`` for the quadratic rows)."""
        if self._parts:
            return self.evaluate(q, qd, t, z).gamma
        if z is not None and self.n_inputs:
            self.set_inputs(np.asarray(z, float))
        gamma = self._quadratic.gamma(qd)
        if self._angles:
            phi, phit = np.zeros(self.n_rows), np.zeros(self.n_rows)
            for part in self._angles:
                part.evaluate(q, qd, t, phi, phit, gamma)
        return gamma

    def product(self, values: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``Φ_q x`` over the local rows (x a system vector)."""
        return np.bincount(
            self.entry_rows, weights=values * x[self.entry_cols], minlength=self.n_rows
        )

    def transpose_product(self, values: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
        """``Φ_qᵀ y`` (system length ``n``) for local row values ``y``."""
        return np.bincount(self.entry_cols, weights=values * y[self.entry_rows], minlength=n)


def _floats(x: np.ndarray) -> np.ndarray:
    """``x`` as a contiguous float array (the compiled kernels' argument type)."""
    return np.ascontiguousarray(x, dtype=float)


class _QuadraticPart:
    """Rows that are quadratic in q: ``Φ = κ + gᵀq + ½ qᵀ H q`` (exact, not an
    approximation), so ``Φ_q = g + H q`` and ``γ = −q̇ᵀ H q̇``.

    With natural coordinates every marker is linear in q, so every primitive whose second
    derivatives in its markers are constant (coincident points, dot products, point on
    plane, distance — not angles) gives such rows. ``compile`` obtains κ and g by
    evaluating the primitive at q = 0, and H from its constant marker Hessians mapped
    through the marker coefficients; it checks the result against the primitive at a
    random state and declines (``None``) when they differ — Saura et al.'s "group equations
    generated symbolically", by probing.
    """

    def __init__(self, n_rows, rows, cols, kappa, g, h_entry, h_col, h_val) -> None:
        self.n_rows = n_rows
        # the Jacobian entries (unique pairs)
        self.rows, self.cols = rows.astype(np.int64), cols.astype(np.int64)
        self.kappa, self.g = np.asarray(kappa, float), np.asarray(g, float)
        self.h_entry, self.h_col = h_entry.astype(np.int64), h_col.astype(np.int64)
        self.h_val = np.asarray(h_val, float)

    @property
    def _h(self) -> tuple:
        return self.h_entry, self.h_col, self.h_val

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        return self.g + np.bincount(
            self.h_entry, weights=self.h_val * q[self.h_col], minlength=len(self.rows)
        )

    def evaluate(self, q, qd=None):
        """``(Φ, Jacobian values, γ or None)`` over all local rows (zero elsewhere)."""
        if USE_COMPILED and group_kernels.enabled():
            phi, jac = group_kernels.quadratic(
                _floats(q), self.kappa, self.g, self.rows, self.cols, *self._h
            )
        else:
            jac = self.jacobian(q)
            qe = q[self.cols]
            phi = self.kappa + 0.5 * np.bincount(
                self.rows, weights=(self.g + jac) * qe, minlength=self.n_rows
            )
        return phi, jac, (None if qd is None else self.gamma(qd))

    def gamma(self, qd: np.ndarray) -> np.ndarray:
        """``γ = −q̇ᵀHq̇`` over all local rows."""
        if USE_COMPILED and group_kernels.enabled():
            return group_kernels.quadratic_gamma(
                _floats(qd), self.n_rows, self.rows, self.cols, *self._h
            )
        jd = np.bincount(
            self.h_entry, weights=self.h_val * qd[self.h_col], minlength=len(self.rows)
        )
        gamma = np.zeros(self.n_rows)
        gamma -= np.bincount(self.rows, weights=jd * qd[self.cols], minlength=self.n_rows)
        return gamma

    @staticmethod
    def compile(prim, loc: np.ndarray, table: Markers, n: int):
        """The quadratic form of primitive ``prim`` (local rows ``loc``) or ``None``."""
        used = np.unique(np.concatenate([ix for ix in prim.index]))
        if np.any((table.kind[used] != LINEAR) & (table.kind[used] != GROUND)):
            return None
        rng = np.random.default_rng(2024)
        m, r = len(prim), prim.rows
        zero = np.zeros(n)
        ms0 = table.evaluate(zero, zero)
        q1, qd1 = rng.standard_normal(n), rng.standard_normal(n)
        ms1 = table.evaluate(q1, qd1)
        h0, h1 = prim.hessians(ms0), prim.hessians(ms1)
        if set(h0) != set(h1):
            return None
        for key, h in h0.items():
            if not np.allclose(np.broadcast_to(h, h1[key].shape), h1[key], rtol=0, atol=0):
                return None
        keep = loc >= 0
        lr = np.broadcast_to(loc.reshape(m, r)[:, :, None], (m, r, table.K))
        ev0 = prim.evaluate(ms0, 0.0)
        kappa = np.zeros(np.max(loc) + 1 if keep.any() else 0)
        kappa[loc[keep]] = ev0.phi.ravel()[keep]
        g_r, g_c, g_v = [], [], []
        for idx, blk in zip(prim.index, ev0.blocks, strict=True):
            v = np.einsum("mri,mik->mrk", blk, ms0.jac[idx])
            c = np.broadcast_to(table.cols[idx][:, None, :], v.shape)
            ok = (lr >= 0) & (c >= 0)
            g_r.append(lr[ok])
            g_c.append(c[ok])
            g_v.append(v[ok])
        h_r, h_a, h_b, h_v = [], [], [], []
        for (i, j), h in h0.items():
            ii, jj = prim.index[i], prim.index[j]
            h = np.broadcast_to(h, (m, r, 3, 3))
            blk = np.einsum("mak,mrab,mbl->mrkl", ms0.jac[ii], h, ms0.jac[jj])
            ca = np.broadcast_to(table.cols[ii][:, None, :, None], blk.shape)
            cb = np.broadcast_to(table.cols[jj][:, None, None, :], blk.shape)
            rr = np.broadcast_to(loc.reshape(m, r)[:, :, None, None], blk.shape)
            ok = (rr >= 0) & (ca >= 0) & (cb >= 0) & (blk != 0.0)
            h_r.append(rr[ok])
            h_a.append(ca[ok])
            h_b.append(cb[ok])
            h_v.append(blk[ok])
        part = _QuadraticPart.build(
            len(kappa),
            kappa,
            np.concatenate(g_r),
            np.concatenate(g_c),
            np.concatenate(g_v),
            np.concatenate(h_r) if h_r else np.zeros(0, np.int64),
            np.concatenate(h_a) if h_a else np.zeros(0, np.int64),
            np.concatenate(h_b) if h_b else np.zeros(0, np.int64),
            np.concatenate(h_v) if h_v else np.zeros(0),
        )
        # check against the primitive at a random state
        ev1 = prim.evaluate(ms1, 0.0)
        phi, jac, gamma = part.evaluate(q1, qd1)
        want = np.zeros(len(kappa))
        want[loc[keep]] = ev1.phi.ravel()[keep]
        dense_c = np.zeros((len(kappa), n))
        np.add.at(dense_c, (part.rows, part.cols), jac)
        dense_p = np.zeros((len(kappa), n))
        acc = -ev1.quad - ev1.phitt
        for idx, blk in zip(prim.index, ev1.blocks, strict=True):
            v = np.einsum("mri,mik->mrk", blk, ms1.jac[idx])
            c = np.broadcast_to(table.cols[idx][:, None, :], v.shape)
            ok = (lr >= 0) & (c >= 0)
            np.add.at(dense_p, (lr[ok], c[ok]), v[ok])
            acc = acc - np.einsum("mri,mi->mr", blk, ms1.jdq[idx])
        want_g = np.zeros(len(kappa))
        want_g[loc[keep]] = acc.ravel()[keep]
        scale = 1.0 + np.abs(want).max(initial=0.0) + np.abs(dense_p).max(initial=0.0)
        err = max(
            np.abs(phi - want).max(initial=0.0),
            np.abs(dense_c - dense_p).max(initial=0.0),
            np.abs(gamma - want_g).max(initial=0.0),
        )
        if not err <= 1e-9 * scale * (1.0 + np.abs(want_g).max(initial=0.0)):
            return None
        return (part, loc)

    @staticmethod
    def build(n_rows, kappa, g_r, g_c, g_v, h_r, h_a, h_b, h_v):
        """Unique Jacobian entries from the gradient and Hessian entries."""
        big = np.int64(max(1, int(np.max(np.concatenate([g_c, h_a, h_b]), initial=0)) + 1))
        keys = np.concatenate([g_r * big + g_c, h_r * big + h_a])
        uniq, inv = np.unique(keys, return_inverse=True)
        rows, cols = uniq // big, uniq % big
        g = np.bincount(inv[: len(g_r)], weights=g_v, minlength=len(uniq))
        h_entry = inv[len(g_r) :]
        # sum duplicate Hessian triples
        if len(h_entry):
            k2 = h_entry * big + h_b
            u2, i2 = np.unique(k2, return_inverse=True)
            h_val = np.bincount(i2, weights=h_v, minlength=len(u2))
            h_entry, h_b = u2 // big, u2 % big
        else:
            h_val = h_v
        return _QuadraticPart(n_rows, rows, cols, kappa, g, h_entry, h_b, h_val)

    @staticmethod
    def merge(parts, n_rows: int) -> _QuadraticPart:
        """One quadratic form over all local rows from several compiled parts."""
        kappa = np.zeros(n_rows)
        g_r, g_c, g_v, h_r, h_a, h_b, h_v = ([] for _ in range(7))
        for part, _loc in parts:
            kappa[: len(part.kappa)] += part.kappa
            g_r.append(part.rows)
            g_c.append(part.cols)
            g_v.append(part.g)
            h_r.append(part.rows[part.h_entry])
            h_a.append(part.cols[part.h_entry])
            h_b.append(part.h_col)
            h_v.append(part.h_val)

        def cat(xs, dtype):
            return np.concatenate(xs).astype(dtype) if xs else np.zeros(0, dtype)

        if not parts:
            return _QuadraticPart(
                n_rows,
                np.zeros(0, np.int64),
                np.zeros(0, np.int64),
                kappa,
                np.zeros(0),
                np.zeros(0, np.int64),
                np.zeros(0, np.int64),
                np.zeros(0),
            )
        return _QuadraticPart.build(
            n_rows,
            kappa,
            cat(g_r, np.int64),
            cat(g_c, np.int64),
            cat(g_v, float),
            cat(h_r, np.int64),
            cat(h_a, np.int64),
            cat(h_b, np.int64),
            cat(h_v, float),
        )


class _AnglePart:
    """``Angle`` rows, ``Φ = wrap(atan2(y, x) − c(t))`` with ``x = u₁·u₂`` and ``y = w₁·u₂``
    — two quadratic forms in q for linear markers — by the chain rule (the formulas of
    ``primitives.angle_parts``), checked against the primitive like ``_QuadraticPart``."""

    def __init__(self, prim, loc, x: _QuadraticPart, y: _QuadraticPart) -> None:
        self.prim, self.loc = prim, loc
        self.x, self.y = x, y
        self.entry_rows = np.concatenate([loc[x.rows], loc[y.rows]])
        self.entry_cols = np.concatenate([x.cols, y.cols])
        self._forms = tuple((f.kappa, f.g, f.rows, f.cols, *f._h) for f in (x, y))

    @staticmethod
    def none() -> tuple:
        """``group_kernels.newton``'s angle argument for no angle rows."""
        i, f = np.zeros(0, np.int64), np.zeros(0)
        form = (f, f, i, i, i, i, f)
        return i, f, form, form

    def kernel_args(self, t: float) -> tuple:
        """``group_kernels.newton``'s angle argument at time ``t`` (the targets now)."""
        return (self.loc, _floats(self.prim.target(t)[0]), *self._forms)

    def evaluate(self, q, qd, t, phi, phit, gamma) -> np.ndarray:
        """Writes Φ, Φ_t (and γ) of its rows; returns its Jacobian values."""
        if USE_COMPILED and group_kernels.enabled():
            q = _floats(q)
            c, cd, cdd = (_floats(v) for v in self.prim.target(t))
            phi_a, phit_a, gamma_a, values = group_kernels.angle(
                q, q if qd is None else _floats(qd), qd is not None, c, cd, cdd, *self._forms
            )
            phi[self.loc], phit[self.loc] = phi_a, phit_a
            if gamma is not None:
                gamma[self.loc] = gamma_a
            return values
        xs, jx, gx = self.x.evaluate(q, qd)
        ys, jy, gy = self.y.evaluate(q, qd)
        r2 = xs * xs + ys * ys
        tx, ty = -ys / r2, xs / r2
        c, cd, cdd = self.prim.target(t)
        phi[self.loc] = wrap_angle(np.arctan2(ys, xs) - c)
        phit[self.loc] = -cd
        if gamma is not None:
            xd = np.bincount(self.x.rows, weights=jx * qd[self.x.cols], minlength=len(xs))
            yd = np.bincount(self.y.rows, weights=jy * qd[self.y.cols], minlength=len(ys))
            txx, tyy = 2 * xs * ys / r2**2, -2 * xs * ys / r2**2
            txy = (ys * ys - xs * xs) / r2**2
            quad = -tx * gx - ty * gy + txx * xd * xd + 2.0 * txy * xd * yd + tyy * yd * yd
            gamma[self.loc] = -quad + cdd
        return np.concatenate([tx[self.x.rows] * jx, ty[self.y.rows] * jy])

    @staticmethod
    def compile(prim, loc: np.ndarray, table: Markers, n: int):
        if np.any(loc < 0):
            return None
        u1, w1, u2 = prim.index
        parts = []
        for a in (u1, w1):
            dot = Dot()
            for i, j in zip(a, u2, strict=True):
                dot.add((int(i), int(j)), 0.0)
            dot.freeze()
            got = _QuadraticPart.compile(dot, np.arange(len(prim)), table, n)
            if got is None:
                return None
            part = got[0]
            if len(part.kappa) < len(prim):
                part.kappa = np.pad(part.kappa, (0, len(prim) - len(part.kappa)))
                part.n_rows = len(prim)
            parts.append(part)
        out = _AnglePart(prim, np.asarray(loc, np.int64), *parts)
        # check against the primitive at a random state
        rng = np.random.default_rng(7)
        q1, qd1 = rng.standard_normal(n), rng.standard_normal(n)
        ms = table.evaluate(q1, qd1)
        ev = prim.evaluate(ms, 0.3)
        nloc = int(loc.max()) + 1
        phi, phit, gamma = np.zeros(nloc), np.zeros(nloc), np.zeros(nloc)
        vals = out.evaluate(q1, qd1, 0.3, phi, phit, gamma)
        jac = np.zeros((nloc, n))
        np.add.at(jac, (out.entry_rows, out.entry_cols), vals)
        want = np.zeros((nloc, n))
        acc = -ev.quad - ev.phitt
        for idx, blk in zip(prim.index, ev.blocks, strict=True):
            v = np.einsum("mri,mik->mrk", blk, ms.jac[idx])
            c = table.cols[idx]
            for k in range(len(prim)):
                ok = c[k] >= 0
                np.add.at(want, (np.full(ok.sum(), loc[k]), c[k][ok]), v[k, 0][ok])
            acc = acc - np.einsum("mri,mi->mr", blk, ms.jdq[idx])
        err = max(
            np.abs(phi[loc] - ev.phi[:, 0]).max(),
            np.abs(jac - want).max(),
            np.abs(gamma[loc] - acc[:, 0]).max() / (1.0 + np.abs(acc).max()),
        )
        return out if err <= 1e-8 else None
