"""The benchmark models rebuilt in Exudyn (the peer code of ``benchmarks.run``).

``build(model, accuracy=False)`` turns a Biela model description (reference-point rigid
bodies and point masses, gravity, the joints the benchmarks use: spherical, revolute,
distance, point_on_line, and linear spring–dampers between two points) into an Exudyn system with the same masses, inertias, initial
state and joint geometry, written against Exudyn's ``MainSystem.Create…`` interface.

With ``accuracy=True`` sensors record, every ``output_dt``, what the energy and the
constraint error need: the centre-of-mass position and the kinetic energy of every body,
and the global positions of both ends of every joint (their distance is the joint's
position error; a distance joint reports | |d| − L |, a point_on_line its in-plane gap).
Timing runs build the system without sensors, so neither code pays for output it would
not produce anyway (Biela's time loop always evaluates energies; Exudyn's sensors are an
extra).

Exudyn is only needed by the benchmarks (the ``[bench]`` extra); Biela never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.mechanics.rotations import rotation_matrix
from solver.model import description as d


@dataclass
class ExudynCase:
    """An Exudyn system built from a Biela model, with what the accuracy metrics need."""

    sc: object
    mbs: object
    masses: list[float]
    gravity: np.ndarray
    com_sensors: list = field(default_factory=list)
    ke_sensors: list = field(default_factory=list)  # rigid: kinetic energy; point: velocity
    ke_kind: list = field(default_factory=list)  # "rigid" | "point"
    joint_sensors: list = field(default_factory=list)  # (kind, sensor a, sensor b, length)
    n_coordinates: int = 0


def build(model: d.Model, accuracy: bool = False, output_dt: float = 0.01) -> ExudynCase:
    import exudyn as exu
    from exudyn.utilities import RigidBodyInertia, SensorBody

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    g = np.asarray(model.gravity, float)
    items = {d.GROUND: mbs.CreateGround()}
    bodies = {}
    case = ExudynCase(sc, mbs, [], g)
    for b in model.bodies:
        if isinstance(b, d.RigidBody):
            rot = rotation_matrix(np.asarray(b.orientation, float) / np.linalg.norm(b.orientation))
            inertia = RigidBodyInertia(mass=b.mass, inertiaTensor=np.asarray(b.inertia, float))
            items[b.name] = mbs.CreateRigidBody(
                referencePosition=list(b.position),
                referenceRotationMatrix=rot,
                initialVelocity=list(b.velocity),
                initialAngularVelocity=list(b.angular_velocity),
                inertia=inertia,
                gravity=list(g),
            )
            case.n_coordinates += 7
        elif isinstance(b, d.PointMass):
            items[b.name] = mbs.CreateMassPoint(
                referencePosition=list(b.position),
                initialVelocity=list(b.velocity),
                physicsMass=b.mass,
                gravity=list(g),
            )
            case.n_coordinates += 3
        else:
            raise ValueError(f"body {b.name}: {type(b).__name__} has no Exudyn counterpart here")
        bodies[b.name] = b
        case.masses.append(b.mass)

    def local(name, xyz):
        """A global point at t = 0 in the body frame of ``name`` (as Exudyn wants it)."""
        xyz = np.asarray(xyz, float)
        if name == d.GROUND:
            return list(xyz)
        b = bodies[name]
        if isinstance(b, d.PointMass):
            return [0.0, 0.0, 0.0]
        rot = rotation_matrix(np.asarray(b.orientation, float) / np.linalg.norm(b.orientation))
        return list(rot.T @ (xyz - np.asarray(b.position, float)))

    pair_points = []
    for j in model.joints:
        pair = [items[j.body1], items[j.body2]]
        if j.type == "spherical":
            mbs.CreateSphericalJoint(itemNumbers=pair, position=list(j.point))
            pts = (j.point, j.point, None)
        elif j.type == "revolute":
            mbs.CreateRevoluteJoint(itemNumbers=pair, position=list(j.point), axis=list(j.axis))
            pts = (j.point, j.point, None)
        elif j.type == "distance":
            length = float(np.linalg.norm(np.subtract(j.point2, j.point1)))
            mbs.CreateDistanceConstraint(
                itemNumbers=pair,
                localPosition0=local(j.body1, j.point1),
                localPosition1=local(j.body2, j.point2),
                distance=length,
            )
            pts = (j.point1, j.point2, length)
        elif j.type == "point_on_line":
            # the point of body2 stays on the line through the point of body1 along the axis:
            # a generic joint that frees the translation along the axis and every rotation
            axis = np.asarray(j.axis, float) / np.linalg.norm(j.axis)
            frame = _frame_with_z(axis)
            mbs.CreateGenericJoint(
                itemNumbers=pair,
                position=list(j.point),
                rotationMatrixAxes=frame,
                constrainedAxes=[1, 1, 0, 0, 0, 0],
                useGlobalFrame=True,
            )
            pts = (j.point, j.point, ("line", axis))
        else:
            raise ValueError(f'joint {j.name}: type "{j.type}" has no Exudyn counterpart here')
        pair_points.append((j, pts))

    for f in model.forces:
        if f.type != "spring_damper" or f.actuator is not None:
            raise ValueError(f'force {f.name}: type "{f.type}" has no Exudyn counterpart here')
        mbs.CreateSpringDamper(
            itemNumbers=[items[f.body1], items[f.body2]],
            localPosition0=local(f.body1, f.point1),
            localPosition1=local(f.body2, f.point2),
            referenceLength=float(f.free_length)
            if f.free_length is not None
            else float(np.linalg.norm(np.subtract(f.point2, f.point1))),
            stiffness=float(f.stiffness),
            damping=float(f.damping or 0.0),
        )

    if accuracy:
        for b in model.bodies:
            it = items[b.name]
            case.com_sensors.append(
                mbs.AddSensor(
                    SensorBody(
                        bodyNumber=it,
                        outputVariableType=exu.OutputVariableType.Position,
                        storeInternal=True,
                        writeToFile=False,
                    )
                )
            )
            rigid = isinstance(b, d.RigidBody)
            kind = (
                exu.OutputVariableType.KineticEnergy if rigid else exu.OutputVariableType.Velocity
            )
            case.ke_sensors.append(
                mbs.AddSensor(
                    SensorBody(
                        bodyNumber=it,
                        outputVariableType=kind,
                        storeInternal=True,
                        writeToFile=False,
                    )
                )
            )
            case.ke_kind.append("rigid" if rigid else "point")
        for j, (pa, pb, extra) in pair_points:
            ends = []
            for name, p in ((j.body1, pa), (j.body2, pb)):
                if name == d.GROUND:
                    ends.append(np.asarray(p, float))
                    continue
                ends.append(
                    mbs.AddSensor(
                        SensorBody(
                            bodyNumber=items[name],
                            localPosition=local(name, p),
                            outputVariableType=exu.OutputVariableType.Position,
                            storeInternal=True,
                            writeToFile=False,
                        )
                    )
                )
            case.joint_sensors.append((j.type, ends[0], ends[1], extra))
    mbs.Assemble()
    return case


def _frame_with_z(axis: np.ndarray) -> np.ndarray:
    """A rotation matrix whose third column is ``axis``."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, axis)
    x /= np.linalg.norm(x)
    y = np.cross(axis, x)
    return np.column_stack([x, y, axis])


def settings(
    dt: float,
    t_end: float,
    sparse: bool = False,
    output_dt: float = 0.01,
    rho_inf: float = 0.9,
    redundant: bool = False,
):
    """Exudyn's implicit generalized-α solver (its default dynamic solver) with a fixed step
    (no adaptive step reduction), no files, no console output, Exudyn's defaults otherwise
    (ρ∞ = 0.9, index-3 constraints, its Newton settings). With ρ∞ = 1 (no numerical
    dissipation, like Biela's trapezoidal rule) Exudyn's Newton iteration fails at the first
    singular position of the A02 double four-bar (t ≈ 1.24 s at Δt = 1 ms). ``redundant``
    (redundant joints, as in the Bricard mechanism) selects Eigen's dense solver with a
    pseudo-inverse for the singular Jacobian: with Exudyn's own dense LU the first step
    fails."""
    import exudyn as exu

    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = int(round(t_end / dt))
    ti.endTime = t_end
    ti.verboseMode = 0
    ti.adaptiveStep = False
    ti.generalizedAlpha.spectralRadius = rho_inf
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = output_dt
    ss.displayStatistics = False
    ss.displayComputationTime = False
    if sparse:
        ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    elif redundant:
        ss.linearSolver.solverType = exu.LinearSolverType.EigenDense
    else:
        ss.linearSolver.solverType = exu.LinearSolverType.EXUdense
    ss.linearSolverSettings.ignoreSingularJacobian = True  # redundant joints (Bricard)
    return ss


def accuracy(case: ExudynCase) -> dict:
    """Energy drift (max |E(t) − E(0)|, J) and the largest joint position error (m)."""
    mbs = case.mbs
    energy = None
    for mass, com, ke, kind in zip(
        case.masses, case.com_sensors, case.ke_sensors, case.ke_kind, strict=True
    ):
        pos = mbs.GetSensorStoredData(com)
        kin = mbs.GetSensorStoredData(ke)
        t_e = kin[:, 1] if kind == "rigid" else 0.5 * mass * np.sum(kin[:, 1:4] ** 2, axis=1)
        e = t_e - mass * (pos[:, 1:4] @ case.gravity)
        energy = e if energy is None else energy + e
    err = 0.0
    for kind, a, b, extra in case.joint_sensors:
        pa = a if isinstance(a, np.ndarray) else mbs.GetSensorStoredData(a)[:, 1:4]
        pb = b if isinstance(b, np.ndarray) else mbs.GetSensorStoredData(b)[:, 1:4]
        gap = np.atleast_2d(pb - pa)
        if kind == "distance":
            e = np.abs(np.linalg.norm(gap, axis=1) - extra)
        elif kind == "point_on_line":
            axis = extra[1]
            e = np.linalg.norm(gap - np.outer(gap @ axis, axis), axis=1)
        else:
            e = np.linalg.norm(gap, axis=1)
        err = max(err, float(e.max()))
    drift = float(np.max(np.abs(energy - energy[0]))) if energy is not None else float("nan")
    return {"energy_drift": drift, "constraint_error": err}
