"""Energy balance of a damped flexible beam under abrupt loads.

A clamped steel cantilever (``ancf_beam2d``, material damping) is hit at t = 0 by a tip
force and at t = 0.03 s by a uniform line load switched on within 0.1 ms. The loads excite
the beam's stiff modes, which ring with the period of a few steps under the trapezoidal rule
(``augmented_lagrangian``): the trapezoidal rule on the power Q·q̇ of the damping and of the
loads then misses their work by ~10⁻³ (undamped) to ~10⁻² (damped) of the elastic energy. ``energy.work`` integrates
``½ (Q_n + Q_n+1)·(q_n+1 − q_n)`` per step instead, the work the integrator itself does, so
``energy.total`` stays constant to ~10⁻⁶ of the elastic energy (the Newton tolerance and the
trapezoidal rule's error on the nonlinear elastic energy), with and without damping.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver import simulate
from solver.model import model_from_data


def cantilever(damping: float):
    step = {"table": [[0, 0], [0.03, 0], [0.0301, -50], [1, -50]], "interpolation": "linear"}
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, 0],
            "bodies": [
                {
                    "name": "b",
                    "type": "ancf_beam2d",
                    "points": [[0, 0, 0], [1, 0, 0]],
                    "elements": 4,
                    "material": {"E": 2e11, "nu": 0.3, "density": 7800, "damping": damping},
                    "section": {"shape": "rectangle", "width": 0.02, "height": 0.02},
                }
            ],
            "joints": [
                {"name": "C", "type": "fixed", "body1": "ground", "body2": "b", "point": [0, 0, 0]}
            ],
            "forces": [
                {
                    "name": "P",
                    "type": "force",
                    "body": "b",
                    "point": [1, 0, 0],
                    "vector": [0, -20, 0],
                },
                {"name": "q", "type": "distributed_load", "body": "b", "vector": [0, step, 0]},
            ],
            "solver": {"formulation": "augmented_lagrangian", "dt": 1e-3, "t_end": 0.1},
        }
    )


@pytest.mark.parametrize("damping", [2e-4, 0.0])
def test_damped_beam_with_abrupt_loads_balances_energy(damping):
    res = simulate(cantilever(damping))
    assert res.status == "ok"
    total = res.column("energy.total")
    elastic = res.column("energy.elastic")
    work = res.column("energy.work")
    assert work[-1] > 0.5 * elastic.max()  # the loads did work; damping took some back
    assert np.abs(total - total[0]).max() < 1e-5 * elastic.max()
