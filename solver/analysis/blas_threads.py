"""One BLAS thread while a dense system steps.

The matrices of a dense system (below ``SPARSE_THRESHOLD`` coordinates) are small: a
48 × 49 SVD is a fraction of a millisecond on one thread, but OpenBLAS splits it over its
thread pool, and on a busy machine its threads wait for each other (measured: A03 Andrews
squeezer with central_differences, 53 ms per step with the default pool on 2 loaded cores,
13 ms with one thread). ``single_blas_thread(system)`` limits the BLAS pool to one thread
for a dense system (threadpoolctl, which finds the BLAS libraries NumPy and SciPy loaded)
and does nothing for a sparse one, whose SuperLU factorisations are single-threaded anyway.

Finding the BLAS libraries reads the process's whole list of loaded libraries (15–25 ms
on a 2-core machine, as much as 200 steps of a small compiled model), so it is done once
per process for NumPy's, and once more when SciPy's linear algebra is loaded. SciPy's
(its own BLAS, which Numba's compiled LAPACK calls use too) takes 0.1 s to import, and the
compiled steps of the central differences and the null-space Newmark method call it only
on rank-deficient paths (Numba imports it on that first call): so a run does not import
it for this. The limit follows it instead: the time loop calls
``refresh()`` after each frame, which limits SciPy's BLAS too once it is loaded. The
compiled augmented Lagrangian calls BLAS only through SciPy's (a product of two large
matrices in its steps): a run searches only once SciPy's linear algebra is loaded (by
its set-up, a belt's settling on its pulleys, or in its steps) and a small model's not at
all (measured: its first run in a process 25 ms shorter, the later ones no slower). The
belt drive, whose set-up loads SciPy, stepped 2–10 % slower with two BLAS threads beside
another busy process (the workbench's case: its window renders beside the solver).
"""

from __future__ import annotations

import sys
from functools import cache

from solver.kernels import jit


@cache
def _controller(with_scipy: bool):
    """The libraries' controller (``with_scipy``: whether SciPy's linear algebra is loaded;
    one search with it, one without)."""
    import numpy.linalg  # noqa: F401  (their BLAS libraries loaded before the search)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _scipy_loaded() -> bool:
    return "scipy.linalg" in sys.modules


class BlasLimit:
    """One BLAS thread for the libraries loaded on entry (``eager``; else only if SciPy's
    linear algebra is among them), and for SciPy's once :meth:`refresh` finds it loaded;
    the earlier limits restored on exit."""

    def __init__(self, eager: bool = True) -> None:
        self._limiters: list = []
        self._with_scipy = False
        self._eager = eager

    def __enter__(self) -> BlasLimit:
        if self._eager or _scipy_loaded():
            self._limit()
        return self

    def _limit(self) -> None:
        self._with_scipy = _scipy_loaded()
        self._limiters.append(_controller(self._with_scipy).limit(limits=1, user_api="blas"))

    def refresh(self) -> None:
        """Limit SciPy's BLAS too if it has been loaded since (a dictionary lookup
        otherwise)."""
        if not self._with_scipy and _scipy_loaded():
            self._limit()

    def __exit__(self, *exc) -> None:
        while self._limiters:  # the last first: each restores what it found
            self._limiters.pop().restore_original_limits()


class NoLimit:
    """The BLAS pool as it is (a sparse system)."""

    def __enter__(self) -> NoLimit:
        return self

    def refresh(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        pass


def single_blas_thread(system, formulation: str = "") -> BlasLimit | NoLimit:
    """A context in which BLAS uses one thread if ``system`` is dense: NumPy's, and
    SciPy's once loaded (call ``refresh()`` after each frame). ``formulation``: a dynamic
    analysis's. The compiled ``augmented_lagrangian`` steps call BLAS only through
    SciPy's (the products of large matrices): its libraries are searched and limited only
    once SciPy's linear algebra is loaded (a small model never loads it: no search).
    ``lagrange_baumgarte`` watches the rank of Φ_q by an SVD at its first step (LAPACK's,
    SciPy's): SciPy's linear algebra is loaded first, for one search instead of two."""
    if getattr(system, "sparse", True):
        return NoLimit()
    if formulation == "lagrange_baumgarte":
        import scipy.linalg  # noqa: F401  (its BLAS library)
    return BlasLimit(eager=not (formulation == "augmented_lagrangian" and jit.ENABLED))
