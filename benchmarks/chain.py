"""A spatial chain of N rigid bars joined by spherical joints (the first to ground).

Shared by the assembly benchmark and, later, the dynamics benchmarks. Bars are 1 m long
along x, 1 kg, slender-rod inertia; the chain hangs horizontally at t = 0.
"""

from __future__ import annotations

from solver.model import Model, model_from_data


def chain_model(n: int, length: float = 1.0, mass: float = 1.0) -> Model:
    return model_from_data(chain_data(n, length, mass))


def chain_data(n: int, length: float = 1.0, mass: float = 1.0) -> dict:
    """The model file's content (a dict) of the N-bar chain."""
    bodies, joints = [], []
    side = mass * length**2 / 12.0
    for i in range(n):
        bodies.append(
            {
                "name": f"bar{i}",
                "mass": mass,
                "inertia": [1e-3 * side, side, side],
                "position": [(i + 0.5) * length, 0.0, 0.0],
            }
        )
        joints.append(
            {
                "name": f"S{i}",
                "type": "spherical",
                "body1": "ground" if i == 0 else f"bar{i - 1}",
                "body2": f"bar{i}",
                "point": [i * length, 0.0, 0.0],
            }
        )
    return {
        "biela": 1,
        "name": f"{n}-bar spherical chain",
        "gravity": [0, 0, -9.81],
        "bodies": bodies,
        "joints": joints,
    }
