"""ANCF speed: element force + Jacobian evaluation, and a 32-element pendulum.

    .venv/bin/python -m benchmarks.ancf_speed            # both parts
    .venv/bin/python -m benchmarks.ancf_speed elements   # per-element timings only
    .venv/bin/python -m benchmarks.ancf_speed pendulum [--elements 32] [--dt 1e-4]
        [--t-end 1] [--formulation augmented_lagrangian]

``elements``: µs per element for the elastic (+ damping) forces with and without their
exact Jacobians, for each element type, evaluated on a beam of 1 and of 32 elements
(vectorised over the elements of a beam). ``pendulum``: examples/ancf_flexible_pendulum.json
with 32 elements run for 1 s at Δt = 1e-4 s; prints the wall time, steps, Newton iterations
and time per step.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from solver import load_model, simulate
from solver.mechanics.bodies.ancf.cable import Cable3D
from solver.mechanics.bodies.ancf.euler_bernoulli import EulerBernoulli2D
from solver.mechanics.bodies.ancf.omar import Omar2D
from solver.mechanics.bodies.ancf.section import MaterialData, _rectangle
from solver.mechanics.bodies.ancf.yakoub import Yakoub3D

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ancf_flexible_pendulum.json"


def _per_call(fun, min_time: float = 0.3) -> float:
    fun()
    n, start = 0, time.perf_counter()
    while True:
        fun()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed > min_time:
            return elapsed / n


def elements() -> None:
    section = _rectangle(0.02, 0.01)
    rng = np.random.default_rng(0)
    print(f"{'element':<18}{'N':>4}{'force µs/el':>14}{'force+jac µs/el':>18}{'damped f+j':>14}")
    for cls in (EulerBernoulli2D, Omar2D, Cable3D, Yakoub3D):
        for n in (1, 32):
            el = cls(0.1, section, MaterialData(2e11, 0.0, 7800.0))
            eld = cls(0.1, section, MaterialData(2e11, 0.0, 7800.0, 1e-3, 1e-3))
            e = rng.standard_normal((n, el.m, el.d)) * 0.01
            e[:, 1, 0] += 1.0
            e[:, el.m // 2 + 1, 0] += 1.0
            e[:, el.m // 2, 0] += 0.1
            ed = rng.standard_normal(e.shape)
            f = _per_call(lambda el=el, e=e, ed=ed: el.internal(e, ed, False)) / n
            fj = _per_call(lambda el=el, e=e, ed=ed: el.internal(e, ed, True)) / n
            dj = _per_call(lambda el=eld, e=e, ed=ed: el.internal(e, ed, True)) / n
            print(f"{cls.__name__:<18}{n:>4}{f * 1e6:>14.1f}{fj * 1e6:>18.1f}{dj * 1e6:>14.1f}")


def pendulum(n_elements: int, dt: float, t_end: float, formulation: str) -> None:
    m = load_model(EXAMPLE)
    m.bodies[0].elements = n_elements
    start = time.perf_counter()
    r = simulate(m, dt=dt, t_end=t_end, output_dt=max(dt, 1e-3), formulation=formulation)
    wall = time.perf_counter() - start
    s = r.summary
    print(
        f"flexible pendulum, {n_elements} elements ({s['dof']} DOF), {formulation}, "
        f"dt = {dt:g} s, t_end = {t_end:g} s: {r.status} {r.message}\n"
        f"  wall {wall:.1f} s, {s['steps']} steps, {s['newton_iterations']} Newton iterations, "
        f"{wall / max(s['steps'], 1) * 1e3:.2f} ms/step; max energy drift "
        f"{s['max_energy_drift']:.3g} J; max |Φ| {s['max_constraint_position']:.3g}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("part", nargs="?", choices=("elements", "pendulum", "all"), default="all")
    p.add_argument("--elements", type=int, default=32)
    p.add_argument("--dt", type=float, default=1e-4)
    p.add_argument("--t-end", type=float, default=1.0)
    p.add_argument("--formulation", default="augmented_lagrangian")
    a = p.parse_args()
    if a.part in ("elements", "all"):
        elements()
    if a.part in ("pendulum", "all"):
        pendulum(a.elements, a.dt, a.t_end, a.formulation)


if __name__ == "__main__":
    main()
