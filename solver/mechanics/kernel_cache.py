"""Whether the compiled kernels of large systems run: always (the solver's one policy is
compiled code, ``solver.kernels.jit``; ``BIELA_JIT=0`` runs the same sources as Python).
The NumPy branches that still test this are being removed."""

from __future__ import annotations


def compiled_kernels() -> bool:
    return True
