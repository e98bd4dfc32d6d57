"""Cost of evaluating a time function: ``jet`` from another kernel, ``derivatives`` from Python.

    python -m benchmarks.time_functions [--calls N] [--repeat R]

For each kind (a typical driver expression, the other kinds, and a longer expression) it
prints the ns per ``jet(table, i, t)`` call made from a compiled loop over N times (the
loop's own cost, measured with a kernel that only sums the times, subtracted), and the
µs per ``TimeFunction.derivatives(t)`` call from Python for a scalar t and for an array of
1000 times. Best of R repeats of the CPU time (``time.process_time``: less sensitive to a shared machine).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from solver.kernels import time_functions as tf
from solver.kernels.jit import kernel
from solver.model.functions import parse_function

CASES = {
    "expression 0.5*(1-cos(pi*t/3.5))": {"expression": "0.5*(1-cos(pi*t/3.5))"},
    "constant": 2.5,
    "polynomial (degree 3)": {"polynomial": [1, -2, 0.5, 3]},
    "smooth_step": {"smooth_step": {"t0": 1.0, "f0": 0.0, "t1": 3.0, "f1": 1.0}},
    "smooth_bump": {
        "smooth_bump": {"t0": 0.5, "f0": 0.0, "tmax": 2.0, "fmax": 1.0, "t1": 4.0, "f1": 0.2}
    },
    "table cubic (21 rows)": {"table": [[0.25 * k, np.sin(0.25 * k)] for k in range(21)]},
    "table linear (21 rows)": {
        "table": [[0.25 * k, np.sin(0.25 * k)] for k in range(21)],
        "interpolation": "linear",
    },
    "expression 2*sin(3*t)*exp(-t/2)+min(t,1)**2": {
        "expression": "2*sin(3*t)*exp(-t/2) + min(t, 1)**2"
    },
}


@kernel
def _sum_jets(table, i, ts):
    total = 0.0
    for k in range(ts.shape[0]):
        f, df, ddf = tf.jet(table, i, ts[k])
        total += f + df + ddf
    return total


@kernel
def _sum_times(table, i, ts):
    total = 0.0
    for k in range(ts.shape[0]):
        total += ts[k] + table.data[0] + i
    return total


def best_time(fn, repeat: int) -> float:
    """Best of ``repeat`` timings of one call (s), after a warm-up call."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    ts = np.linspace(0.0, 5.0, args.calls)
    thousand = np.linspace(0.0, 5.0, 1000)
    print(f"{'function':<46} {'jet ns':>8} {'scalar µs':>10} {'1000 t µs':>10}")
    for name, data in CASES.items():
        f = parse_function(data)
        table = f.kernel_table()
        loop = best_time(lambda t=table: _sum_times(t, 0, ts), args.repeat)
        jets = best_time(lambda t=table: _sum_jets(t, 0, ts), args.repeat)
        per_jet = max(jets - loop, 0.0) / args.calls
        scalar = best_time(lambda f=f: [f.derivatives(1.7) for _ in range(1000)], args.repeat)
        batch = best_time(lambda f=f: f.derivatives(thousand), args.repeat)
        print(f"{name:<46} {per_jet * 1e9:>8.1f} {scalar * 1e3:>10.2f} {batch * 1e6:>10.1f}")


if __name__ == "__main__":
    main()
