"""The exact motion of the IFToMM A02 double four-bar (``examples/double_four_bar.json``).

The mechanism moves as a parallelogram: the three cranks (pivots at x = 0, 1, 2; length
1 m, mass 1 kg, inertia 1/12 kg·m² about the centre) turn together through the angle φ
(from +x, counter-clockwise) and the two couplers (1 kg each) translate with the crank
tips. One degree of freedom:

    T = ½ (3 · 1/3 + 2 · 1) φ̇² = 3/2 φ̇²,   V = g (3 · ½ + 2) sin φ = 3.5 g sin φ,
    3 φ̈ = −3.5 g cos φ.

At t = 0, φ = π/2 and φ̇ = −1 rad/s (B0 moves at +1 m/s along x); the links are all
horizontal (the singular positions, DOF 1 → 3) whenever sin φ = 0. ``exact_phase``
integrates that one equation to rounding level (DOP853, rtol 1e-13); ``model_at_phase``
is the example started at another point of the same motion (energy 1.5 + 3.5 g J), to
probe a singular passage without integrating up to it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "double_four_bar.json"
G = 9.81
ENERGY = 1.5 + 3.5 * G  # J, with V = 0 at φ = 0


def _rhs(_t, y):
    return [y[1], -(3.5 * G / 3.0) * math.cos(y[0])]


def phase_rate(phi: float) -> float:
    """φ̇ (rad/s, negative: the example turns clockwise) at φ, from the energy."""
    return -math.sqrt((ENERGY - 3.5 * G * math.sin(phi)) / 1.5)


def exact_phase(times: np.ndarray, phi0: float = math.pi / 2) -> np.ndarray:
    """φ at ``times`` (s from the start) of the motion through ``phi0`` at t = 0."""
    times = np.asarray(times, float)
    sol = solve_ivp(
        _rhs,
        (0.0, float(times[-1])),
        [phi0, phase_rate(phi0)],
        method="DOP853",
        rtol=1e-13,
        atol=1e-13,
        t_eval=times,
    )
    return sol.y[0]


def tips(phi: np.ndarray) -> np.ndarray:
    """Exact B0 and B1 (crank tips) as rows ``[x0, y0, z0, x1, y1, z1]`` (m)."""
    c, s, z = np.cos(phi), np.sin(phi), np.zeros_like(phi)
    return np.column_stack([c, s, z, 1.0 + c, s, z])


def model_at_phase(phi: float, solver: dict | None = None) -> dict:
    """The example's model dict started at crank angle ``phi`` on the same motion (shapes
    dropped: they are only drawn)."""
    model = json.loads(EXAMPLE.read_text())
    c, s = math.cos(phi), math.sin(phi)
    rate = phase_rate(phi)
    half = 0.5 * (phi - 0.5 * math.pi)  # the cranks start along +y
    tip_velocity = [-rate * s, rate * c, 0.0]
    for body in model["bodies"]:
        body.pop("shapes", None)
        i = int(body["name"][-1]) - 1
        if body["name"].startswith("crank"):
            body["position"] = [i + 0.5 * c, 0.5 * s, 0.0]
            body["orientation"] = [math.cos(half), 0.0, 0.0, math.sin(half)]
            body["velocity"] = [0.5 * v for v in tip_velocity]
            body["angular_velocity"] = [0.0, 0.0, rate]
        else:  # coupler i + 1: from tip i to tip i + 1, translating
            body["position"] = [i + 0.5 + c, s, 0.0]
            body["velocity"] = tip_velocity
    for joint in model["joints"]:
        if joint["point"][1] != 0.0:  # at a crank tip
            joint["point"] = [joint["point"][0] + c, s, 0.0]
    for out in model["outputs"]:
        out["point"] = [out["point"][0] + c, s, 0.0]
    if solver:
        model["solver"].update(solver)
    return model
