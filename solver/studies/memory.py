"""glibc's heap trimming on Dask workers.

Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536`` (its
``distributed.nanny.pre-spawn-environ``), so that long-lived workers hand freed memory back
to the system. That setting also switches off glibc's dynamic thresholds, and a time step
allocates and frees many small arrays: the heap's top is given back and taken again every
step. Measured on the 16-bar chain (augmented Lagrangian, 2000 steps): 2.2–2.4 s of CPU in
such a process against 1.0 s with glibc's defaults. :func:`relax_trimming` restores glibc's
dynamic limits (trim at 64 MiB of free heap, ``mmap`` above 32 MiB) in a worker process that
was started so; local clusters start their workers without the variable
(:mod:`solver.studies.engine`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (malloc.h)
TRIM_THRESHOLD = 64 * 2**20
MMAP_THRESHOLD = 32 * 2**20  # glibc's upper limit of its dynamic mmap threshold (64-bit)

_done: bool | None = None


def relax_trimming() -> bool:
    """Once per process: if ``MALLOC_TRIM_THRESHOLD_`` is set and the C library is glibc,
    raise the trim and mmap thresholds (``mallopt``). Returns whether they were raised."""
    global _done
    if _done is None:
        _done = False
        if "MALLOC_TRIM_THRESHOLD_" in os.environ and sys.platform.startswith("linux"):
            try:
                mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
                mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
                _done = bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(
                    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                )
            except (OSError, AttributeError):  # not glibc (musl, ...): nothing to relax
                _done = False
    return _done
