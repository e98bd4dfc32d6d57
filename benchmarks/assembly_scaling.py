"""Cost of evaluating Φ, Φ_q and M for a spherical chain of N bodies.

    python -m benchmarks.assembly_scaling [--repeat R]

Prints µs per evaluation of each quantity and per body, for N = 16, 64, 256, 1024; the
cost should grow linearly in N (µs per body roughly constant at large N).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.chain import chain_model
from solver.mechanics.system import MultibodySystem

SIZES = (16, 64, 256, 1024)


def best_time(fn, repeat: int) -> float:
    """Best of ``repeat`` timings of one call (s), after a warm-up call."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print(
        f"{'N':>6} {'coords':>7} {'sparse':>6} {'Φ,Φq,γ µs':>11} {'M µs':>9} {'Q µs':>9} {'(Φ,Φq,γ)/N µs':>14}"
    )
    for n in SIZES:
        system = MultibodySystem(chain_model(n))
        q = system.q0 + 1e-3 * rng.standard_normal(system.n)
        qd = rng.standard_normal(system.n)
        t_c = best_time(lambda s=system, q=q, qd=qd: s.constraints(q, qd, 0.0), args.repeat)
        t_m = best_time(lambda s=system, q=q: s.mass(q), args.repeat)
        t_q = best_time(lambda s=system, q=q, qd=qd: s.forces(q, qd, 0.0), args.repeat)
        print(
            f"{n:>6} {system.n:>7} {str(system.sparse):>6} {t_c * 1e6:>11.1f} {t_m * 1e6:>9.1f} "
            f"{t_q * 1e6:>9.1f} {t_c * 1e6 / n:>14.2f}"
        )


if __name__ == "__main__":
    main()
