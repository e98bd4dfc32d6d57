"""Natural versus reference-point coordinates: the same trajectories.

    python -m benchmarks.natural_vs_reference [--dt 1e-4] [--t-end 2] [--formulations F,...]
                                              [--models M,...]

Runs each example with ``coordinates`` reference_point and natural (with and without
shared points and vectors) and prints, per formulation, the largest difference of the
body positions (centres of mass, m) and of the output points over the run, with the
wall time of each run. ``lagrange_baumgarte`` runs with DOP853 at rtol 1e-11 (the
output grid is ``dt``), so it compares the representations, not integrators; the
fixed-step formulations show the difference of their discretisation errors at ``dt``.
The acceptance figure is 1e-6 m at dt = 1e-4 s over 2 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from solver import load_model, simulate
from solver.mechanics.bodies.natural import NaturalBodies

MODELS = ("four_bar_spatial", "heavy_top", "double_four_bar", "bricard")
PARAMETERS = {
    "lagrange_baumgarte": {"integrator": "DOP853", "rtol": 1e-11, "atol": 1e-13},
    "null_space": {"method": "r_matrix"},
}


def position_columns(result) -> list[str]:
    return [c for c in result.columns if c.rsplit(".", 1)[-1] in ("x", "y", "z")]


def run(name: str, formulation: str, coordinates: str, dt: float, t_end: float, share=True):
    NaturalBodies.sharing = share
    try:
        start = time.perf_counter()
        result = simulate(
            load_model(f"examples/{name}.json"),
            analysis="dynamic",
            formulation=formulation,
            coordinates=coordinates,
            dt=dt,
            t_end=t_end,
            output_dt=dt,
            parameters=PARAMETERS.get(formulation, {}),
        )
        return result, time.perf_counter() - start
    finally:
        NaturalBodies.sharing = True


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dt", type=float, default=1e-4)
    parser.add_argument("--t-end", type=float, default=2.0)
    parser.add_argument("--formulations", default="lagrange_baumgarte")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--no-unshared", action="store_true", help="skip sharing=False runs")
    args = parser.parse_args(argv)
    print(f"dt = {args.dt:g} s, t_end = {args.t_end:g} s")
    print(f"{'model':18} {'formulation':20} {'variant':10} {'max |Δr| m':>12} {'wall s':>8}")
    for formulation in args.formulations.split(","):
        for name in args.models.split(","):
            ref, t_ref = run(name, formulation, "reference_point", args.dt, args.t_end)
            print(f"{name:18} {formulation:20} {'reference':10} {'':>12} {t_ref:8.1f}")
            variants = [("shared", True)] + ([] if args.no_unshared else [("unshared", False)])
            for label, share in variants:
                nat, t_nat = run(name, formulation, "natural", args.dt, args.t_end, share)
                if nat.status != "ok" or ref.status != "ok" or len(nat) != len(ref):
                    print(
                        f"{name:18} {formulation:20} {label:10} failed: {nat.message or ref.message}"
                    )
                    continue
                diff = max(
                    float(np.abs(nat.column(c) - ref.column(c)).max())
                    for c in position_columns(ref)
                )
                print(f"{name:18} {formulation:20} {label:10} {diff:12.3e} {t_nat:8.1f}")


if __name__ == "__main__":
    main()
