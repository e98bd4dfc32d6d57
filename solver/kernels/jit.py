"""The one switch for compiled code, decided once per process.

Every kernel of the solver is decorated with :func:`kernel`: Numba compiles it on its
first call and caches the machine code on disk (``cache=True``), so later processes
load it. ``BIELA_JIT=0`` (environment, read when this module is first imported) runs
the same source as plain Python instead: slow, for debugging a kernel with a Python
debugger or ``print``.

Kernels use NumPy's floating-point error model (a division by zero gives ``inf`` or
``nan``, as in NumPy, instead of raising): callers check the results for finiteness
and report the item that produced a non-finite value.
"""

from __future__ import annotations

import os

#: whether kernels are compiled in this process (``BIELA_JIT=0``: plain Python)
ENABLED = os.environ.get("BIELA_JIT", "1").strip().lower() not in ("0", "off", "false", "no")

if not ENABLED:  # before Numba is imported anywhere: its own switch
    os.environ["NUMBA_DISABLE_JIT"] = "1"

from numba import njit  # noqa: E402

OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


def kernel(func=None, **options):
    """``@kernel`` or ``@kernel(**numba_options)``: compile ``func`` with the solver's
    options (cached on disk, NumPy error model)."""
    if func is None:
        return lambda f: njit(**{**OPTIONS, **options})(f)
    return njit(**OPTIONS)(func)
