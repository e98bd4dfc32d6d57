"""Compile (or load) the Numba kernels of large systems and mark them cached:
``python -m solver.warm_kernels`` (see :mod:`solver.mechanics.kernel_cache`)."""

from __future__ import annotations

import sys

from solver.mechanics.kernel_cache import marker, warm


def main() -> int:
    seconds = warm()
    print(f"compiled kernels ready in {seconds:.1f} s (marker: {marker()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
