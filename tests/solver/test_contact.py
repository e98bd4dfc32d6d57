"""Contact forces: exact Jacobians, energy and power, onset state, friction, errors."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from solver.analysis.errors import SimulationError
from solver.analysis.simulate import Simulation, settings_with
from solver.cli import main
from solver.kernels import contact as law
from solver.mechanics.forces.contact import (
    MIN_IMPACT_SPEED,
    check_step,
    hertz_stiffness,
    hunt_crossley_factor,
    lankarani_nikravesh_factor,
    restitution_of,
)
from solver.mechanics.rotations import e_matrix
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data

ROOT = Path(__file__).resolve().parents[2]
H = 1e-6  # central-difference step
TOL = 1e-6  # relative error allowed between analytic and finite-difference Jacobians

BODIES = [
    {
        "name": "a",
        "mass": 2.0,
        "inertia": [[0.3, 0.01, 0.02], [0.01, 0.4, 0.03], [0.02, 0.03, 0.5]],
        "position": [0, 0, 0.45],
        "orientation": {"axis": [1, 1, 0], "angle": 0.4},
    },
    {
        "name": "b",
        "mass": 3.0,
        "inertia": [1, 2, 3],
        "position": [0.2, 0.1, -0.3],
        "orientation": {"axis": [0, 1, 1], "angle": 0.3},
    },
    {"name": "m", "type": "point_mass", "mass": 0.7, "position": [0.1, 0.5, 0.52]},
]
ROUGH = {"mu": 0.4, "velocity_tolerance": 0.01}


def sphere(body, center, radius):
    return {"body": body, "center": center, "radius": radius}


def plane(body, point, normal):
    return {"body": body, "point": point, "normal": normal}


def contact(name, sph, other, **extra):
    key = "plane" if "normal" in other else "sphere2"
    return {"name": name, "type": "contact", "sphere": sph, key: other} | {"stiffness": 1e5} | extra


#: every combination of carriers: rigid/rigid (moving plane), rigid/point mass sphere–sphere,
#: point-mass sphere on a rigid plane, rigid sphere on a plane carried by a point mass
CONTACTS = [
    contact(
        "C1",
        sphere("a", [0, 0, 0.45], 0.5),
        plane("b", [0, 0, 0], [0.1, 0.2, 1]),
        model="hunt_crossley",
        restitution=0.6,
        friction=ROUGH,
    ),
    contact(
        "C2",
        sphere("a", [0, 0, 0.45], 0.5),
        sphere("m", [0.1, 0.5, 0.52], 0.1),
        model="lankarani_nikravesh",
        restitution=0.7,
        stiffness=2e5,
        exponent=1.3,
        friction=ROUGH,
    ),
    contact(
        "C3",
        sphere("m", [0.1, 0.5, 0.52], 0.1),
        plane("b", [0, 0, 0.45], [0, 0, 1]),
        model="hunt_crossley",
        restitution=0.5,
        friction=ROUGH,
    ),
    contact(
        "C4",
        sphere("b", [0.2, 0.1, -0.3], 0.3),
        plane("m", [0.2, 0.1, 0.0], [0, 0.3, -1]),
        model="hunt_crossley",
        restitution=0.5,
        friction=ROUGH,
    ),
    contact("C5", sphere("ground", [0.3, 0.2, 0.3], 0.15), sphere("a", [0, 0, 0.45], 0.5)),
]


def build(forces, bodies=BODIES, coordinates=None, gravity=(0, 0, -9.81)) -> MultibodySystem:
    data = {
        "biela": 1,
        "gravity": list(gravity),
        "bodies": copy.deepcopy(bodies),
        "forces": copy.deepcopy(forces),
    }
    return MultibodySystem(model_from_data(data), coordinates)


def applied(system, q, qd):
    """The contacts' generalised forces (the models here have no other force element)."""
    return system.forces(q, qd, 0.0, inertial=False) - system.gravity_forces()


def jacobians(system, q, qd):
    return tuple(dense(m) for m in system.force_jacobians(q, qd, 0.0, inertial=False))


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def relative_error(analytic, numeric) -> float:
    return float(np.abs(analytic - numeric).max() / np.abs(numeric).max())


def fd_jacobians(system, q, qd):
    eye = np.eye(system.n)
    kq = np.column_stack(
        [(applied(system, q + H * e, qd) - applied(system, q - H * e, qd)) / (2 * H) for e in eye]
    )
    kqd = np.column_stack(
        [(applied(system, q, qd + H * e) - applied(system, q, qd - H * e)) / (2 * H) for e in eye]
    )
    return kq, kqd


def penetrating_state(system, seed=1, scale=0.01):
    """A state near the initial one (every contact penetrates) with random velocities."""
    rng = np.random.default_rng(seed)
    q = system.q0 + scale * rng.normal(size=system.n)
    return q, rng.normal(size=system.n)


def contact_state(system, q, qd):
    return system.force_set.contacts.state(system.marker_state(q, qd))


# ---- the coefficients -------------------------------------------------------------------
def test_hertz_stiffness_of_the_v_example():
    # Villar Alegría (2018) §1.8: E = 290 GPa, ν = 0.3 on both sides, R = 1 m → K = 2.12e11 N/m^1.5
    assert hertz_stiffness(290e9, 0.3, 290e9, 0.3, 1.0) == pytest.approx(2.1245e11, rel=1e-4)


@pytest.mark.parametrize("cr", [0.1, 0.5, 0.8, 0.95, 0.999])
def test_hunt_crossley_factor_restitutes_exactly(cr):
    assert restitution_of(hunt_crossley_factor(cr)) == pytest.approx(cr, rel=1e-9)


def test_factors_agree_with_eq_66_near_one():
    cr = 0.999
    assert hunt_crossley_factor(cr) == pytest.approx(1.5 * (1 - cr), rel=2e-3)
    assert lankarani_nikravesh_factor(cr) == pytest.approx(1.5 * (1 - cr), rel=2e-3)
    assert hunt_crossley_factor(1.0) == 0.0


def test_lankarani_nikravesh_restitutes_more_than_asked_away_from_one():
    got = {cr: restitution_of(lankarani_nikravesh_factor(cr)) for cr in (0.5, 0.8, 0.95)}
    assert got[0.95] == pytest.approx(0.95, rel=0.01)
    assert got[0.8] == pytest.approx(0.847, abs=2e-3)
    assert got[0.5] == pytest.approx(0.725, abs=2e-3)


# ---- Jacobians ----------------------------------------------------------------------------
@pytest.mark.parametrize("coordinates", ["reference_point", "natural"])
@pytest.mark.parametrize("committed", [False, True], ids=["provisional", "committed"])
def test_jacobians_match_finite_differences(coordinates, committed):
    system = build(CONTACTS, coordinates=coordinates)
    q, qd = penetrating_state(system)
    state = contact_state(system, q, qd)
    assert all(s["penetration"] > 1e-3 for s in state.values()), state
    assert all(abs(s["rate"]) > 1e-2 for s in state.values()), state
    if committed:
        system.force_set.accept(system.marker_state(q, qd), 0.0)
        system.force_set.contacts.onset[:] = 3.0
    kq, kqd = jacobians(system, q, qd)
    fq, fqd = fd_jacobians(system, q, qd)
    assert relative_error(kq, fq) < TOL
    assert relative_error(kqd, fqd) < TOL


def test_values_alone_equal_the_values_with_derivatives():
    """The law evaluated for values only (the explicit integrators' path) gives the same
    forces and scalars as with its derivatives (the implicit formulations' path)."""
    system = build(CONTACTS)
    q, qd = penetrating_state(system, seed=5)
    ms = system.marker_state(q, qd)
    c = system.force_set.contacts
    for i in range(len(c)):
        short = np.empty((law.SLOTS, 3, 1))
        full = np.empty((law.SLOTS, 3, law.WIDTH))
        args = (ms.u, ms.udot, c.mk[i], c.kind[i], c.par[i], 0.5)
        values = law.contact_law(*args, np.int64(1), short)
        with_derivatives = law.contact_law(*args, np.int64(law.WIDTH), full)
        assert values[law.NORMAL_FORCE] > 0.0
        assert values == pytest.approx(with_derivatives, rel=1e-14, abs=1e-14)
        assert short[..., 0] == pytest.approx(full[..., 0], rel=1e-14, abs=1e-12)
        assert np.abs(full[..., 1:]).max() > 0.0


def test_jacobians_when_friction_is_below_the_velocity_tolerance():
    # a sphere resting on a plane with a tangential slip far below the tolerance
    forces = [
        contact(
            "C",
            sphere("a", [0, 0, 0.45], 0.5),
            plane("ground", [0, 0, 0], [0, 0, 1]),
            restitution=0.8,
            friction={"mu": 0.5, "velocity_tolerance": 10.0},
        )
    ]
    system = build(forces)
    q, qd = system.q0.copy(), np.zeros(system.n)
    q[2] -= 0.06
    qd[:3] = [0.3, -0.2, -0.5]
    qd[3:7] = [0.0, 0.1, 0.2, -0.1]
    kq, kqd = jacobians(system, q, qd)
    fq, fqd = fd_jacobians(system, q, qd)
    assert relative_error(kq, fq) < TOL
    assert relative_error(kqd, fqd) < TOL


def test_no_load_and_no_jacobian_out_of_contact():
    system = build(CONTACTS)
    q = system.q0.copy()
    q[system.slots["a"].offset + 2] += 5.0  # lift a far away
    q[system.slots["m"].offset + 2] += 9.0
    qd = np.ones(system.n)
    assert not np.any(applied(system, q, qd))
    kq, kqd = jacobians(system, q, qd)
    assert abs(kq).max() == 0 and abs(kqd).max() == 0


# ---- energy, power, balance ---------------------------------------------------------------
def test_elastic_force_is_minus_gradient_of_contact_energy():
    forces = [dict(c, model="hertz", restitution=1.0) for c in CONTACTS]
    for c in forces:
        c.pop("friction", None)
    system = build(forces)
    q, qd = penetrating_state(system)

    def energy(qq):
        return system.elastic_energy(qq)

    grad = np.array([(energy(q + H * e) - energy(q - H * e)) / (2 * H) for e in np.eye(system.n)])
    force = applied(system, q, qd)
    assert relative_error(force, -grad) < 1e-7


def test_contact_energy_value():
    forces = [contact("C", sphere("a", [0, 0, 0.45], 0.5), plane("ground", [0, 0, 0], [0, 0, 1]))]
    system = build(forces, gravity=(0, 0, 0))
    q = system.q0.copy()
    q[2] = 0.49  # δ = 0.01
    assert system.elastic_energy(q) == pytest.approx(1e5 * 0.01**2.5 / 2.5, rel=1e-12)


def test_power_is_the_power_of_the_non_conservative_part():
    system = build(CONTACTS)
    q, qd = penetrating_state(system, seed=4)
    ms = system.marker_state(q, qd)

    def energy(qq):
        return system.elastic_energy(qq)

    grad = np.array([(energy(q + H * e) - energy(q - H * e)) / (2 * H) for e in np.eye(system.n)])
    power = system.force_set.contact_power(ms)
    assert power < 0.0  # damping and friction only dissipate
    assert power == pytest.approx(applied(system, q, qd) @ qd + grad @ qd, rel=1e-7)


def test_action_and_reaction_exert_no_net_force_or_moment():
    """Between rigid bodies (a point mass takes the friction force at its centre: it has
    no rotation to take the moment; a plane on a point mass keeps its orientation)."""
    forces = [
        CONTACTS[0],
        contact(
            "C6",
            sphere("a", [0, 0, 0.45], 0.5),
            sphere("b", [0.2, 0.1, -0.3], 0.3),
            restitution=0.7,
            friction=ROUGH,
        ),
    ]
    system = build(forces, gravity=(0, 0, 0))
    q, qd = penetrating_state(system, seed=2)
    for s in system.slots.values():  # unit quaternions: orthonormal body axes
        if s.kind == "rigid":
            q[s.offset + 3 : s.offset + 7] /= np.linalg.norm(q[s.offset + 3 : s.offset + 7])
    force = applied(system, q, qd)
    assert np.abs(force).max() > 10.0
    for omega in np.eye(3):  # a rigid rotation of everything about the origin
        dq = np.zeros(system.n)
        for s in system.slots.values():
            dq[s.offset : s.offset + 3] = np.cross(omega, q[s.offset : s.offset + 3])
            if s.kind == "rigid":
                p = q[s.offset + 3 : s.offset + 7]
                dq[s.offset + 3 : s.offset + 7] = 0.5 * e_matrix(p[None])[0].T @ omega
        assert abs(force @ dq) < 1e-9 * np.abs(force).max()
    for v in np.eye(3):  # a translation
        dq = np.zeros(system.n)
        for s in system.slots.values():
            dq[s.offset : s.offset + 3] = v
        assert abs(force @ dq) < 1e-9 * np.abs(force).max()


# ---- the onset state ----------------------------------------------------------------------
def falling_ball(restitution=0.8, model="hunt_crossley", **extra):
    return {
        "biela": 1,
        "gravity": [0, 0, -9.81],
        "bodies": [{"name": "ball", "type": "point_mass", "mass": 1.0, "position": [0, 0, 0.2]}],
        "forces": [
            contact(
                "floor",
                sphere("ball", [0, 0, 0.2], 0.1),
                plane("ground", [0, 0, 0], [0, 0, 1]),
                model=model,
                restitution=restitution,
                stiffness=1e7,
            )
            | extra
        ],
        "solver": {"formulation": "lagrange_baumgarte", "dt": 1e-3, "t_end": 0.3},
    }


def test_force_is_continuous_when_the_onset_speed_is_committed():
    system = MultibodySystem(model_from_data(falling_ball()))
    q, qd = system.q0.copy(), np.zeros(3)
    q[2] = 0.1 - 1e-4
    qd[2] = -2.0
    before = applied(system, q, qd)
    onsets = system.force_set.accept(system.marker_state(q, qd), 0.1)
    after = applied(system, q, qd)
    assert [ev.name for ev in onsets] == ["floor"]
    assert after == pytest.approx(before, rel=1e-13)
    assert onsets[0].speed == pytest.approx(math.sqrt(4.0 + 2 * 1e7 * 1e-4**2.5 / 2.5), rel=1e-12)
    # later states of the same impact use the committed speed: the damping follows δ̇/δ̇⁻
    qd[2] = -1.0
    fz = applied(system, q, qd)[2]
    a = hunt_crossley_factor(0.8)
    assert fz == pytest.approx(1e7 * 1e-4**1.5 * (1 + a * 1.0 / onsets[0].speed), rel=1e-12)
    # release, then a slow new impact: the onset speed is floored
    system.force_set.accept(system.marker_state(system.q0, np.zeros(3)), 0.2)
    qd[2] = -1e-6
    q[2] = 0.1 - 1e-12
    ev = system.force_set.accept(system.marker_state(q, qd), 0.3)[0]
    assert ev.speed == MIN_IMPACT_SPEED
    # states at or before the last accepted time are ignored
    assert system.force_set.accept(system.marker_state(q, qd), 0.3) == []


def test_quiet_says_when_a_commit_changes_nothing_but_the_work_points():
    """Quiet: none touching, none committed, no contact power at the last three accepted
    states. An impact, its release and the damping work just after it are not quiet; free
    states after them are, and their commits keep the work."""
    system = MultibodySystem(model_from_data(falling_ball()))
    contacts = system.force_set.contacts
    q, qd = system.q0.copy(), np.zeros(3)
    assert contacts.quiet()  # (nothing accepted yet)
    q_in, qd_in = q.copy(), qd.copy()
    q_in[2], qd_in[2] = 0.1 - 1e-4, -2.0
    events = [(0.0, q, qd), (0.1, q_in, qd_in)] + [(0.1 + 0.01 * i, q, qd) for i in range(1, 7)]
    quiet = []
    for t, qi, qdi in events:
        system.force_set.accept(system.marker_state(qi, qdi), t)
        quiet.append(contacts.quiet())
    # the impact, the release (the last three points hold its power), then quiet again
    assert quiet == [True, False, False, False, True, True, True, True]
    work = contacts.work(0.16)
    assert work < 0.0  # the impact's damping work, kept
    system.force_set.accept(system.marker_state(q, qd), 0.2)
    assert contacts._points[-1] == (0.2, 0.0, work) and contacts.work(0.3) == work
    assert contacts.quiet() and not contacts.active.any() and not contacts.onset.any()
    assert [r[0] for r in contacts.releases] == ["floor"] and len(contacts.onsets) == 1


def test_trial_states_do_not_change_the_committed_state():
    system = MultibodySystem(model_from_data(falling_ball()))
    q, qd = system.q0.copy(), np.zeros(3)
    q[2] = 0.1 - 1e-3
    qd[2] = -2.0
    contacts = system.force_set.contacts
    for _ in range(3):
        applied(system, q, qd)
        system.force_jacobians(q, qd, 0.0)
    assert not contacts.active.any()
    assert not contacts.onset.any()


def test_one_bounce_restitution_and_energy_balance():
    sim = Simulation(m := model_from_data(falling_ball()), settings_with(m))
    frames = list(sim)
    onsets = sim.system.force_set.contacts.onsets
    assert len(onsets) == 1
    v_in = onsets[0].speed
    assert v_in == pytest.approx(math.sqrt(2 * 9.81 * 0.1), rel=1e-4)
    apex = max(f.q[2] for f in frames if f.t > onsets[0].t)
    v_out = math.sqrt(2 * 9.81 * (apex - 0.1))  # the exit speed at δ = 0
    total = sim.result.column("energy.total")
    work = sim.result.column("energy.work")
    # gravity acts during the ~5 ms contact (g t_c / v ≈ 3 %)
    assert v_out / v_in == pytest.approx(0.8, rel=0.01)
    assert work[-1] == pytest.approx(-0.5 * (v_in**2 - (0.8 * v_in) ** 2), rel=0.03)
    assert np.abs(total - total[0]).max() < 5e-5 * abs(total[0])
    assert abs(total[-1] - total[0]) < 5e-6 * abs(total[0])


# ---- friction ------------------------------------------------------------------------------
def test_sliding_ball_ends_up_rolling_at_five_sevenths():
    """A solid ball launched sliding without spin: friction at the contact point spins it
    up until it rolls, v = 5/7 v0 (J = 2/5 m R²), independent of μ. (It starts at its
    static penetration; rolling is kept short: the regularised friction makes it stiff.)"""
    r, m, v0 = 0.1, 2.0, 1.0
    z0 = r - (m * 9.81 / 1e6) ** (1 / 1.5)
    data = {
        "biela": 1,
        "gravity": [0, 0, -9.81],
        "bodies": [
            {
                "name": "ball",
                "mass": m,
                "inertia": [0.4 * m * r * r] * 3,
                "position": [0, 0, z0],
                "velocity": [v0, 0, 0],
            }
        ],
        "forces": [
            contact(
                "floor",
                sphere("ball", [0, 0, z0], r),
                plane("ground", [0, 0, 0], [0, 0, 1]),
                model="hunt_crossley",
                restitution=0.5,
                stiffness=1e6,
                friction={"mu": 0.3, "velocity_tolerance": 1e-2},
            )
        ],
        "solver": {"formulation": "lagrange_baumgarte", "dt": 0.005, "t_end": 0.15},
    }
    sim = Simulation(model := model_from_data(data), settings_with(model))
    frames = list(sim)
    state = sim.system.body_state(frames[-1].q, frames[-1].qd)["ball"]
    vx, wy = state[7], state[11]
    assert vx == pytest.approx(5 / 7 * v0, rel=2e-3)
    assert wy * r == pytest.approx(vx, rel=2e-3)  # rolling: ω R = v
    total = sim.result.column("energy.total")
    assert np.abs(total - total[0]).max() < 1e-4 * abs(total[0])
    # sliding lasts 2 v0/(7 μ g) = 0.0971 s
    t = sim.result.column("t")
    slip = np.abs(sim.result.column("ball.vx") - r * sim.result.column("ball.wy"))
    assert t[np.argmax(slip < 1e-3)] == pytest.approx(2 * v0 / (7 * 0.3 * 9.81), abs=0.012)


def test_oblique_impact_on_a_free_tumbling_plate_conserves_momenta():
    """No gravity: a spinning ball hits, off-centre and obliquely, a plane carried by a
    free tumbling plate, with damping and friction. The contact is internal: linear and
    angular momentum are conserved; the energy balances with the contact work."""
    inertia_b = [[0.3, 0.02, 0.0], [0.02, 0.5, 0.01], [0.0, 0.01, 0.7]]
    data = {
        "biela": 1,
        "gravity": [0, 0, 0],
        "bodies": [
            {
                "name": "ball",
                "mass": 1.0,
                "inertia": [0.004] * 3,
                "position": [0.2, 0.1, 0.3],
                "velocity": [-0.3, 0.2, -2.0],
                "angular_velocity": [1.0, -3.0, 2.0],
            },
            {
                "name": "plate",
                "mass": 3.0,
                "inertia": inertia_b,
                "position": [0, 0, 0],
                "orientation": {"axis": [1, 0.5, 0], "angle": 0.2},
                "angular_velocity": [0.5, 0.2, -0.4],
            },
        ],
        "forces": [
            contact(
                "hit",
                sphere("ball", [0.2, 0.1, 0.3], 0.1),
                plane("plate", [0, 0, 0.05], [0.1, -0.2, 1]),
                restitution=0.7,
                stiffness=1e7,
                friction={"mu": 0.4, "velocity_tolerance": 0.05},
            )
        ],
        "solver": {"formulation": "lagrange_baumgarte", "dt": 0.002, "t_end": 0.16},
    }
    sim = Simulation(model := model_from_data(data), settings_with(model))
    frames = list(sim)
    system = sim.system
    assert [ev.name for ev in system.force_set.contacts.onsets] == ["hit"]
    assert system.force_set.contacts.releases  # and it separated again

    def momenta(frame):
        p, h = np.zeros(3), np.zeros(3)
        for body in model.bodies:
            s = system.body_state(frame.q, frame.qd)[body.name]
            rot = system.rotation(frame.q, body.name)
            inertia = (
                rot @ np.diag(body.inertia) @ rot.T
                if np.ndim(body.inertia) == 1
                else (rot @ np.asarray(body.inertia) @ rot.T)
            )
            p += body.mass * s[7:10]
            h += np.cross(s[:3], body.mass * s[7:10]) + inertia @ s[10:13]
        return p, h

    p0, h0 = momenta(frames[0])
    p1, h1 = momenta(frames[-1])
    assert p1 == pytest.approx(p0, abs=1e-7)
    assert h1 == pytest.approx(h0, abs=1e-7)
    spin0 = system.body_state(frames[0].q, frames[0].qd)["ball"][10:13]
    spin1 = system.body_state(frames[-1].q, frames[-1].qd)["ball"][10:13]
    assert np.linalg.norm(spin1 - spin0) > 0.5  # friction changed the ball's spin
    total = sim.result.column("energy.total")
    assert frames[-1].work < -0.1
    assert np.abs(total - total[0]).max() < 5e-5 * abs(total[0])


# ---- step control ------------------------------------------------------------------------
def test_too_large_a_step_is_refused_naming_the_contact():
    data = falling_ball()
    data["solver"] |= {"formulation": "central_differences", "dt": 1e-3, "t_end": 0.3}
    sim = Simulation(model := model_from_data(data), settings_with(model))
    with pytest.raises(SimulationError) as info:
        list(sim._steps())
    text = str(info.value)
    assert 'contact "floor"' in text and "largest stable step" in text
    assert info.value.t == pytest.approx(0.143, abs=2e-3)  # the impact


def test_check_step_passes_a_small_enough_step():
    system = MultibodySystem(model_from_data(falling_ball()))
    q, qd = system.q0.copy(), np.zeros(3)
    q[2] = 0.1 - 1e-9
    qd[2] = -1.4
    onsets = system.force_set.accept(system.marker_state(q, qd), 0.0)
    h = onsets[0].max_step
    # the linearised frequency at the expected penetration: ½ m v² = K δ^2.5/2.5
    depth = (2.5 * 0.5 * 1.4**2 / 1e7) ** 0.4
    assert onsets[0].penetration == pytest.approx(depth, rel=1e-6)
    assert onsets[0].omega == pytest.approx(math.sqrt(1.5e7 * depth**0.5), rel=1e-6)
    check_step(onsets, 0.99 * h, "penalty")
    with pytest.raises(SimulationError):
        check_step(onsets, 1.01 * h, "penalty")


# ---- model errors --------------------------------------------------------------------------
def write(tmp_path, data) -> Path:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda f: f["sphere"].update(radius=0.0), "radius"),
        (lambda f: f["plane"].update(normal=[0, 0, 0]), "normal"),
        (lambda f: f.update(stiffness=-1e7), "stiffness"),
        (lambda f: f.update(stiffness=0.0), "stiffness"),
        (lambda f: f.update(model="hertz"), "restitution"),
    ],
    ids=["zero radius", "zero normal", "negative stiffness", "zero stiffness", "hertz damping"],
)
def test_invalid_contact_exits_1_naming_the_contact(tmp_path, capsys, change, field):
    data = falling_ball()
    change(data["forces"][0])
    code = main(["run", str(write(tmp_path, data))])
    err = capsys.readouterr().err
    assert code == 1, err
    assert 'forces[0] "floor"' in err
    assert field in err


def test_invalid_contact_from_the_command_line(tmp_path, capsys):
    data = falling_ball()
    data["forces"][0]["sphere"]["radius"] = 0
    assert main(["run", str(write(tmp_path, data))]) == 1
    err = capsys.readouterr().err
    assert 'forces[0] "floor": sphere.radius must be positive' in err
    assert "Traceback" not in err


def test_sphere_on_a_point_mass_must_be_centred_on_it():
    data = falling_ball()
    data["forces"][0]["sphere"]["center"] = [0, 0, 0.3]
    with pytest.raises(ModelError) as info:
        MultibodySystem(model_from_data(data))
    assert 'forces[0] "floor"' in str(info.value)
    assert info.value.field == "sphere.center"
