"""Rolling without slip in the fixed-step formulations: central differences (the no-slip
rows with the central-difference velocity, stacked into the double null space), the
null-space Newmark and R-matrix methods (the dynamics projected on the null space of
[Φ_q; B], the no-slip rows on the integrator's velocities) and the penalty formulation
(a massive damper on the slip velocity).

References: the adaptive index-1 integration (``lagrange_baumgarte``, tolerances 1e-9), a
rolling coin's steady circular motion derived here by hand, and energy conservation (the
no-slip forces do no work).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import simulate
from solver.mechanics.rotations import e_matrix
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from tests.solver.test_rolling import disc_model

MASS, RADIUS, AXIAL, DIAMETRAL = 2.0, 0.5, 0.25, 0.125  # thin uniform disc (kg, m, kg·m²)
G = 9.81

#: (formulation, parameters) of every fixed-step formulation
FIXED_STEP = {
    "central_differences": ("central_differences", {}),
    "cd_reformulated": ("central_differences", {"variant": "reformulated"}),
    "cd_family_rodrigues": (
        "central_differences",
        {"variant": "family", "orientation": "rodrigues"},
    ),
    "null_space": ("null_space", {}),
    "r_matrix": ("null_space", {"method": "r_matrix"}),
    "penalty": ("penalty", {}),
}


def run(model: dict, which: str, dt: float, t_end: float):
    """The run's result and its largest no-slip residual ``max |B q̇|`` over the frames."""
    formulation, params = FIXED_STEP[which]
    m = model_from_data(model)
    params = dict(params)
    m.solver.orientation = params.pop("orientation", "euler_parameters")
    m.solver.parameters.update(params)
    system = MultibodySystem(m)
    sim = simulate(m, formulation=formulation, dt=dt, t_end=t_end, stream=True)
    slip = 0.0
    for frame in sim:
        b, _ = system.velocity_constraints(frame.q, frame.qd, frame.t)
        slip = max(slip, float(np.abs(b @ frame.qd).max()))
    result = sim.result
    assert result.status == "ok", result.message
    return result, slip


def steady_circle(lean: float, radius: float) -> tuple[float, float]:
    """A thin disc rolling without slip with its centre on a horizontal circle of radius
    ``radius`` (m), leaning towards the circle's centre by ``lean`` (rad from the vertical):
    the precession rate Ω (rad/s, about the vertical) and the spin ψ̇ (rad/s, about the
    axle pointing away from the centre).

    With w the unit vector from the contact point to the disc centre and a the axle,
    ω = Ω e_z + ψ̇ a; no slip at the contact gives ψ̇ = −Ω ρ/R (ρ = radius + R sin lean,
    the contact's circle); the contact force is (−mΩ² radius, 0, mg) and the angular
    momentum about the centre H = C(Ω sin lean + ψ̇) a + A Ω cos lean w turns with Ω, so
    Ω e_z × H = −R w × F gives Ω² = m g R sin lean / (cos lean (C radius/R + A sin lean
    + m R radius)).
    """
    s, c = math.sin(lean), math.cos(lean)
    omega = math.sqrt(
        MASS
        * G
        * RADIUS
        * s
        / (c * (AXIAL * radius / RADIUS + DIAMETRAL * s + MASS * RADIUS * radius))
    )
    return omega, -omega * (radius + RADIUS * s) / RADIUS


def circle_model(lean: float, radius: float) -> dict:
    """The disc of ``steady_circle`` at the start of its circle: centre at (radius, 0,
    R cos lean), moving along +y, the circle's centre at the origin."""
    omega, spin = steady_circle(lean, radius)
    s, c = math.sin(lean), math.cos(lean)
    axle = [c, 0.0, s]  # body y, pointing away from the centre and up
    centre = [radius, 0.0, RADIUS * c]
    model = disc_model("none")
    body = model["bodies"][0]
    body.update(
        position=centre,
        orientation={"axis": [s, 0.0, -c], "angle": math.pi / 2},  # body y → axle
        velocity=[0.0, omega * radius, 0.0],
        angular_velocity=[spin * axle[0], 0.0, omega + spin * axle[2]],
        mass=MASS,
        inertia=[DIAMETRAL, AXIAL, DIAMETRAL],
    )
    joint = model["joints"][0]
    joint.update(point=centre, axis=axle, radius=RADIUS)
    return model


def test_the_steady_circle_holds_with_the_adaptive_reference():
    """The hand derivation against the index-1 equations of motion: the accelerations of
    the circle's initial state are the centripetal ones (−Ω² radius towards the centre)
    and the angular acceleration is Ω e_z × ω (the axle turning with the precession)."""
    from solver.analysis.kinematics import accelerations

    lean, radius = 0.3, 0.8
    omega, spin = steady_circle(lean, radius)
    system = MultibodySystem(model_from_data(circle_model(lean, radius)))
    q, qd = system.q0, system.qd0
    b, _ = system.velocity_constraints(q, qd)
    assert np.abs(b @ qd).max() < 1e-12  # the initial state rolls without slip
    qdd, _ = accelerations(system, q, qd)
    assert qdd[:3] == pytest.approx([-(omega**2) * radius, 0.0, 0.0], abs=1e-12)
    # the axle turns with the precession: ω̇ = Ω e_z × ω (global)
    w = np.array([spin * math.cos(lean), 0.0, omega + spin * math.sin(lean)])  # Ω e_z + ψ̇ a
    assert 2.0 * e_matrix(q[3:7]) @ qdd[3:7] == pytest.approx(
        np.cross([0.0, 0.0, omega], w), abs=1e-12
    )


def body_rows(result, name: str = "disc") -> np.ndarray:
    """The centre of ``name`` at every frame, (k, 3)."""
    return np.column_stack([result.column(f"{name}.{k}") for k in "xyz"])


@pytest.mark.parametrize("which", list(FIXED_STEP))
def test_steady_circle_is_followed_to_second_order(which):
    """The rolling coin of ``steady_circle`` (lean 0.3 rad, centre circle 0.8 m) over a
    quarter of its period: the centre stays on the analytic circle, at the analytic angle,
    with an error that falls 4× when Δt halves (second order), and the energy is kept."""
    lean, radius = 0.3, 0.8
    omega, _ = steady_circle(lean, radius)
    t_end = round(0.5 * math.pi / omega, 2)
    errors = []
    for dt in (0.01, 0.005):
        result, slip = run(circle_model(lean, radius), which, dt, t_end)
        assert slip < (1e-4 if which == "penalty" else 1e-9), slip
        t = result.t
        exact = np.column_stack(
            [
                radius * np.cos(omega * t),
                radius * np.sin(omega * t),
                np.full_like(t, RADIUS * math.cos(lean)),
            ]
        )
        errors.append(float(np.abs(body_rows(result) - exact).max()))
        energy = result.column("energy.total")
        assert np.abs(energy - energy[0]).max() < 1e-4 * energy[0]
    assert errors[0] < 2e-4
    assert 3.0 < errors[0] / errors[1] < 5.0, errors


@pytest.mark.parametrize("which", list(FIXED_STEP))
def test_tilted_disc_agrees_with_the_adaptive_reference(which):
    """The tilted disc of ``test_rolling`` (it turns): the same path as the adaptive
    index-1 reference with an O(Δt²) error, energy kept (no slip does no work) and the
    no-slip rows held."""
    model = disc_model("none", v=3.0, tilt=0.15)
    ref = simulate(model_from_data(model), t_end=0.3, dt=0.01)
    assert ref.status == "ok", ref.message
    errors = []
    for dt in (0.01, 0.005):
        result, slip = run(model, which, dt, 0.3)
        errors.append(float(np.abs(body_rows(result)[-1] - body_rows(ref)[-1]).max()))
        energy = result.column("energy.total")
        assert np.abs(energy - energy[0]).max() < 1e-4 * result.column("energy.kinetic")[0]
        assert slip < (1e-4 if which == "penalty" else 1e-9), slip
    assert errors[0] < 2e-4
    assert 3.0 < errors[0] / errors[1] < 5.0, errors
    assert abs(ref.column("disc.y")[-1]) > 0.01  # it turned
