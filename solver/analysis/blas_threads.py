"""One BLAS thread while a dense system steps.

The matrices of a dense system (below ``SPARSE_THRESHOLD`` coordinates) are small: a
48 × 49 SVD is a fraction of a millisecond on one thread, but OpenBLAS splits it over its
thread pool, and on a busy machine its threads wait for each other (measured: A03 Andrews
squeezer with central_differences, 53 ms per step with the default pool on 2 loaded cores,
13 ms with one thread). ``single_blas_thread(system)`` limits the BLAS pool to one thread
for a dense system (threadpoolctl, which finds the BLAS numpy and scipy loaded) and does
nothing for a sparse one, whose SuperLU factorisations are single-threaded anyway.

Finding the BLAS libraries reads the process's whole list of loaded libraries (15–25 ms
on a 2-core machine, as much as 200 steps of a small compiled model), so it is done once
per process, after NumPy's and SciPy's linear algebra are loaded (again once SciPy's is,
if it was not). SciPy's (its own BLAS, which Numba's compiled LAPACK calls use too) takes
0.1 s to import: a run that calls none of it (the compiled augmented Lagrangian, whose
factorisations are compiled) does not load it for this. Such a run calls no BLAS while
it steps and does not search at all (measured: its first run in a process 25 ms shorter,
the later ones no slower).
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext
from functools import cache

from solver.kernels import jit


@cache
def _controller(with_scipy: bool):
    """The libraries' controller (``with_scipy``: whether SciPy's linear algebra is loaded;
    one search with it, one without)."""
    import numpy.linalg  # noqa: F401  (their BLAS libraries loaded before the search)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def single_blas_thread(system, augmented_lagrangian: bool = False) -> AbstractContextManager:
    """A context in which BLAS uses one thread if ``system`` is dense: NumPy's and SciPy's
    (loaded first). For the ``augmented_lagrangian``: nothing where its steps are compiled
    (they call no BLAS), else NumPy's, and SciPy's only if it is loaded already."""
    if getattr(system, "sparse", True) or (augmented_lagrangian and jit.ENABLED):
        return nullcontext()
    if not augmented_lagrangian:
        import scipy.linalg  # noqa: F401  (its BLAS library)
    return _controller("scipy.linalg" in sys.modules).limit(limits=1, user_api="blas")
