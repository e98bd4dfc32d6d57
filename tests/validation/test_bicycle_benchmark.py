"""The benchmark bicycle (Whipple model) of Meijaard, Papadopoulos, Ruina and Schwab (2007):
the linearised stability of its upright steady motion against the paper's Table 2, and
the nonlinear manoeuvres of Urkullu (2019) §8.12 with central differences.

The model is ``examples/bicycle_benchmark.json`` (``solver.generators.bicycle``): four rigid
bodies in the paper's axes, two revolute hubs and a revolute steer axis, two knife-edge
wheels rolling without slip (``rolling_disk``, ``slip: none``). Nothing of the paper's
linearised equations is used: the eigenvalues come from ``steady_motion_modes``, the
linearisation of the full 3-D equations with their no-slip rows about the steady motion.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from solver import load_model, simulate
from solver.analysis.steady_modes import steady_motion_modes
from solver.generators.bicycle import (
    MANOEUVRES,
    bicycle_model,
    energy_criterion,
    roll_and_steer,
)
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bicycle_benchmark.json"

# Meijaard et al. (2007), Table 2: the eigenvalues (1/s) of the upright steady motion at
# v = 0, 1, …, 10 m/s, as printed (weave pair re ± i im, capsize, castor; at v = 0 the four
# real roots ±3.1316…, ±5.5309…).
TABLE_2 = {
    0: (3.13164324790656, -3.13164324790656, 5.53094371765393, -5.53094371765393),
    1: (3.52696170990070 + 0.80774027519930j, -3.13423125066578, -7.11008014637442),
    2: (2.68234517512745 + 1.68066296590675j, -3.07158645641514, -8.67387984831735),
    3: (1.70675605663975 + 2.31582447384325j, -2.63366137253667, -10.35101467245920),
    4: (0.41325331521125 + 3.07910818603206j, -1.42944427361326, -12.15861426576450),
    5: (-0.77534188219585 + 4.46486771378823j, -0.32286642900409, -14.07838969279820),
    6: (-1.52644486584142 + 5.87673060598709j, -0.00406690076970, -16.08537123098030),
    7: (-2.13875644258362 + 7.19525913329805j, 0.10268170574766, -18.15788466125262),
    8: (-2.69348683581097 + 8.46037971396931j, 0.14327879765713, -20.27940894394569),
    9: (-3.21675402252485 + 9.69377351531791j, 0.15790184030917, -22.43788559040858),
    10: (-3.72016840437287 + 10.90681139476287j, 0.16105338653172, -24.62459635017404),
}
#: Table 2's characteristic speeds (m/s): weave (the weave pair's real part crosses zero,
#: at ± 3.43503384866144i) and capsize (the capsize root crosses zero).
WEAVE_SPEED = 4.29238253634111
WEAVE_FREQUENCY = 3.43503384866144  # rad/s
CAPSIZE_SPEED = 6.02426201538837

#: tolerances of the acceptance: eigenvalues relative, speeds absolute (m/s)
EIGENVALUE_TOLERANCE = 1e-5
SPEED_TOLERANCE = 1e-4


def published(v: int) -> np.ndarray:
    """Table 2's four eigenvalues at speed ``v`` (the weave pair completed)."""
    row = TABLE_2[v]
    if v == 0:
        return np.array(row, complex)
    return np.array([row[0], np.conj(row[0]), row[1], row[2]], complex)


def modes(speed: float):
    """The steady-motion modes of the bicycle running upright at ``speed`` (m/s)."""
    system = MultibodySystem(model_from_data(bicycle_model(speed=speed, roll_rate=0.0)))
    return steady_motion_modes(system)


def matched(computed: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``computed`` reordered to pair each reference eigenvalue with its nearest."""
    left = list(computed)
    out = []
    for s in reference:
        k = int(np.argmin([abs(c - s) for c in left]))
        out.append(left.pop(k))
    return np.array(out)


def weave_real(speed: float) -> float:
    values = modes(speed).eigenvalues
    return float(values[np.abs(values.imag) > 1e-6].real.max())


def capsize(speed: float) -> float:
    values = modes(speed).eigenvalues
    real = values[np.abs(values.imag) <= 1e-6].real
    return float(real.max())  # the castor root is far below


def test_eigenvalues_match_table_2():
    """At every tabulated speed: four modes (the position along the road, the heading,
    the wheels' angles and the forward speed are neutral and left out), each within
    1e-5 relative of the printed value."""
    worst = 0.0
    for v in TABLE_2:
        result = modes(float(v))
        assert len(result.eigenvalues) == 4, (v, result.eigenvalues)
        assert result.position_dof == 7 and result.velocity_dof == 3
        reference = published(v)
        got = matched(result.eigenvalues, reference)
        worst = max(worst, float(np.max(np.abs(got - reference) / np.abs(reference))))
        assert result.stable == (WEAVE_SPEED < v < CAPSIZE_SPEED)
    assert worst < EIGENVALUE_TOLERANCE, worst


def test_weave_and_capsize_speeds():
    """The stable speed range: the weave pair's real part and the capsize root cross zero
    at Table 2's speeds (within 1e-4 m/s), the weave at Table 2's frequency."""
    weave = brentq(weave_real, 4.0, 4.6, xtol=1e-7)
    cap = brentq(capsize, 5.8, 6.3, xtol=1e-7)
    assert weave == pytest.approx(WEAVE_SPEED, abs=SPEED_TOLERANCE)
    assert cap == pytest.approx(CAPSIZE_SPEED, abs=SPEED_TOLERANCE)
    values = modes(weave).eigenvalues
    assert np.abs(values.imag).max() == pytest.approx(WEAVE_FREQUENCY, rel=1e-5)


def test_example_carries_table_1():
    """The example's data against the paper's Table 1 (z down): wheel centres at their
    radii above the contacts 1.02 m apart, centres of mass, inertias, and the steer axis
    tilted back by π/10 from the vertical, meeting the ground 0.08 m (the trail) ahead of
    the front contact."""
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    bodies = {b["name"]: b for b in data["bodies"]}
    joints = {j["name"]: j for j in data["joints"]}
    assert data["gravity"] == [0.0, 0.0, 9.81]
    assert bodies["rear_wheel"]["position"] == [0.0, 0.0, -0.3]
    assert bodies["front_wheel"]["position"] == [1.02, 0.0, -0.35]
    assert bodies["rear_frame"]["position"] == [0.3, 0.0, -0.9]
    assert bodies["front_frame"]["position"] == [0.9, 0.0, -0.7]
    masses = {name: b["mass"] for name, b in bodies.items()}
    assert masses == {"rear_wheel": 2.0, "rear_frame": 85.0, "front_frame": 4.0, "front_wheel": 3.0}
    assert bodies["rear_wheel"]["inertia"] == [0.0603, 0.12, 0.0603]
    assert bodies["front_wheel"]["inertia"] == [0.1405, 0.28, 0.1405]
    assert bodies["rear_frame"]["inertia"] == [[9.2, 0.0, 2.4], [0.0, 11.0, 0.0], [2.4, 0.0, 2.8]]
    assert bodies["front_frame"]["inertia"] == [
        [0.05892, 0.0, -0.00756],
        [0.0, 0.06, 0.0],
        [-0.00756, 0.0, 0.00708],
    ]
    steer = joints["steer"]
    axis, point = np.array(steer["axis"]), np.array(steer["point"])
    assert np.arccos(abs(axis[2]) / np.linalg.norm(axis)) == pytest.approx(np.pi / 10, abs=1e-12)
    assert axis[0] < 0 and axis[2] < 0  # up and back
    ground = point - point[2] / axis[2] * axis  # where the axis meets z = 0
    assert ground == pytest.approx([1.02 + 0.08, 0.0, 0.0], abs=1e-12)
    for name in ("rear_contact", "front_contact"):
        assert joints[name]["type"] == "rolling_disk" and joints[name]["slip"] == "none"
    assert joints["rear_contact"]["radius"] == 0.3 and joints["front_contact"]["radius"] == 0.35


def test_example_is_the_generated_model():
    """``examples/bicycle_benchmark.json`` is manoeuvre 2 as the generator writes it."""
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(bicycle_model()))
    model = load_model(EXAMPLE)
    assert [b.name for b in model.bodies] == [
        "rear_wheel",
        "rear_frame",
        "front_frame",
        "front_wheel",
    ]


# ---------------------------------------------------------------------------------------
# The nonlinear manoeuvres (Urkullu (2019) §8.12) with central differences (DIMCD)
# ---------------------------------------------------------------------------------------
#: Urkullu (2019) §8.12: the energy criterion e of manoeuvre 2 with DIMCD at each Δt (s),
#: and the benchmark's requirement e < 1e-3 (percent of E₀)
DIMCD_ENERGY_CRITERION = {0.025: 4.6e-3, 0.01: 6.9e-4, 0.005: 1.6e-4, 0.001: 6.2e-6}
ENERGY_REQUIREMENT = 1e-3
#: what we measure is 0.72-0.85 of DIMCD's (e at 25/10/5/1 ms: 3.3e-3, 5.3e-4, 1.3e-4,
#: 5.3e-6), the same second-order decrease. The thesis's rolling pair is a massless
#: contact body joined to the wheel, ours the wheel's contact-point no-slip rows: the same
#: velocity constraint written on different coordinates, so its central-difference
#: discretisation, and the energy error it leaves, differ by a factor of order one.
DIMCD_RATIO = (0.6, 1.0)


def manoeuvre(number: int, dt: float, t_end: float = 20.0, formulation="central_differences"):
    speed, roll_rate = MANOEUVRES[number]
    model = model_from_data(
        bicycle_model(speed, roll_rate, dt=dt, t_end=t_end, formulation=formulation)
    )
    model.solver.output_dt = dt  # the energy's extremes at every step
    result = simulate(model)
    assert result.status == "ok", result.message
    return result


def test_roll_and_steer_angles_read_back():
    """``roll_and_steer`` on poses built here: the rear frame rolled by φ about x, the
    front frame turned by δ about the steer axis (pointing down) relative to it."""
    from types import SimpleNamespace

    from scipy.spatial.transform import Rotation

    down = np.array([np.sin(np.pi / 10), 0.0, np.cos(np.pi / 10)])
    columns = {}
    rolls, steers = np.array([0.0, 0.2, -0.4]), np.array([0.0, -0.3, 0.5])
    # heading 0.7 rad first (about z), then the roll about the frame's x
    rear = Rotation.from_rotvec([[0.0, 0.0, 0.7]] * 3) * Rotation.from_rotvec(
        np.outer(rolls, [1.0, 0.0, 0.0])
    )
    front = rear * Rotation.from_rotvec(np.outer(steers, down))
    for name, rot in (("rear_frame", rear), ("front_frame", front)):
        xyzw = rot.as_quat()
        for k, col in enumerate((3, 0, 1, 2)):
            columns[f"{name}.e{k}"] = xyzw[:, col]
    roll, steer = roll_and_steer(SimpleNamespace(column=columns.__getitem__))
    assert roll == pytest.approx(rolls, abs=1e-12)
    assert steer == pytest.approx(steers, abs=1e-12)


def test_manoeuvre_2_meets_the_energy_criterion_at_10_ms():
    """Manoeuvre 2 (4.6 m/s, inside the stable range; roll rate 0.5 rad/s) over 20 s at
    Δt = 10 ms: e below the benchmark's 1e-3 and close to DIMCD's 6.9e-4, positions on the
    constraints (the thesis: 4e-12), and the roll and steer oscillation dies out."""
    result = manoeuvre(2, 0.01)
    e = energy_criterion(result)
    assert e < ENERGY_REQUIREMENT
    low, high = DIMCD_RATIO
    assert low < e / DIMCD_ENERGY_CRITERION[0.01] < high, e
    assert result.column("constraint.position").max() < 1e-10
    roll, steer = roll_and_steer(result)
    late = result.t >= 15.0
    assert np.abs(roll).max() > 0.05  # it was perturbed
    assert np.abs(roll[late]).max() < 0.01 * np.abs(roll).max()
    assert np.abs(steer[late]).max() < 0.01 * np.abs(steer).max()


def test_manoeuvre_3_capsizes_at_the_linear_rate():
    """Manoeuvre 3 (8 m/s, above the capsize speed): the roll angle grows without
    oscillating, at the rate of Table 2's capsize eigenvalue at 8 m/s (the nonlinear run
    and the linearisation agree while the roll is small: 3-10 s, roll below 0.015 rad,
    the speed still within 0.04 m/s of 8)."""
    result = manoeuvre(3, 0.01, t_end=10.0)
    roll, _ = roll_and_steer(result)
    window = (result.t >= 3.0) & (result.t <= 10.0)
    assert np.all(roll[window] > 0) and np.all(np.diff(roll[window]) > 0)
    rate = np.polyfit(result.t[window], np.log(roll[window]), 1)[0]
    assert rate == pytest.approx(TABLE_2[8][1], rel=0.02), rate


@pytest.mark.slow
def test_manoeuvre_2_energy_criterion_falls_at_second_order():
    """Manoeuvre 2 at Δt = 25, 10 and 5 ms: e within the same band of DIMCD's 4.6e-3,
    6.9e-4 and 1.6e-4, falling as Δt² (÷6.25 from 25 to 10 ms, as the thesis notes, ÷4
    from 10 to 5 ms); only 25 ms misses the requirement."""
    low, high = DIMCD_RATIO
    e = {}
    for dt in (0.025, 0.01, 0.005):
        e[dt] = energy_criterion(manoeuvre(2, dt))
        assert low < e[dt] / DIMCD_ENERGY_CRITERION[dt] < high, (dt, e[dt])
        assert (e[dt] < ENERGY_REQUIREMENT) == (dt < 0.02)
    assert 6.25 * 0.8 < e[0.025] / e[0.01] < 6.25 * 1.2, e
    assert 4.0 * 0.8 < e[0.01] / e[0.005] < 4.0 * 1.2, e


@pytest.mark.slow
def test_manoeuvre_2_energy_criterion_at_1_ms():
    """Manoeuvre 2 at Δt = 1 ms (20 000 steps): DIMCD's 6.2e-6."""
    e = energy_criterion(manoeuvre(2, 0.001))
    low, high = DIMCD_RATIO
    assert low < e / DIMCD_ENERGY_CRITERION[0.001] < high, e


@pytest.mark.slow
@pytest.mark.parametrize("number", [1, 3])
def test_unstable_manoeuvres_follow_the_adaptive_reference(number):
    """Manoeuvres 1 (4 m/s, below the weave speed) and 3 (8 m/s, above the capsize speed)
    over 20 s: roll and steer with central differences at 10 and 5 ms against the adaptive
    index-1 integration (relative tolerance 1e-9), the error falling as Δt², and both runs
    unstable: manoeuvre 1's weave oscillation grows (roll and steer amplitudes several times
    those of the first seconds), manoeuvre 3's roll creeps up (capsize) without oscillating."""
    reference = manoeuvre(number, 0.01, formulation="lagrange_baumgarte")
    ref = np.column_stack(roll_and_steer(reference))
    errors = []
    for dt in (0.01, 0.005):
        result = manoeuvre(number, dt)
        step = int(round(0.01 / dt))
        angles = np.column_stack(roll_and_steer(result))[::step]
        errors.append(float(np.abs(angles - ref).max()))
    scale = float(np.abs(ref).max())
    assert errors[0] < 0.02 * scale, errors
    assert 3.0 < errors[0] / errors[1] < 5.0, errors
    roll, steer = ref[:, 0], ref[:, 1]
    t = reference.t
    early, late = t <= 3.0, t >= 15.0
    if number == 1:  # the weave grows (measured: roll 0.038 → 0.187, steer 0.049 → 0.227 rad)
        assert np.abs(roll[late]).max() > 3 * np.abs(roll[early]).max()
        assert np.abs(steer[late]).max() > 3 * np.abs(steer[early]).max()
    else:  # the capsize creeps up (to 0.05 rad from 0.004 at 2 s)
        assert np.all(np.diff(roll[t >= 2.0]) > 0)
        assert roll[-1] > 5 * roll[early].max()
