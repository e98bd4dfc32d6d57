"""Contact models in the fixed-step formulations: the compiled steps (in chunks that
commit the contacts' state themselves at each step) against the formulations' own
steps, ms per step.

    .venv/bin/python -m benchmarks.contact_steps [--t-end 1.0] [--rounds 3]

The contact examples with their contacts softened to K = 1e6 N/m^1.5 (their Hertz
stiffness needs steps of about 1e-5 s in a fixed-step formulation; the adaptive
``lagrange_baumgarte`` of the examples shortens its steps at each impact by itself), run
at Δt = 1 ms (0.5 ms for the cradle: the step check's limit) to ``--t-end`` with ``augmented_lagrangian``, ``null_space`` and
``central_differences``: a ball bouncing on a plane, a sphere falling into a V with
friction, Newton's cradle. The two variants alternate, ``--rounds`` times; the table
gives the median wall time of the time loop per step (what the run's summary reports as
``wall_time_s``, over its steps) and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from solver import load_model
from solver.analysis import dynamic
from solver.analysis.simulate import Simulation, settings_with

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: each model and the step (s) its softened contacts allow
MODELS = {"ball_drop": 1e-3, "sphere_v_friction": 1e-3, "newtons_cradle": 5e-4}
FORMULATIONS = ("augmented_lagrangian", "null_space", "central_differences")


def softened(name: str):
    """The example with its contacts' stiffness at 1e6 N/m^1.5 (no materials)."""
    model = load_model(EXAMPLES / f"{name}.json")
    for force in model.forces:
        force.materials, force.stiffness = None, 1e6
    return model


def ms_per_step(
    model, formulation: str, dt: float, t_end: float, compiled: bool
) -> tuple[float, str]:
    """Wall time of the time loop per step (ms) and the run's status."""
    keep = dynamic.compiled_stepper
    if not compiled:
        dynamic.compiled_stepper = lambda *args: None
    try:
        settings = settings_with(
            model, analysis="dynamic", formulation=formulation, dt=dt, t_end=t_end,
            output_dt=0.01,
        )  # fmt: skip
        sim = Simulation(model, settings)
        for _ in sim:
            pass
    finally:
        dynamic.compiled_stepper = keep
    summary = sim.result.summary
    return 1e3 * summary["wall_time_s"] / max(1, summary["steps"]), sim.result.status


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'model':18s} {'formulation':22s} {'own steps':>10s} {'compiled':>10s} {'ratio':>6s}")
    for name, dt in MODELS.items():
        model = softened(name)
        for formulation in FORMULATIONS:
            for compiled in (False, True):  # compiled once first
                ms_per_step(model, formulation, dt, 0.01, compiled)
            times = {False: [], True: []}
            status = ""
            for _ in range(args.rounds):
                for compiled in (False, True):
                    ms, status = ms_per_step(model, formulation, dt, args.t_end, compiled)
                    times[compiled].append(ms)
            own, fast = statistics.median(times[False]), statistics.median(times[True])
            print(
                f"{name:18s} {formulation:22s} {own:10.3f} {fast:10.3f} {own / fast:6.2f}"
                + ("" if status == "ok" else f"  ({status})"),
                flush=True,
            )


if __name__ == "__main__":
    main()
