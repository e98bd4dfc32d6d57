"""The belt element as a cantilever under a dead tip load, against the extensible elastica
whose bending and axial stiffnesses are scaled by the element's factors: EI α₂ and EA α₁
(García Vallejo (2006) §7.2: α₂ scales the bending part of the longitudinal strain, α₁ the axial
part). With a thin section the shear and thickness terms of the element are below 1e-4 of
the deflection, so the tip converges to that elastica. A belt soft in bending against its
axial stiffness (α₁/α₂ = 50) converges more slowly (the cubic element's membrane locking):
32 elements bring the tip within 2e-4 of its deflection.

The element measures bending through the Green–Lagrange strain, ``y r_c,x·r_s,x``, so its
moment is ``E α₂ I λ² κ`` at the stretch λ: a belt stretched by ε bends (1 + 2ε) times
stiffer than the elastica's ``E α₂ I κ``. Under these loads ε < 1e-5, far below the
tolerance; with α₁ = 0.02 (ε ≈ 1e-3) the tip would sit 0.25 % of its deflection off."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from solver.analysis.statics import static_equilibrium
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

L, E, DEPTH = 2.0, 2e9, 0.02


def elastica(p: float, ei: float, ea: float) -> np.ndarray:
    """Tip displacement (m) of the extensible elastica under the dead load ``(0, −p)``:
    ``r' = (1 + ε)(cos θ, sin θ)``, ``ε = N/EA``, ``θ' = M/EI``, ``M' = p x'``; shooting on M(0)."""

    def rhs(_s, y):
        stretch = 1.0 - p * np.sin(y[2]) / ea
        dx = stretch * np.cos(y[2])
        return [dx, stretch * np.sin(y[2]), y[3] / ei, p * dx]

    def end(m0):
        sol = solve_ivp(rhs, (0.0, L), [0, 0, 0, m0], method="DOP853", rtol=1e-12, atol=1e-14)
        return sol.y[:, -1]

    m0 = brentq(lambda m: end(m)[3], -1.01 * p * L, 0.0, xtol=1e-13 * p * L)
    tip = end(m0)
    return np.array([tip[0] - L, tip[1]])


def tip(elements: int, axial: float, bending: float, load: float) -> np.ndarray:
    body = {
        "name": "belt",
        "type": "ancf_beam2d",
        "element": "belt",
        "points": [[0, 0, 0], [L, 0, 0]],
        "elements": elements,
        "material": {"E": E, "nu": 0.3, "density": 1000},
        "section": {"shape": "rectangle", "width": DEPTH, "height": DEPTH},
        "belt": {"axial_factor": axial, "bending_factor": bending},
    }
    model = model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, 0],
            "bodies": [body],
            "joints": [
                {
                    "name": "clamp",
                    "type": "fixed",
                    "body1": "ground",
                    "body2": "belt",
                    "point": [0, 0, 0],
                }
            ],
            "forces": [
                {
                    "name": "P",
                    "type": "force",
                    "body": "belt",
                    "point": [L, 0, 0],
                    "vector": [0, -load, 0],
                }
            ],
            "outputs": [{"name": "tip", "body": "belt", "point": [L, 0, 0]}],
            "solver": {"analysis": "static"},
        }
    )
    system = MultibodySystem(model)
    sol = static_equilibrium(system)
    return system.output_points(sol.q, np.zeros(system.n))[0, :2] - [L, 0.0]


@pytest.mark.parametrize("axial,bending", [(1.0, 1.0), (1.0, 0.05), (0.5, 0.01)])
def test_tip_converges_to_the_scaled_elastica(axial, bending):
    inertia, area = DEPTH**4 / 12, DEPTH**2
    ei, ea = E * inertia * bending, E * area * axial
    load = 3.0 * ei / L**2  # λ = 3: a deflection of 0.6 L
    want = elastica(load, ei, ea)
    errors = [np.linalg.norm(tip(n, axial, bending, load) - want) for n in (4, 8, 32)]
    assert errors[-1] < 2e-4 * np.linalg.norm(want), errors
    assert errors[0] > errors[-1]
    # the factor matters: the unscaled elastica is far away
    other = elastica(load, E * inertia, E * area)
    if bending != 1.0 or axial != 1.0:
        assert np.linalg.norm(other - want) > 100 * errors[-1]
