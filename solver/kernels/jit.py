"""The one switch for compiled code, decided once per process.

Every kernel of the solver is decorated with :func:`kernel`: Numba compiles it on its
first call and caches the machine code on disk (``cache=True``), so later processes
load it (:mod:`solver.kernels.cache` keeps that cache to the current sources). ``BIELA_JIT=0`` (environment, read when this module is first imported) runs
the same source as plain Python instead: slow, for debugging a kernel with a Python
debugger or ``print``.

Kernels use NumPy's floating-point error model (a division by zero gives ``inf`` or
``nan``, as in NumPy, instead of raising): callers check the results for finiteness
and report the item that produced a non-finite value.

Kernels pass flags to each other as ``YES``/``NO`` and integer constants as ``np.int64``:
Numba types a literal argument by its value and compiles the callee again for each.
"""

from __future__ import annotations

import functools
import importlib
import os
import threading

#: whether kernels are compiled in this process (``BIELA_JIT=0``: plain Python)
ENABLED = os.environ.get("BIELA_JIT", "1").strip().lower() not in ("0", "off", "false", "no")

if not ENABLED:  # before Numba is imported anywhere: its own switch
    os.environ["NUMBA_DISABLE_JIT"] = "1"

from numba import njit, types  # noqa: E402
from numba.extending import typeof_impl  # noqa: E402

from solver.kernels import cache_loading, optimisation  # noqa: E402
from solver.kernels.cache import ensure_fresh  # noqa: E402

ensure_fresh()  # before any kernel is loaded from the cache
if ENABLED:
    optimisation.install()
    cache_loading.install()

import numpy as np  # noqa: E402

OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}

#: flags to pass between kernels: a literal ``True``/``False`` (or a literal int) as an
#: argument makes Numba compile the callee once more for that value; NumPy scalars don't
YES, NO = np.bool_(True), np.bool_(False)


def _no_refcount_option() -> str | None:
    """The Numba option that compiles a function without reference counting (``_nrt``),
    or ``None`` where this Numba has none (such kernels are then compiled as the others)."""
    try:
        from numba.core.options import DefaultOptions
    except ImportError:
        return None
    return "_nrt" if hasattr(DefaultOptions, "_nrt") else None


_NO_REFCOUNT = _no_refcount_option()


def kernel(func=None, *, refcounted: bool = True, full_optimisation: bool = False, **options):
    """``@kernel`` or ``@kernel(**numba_options)``: compile ``func`` with the solver's
    options (cached on disk, NumPy error model); with ``BIELA_JIT=0`` the function itself
    (plain Python, whatever imported Numba before).

    ``refcounted=False`` for a kernel that makes no array and keeps none (it reads and
    writes the arrays it is given, and indexes them: no slice, no view): compiled without
    reference counting, a call to it does not count each array argument in and out
    (atomic operations that otherwise take a good part of the time of small kernels called
    in loops). Numba refuses to compile such a kernel if it makes an array.

    ``full_optimisation=True`` for a leaf of the call tree: a kernel that computes one
    item (an element, a joint's rows, a force element, a time function) or factorises a
    matrix, optimised at LLVM's -O3. The kernels that assemble are optimised lightly
    (-O1), which shortens the first compile by 13–20 %
    (:mod:`solver.kernels.optimisation`)."""
    if func is None:
        return lambda f: kernel(
            f, refcounted=refcounted, full_optimisation=full_optimisation, **options
        )
    if not ENABLED:
        return func
    if not full_optimisation:
        optimisation.mark_light(func)
    if not refcounted and _NO_REFCOUNT:
        options = {**options, _NO_REFCOUNT: False}
    return Kernel(func, {**OPTIONS, **options})


class Kernel:
    """A kernel whose Numba dispatcher is made on first use.

    Making a dispatcher with an on-disk cache costs about 0.25 ms (the cache's locator
    tests that its folder is writable), and the solver has several hundred kernels, of
    which a run calls a few from Python: the others are inside the machine code of those
    few, loaded from the cache without their own dispatchers. So the dispatcher is made
    when the kernel is first called from Python, or when Numba types a kernel that calls
    it (the kernel then types as that dispatcher: compiled code calls it as usual). Every
    attribute of the dispatcher (``signatures``, ``overloads``, ``py_func``, …) reads
    through, making it."""

    def __init__(self, func, options: dict):
        functools.update_wrapper(self, func)
        self.py_func = func
        self._options = options
        self._dispatcher = None

    @property
    def dispatcher(self):
        """The Numba dispatcher of this kernel (made on the first call)."""
        made = self._dispatcher
        if made is None:
            with _MAKING:
                made = self._dispatcher
                if made is None:
                    made = self._dispatcher = njit(**self._options)(self.py_func)
        return made

    def __call__(self, *args, **kwargs):
        made = self._dispatcher
        return (made if made is not None else self.dispatcher)(*args, **kwargs)

    def __getattr__(self, name):  # what the instance lacks: the dispatcher's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __reduce__(self):  # by name, as functions pickle
        return _named, (self.__module__, self.__qualname__)

    def __repr__(self) -> str:
        return f"<kernel {self.__module__}.{self.__qualname__}>"


_MAKING = threading.RLock()


def _named(module: str, qualname: str):
    """The kernel ``module.qualname`` (unpickling)."""
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


@typeof_impl.register(Kernel)
def _kernel_type(value, context):
    """A kernel met by Numba (a global called by a kernel, an argument) is its dispatcher."""
    return types.Dispatcher(value.dispatcher)
