"""The benchmark bicycle (Whipple model) of Meijaard, Papadopoulos, Ruina and Schwab (2007):
the linearised stability of its upright steady motion against the paper's Table 2, and
the nonlinear manoeuvres of Urkullu (2019, §8.12) with central differences.

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

from solver import load_model
from solver.analysis.steady_modes import steady_motion_modes
from solver.generators.bicycle import bicycle_model
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
