"""MJCF and URDF models, read by MuJoCo (the ``mujoco`` package loads both) and mapped to
a Biela model.

MuJoCo compiles the file; the mapping reads the compiled model at its initial state (the
first keyframe if there is one, else ``qpos0`` at rest):

* bodies → rigid bodies at their centres of mass, body axes along MuJoCo's principal
  inertia frame, ``body_inertia`` as the principal moments; velocities from the keyframe
  (``mj_objectVelocity`` at the centre of mass, global). A body without joints is welded to
  its parent (``fixed``); a massless one without joints lends its geoms to its parent.
* joints: ``hinge`` → ``revolute``, ``slide`` → ``prismatic``, ``ball`` → ``spherical``,
  ``free`` → none (an unconstrained body); two joints in one body: hinge + hinge through
  one point with perpendicular axes → ``universal``, hinge + slide on one axis →
  ``cylindrical``. Hinge stiffness and damping → ``rotational_spring_damper``.
* geoms → shapes (box, sphere, cylinder, capsule as a cylinder with two end spheres,
  ellipsoid as its bounding sphere, mesh as an OBJ file beside the model); sites → output
  points; gravity, and the time step as ``solver.dt``.

What has no equivalent is left out with one warning line each: tendons, actuators,
equality constraints, contact parameters, joint limits, armature, friction loss, slide
springs, world geoms.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from solver.importers.common import Imported, ImportError_, Names, color, quat, vec
from solver.model import description as d

FREE, BALL, SLIDE, HINGE = 0, 1, 2, 3


def _mujoco():
    try:
        import mujoco
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError_(
            "",
            "importing MJCF and URDF needs the mujoco package: pip install 'biela[import]'",
        ) from None
    return mujoco


def _mat_to_quat(mat: np.ndarray) -> d.Quat:
    from solver.mechanics.rotations import quaternion_from_matrix

    return quat(quaternion_from_matrix(np.asarray(mat, float).reshape(3, 3)))


def load_mujoco(path: str | os.PathLike, mesh_dir: str = "meshes") -> Imported:
    """Import the MJCF (``.xml``) or URDF (``.urdf``) file at ``path``."""
    mujoco = _mujoco()
    path = Path(path)
    name = path.name
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        if "<robot" in text and "<mujoco" not in text:  # URDF: keep the visual geometry
            m = mujoco.MjModel.from_xml_string(_keep_visuals(text, path.parent))
        else:
            m = mujoco.MjModel.from_xml_path(str(path))
    except OSError as exc:
        raise ImportError_(name, f"cannot be read ({exc.strerror})") from None
    except Exception as exc:  # MuJoCo's compiler error: its own message names the element
        text = " ".join(str(exc).split())
        raise ImportError_(name, f"MuJoCo cannot load it: {text}") from None
    return _Mapper(m, mujoco, name, mesh_dir).run()


def _keep_visuals(urdf: str, folder: Path) -> str:
    """The URDF text with MuJoCo's compiler told to keep ``<visual>`` geometry (it drops it
    by default) and to find meshes beside the file."""
    import re
    from xml.sax.saxutils import quoteattr

    extra = f'<mujoco><compiler discardvisual="false" meshdir={quoteattr(str(folder))}/></mujoco>'
    return re.sub(r"(<robot\b[^>]*>)", lambda mt: mt.group(1) + extra, urdf, count=1)


class _Mapper:
    def __init__(self, m, mujoco, filename: str, mesh_dir: str) -> None:
        self.m, self.mj, self.filename, self.mesh_dir = m, mujoco, filename, mesh_dir
        self.d = mujoco.MjData(m)
        self.warnings: list[str] = []
        self.files: dict[str, bytes] = {}
        self.body_names = Names()
        self.joint_names = Names()
        self.force_names = Names()

    def warn(self, text: str) -> None:
        self.warnings.append(f"{self.filename}: {text}")

    def error(self, element: str, reason: str, field: str = "") -> ImportError_:
        return ImportError_(f"{self.filename}: {element}", reason, field)

    def obj_name(self, kind, i: int) -> str:
        return self.mj.mj_id2name(self.m, kind, i) or ""

    # ---- the whole model ----------------------------------------------------------------
    def run(self) -> Imported:
        m, mj = self.m, self.mj
        if m.nkey:
            mj.mj_resetDataKeyframe(m, self.d, 0)
            key = self.obj_name(mj.mjtObj.mjOBJ_KEY, 0) or "0"
            self.warn(f'initial state from keyframe "{key}" (the first of {m.nkey})')
        mj.mj_forward(m, self.d)
        model = d.Model(
            name=self._model_name(),
            gravity=vec(m.opt.gravity),
            description=f"Imported from {self.filename} (MuJoCo {mj.__version__}).",
        )
        self.model = model
        self.biela_body: dict[int, str] = {0: d.GROUND}  # MuJoCo body id → Biela name
        for b in range(1, m.nbody):
            self._body(b)
        for s in range(m.nsite):
            self._site(s)
        self._left_out()
        dt = float(m.opt.timestep)
        model.solver = d.SolverSettings(dt=dt, t_end=max(1.0, dt), output_dt=max(dt, 0.01))
        return Imported(model, self.warnings, self.files)

    def _model_name(self) -> str:
        try:
            text = self.m.names[: self.m.names.index(b"\0")].decode("utf-8", "replace")
        except (ValueError, AttributeError):
            text = ""
        return text or Path(self.filename).stem

    # ---- bodies -----------------------------------------------------------------------
    def _body(self, b: int) -> None:
        m, dd = self.m, self.d
        parent = int(m.body_parentid[b])
        njnt = int(m.body_jntnum[b])
        mass = float(m.body_mass[b])
        given = self.obj_name(self.mj.mjtObj.mjOBJ_BODY, b)
        label = f'body "{given}"' if given else f"body {b}"
        if njnt == 0 and mass <= 0.0:  # a massless weld: its geoms belong to its parent
            self.biela_body[b] = self.biela_body[parent]
            host = self.model.body(self.biela_body[parent])
            if host is not None:
                host.shapes += self._shapes(b)
            elif any(int(g) == b for g in m.geom_bodyid):
                self.warn(f"{label}: geoms on a massless body welded to the world left out")
            return
        if mass <= 0.0:
            raise self.error(
                label, "has joints but no mass: every moving Biela body needs a mass", "mass"
            )
        name = self.body_names.make(self.obj_name(self.mj.mjtObj.mjOBJ_BODY, b), f"body{b}")
        self.biela_body[b] = name
        vel = np.zeros(6)
        self.mj.mj_objectVelocity(m, dd, self.mj.mjtObj.mjOBJ_BODY, b, vel, 0)
        inertia = np.asarray(m.body_inertia[b], float)
        body = d.RigidBody(
            name=name,
            mass=mass,
            inertia=((inertia[0], 0.0, 0.0), (0.0, inertia[1], 0.0), (0.0, 0.0, inertia[2])),
            position=vec(dd.xipos[b]),
            orientation=_mat_to_quat(dd.ximat[b]),
            velocity=vec(vel[3:]),
            angular_velocity=vec(vel[:3]),
            shapes=self._shapes(b),
        )
        self.model.bodies.append(body)
        self._joints(b, label, name, self.biela_body[parent])

    # ---- joints -----------------------------------------------------------------------
    def _joints(self, b: int, label: str, name: str, parent: str) -> None:
        m, dd = self.m, self.d
        first, count = int(m.body_jntadr[b]), int(m.body_jntnum[b])
        ids = list(range(first, first + count))
        types = [int(m.jnt_type[j]) for j in ids]
        jname = self.obj_name(self.mj.mjtObj.mjOBJ_JOINT, ids[0]) if ids else ""
        joint_name = self.joint_names.make(jname, f"{name}_joint")
        if not ids:
            self.model.joints.append(d.Joint(joint_name, "fixed", parent, name))
            return
        for j in ids:
            self._joint_extras(j, label)
        anchor = [np.asarray(dd.xanchor[j], float) for j in ids]
        axis = [np.asarray(dd.xaxis[j], float) for j in ids]
        if types == [FREE]:
            return
        if count == 1:
            kind = {BALL: "spherical", SLIDE: "prismatic", HINGE: "revolute"}[types[0]]
            joint = d.Joint(joint_name, kind, parent, name, point=vec(anchor[0]))
            if kind != "spherical":
                joint.axis = vec(axis[0])
            self.model.joints.append(joint)
            self._spring(ids[0], joint)
            return
        if sorted(types) == [HINGE, HINGE] and count == 2:
            gap = float(np.linalg.norm(anchor[0] - anchor[1]))
            if gap < 1e-9 and abs(float(axis[0] @ axis[1])) < 1e-9:
                self.model.joints.append(
                    d.Joint(
                        joint_name,
                        "universal",
                        parent,
                        name,
                        point=vec(anchor[0]),
                        axis1=vec(axis[0]),
                        axis2=vec(axis[1]),
                    )
                )
                return
        if sorted(types) == [SLIDE, HINGE] and count == 2:
            h, s = (0, 1) if types[0] == HINGE else (1, 0)
            on_line = np.linalg.norm(np.cross(anchor[s] - anchor[h], axis[h])) < 1e-9
            if on_line and np.linalg.norm(np.cross(axis[0], axis[1])) < 1e-9:
                joint = d.Joint(
                    joint_name, "cylindrical", parent, name, point=vec(anchor[h]), axis=vec(axis[h])
                )
                self.model.joints.append(joint)
                self._spring(ids[h], joint)
                return
        names = ", ".join(
            f'{("free", "ball", "slide", "hinge")[t]} "{self.obj_name(self.mj.mjtObj.mjOBJ_JOINT, j)}"'
            for t, j in zip(types, ids, strict=True)
        )
        raise self.error(
            label,
            f"has {count} joints ({names}) that no Biela joint reproduces (supported in one body: "
            "one joint, hinge + hinge through one point at right angles (universal), hinge + "
            "slide on one axis (cylindrical)); put the joints in separate bodies",
            "joint",
        )

    def _joint_extras(self, j: int, label: str) -> None:
        m = self.m
        jl = f'joint "{self.obj_name(self.mj.mjtObj.mjOBJ_JOINT, j)}" of {label}'
        dof = int(m.jnt_dofadr[j])
        ndof = {FREE: 6, BALL: 3, SLIDE: 1, HINGE: 1}[int(m.jnt_type[j])]
        if m.jnt_limited[j]:
            self.warn(f"{jl}: range (joint limit) left out: Biela joints have no limits")
        if np.any(m.dof_armature[dof : dof + ndof] != 0):
            self.warn(f"{jl}: armature left out (rotor inertia has no Biela equivalent)")
        if np.any(m.dof_frictionloss[dof : dof + ndof] != 0):
            self.warn(f"{jl}: frictionloss left out (no dry joint friction in Biela)")
        t = int(m.jnt_type[j])
        if t in (FREE, BALL) and (
            m.jnt_stiffness[j] != 0 or np.any(m.dof_damping[dof : dof + ndof] != 0)
        ):
            self.warn(f"{jl}: stiffness and damping of a {('free', 'ball')[t]} joint left out")
        if t == SLIDE and (m.jnt_stiffness[j] != 0 or m.dof_damping[dof] != 0):
            self.warn(f"{jl}: stiffness and damping of a slide joint left out")

    def _spring(self, j: int, joint: d.Joint) -> None:
        m = self.m
        if int(m.jnt_type[j]) != HINGE:
            return
        k, c = float(m.jnt_stiffness[j]), float(m.dof_damping[int(m.jnt_dofadr[j])])
        if k == 0.0 and c == 0.0:
            return
        q = int(m.jnt_qposadr[j])
        free = float(m.qpos_spring[q] - self.d.qpos[q])
        self.model.forces.append(
            d.Force(
                self.force_names.make(f"{joint.name}_spring", "spring"),
                "rotational_spring_damper",
                joint=joint.name,
                stiffness=k,
                damping=c,
                free_angle=free,
            )
        )

    # ---- geoms and sites ----------------------------------------------------------------
    def _shapes(self, b: int) -> list[d.Shape]:
        m, dd, mj = self.m, self.d, self.mj
        out: list[d.Shape] = []
        for g in range(m.ngeom):
            if int(m.geom_bodyid[g]) != b:
                continue
            t = int(m.geom_type[g])
            size = np.asarray(m.geom_size[g], float)
            pos = np.asarray(dd.geom_xpos[g], float)
            rot = np.asarray(dd.geom_xmat[g], float).reshape(3, 3)
            col = (
                color(m.geom_rgba[g]) if m.geom_matid[g] < 0 else color(m.mat_rgba[m.geom_matid[g]])
            )
            gt = mj.mjtGeom
            if t == gt.mjGEOM_BOX:
                out.append(
                    d.Shape(
                        "box",
                        center=vec(pos),
                        size=vec(2 * size),
                        orientation=_mat_to_quat(rot),
                        color=col,
                    )
                )
            elif t == gt.mjGEOM_SPHERE:
                out.append(d.Shape("sphere", center=vec(pos), radius=float(size[0]), color=col))
            elif t in (gt.mjGEOM_CYLINDER, gt.mjGEOM_CAPSULE):
                half = rot[:, 2] * size[1]
                out.append(
                    d.Shape(
                        "cylinder",
                        start=vec(pos - half),
                        end=vec(pos + half),
                        radius=float(size[0]),
                        color=col,
                    )
                )
                if t == gt.mjGEOM_CAPSULE:
                    for end in (pos - half, pos + half):
                        out.append(
                            d.Shape("sphere", center=vec(end), radius=float(size[0]), color=col)
                        )
            elif t == gt.mjGEOM_ELLIPSOID:
                out.append(d.Shape("sphere", center=vec(pos), radius=float(size.max()), color=col))
                self.warn(f"geom {self._geom_label(g)}: ellipsoid drawn as its bounding sphere")
            elif t == gt.mjGEOM_MESH:
                out.append(self._mesh(g, pos, rot, col))
            else:
                self.warn(
                    f"geom {self._geom_label(g)}: {gt(t).name[7:].lower()} geom left out (no Biela shape)"
                )
        return out

    def _geom_label(self, g: int) -> str:
        name = self.obj_name(self.mj.mjtObj.mjOBJ_GEOM, g)
        return f'"{name}"' if name else str(g)

    def _mesh(self, g: int, pos, rot, col) -> d.Shape:
        m = self.m
        k = int(m.geom_dataid[g])
        v0, nv = int(m.mesh_vertadr[k]), int(m.mesh_vertnum[k])
        f0, nf = int(m.mesh_faceadr[k]), int(m.mesh_facenum[k])
        verts = np.asarray(m.mesh_vert[v0 : v0 + nv], float) @ rot.T + pos
        faces = np.asarray(m.mesh_face[f0 : f0 + nf], int) + 1
        mesh_name = self.obj_name(self.mj.mjtObj.mjOBJ_MESH, k) or f"mesh{k}"
        rel = f"{self.mesh_dir}/{Names().make(mesh_name, 'mesh')}_{g}.obj"
        lines = [f"# {mesh_name} placed at t = 0 (global coordinates, m)"]
        lines += [f"v {x:.9g} {y:.9g} {z:.9g}" for x, y, z in verts]
        lines += [f"f {a} {b} {c}" for a, b, c in faces]
        self.files[rel] = ("\n".join(lines) + "\n").encode()
        return d.Shape("mesh", file=rel, color=col)

    def _site(self, s: int) -> None:
        b = int(self.m.site_bodyid[s])
        body = self.biela_body.get(b, d.GROUND)
        if body == d.GROUND:
            return
        name = self.body_names.make(self.obj_name(self.mj.mjtObj.mjOBJ_SITE, s), f"site{s}")
        self.model.outputs.append(d.Output(name, body, vec(self.d.site_xpos[s])))

    # ---- what is left out ---------------------------------------------------------------
    def _left_out(self) -> None:
        m, mj = self.m, self.mj
        if m.ntendon:
            self.warn(f"{m.ntendon} tendon(s) left out (no tendons in Biela)")
        if m.nu:
            self.warn(f"{m.nu} actuator(s) left out (add drivers or joint torques by hand)")
        if m.neq:
            self.warn(f"{m.neq} equality constraint(s) left out (add joints by hand)")
        contact_on = not (int(m.opt.disableflags) & int(mj.mjtDisableBit.mjDSBL_CONTACT))
        colliding = int(np.count_nonzero((m.geom_contype != 0) | (m.geom_conaffinity != 0)))
        if contact_on and colliding:
            self.warn(
                f"contact parameters of {colliding} colliding geom(s) left out (add contact "
                "forces by hand; Biela has sphere-plane and sphere-sphere contact)"
            )
        world = int(np.count_nonzero(m.geom_bodyid == 0))
        if world:
            self.warn(f"{world} geom(s) of the world body left out (ground carries no shapes)")
