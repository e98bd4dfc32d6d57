"""Models the compiled path covers, for its tests: IFToMM examples, chains, and a mixed
model with every supported primitive on rigid bodies, point masses and ground."""

from __future__ import annotations

from pathlib import Path

from benchmarks.chain import chain_data
from solver.analysis.warmup import warm_model_data
from solver.model import load_model, model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def mixed_data() -> dict:
    """A rigid block on a cylindrical joint, a planar plate, a universal-joint link and a
    point mass on a line held to the block by a distance bar (Coincident, Dot, PointPlane,
    Distance; ground, rigid and point-mass markers; a general inertia tensor)."""
    return {
        "biela": 1,
        "name": "mixed primitives",
        "gravity": [0.3, -9.81, 0.2],
        "bodies": [
            {
                "name": "block",
                "mass": 2.0,
                "inertia": [[0.3, 0.01, 0.02], [0.01, 0.4, 0.03], [0.02, 0.03, 0.5]],
                "position": [0.0, 0.0, 0.0],
                "velocity": [0.0, 0.0, 0.1],
                "angular_velocity": [0.0, 0.0, 2.0],
            },
            {
                "name": "plate",
                "mass": 1.0,
                "inertia": [0.1, 0.2, 0.25],
                "position": [1.0, 0.5, 0.0],
                "angular_velocity": [0.0, 0.3, 0.0],
            },
            {
                "name": "link",
                "mass": 0.5,
                "inertia": [0.01, 0.05, 0.05],
                "position": [0.5, 1.0, 0.5],
                "orientation": {"axis": [0.1, 0.3, 0.2], "angle": 0.5},
            },
            {
                "name": "bead",
                "type": "point_mass",
                "mass": 0.3,
                "position": [0.0, 2.0, 1.0],
                "velocity": [0.0, 0.0, 0.5],
            },
        ],
        "joints": [
            {
                "name": "C",
                "type": "cylindrical",
                "body1": "ground",
                "body2": "block",
                "point": [0.0, 0.0, 0.0],
                "axis": [0.0, 0.0, 1.0],
            },
            {
                "name": "P",
                "type": "planar",
                "body1": "ground",
                "body2": "plate",
                "point": [1.0, 0.5, 0.0],
                "normal": [0.0, 1.0, 0.0],
            },
            {
                "name": "U",
                "type": "universal",
                "body1": "block",
                "body2": "link",
                "point": [0.5, 1.0, 0.0],
                "axis1": [1.0, 0.0, 0.0],
                "axis2": [0.0, 1.0, 0.0],
            },
            {
                "name": "L",
                "type": "point_on_line",
                "body1": "ground",
                "body2": "bead",
                "point": [0.0, 2.0, 1.0],
                "axis": [1.0, 0.0, 0.0],
            },
            {
                "name": "D",
                "type": "distance",
                "body1": "link",
                "body2": "bead",
                "point1": [0.5, 1.0, 1.0],
                "point2": [0.0, 2.0, 1.0],
            },
        ],
        "solver": {
            "analysis": "dynamic",
            "formulation": "augmented_lagrangian",
            "dt": 0.001,
            "t_end": 0.2,
            "output_dt": 0.01,
        },
    }


def flexible_data() -> dict:
    """A rigid link swinging a soft, damped two-element elastic-line beam (planar ANCF) on
    a revolute joint, with a spring-damper from the beam's tip to ground: elastic and
    damping forces of flexible elements with rigid bodies and a force element (soft enough
    for the central differences at 1 ms)."""
    return {
        "biela": 1,
        "name": "link and damped beam",
        "gravity": [0.0, -9.81, 0.0],
        "bodies": [
            {
                "name": "link",
                "mass": 0.4,
                "inertia": [0.001, 0.004, 0.004],
                "position": [0.15, 0.0, 0.0],
                "angular_velocity": [0.0, 0.0, 1.0],
            },
            {
                "name": "beam",
                "type": "ancf_beam2d",
                "points": [[0.3, 0.0, 0.0], [0.8, 0.0, 0.0]],
                "elements": 2,
                "material": {"E": 2e6, "nu": 0.3, "density": 1200, "damping": 2e-4},
                "section": {"shape": "rectangle", "width": 0.02, "height": 0.01},
            },
        ],
        "joints": [
            {
                "name": "pin",
                "type": "revolute",
                "body1": "ground",
                "body2": "link",
                "point": [0.0, 0.0, 0.0],
                "axis": [0.0, 0.0, 1.0],
            },
            {
                "name": "elbow",
                "type": "revolute",
                "body1": "link",
                "body2": "beam",
                "point": [0.3, 0.0, 0.0],
                "axis": [0.0, 0.0, 1.0],
            },
        ],
        "forces": [
            {
                "name": "tie",
                "type": "spring_damper",
                "body1": "ground",
                "point1": [0.8, 0.3, 0.0],
                "body2": "beam",
                "point2": [0.8, 0.0, 0.0],
                "stiffness": 20.0,
                "damping": 0.5,
                "free_length": 0.25,
            }
        ],
    }


def compiled_models() -> dict:
    """Name → model of every model the compiled tests run."""
    out = {
        name: load_model(EXAMPLES / f"{name}.json")
        for name in ("pendulum", "double_four_bar", "bricard", "heavy_top", "slider_crank_cardan")
    }
    out["chain4"] = model_from_data(chain_data(4))
    out["mixed"] = model_from_data(mixed_data())
    out["forces and drivers"] = model_from_data(warm_model_data())
    natural = {**warm_model_data(), "solver": {"coordinates": "natural"}}
    out["natural"] = model_from_data(natural)
    out["four_bar_spatial"] = load_model(EXAMPLES / "four_bar_spatial.json")
    out["flexible"] = model_from_data(flexible_data())
    return out
