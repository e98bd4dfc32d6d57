"""``PlanarNaturalBodies``: rigid bodies moving in planes z = const, in planar natural
coordinates (``planar``; the ``BodyKind`` registered as ``"natural_planar"``).

Each body has two basic entities of two coordinates each (``PlanarLayout``): its markers are
``LINEAR`` over them with 3 × 2 blocks ``[Re a, −Im a; Im a, Re a; 0, 0]`` and a constant z
(the point's, or the direction's z component), so every joint, driver and force element
works on them unchanged; joint equations that act out of the plane are identically zero.
The mass matrix, gravity and the rigid-body equation (one per body: the distance of its two
points or the unit length of its vector) are constant or quadratic, as in space.

A planar body turns about z only: its orientation must be a rotation about z, its velocity
in the plane and its angular velocity along z; gravity and forces act with their in-plane
components. Joints with it: spherical (a pin), revolute and cylindrical about z,
prismatic along a direction of the plane, point-on-line along a direction of the plane or
along z (a pin), point-on-plane with a normal in the plane, fixed, distance, sliding; universal, planar and rolling-disc joints are refused,
as are torques and body-axes forces on these bodies (``ModelError``/``UnsupportedFeature``
naming the item and field).

CSV state: the 13 fields of a rigid body (centre of mass, Euler parameters of the rotation
θ about z, velocity, ω = (0, 0, θ̇)), θ from the body's x axis ``a_x = Σ a_i e_i``.
"""

from __future__ import annotations

import numpy as np

from solver.kernels import states as kst
from solver.lazy_scipy import sparse as sp
from solver.mechanics.bodies.natural.bodies import NaturalBodies
from solver.mechanics.bodies.natural.layout import BodyInfo
from solver.mechanics.bodies.natural.planar import PlanarLayout, complex_block
from solver.mechanics.constraints.primitives import Distance, Dot
from solver.mechanics.markers import GROUND as MK_GROUND
from solver.mechanics.rotations import quaternion_from_matrix
from solver.model.errors import ModelError

#: relative tolerance of "in the plane" and "about z" in the model data
PLANE = 1e-9

#: joints a planar body cannot take part in
REFUSED_JOINTS = ("universal", "planar", "rolling_disk")


class PlanarNaturalBodies(NaturalBodies):
    """All rigid bodies of a system in planar natural coordinates (module docstring)."""

    kind = "natural_planar"
    layout_class = PlanarLayout

    # ---- checks --------------------------------------------------------------------------
    def check_bodies(self, bodies) -> None:
        for i, b in bodies:
            where = f'bodies[{i}] "{b.name}"'
            p = np.asarray(b.orientation, float)
            p = p / np.linalg.norm(p)
            if abs(p[1]) > PLANE or abs(p[2]) > PLANE:
                raise ModelError(
                    where,
                    "is not a rotation about z; a body in planar natural coordinates "
                    '("natural_planar") turns about z only',
                    "orientation",
                )
            v, w = np.asarray(b.velocity, float), np.asarray(b.angular_velocity, float)
            if abs(v[2]) > PLANE * max(1.0, float(np.linalg.norm(v))):
                raise ModelError(
                    where, "must lie in the plane (z component 0) for a planar body", "velocity"
                )
            if np.abs(w[:2]).max() > PLANE * max(1.0, float(np.linalg.norm(w))):
                raise ModelError(
                    where,
                    "must be along z ([0, 0, ω]) for a planar body",
                    "angular_velocity",
                )
        self._check_joints({b.name for _, b in bodies})

    def _check_joints(self, names: set[str]) -> None:
        for i, j in enumerate(self.system.model.joints):
            if j.body1 not in names and j.body2 not in names:
                continue
            where = f'joints[{i}] "{j.name}"'
            if j.type in REFUSED_JOINTS:
                raise ModelError(
                    where,
                    f'"{j.type}" cannot join a planar body (natural_planar coordinates)',
                    "type",
                )
            if j.type in ("revolute", "cylindrical"):
                a = np.asarray(j.axis, float)
                if np.linalg.norm(a[:2]) > PLANE * np.linalg.norm(a):
                    raise ModelError(where, "must be along z ([0, 0, 1]) for a planar body", "axis")
            if j.type in ("prismatic", "point_on_line"):
                a = np.asarray(j.axis, float)
                along_z = j.type == "point_on_line" and np.linalg.norm(
                    a[:2]
                ) <= PLANE * np.linalg.norm(a)
                if abs(a[2]) > PLANE * np.linalg.norm(a) and not along_z:
                    also = " or along z (a pin)" if j.type == "point_on_line" else ""
                    raise ModelError(
                        where,
                        f"must lie in the plane (z component 0){also} for a planar body",
                        "axis",
                    )
            if j.type == "point_on_plane":
                a = np.asarray(j.normal, float)
                if abs(a[2]) > PLANE * np.linalg.norm(a):
                    raise ModelError(
                        where,
                        "must lie in the plane (z component 0) for a planar body",
                        "normal",
                    )

    # ---- markers -------------------------------------------------------------------------
    def _combination(self, info: BodyInfo, coef: np.ndarray, is_point: bool):
        """``Σ coef_i e_i`` (complex coefficients) as ``(cols, 3×2 blocks, constant)``."""
        cols, blocks = [], []
        const = np.zeros(3)
        for a, e in zip(coef, info.entities, strict=True):
            c = self._col(e)
            blk = complex_block(complex(a))
            if c < 0:
                const[:2] += blk @ self.layout.entities[e].value[:2]
            else:
                cols += [c, c + 1]
                blocks.append(np.vstack([blk, np.zeros((1, 2))]))
        return cols, blocks, const

    def _planar_marker(self, info, coef, is_point: bool, z: float, table=None) -> int:
        key = (info.name, is_point, round(float(z), 15), *np.round(coef, 15))
        if table is None and key in self._markers:
            return self._markers[key]
        cols, blocks, const = self._combination(info, coef, is_point)
        const[2] = z
        mk = self.system.markers if table is None else table
        if cols:
            idx = mk.add_linear(cols, np.hstack(blocks), const, is_point)
        else:
            idx = mk.add(MK_GROUND, [], const, is_point)
        if table is None:
            self._markers[key] = idx
        return idx

    def _entity_marker(self, entity: int) -> int:
        key = ("entity", entity)
        if key not in self._markers:
            ent = self.layout.entities[entity]
            mk = self.system.markers
            value = np.array([ent.value[0], ent.value[1], 0.0])
            if ent.fixed:
                self._markers[key] = mk.add(MK_GROUND, [], value, ent.is_point)
            else:
                c = self._col(entity)
                coef = np.vstack([np.eye(2), np.zeros((1, 2))])
                self._markers[key] = mk.add_linear([c, c + 1], coef, np.zeros(3), ent.is_point)
        return self._markers[key]

    def point(self, slot, xyz, where: str, field: str) -> int:
        info = self.infos[slot.index]
        coef = info.frame.point_coefficients(info.local_point(xyz))
        return self._planar_marker(info, coef, True, float(xyz[2]))

    def vector(self, slot, xyz) -> int:
        info = self.infos[slot.index]
        coef = info.frame.vector_coefficients(info.local_vector(xyz))
        return self._planar_marker(info, coef, False, float(np.asarray(xyz, float)[2]))

    def linear_marker(self, table, slot, xyz, is_point: bool) -> int:
        info = self.infos[slot.index]
        xyz = np.asarray(xyz, float)
        if is_point:
            coef = info.frame.point_coefficients(info.local_point(xyz))
        else:
            coef = info.frame.vector_coefficients(info.local_vector(xyz))
        return self._planar_marker(info, coef, is_point, float(xyz[2]), table)

    # ---- constraints ---------------------------------------------------------------------
    def build_constraints(self, ctx) -> dict[str, list]:
        items: dict[str, list] = {}
        seen: set = set()
        ents = self.layout.entities
        for info in self.infos:
            key = f"rigid:{info.name}"
            items[key] = []
            a, b = info.entities
            if (ents[a].fixed and ents[b].fixed) or frozenset((a, b)) in seen:
                continue
            seen.add(frozenset((a, b)))
            if ents[b].is_point:
                length = float(np.linalg.norm(ents[b].value[:2] - ents[a].value[:2]))
                group, markers, const = ctx.group(Distance), (a, b), length
            else:
                group, markers, const = ctx.group(Dot), (b, b), 1.0
            marks = tuple(self._entity_marker(e) for e in markers)
            items[key].append((group, group.add(marks, const)))
        for name in self.layout.shared:  # a shared pin leaves no equation in the plane
            items[f"joint:{name}"] = []
        items.update(self._node_joints(ctx))
        return items

    # ---- dynamics ------------------------------------------------------------------------
    def _assemble(self) -> None:
        """Constant mass matrix (2 × 2 blocks), the map of ``Σ m r_G`` (3 × n) and its
        constant part."""
        n = self.system.n
        rows, cols, vals = [], [], []
        g_rows, g_cols, g_vals = [], [], []
        self._mr_const = np.zeros(3)
        for info in self.infos:
            z = info.frame.mass_coefficients(info.mass, float(info.inertia[2, 2]))
            own = [(i, self._col(e)) for i, e in enumerate(info.entities) if self._col(e) >= 0]
            for i, ci in own:
                for j, cj in own:
                    rows.append(np.repeat(ci + np.arange(2), 2))
                    cols.append(np.tile(cj + np.arange(2), 2))
                    vals.append(complex_block(z[i, j]).ravel())
            a_g = info.frame.point_coefficients(np.zeros(3))
            self._mr_const[2] += info.mass * info.position0[2]
            for a, e in zip(a_g, info.entities, strict=True):
                blk = info.mass * complex_block(complex(a))
                c0 = self._col(e)
                if c0 < 0:
                    self._mr_const[:2] += blk @ self.layout.entities[e].value[:2]
                else:
                    g_rows.append(np.repeat(np.arange(2), 2))
                    g_cols.append(np.tile(c0 + np.arange(2), 2))
                    g_vals.append(blk.ravel())

        def cat(parts, dtype):
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        self._mass = sp.csr_matrix(
            (cat(vals, float), (cat(rows, np.int64), cat(cols, np.int64))), shape=(n, n)
        )
        self._moment_map = sp.csr_matrix(
            (cat(g_vals, float), (cat(g_rows, np.int64), cat(g_cols, np.int64))), shape=(3, n)
        )

    def gravity_forces(self, gravity: np.ndarray) -> np.ndarray:
        if self._mass is None:
            self._assemble()
        g = np.asarray(gravity, float).copy()
        g[2] = 0.0  # a planar body does not move along z
        return np.asarray(self._moment_map.T @ g).ravel()

    def _moment(self, q: np.ndarray) -> np.ndarray:
        """``Σ m r_G`` over the bodies (3,)."""
        if self._mass is None:
            self._assemble()
        return np.asarray(self._moment_map @ q).ravel() + self._mr_const

    def gravitational_energy(self, q, gravity: np.ndarray) -> float:
        g = np.asarray(gravity, float).copy()
        g[2] = 0.0
        return -float(self._moment(q) @ g)

    # ---- output --------------------------------------------------------------------------
    def entity_values(self, info: BodyInfo, x: np.ndarray, rates: bool = False) -> np.ndarray:
        """The body's two entities (2 × 2) from ``q`` (or ``q̇`` when ``rates``)."""
        out = np.empty((2, 2))
        for i, e in enumerate(info.entities):
            c = self._col(e)
            if c < 0:
                out[i] = 0.0 if rates else self.layout.entities[e].value[:2]
            else:
                out[i] = x[c : c + 2]
        return out

    def state_table(self, slot):
        info = self.infos[slot.index]
        cols, fixed = self._state_entities(info, 2)
        coef = np.zeros(16)
        for k, a in enumerate((info.frame.point_coefficients(np.zeros(3)),
                               info.frame.axis_coefficients())):  # fmt: skip
            coef[4 * k : 4 * k + 4] = a[0].real, a[0].imag, a[1].real, a[1].imag
        coef[8] = info.position0[2]
        return kst.PLANAR_STATE, cols, fixed, coef, quaternion_from_matrix(info.rotation0)
