"""MUBODYNA elements → a Biela model.

Indices become names: bodies ``B1``…, joints ``J1``…, forces ``S1``…, the drivers take the
name of their ``rel-rot``/``rel-tran`` joint, animation points become output points ``P9``….
MUBODYNA gives points and vectors in the local axes of their body (ground = body 0) and
Biela globally at t = 0: every position is mapped through its body's ``r`` and ``p``.
MUBODYNA's "ground is j" rule makes body j Biela's ``body1`` and body i its ``body2``.

=================  ===========================================================================
MUBODYNA           Biela
=================  ===========================================================================
body               rigid body (``Jp`` → inertia; ``w`` in body axes → global; ``r_dot``)
``sph``            ``spherical`` at the two points' midpoint
``rev``            ``revolute`` (axis: body j's vector; the two vectors must be parallel)
``cyl``            ``cylindrical`` through the type-2 vector's point on body j
``tran``           ``prismatic`` (``Ac`` must be the bodies' relative rotation at t = 0)
``rel-rot``        a driver (``iFunct``) or a lock (function 0) of the revolute or cylindrical
                   joint of bodies i and j: rotation of body i relative to body j about the
                   vector, f(t) (Nikravesh's Φ = θ_i − θ_j − f)
``rel-tran``       the same for the displacement of a prismatic or cylindrical joint
``fix``            ``fixed`` to ground
``disk``           ``rolling_disk`` on the ground plane z = 0: ``'z'`` free, ``'nz'``
                   longitudinal, ``'tz'`` lateral, ``'xyz'`` none; axle = the body's η axis
``weight``         gravity ``gravity · wgt`` (``wgt`` default [0; 0; −1], as the thesis's
                   examples write it)
``ptp``, ``zu``    ``spring_damper`` (``zu``: free length = the initial distance)
``np``             ``torque`` in body axes
``sph_pln``        ``contact`` sphere–plane, Hertz stiffness from the bodies' ``modulus`` and
                   ``poisson``
sphere–sphere      ``contact`` sphere–sphere with the given ``K``
functions a, b, c  ``polynomial`` [c1, c2, c3]; ``smooth_step``; ``smooth_bump``
``inSolver``       ``standard`` → ``lagrange_baumgarte`` (adaptive, like MATLAB's ODE solver),
                   ``penalty``, ``augmented`` → ``augmented_lagrangian`` (fixed steps of dt/10);
                   ``t_final``, ``dt`` (reporting step), ``RelTol``/``AbsTol``, ``tol``
=================  ===========================================================================

``correct_ic`` needs no mapping: Biela always assembles the initial configuration and makes
the velocities consistent. Anything else is refused naming the file, the element and the
field.
"""

from __future__ import annotations

import math

import numpy as np

from solver.importers.common import Imported, ImportError_, quat, vec
from solver.importers.mubodyna.folder import ModelFiles
from solver.importers.mubodyna.matlab import Element
from solver.mechanics.rotations import e_matrix, rotation_matrix
from solver.model import description as d
from solver.model.functions import parse_function

COLORS = {
    "k": "#222222",
    "r": "#d62728",
    "g": "#2ca02c",
    "b": "#1f77b4",
    "c": "#17becf",
    "m": "#9467bd",
    "y": "#bcbd22",
    "w": "#eeeeee",
}
SLIP = {"z": "free", "nz": "longitudinal", "tz": "lateral", "xyz": "none"}
METHODS = {
    "standard": "lagrange_baumgarte",
    "penalty": "penalty",
    "augmented": "augmented_lagrangian",
}
CONTACT_MODELS = {
    "lankarani": "lankarani_nikravesh",
    "lankarani_nikravesh": "lankarani_nikravesh",
    "hertz": "hertz",
    "hunt_crossley": "hunt_crossley",
    "hunt-crossley": "hunt_crossley",
}


class _Builder:
    def __init__(self, files: ModelFiles) -> None:
        self.files = files
        self.warnings = list(files.warnings)
        self.model = d.Model(name=files.folder.name or "MUBODYNA model")
        self.bodies = files.lists["bodies"]
        self.frames: dict[int, tuple[np.ndarray, np.ndarray]] = {0: (np.zeros(3), np.eye(3))}

    # ---- helpers -----------------------------------------------------------------------
    def where(self, key: str, e: Element) -> str:
        return f"{self.files.filenames[key]}: {e.name}"

    def error(self, key: str, e: Element, reason: str, fld: str = "") -> ImportError_:
        return ImportError_(self.where(key, e), reason, fld)

    def get(self, key, e: Element, fld: str, default=None, required=False):
        if fld in e.fields:
            return e.fields[fld]
        if required:
            raise self.error(key, e, "is required here", fld)
        return default

    def number(self, key, e, fld, default=None, required=False, positive=False) -> float:
        v = self.get(key, e, fld, default, required)
        if isinstance(v, np.ndarray) and v.size == 1:
            v = float(v.ravel()[0])
        if isinstance(v, bool) or not isinstance(v, float | int):
            raise self.error(key, e, f"must be a number (got {v!r})", fld)
        if positive and not v > 0:
            raise self.error(key, e, f"must be positive (got {v:g})", fld)
        return float(v)

    def vector(self, key, e, fld, size=3, default=None, required=False) -> np.ndarray:
        v = self.get(key, e, fld, default, required)
        arr = np.asarray(v, float).ravel() if isinstance(v, np.ndarray | list | tuple) else None
        if arr is None or arr.size != size:
            raise self.error(key, e, f"must be a vector of {size} numbers (got {v!r})", fld)
        return arr

    def text(self, key, e, fld, default=None, required=False) -> str:
        v = self.get(key, e, fld, default, required)
        if not isinstance(v, str):
            raise self.error(key, e, f"must be a quoted name (got {v!r})", fld)
        return v.strip()

    def index(self, key, e, fld, pool: str, default=None, ground_ok=False) -> int:
        v = self.number(key, e, fld, default, required=default is None)
        k = int(round(v))
        if k != v or k < 0:
            raise self.error(key, e, f"must be an index (got {v:g})", fld)
        size = len(self.files.lists[pool])
        if k == 0 and ground_ok:
            return 0
        if not 1 <= k <= size:
            what = {
                "bodies": "body",
                "points": "point",
                "vectors1": "type-1 vector",
                "vectors2": "type-2 vector",
                "functs": "function",
            }[pool]
            raise self.error(
                key,
                e,
                f"{what} {k} does not exist ({self.files.filenames[pool]} defines {size})",
                fld,
            )
        return k

    def body_name(self, k: int) -> str:
        return d.GROUND if k == 0 else self.bodies[k - 1].name

    # ---- bodies ------------------------------------------------------------------------
    def build_bodies(self) -> None:
        key = "bodies"
        for e in self.bodies:
            mass = self.number(key, e, "mass", 1.0, positive=True)
            jp = np.asarray(self.get(key, e, "Jp", np.eye(3)), float)
            if jp.shape != (3, 3):
                raise self.error(key, e, f"must be a 3×3 matrix (got shape {jp.shape})", "Jp")
            self._check_inertia(e, jp)
            r = self.vector(key, e, "r", default=np.zeros(3))
            p = self.vector(key, e, "p", size=4, default=np.array([1.0, 0, 0, 0]))
            norm = float(np.linalg.norm(p))
            if abs(norm - 1.0) > 1e-3:
                raise self.error(key, e, f"is not a unit quaternion (norm {norm:.6g})", "p")
            p = p / norm
            rot = rotation_matrix(p)
            self.frames[len(self.frames)] = (r, rot)
            if "w" in e.fields:
                w = rot @ self.vector(key, e, "w")  # MUBODYNA gives ω in body axes
            elif "p_dot" in e.fields:
                w = 2.0 * e_matrix(p) @ self.vector(key, e, "p_dot", size=4)
            else:
                w = np.zeros(3)
            color = self.get(key, e, "color", None)
            body = d.RigidBody(
                e.name,
                mass,
                tuple(tuple(float(x) for x in row) for row in 0.5 * (jp + jp.T)),
                position=vec(r),
                orientation=quat(p),
                velocity=vec(self.vector(key, e, "r_dot", default=np.zeros(3))),
                angular_velocity=vec(w),
                color=COLORS.get(color) if isinstance(color, str) else None,
            )
            self.model.bodies.append(body)

    def _check_inertia(self, e: Element, jp: np.ndarray) -> None:
        if np.abs(jp - jp.T).max() > 1e-9 * max(np.abs(jp).max(), 1e-300):
            raise self.error("bodies", e, "is not symmetric", "Jp")
        m = np.linalg.eigvalsh(0.5 * (jp + jp.T))
        if m[0] <= 0:
            raise self.error("bodies", e, "is not positive definite", "Jp")
        if m[0] + m[1] < m[2] * (1 - 1e-9):
            raise self.error(
                "bodies",
                e,
                f"violates the triangle inequality: principal moments {m[0]:.4g} + {m[1]:.4g} "
                f"< {m[2]:.4g}; no rigid body has these moments",
                "Jp",
            )

    # ---- points and vectors -----------------------------------------------------------
    def point(self, k: int) -> tuple[int, np.ndarray]:
        """Body index and global position at t = 0 of point ``k``."""
        e = self.files.lists["points"][k - 1]
        return self._point(e, "points")

    def _point(self, e: Element, key: str) -> tuple[int, np.ndarray]:
        b = self.index(key, e, "Bindex", "bodies", default=0, ground_ok=True)
        s = self.vector(key, e, "sPp", default=np.zeros(3))
        r, rot = self.frames[b]
        return b, r + rot @ s

    def vector1(self, k: int) -> tuple[int, np.ndarray]:
        e = self.files.lists["vectors1"][k - 1]
        b = self.index("vectors1", e, "Bindex", "bodies", default=0, ground_ok=True)
        fld = "sp" if "sp" in e.fields or "sP" not in e.fields else "sP"
        s = self.vector("vectors1", e, fld)
        if not np.linalg.norm(s) > 0:
            raise self.error("vectors1", e, "must not be zero", fld)
        return b, self.frames[b][1] @ s

    def vector2(self, k: int) -> tuple[int, int]:
        e = self.files.lists["vectors2"][k - 1]
        return (
            self.index("vectors2", e, "iPindex", "points"),
            self.index("vectors2", e, "jPindex", "points"),
        )

    # ---- joints ------------------------------------------------------------------------
    def build_joints(self) -> None:
        drivers = []
        for e in self.files.lists["joints"]:
            kind = self.text("joints", e, "type", required=True).replace("_", "-").lower()
            if kind in ("rel-rot", "rel-tran"):
                drivers.append((e, kind))
                continue
            build = {
                "sph": self._sph,
                "rev": self._rev,
                "cyl": self._cyl,
                "tran": self._tran,
                "fix": self._fix,
                "disk": self._disk,
            }.get(kind)
            if build is None:
                raise self.error(
                    "joints",
                    e,
                    f"'{kind}' has no Biela equivalent (joints: sph, rev, cyl, tran, rel-rot, "
                    "rel-tran, fix, disk)",
                    "type",
                )
            self.model.joints.append(build(e))
        for e, kind in drivers:
            self._relative(e, kind)

    def _pair(self, e, fi="iPindex", fj="jPindex"):
        bi, pi = self.point(self.index("joints", e, fi, "points"))
        bj, pj = self.point(self.index("joints", e, fj, "points"))
        if bi == bj:
            raise self.error("joints", e, f"joins body {bi} to itself (points {fi}, {fj})", fj)
        gap = float(np.linalg.norm(pi - pj))
        if gap > 1e-6 * max(1.0, float(np.linalg.norm(pi))):
            self.warnings.append(
                f"{self.where('joints', e)}: its points are {gap:.3g} m apart at t = 0; joined "
                "at their midpoint (the assembly closes the gap)"
            )
        return bi, bj, 0.5 * (pi + pj)

    def _sph(self, e):
        bi, bj, point = self._pair(e)
        return d.Joint(
            e.name, "spherical", self.body_name(bj), self.body_name(bi), point=vec(point)
        )

    def _axes(self, e, bi, bj):
        vi_body, ai = self.vector1(self.index("joints", e, "iVindex_a", "vectors1"))
        vj_body, aj = self.vector1(self.index("joints", e, "jVindex_a", "vectors1"))
        if (vi_body, vj_body) != (bi, bj):
            raise self.error(
                "joints",
                e,
                f"the axis vectors belong to bodies {vi_body} and {vj_body}, the points to "
                f"{bi} and {bj}",
                "iVindex_a",
            )
        ai, aj = ai / np.linalg.norm(ai), aj / np.linalg.norm(aj)
        if np.linalg.norm(np.cross(ai, aj)) > 1e-6:
            raise self.error(
                "joints", e, "its two axis vectors are not parallel at t = 0", "jVindex_a"
            )
        return aj

    def _rev(self, e):
        bi, bj, point = self._pair(e)
        axis = self._axes(e, bi, bj)
        return d.Joint(
            e.name,
            "revolute",
            self.body_name(bj),
            self.body_name(bi),
            point=vec(point),
            axis=vec(axis),
        )

    def _line(self, e):
        """Body j's axis and the type-2 vector's point on body j, body i."""
        bj, aj = self.vector1(self.index("joints", e, "jVindex_a", "vectors1"))
        pi_idx, pj_idx = self.vector2(self.index("joints", e, "V2index", "vectors2"))
        (b1, x1), (b2, x2) = self.point(pi_idx), self.point(pj_idx)
        if bj not in (b1, b2):
            raise self.error(
                "joints",
                e,
                f"the type-2 vector joins bodies {b1} and {b2}, the axis is on {bj}",
                "V2index",
            )
        bi, point = (b1, x2) if b2 == bj else (b2, x1)
        if bi == bj:
            raise self.error("joints", e, "the type-2 vector has both ends on one body", "V2index")
        aj = aj / np.linalg.norm(aj)
        if np.linalg.norm(np.cross(x2 - x1, aj)) > 1e-6 * max(1.0, np.linalg.norm(x2 - x1)):
            raise self.error(
                "joints", e, "the type-2 vector is not along the axis at t = 0", "V2index"
            )
        return bi, bj, point, aj

    def _cyl(self, e):
        bi, bj, point, axis = self._line(e)
        _, ai = self.vector1(self.index("joints", e, "iVindex_a", "vectors1"))
        if np.linalg.norm(np.cross(ai / np.linalg.norm(ai), axis)) > 1e-6:
            raise self.error(
                "joints", e, "its two axis vectors are not parallel at t = 0", "iVindex_a"
            )
        return d.Joint(
            e.name,
            "cylindrical",
            self.body_name(bj),
            self.body_name(bi),
            point=vec(point),
            axis=vec(axis),
        )

    def _tran(self, e):
        bi, bj, point, axis = self._line(e)
        if "Ac" in e.fields:
            ac = np.asarray(e.fields["Ac"], float)
            ri, rj = self.frames[bi][1], self.frames[bj][1]
            if ac.shape != (3, 3) or not (
                np.allclose(ac, rj.T @ ri, atol=1e-6) or np.allclose(ac, ri.T @ rj, atol=1e-6)
            ):
                raise self.error(
                    "joints",
                    e,
                    "is not the relative rotation of the two bodies at t = 0 (Biela's prismatic "
                    "joint keeps the initial relative orientation)",
                    "Ac",
                )
        return d.Joint(
            e.name,
            "prismatic",
            self.body_name(bj),
            self.body_name(bi),
            point=vec(point),
            axis=vec(axis),
        )

    def _fix(self, e):
        bi = self.index("joints", e, "iBindex", "bodies")
        bj = self.index("joints", e, "jBindex", "bodies", default=0, ground_ok=True)
        return d.Joint(e.name, "fixed", self.body_name(bj), self.body_name(bi))

    def _disk(self, e):
        fld = "iBindex" if "iBindex" in e.fields else "iBIndex"
        b = self.index("joints", e, fld, "bodies")
        kind = self.text("joints", e, "disk", required=True)
        if kind not in SLIP:
            raise self.error("joints", e, f"'{kind}' is not a disk type (z, nz, tz, xyz)", "disk")
        radius = self.number("joints", e, "R", required=True, positive=True)
        centre, rot = self.frames[b]
        axle = rot[:, 1]  # the body's η axis is normal to the disc
        if abs(axle[2]) > 1 - 1e-9:
            raise self.error(
                "joints", e, "the disc lies flat on the ground plane (η axis vertical)", "iBindex"
            )
        low = centre[2] - radius * math.sqrt(1.0 - axle[2] ** 2)
        if abs(low) > 1e-6 * max(1.0, radius):
            raise self.error(
                "joints",
                e,
                f"the disc does not touch the ground plane z = 0 at t = 0 (lowest point at z = {low:.4g} m)",
                "R",
            )
        return d.Joint(
            e.name,
            "rolling_disk",
            d.GROUND,
            self.body_name(b),
            point=vec(centre),
            axis=vec(axle),
            radius=radius,
            normal=(0.0, 0.0, 1.0),
            slip=SLIP[kind],
        )

    def _relative(self, e, kind: str) -> None:
        bi = self.index("joints", e, "iBindex", "bodies", default=0, ground_ok=True)
        bj = self.index("joints", e, "jBindex", "bodies", default=0, ground_ok=True)
        vfield = "jVindex_a" if "jVindex_a" in e.fields else "jBindex_a"
        _, a = self.vector1(self.index("joints", e, vfield, "vectors1"))
        a = a / np.linalg.norm(a)
        names = {self.body_name(bi), self.body_name(bj)}
        types = ("revolute", "cylindrical") if kind == "rel-rot" else ("prismatic", "cylindrical")
        joint = next(
            (
                j
                for j in self.model.joints
                if j.type in types
                and {j.body1, j.body2} == names
                and np.linalg.norm(np.cross(j.axis, a)) < 1e-6 * np.linalg.norm(j.axis)
            ),
            None,
        )
        if joint is None:
            raise self.error(
                "joints",
                e,
                f"{kind} between bodies {bi} and {bj} needs a {' or '.join(types)} joint of "
                "these bodies along its vector (Biela drives joint coordinates)",
                "type",
            )
        sign = 1.0 if joint.body2 == self.body_name(bi) else -1.0
        sign *= 1.0 if float(np.dot(joint.axis, a)) > 0 else -1.0
        if "iFunct" in e.fields and self.number("joints", e, "iFunct") != 0:
            function = self.function(self.index("joints", e, "iFunct", "functs"), sign)
        else:
            function = parse_function(0.0)  # a lock
        coordinate = "angle" if kind == "rel-rot" else "displacement"
        self.model.drivers.append(
            d.Driver(
                e.name,
                joint.name,
                function,
                coordinate=coordinate if joint.type == "cylindrical" else None,
            )
        )

    # ---- functions ---------------------------------------------------------------------
    def function(self, k: int, sign: float = 1.0):
        e = self.files.lists["functs"][k - 1]
        key = "functs"
        kind = self.text(key, e, "type", "a" if "coeff" in e.fields else None, required=True)
        if kind == "a":
            c = self.vector(key, e, "coeff", size=3, required=True)
            return parse_function({"polynomial": [float(sign * x) for x in c]})
        n = lambda f, default=None: self.number(key, e, f, default, required=default is None)  # noqa: E731
        if kind == "b":
            spec = {
                "t0": n("x_start", 0.0),
                "f0": n("f_start", 0.0),
                "t1": n("x_end"),
                "f1": n("f_end"),
            }
            spec["f0"], spec["f1"] = sign * spec["f0"], sign * spec["f1"]
            return self._parsed(e, {"smooth_step": spec})
        if kind == "c":
            spec = {
                "t0": n("x_start", 0.0),
                "f0": sign * n("f_start", 0.0),
                "tmax": n("x_max"),
                "fmax": sign * n("f_max"),
                "t1": n("x_end"),
                "f1": sign * n("f_end"),
            }
            return self._parsed(e, {"smooth_bump": spec})
        raise self.error(key, e, f"'{kind}' is not a MUBODYNA function type (a, b, c)", "type")

    def _parsed(self, e, data):
        from solver.model.errors import ModelError

        try:
            return parse_function(data)
        except ModelError as exc:
            raise self.error("functs", e, exc.reason) from None

    # ---- forces ------------------------------------------------------------------------
    def build_forces(self) -> None:
        gravity = None
        for e in self.files.lists["forces"]:
            kind = self.text("forces", e, "type", required=True).replace(" ", "_").lower()
            if kind == "weight":
                if gravity is not None:
                    raise self.error("forces", e, "a second weight force", "type")
                g = self.number("forces", e, "gravity", 9.81)
                direction = self.vector("forces", e, "wgt", default=np.array([0.0, 0.0, -1.0]))
                if not np.linalg.norm(direction) > 0:
                    raise self.error("forces", e, "must not be zero", "wgt")
                gravity = g * direction / np.linalg.norm(direction)
                continue
            build = {
                "ptp": self._ptp,
                "zu": self._zu,
                "np": self._np,
                "sph_pln": self._sph_pln,
                "sph_sph": self._sph_sph,
                "sphere_sphere": self._sph_sph,
            }.get(kind.replace("-", "_"))
            if build is None:
                raise self.error(
                    "forces",
                    e,
                    f"'{kind}' has no Biela equivalent (forces: weight, ptp, zu, np, sph_pln, "
                    "sph_sph)",
                    "type",
                )
            self.model.forces.append(build(e))
        self.model.gravity = vec(gravity if gravity is not None else np.zeros(3))

    def _spring(self, e, pi_idx, pj_idx, free_length):
        (bi, xi), (bj, xj) = self.point(pi_idx), self.point(pj_idx)
        return d.Force(
            e.name,
            "spring_damper",
            body1=self.body_name(bj),
            point1=vec(xj),
            body2=self.body_name(bi),
            point2=vec(xi),
            stiffness=self.number("forces", e, "k", 0.0),
            damping=self.number("forces", e, "c", 0.0),
            free_length=free_length,
        )

    def _ptp(self, e):
        pi_idx, pj_idx = self.vector2(self.index("forces", e, "V2index", "vectors2"))
        fld = "el_0" if "el_0" in e.fields else "el"
        free = self.number("forces", e, fld) if fld in e.fields else None
        force = self._spring(e, pi_idx, pj_idx, free)
        actuator = self.number("forces", e, "f_a", 0.0)
        if actuator:
            force.actuator = parse_function(actuator)
        return force

    def _zu(self, e):
        return self._spring(
            e,
            self.index("forces", e, "iPindex", "points"),
            self.index("forces", e, "jPindex", "points"),
            None,
        )

    def _np(self, e):
        b = self.index("forces", e, "iBindex", "bodies")
        torque = self.vector("forces", e, "np", required=True)
        return d.Force(
            e.name,
            "torque",
            body=self.body_name(b),
            vector=tuple(parse_function(float(x)) for x in torque),
            frame="body",
        )

    def _materials(self, e, bi: int, bj: int, fld: str):
        out = []
        for b in (bi, bj):
            if b == 0:
                raise self.error(
                    "forces",
                    e,
                    "the Hertz stiffness needs modulus and poisson of both bodies; ground has none",
                    fld,
                )
            body = self.bodies[b - 1]
            E = self.number("bodies", body, "modulus", 0.0)
            nu = self.number("bodies", body, "poisson", 0.0)
            if not E > 0 or not 0 <= nu <= 0.5:
                raise self.error(
                    "bodies",
                    body,
                    "needs a positive modulus and a poisson ratio in [0, 0.5] for its contact",
                    "modulus",
                )
            out += [E, nu]
        return d.ContactMaterials(*out)

    def _contact_model(self, e, fld):
        name = self.text("forces", e, fld, "lankarani").lower()
        if name not in CONTACT_MODELS:
            raise self.error(
                "forces",
                e,
                f"'{name}' is not a contact force model Biela has (lankarani, hertz, hunt_crossley)",
                fld,
            )
        return CONTACT_MODELS[name]

    def _sph_pln(self, e):
        pi_idx = self.index("forces", e, "iPindex", "points")
        bi = self.index("forces", e, "iBindex", "bodies")
        bj = self.index("forces", e, "jBindex", "bodies", default=0, ground_ok=True)
        b_point, centre = self.point(pi_idx)
        if b_point != bi:
            raise self.error("forces", e, f"point {pi_idx} is not on body {bi}", "iPindex")
        radius = self.number("forces", e, "sphere_radius", required=True, positive=True)
        r_plane, rot_plane = self.frames[bj]
        normal = rot_plane @ self.vector("forces", e, "plane_normal_vector", required=True)
        if not np.linalg.norm(normal) > 0:
            raise self.error("forces", e, "must not be zero", "plane_normal_vector")
        force = d.Force(
            e.name,
            "contact",
            sphere=d.SphereRef(self.body_name(bi), vec(centre), radius),
            plane=d.PlaneRef(
                self.body_name(bj), vec(r_plane), vec(normal / np.linalg.norm(normal))
            ),
            model=self._contact_model(e, "force_model"),
            materials=self._materials(e, bi, bj, "jBindex"),
            exponent=self.number("forces", e, "n_exponent", 1.5, positive=True),
            restitution=self._restitution(e, "restitution"),
        )
        friction = self.get("forces", e, "friction", False)
        if friction is True:
            model = self.text("forces", e, "fric_model", "linear")
            if model != "linear":
                raise self.error(
                    "forces",
                    e,
                    f"'{model}' friction has no Biela equivalent (linear)",
                    "fric_model",
                )
            tolerance = self.number("forces", e, "vs", 0.01, positive=True)
            force.friction = d.Friction(self.number("forces", e, "mu", 0.5), tolerance)
            if "mus" in e.fields:
                self.warnings.append(
                    f"{self.where('forces', e)}: mus (static friction) left out: Biela's "
                    "regularised Coulomb friction has one coefficient mu"
                )
            if "vs" not in e.fields:
                self.warnings.append(
                    f"{self.where('forces', e)}: friction velocity tolerance vs not given: 0.01 m/s"
                )
        elif friction is not False:
            raise self.error("forces", e, f"must be true or false (got {friction!r})", "friction")
        self._draw_sphere(bi, centre, radius)
        return force

    def _restitution(self, e, fld) -> float:
        value = self.number("forces", e, fld, 1.0)
        if not 0 < value <= 1:
            raise self.error("forces", e, f"must be in (0, 1] (got {value:g})", fld)
        return value

    def _sph_sph(self, e):
        spheres = []
        for pf, bf, rf in (("Pi", "Bi", "Ri"), ("Pj", "Bj", "Rj")):
            b = self.index("forces", e, bf, "bodies", ground_ok=True)
            bp, centre = self.point(self.index("forces", e, pf, "points"))
            if bp != b:
                raise self.error("forces", e, f"its point is not on body {b}", pf)
            radius = self.number("forces", e, rf, required=True, positive=True)
            spheres.append(d.SphereRef(self.body_name(b), vec(centre), radius))
            if b:
                self._draw_sphere(b, centre, radius)
        return d.Force(
            e.name,
            "contact",
            sphere=spheres[0],
            sphere2=spheres[1],
            model=self._contact_model(e, "F_model"),
            stiffness=self.number("forces", e, "K", required=True, positive=True),
            exponent=self.number("forces", e, "n", 1.5, positive=True),
            restitution=self._restitution(e, "Cr"),
        )

    def _draw_sphere(self, b: int, centre, radius) -> None:
        body = self.model.bodies[b - 1]
        shape = d.Shape("sphere", center=vec(centre), radius=float(radius))
        if shape not in body.shapes:
            body.shapes.append(shape)

    # ---- drawing, outputs, solver ----------------------------------------------------------
    def build_drawing(self) -> None:
        """Each body drawn as rods from its origin to its points (MUBODYNA's animation);
        the animation points become output points."""
        for key in ("points", "animate"):
            for e in self.files.lists[key]:
                b, x = self._point(e, key)
                if b == 0:
                    continue
                body = self.model.bodies[b - 1]
                origin = np.asarray(body.position)
                if np.linalg.norm(x - origin) > 1e-9:
                    body.shapes.append(d.Shape("rod", start=vec(origin), end=vec(x)))
                if key == "animate":
                    self.model.outputs.append(d.Output(e.name, body.name, vec(x)))

    def build_solver(self) -> None:
        s = self.files.solver
        name = self.files.filenames["solver"]
        known = {"correct_ic", "t_final", "dt", "method", "tol", "RelTol", "AbsTol"}
        for var in s:
            if var not in known and not var.startswith("__"):
                self.warnings.append(f"{name}: {var} left out (not a setting Biela has)")

        def number(var, default):
            v = s.get(var, default)
            if isinstance(v, bool) or not isinstance(v, float | int):
                raise ImportError_(name, f"must be a number (got {v!r})", var)
            return float(v)

        method = s.get("method", "standard")
        if method not in METHODS:
            raise ImportError_(
                name, f"'{method}' has no Biela equivalent (standard, penalty, augmented)", "method"
            )
        report = number("dt", 0.01)
        t_final = number("t_final", 1.0)
        if not report > 0:
            raise ImportError_(name, f"must be positive (got {report:g})", "dt")
        formulation = METHODS[method]
        step = report if formulation == "lagrange_baumgarte" else report / 10.0
        settings = d.SolverSettings(formulation=formulation, dt=step, output_dt=report)
        if t_final <= 0:  # MUBODYNA's snapshot: the assembled initial configuration
            settings.analysis, settings.t_end = "assembly", step
        else:
            settings.t_end = max(t_final, step)
        if "tol" in s:
            settings.tolerance = number("tol", 1e-10)
        for var, param in (("RelTol", "rtol"), ("AbsTol", "atol")):
            if var in s:
                settings.parameters[param] = number(var, 0.0)
        self.model.solver = settings
        self.model.description = (
            f"Imported from the MUBODYNA model folder {self.files.folder.name}: method "
            f"'{method}' as {formulation}, reporting every {report:g} s up to {t_final:g} s "
            f"(correct_ic = '{s.get('correct_ic', 'n')}': Biela always assembles the initial "
            "configuration and makes the velocities consistent)."
        )


def build_model(files: ModelFiles) -> Imported:
    b = _Builder(files)
    b.build_bodies()
    b.build_joints()
    b.build_forces()
    b.build_drawing()
    b.build_solver()
    _validate(b)
    return Imported(b.model, b.warnings)


def _validate(b: _Builder) -> None:
    """Biela's own checks of the result; a failure names the folder (it would be a gap in
    the mapping above, the MUBODYNA element being named by the Biela item)."""
    from solver.model import ModelError
    from solver.model.validation import validate_model

    try:
        validate_model(b.model)
    except ModelError as exc:
        raise ImportError_(b.files.folder.name, f"the imported model is not valid: {exc}") from None
