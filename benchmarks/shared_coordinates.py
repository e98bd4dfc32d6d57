"""Shared coordinates against joints as equations: time per step.

    .venv/bin/python -m benchmarks.shared_coordinates [--repeat 3] [--t-end 0.5]
        [--formulations augmented_lagrangian,index3_newmark] [--cases chain,chain8,rotor,arm]
        (--t-end: the shorter of the two run lengths, default 0.3 s)

Each case runs with its rigid–flexible joints sharing coordinates (``share``) and as
equations (the same model without ``share``), at the same Δt; the table gives the
coordinates n and constraint rows m of each system, the Newton iterations of a run to
``t_end``, the time per step (ms) and the ratio, and the largest difference of the body
columns between the two runs. The time per step is the marginal one, (T(2 t_end) −
T(t_end)) / (steps between them) with each T the best of ``repeat`` runs, the two versions
run alternately: the start of a run (assembly, first outputs) and the load of a shared
machine drift out of it.

Cases: ``chain`` the thesis's Fig. 4.2 chain (examples/ancf_shared_chain.json, 1 Omar
element), ``chain8`` the same with 8 elements, ``rotor`` a planar hub with two pinned blades
(one pin eliminated as a combination, 4 Euler–Bernoulli elements each), ``arm`` a spatial
arm with two Yakoub beams on spherical joints (one shared as a basic point, one eliminated).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from solver import load_model, simulate
from solver.analysis.outputs.state import without_sharing
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ancf_shared_chain.json"


def _chain(elements: int):
    m = load_model(EXAMPLE)
    m = replace(m, requests=[])
    m.body("bar").elements = elements
    return m, 1e-3


def _beam(name, a, b, kind, elements, E):
    return {
        "name": name,
        "type": kind,
        "points": [a, b],
        "elements": elements,
        "material": {"E": E, "nu": 0, "density": 7800.0 if kind == "ancf_beam2d" else 2000.0},
        "section": {
            "shape": "rectangle",
            "width": 0.02,
            "height": 0.01 if kind == "ancf_beam2d" else 0.02,
        },
    }


def _pin(name, body1, body2, point, axis=None):
    joint = {"name": name, "type": "revolute" if axis else "spherical", "body1": body1,
             "body2": body2, "point": point, "share": True}  # fmt: skip
    if axis:
        joint["axis"] = axis
    return joint


def _rotor():
    """A hub pinned at its middle and turned by a joint torque, with a blade pinned at each
    end (the pin at the origin is eliminated: 2 r_O − r_P)."""
    z = [0, 0, 1]
    data = {
        "biela": 1,
        "gravity": [0, 0, 0],
        "bodies": [
            {
                "name": "hub",
                "mass": 1.0,
                "inertia": [1e-4, 0.0075, 0.0075],
                "position": [0.15, 0, 0],
            },
            _beam("A", [0.3, 0, 0], [1.3, 0, 0], "ancf_beam2d", 4, 2e9),
            _beam("B", [0, 0, 0], [-1, 0, 0], "ancf_beam2d", 4, 2e9),
        ],
        "joints": [
            {
                "name": "pivot",
                "type": "revolute",
                "body1": "ground",
                "body2": "hub",
                "point": [0.15, 0, 0],
                "axis": z,
            },  # fmt: skip
            _pin("JA", "hub", "A", [0.3, 0, 0], z),
            _pin("JB", "B", "hub", [0, 0, 0], z),
        ],
        "forces": [{"name": "motor", "type": "joint_torque", "joint": "pivot", "function": 2.0}],
        "solver": {"coordinates": "natural_planar"},
    }
    return model_from_data(data), 1e-3


def _arm():
    """A spatial arm pinned about y with Yakoub beams hanging from its tip (a basic point)
    and its middle (eliminated: ½ r_O + ½ r_tip), under gravity."""
    data = {
        "biela": 1,
        "gravity": [0, 0, -9.81],
        "bodies": [
            {"name": "arm", "mass": 2.0, "inertia": [1e-3, 0.17, 0.17], "position": [0.5, 0, 0]},
            _beam("b1", [1, 0, 0], [1, 0, -0.6], "ancf_beam3d", 2, 2e8),
            _beam("b2", [0.5, 0, 0], [0.5, 0, -0.5], "ancf_beam3d", 2, 2e8),
        ],
        "joints": [
            {
                "name": "pivot",
                "type": "revolute",
                "body1": "ground",
                "body2": "arm",
                "point": [0, 0, 0],
                "axis": [0, 1, 0],
            },  # fmt: skip
            _pin("J1", "arm", "b1", [1, 0, 0]),
            _pin("J2", "b2", "arm", [0.5, 0, 0]),
        ],
        "solver": {"coordinates": "natural"},
    }
    return model_from_data(data), 1e-3


CASES = {
    "chain": lambda: _chain(1),
    "chain8": lambda: _chain(8),
    "rotor": _rotor,
    "arm": _arm,
}


def _timed(model, formulation: str, dt: float, t_end: float):
    start = time.perf_counter()
    result = simulate(model, formulation=formulation, dt=dt, t_end=t_end, output_dt=0.01)
    assert result.status == "ok", result.message
    return time.perf_counter() - start, result


def _per_step(models, formulation: str, dt: float, t_end: float, repeat: int):
    """Marginal seconds per step of each model (alternating runs) and its run to t_end."""
    best = {(i, k): np.inf for i in range(len(models)) for k in (1, 2)}
    results = {}
    for _ in range(repeat):
        for k in (1, 2):
            for i, model in enumerate(models):
                wall, result = _timed(model, formulation, dt, k * t_end)
                best[i, k] = min(best[i, k], wall)
                if k == 1:
                    results[i] = result
    steps = round(t_end / dt)
    return [(best[i, 2] - best[i, 1]) / steps for i in range(len(models))], results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--t-end", type=float, default=0.3)
    p.add_argument("--formulations", default="augmented_lagrangian,index3_newmark")
    p.add_argument("--cases", default=",".join(CASES))
    args = p.parse_args()
    print(
        f"{'case':<8}{'formulation':<22}{'n sh/eq':>10}{'m sh/eq':>10}"
        f"{'Newton sh/eq':>15}{'ms/step sh':>12}{'ms/step eq':>12}{'ratio':>7}{'max diff':>11}"
    )
    for name in args.cases.split(","):
        model, dt = CASES[name]()
        plain = without_sharing(model)
        s_sh, s_eq = MultibodySystem(model), MultibodySystem(plain)
        for formulation in args.formulations.split(","):
            (t_sh, t_eq), runs = _per_step([model, plain], formulation, dt, args.t_end, args.repeat)
            r_sh, r_eq = runs[0], runs[1]
            bodies = {b.name for b in model.bodies}
            cols = [c for c in r_sh.columns if c.split(".")[0] in bodies]
            a = r_sh.data[:, [r_sh.columns.index(c) for c in cols]]
            b = r_eq.data[:, [r_eq.columns.index(c) for c in cols]]
            it = f"{r_sh.summary['newton_iterations']}/{r_eq.summary['newton_iterations']}"
            print(
                f"{name:<8}{formulation:<22}{f'{s_sh.n}/{s_eq.n}':>10}{f'{s_sh.m}/{s_eq.m}':>10}"
                f"{it:>15}{t_sh * 1e3:>12.3f}{t_eq * 1e3:>12.3f}"
                f"{t_sh / t_eq:>7.2f}{np.abs(a - b).max():>11.2e}"
            )


if __name__ == "__main__":
    main()
