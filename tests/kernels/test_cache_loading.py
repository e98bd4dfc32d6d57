"""Cached kernels load without parsing the bitcode kept for linking them."""

from __future__ import annotations

import sys

import pytest

from solver.kernels import cache_loading, jit
from tests.solver.test_no_qt_import import imported_after

pytestmark = pytest.mark.skipif(not jit.ENABLED, reason="compiled kernels")

_LOAD = """
import json
import numpy as np
from solver.kernels import cache_loading, small
seen = {}
read = cache_loading.defined_symbols
def reading(obj):
    seen[len(seen)] = found = read(obj)
    return found
cache_loading.defined_symbols = reading
y = small.mat_vec(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0]))
library = small.mat_vec.overloads[small.mat_vec.signatures[0]].library
pending = library.__dict__.get("_linking_bitcode") is not None
external = sorted(
    fn.name for fn in library._get_module_for_linking().functions
    if not fn.is_declaration and str(fn.linkage) != "Linkage.internal"
)
symbols = set().union(*[s for s in seen.values() if s and set(external) & s])
print(json.dumps({"y": y.tolist(), "pending": pending, "external": external,
                  "symbols": sorted(symbols)}))
"""


def _load() -> dict:
    return imported_after(_LOAD)


def test_a_cached_kernel_loads_lazily_runs_and_links():
    if not cache_loading.install():
        pytest.skip("this Numba loads its cache its own way")
    _load()  # compiles and caches the kernel if it was not
    loaded = _load()
    assert loaded["y"] == [-1.0, -1.0]
    if sys.platform != "linux":
        return  # other object formats load as Numba does
    assert loaded["pending"]  # the bitcode was not parsed to load and call the kernel
    # every function the kernel's module exports is found among the object's symbols
    assert loaded["external"] and set(loaded["external"]) <= set(loaded["symbols"])


def test_the_symbols_of_anything_but_an_elf_object_are_unknown():
    assert cache_loading.defined_symbols(b"\xcf\xfa\xed\xfe" + bytes(60)) is None
    assert cache_loading.defined_symbols(b"\x7fELF\x02\x01" + bytes(10)) is None


_RUNTIME_ONLY = """
import json, sys
import numpy as np
from solver.kernels import small
y = small.mat_vec(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0]))
registries = "numba.np.arraymath" in sys.modules
import numba
@numba.njit
def fresh(a):  # a compile after the load: Numba refreshes its target then
    return np.dot(a, a) + np.sum(a)
print(json.dumps({"y": y.tolist(), "registries": registries,
                  "fresh": fresh(np.arange(3.0))}))
"""


def test_a_cached_kernel_loads_with_numbas_runtime_only_and_compiling_still_works():
    """Loading from the cache imports none of Numba's implementations (0.09 s of a warm
    start-up); a compile afterwards gets them all and computes as always."""
    _load()  # the kernel cached
    got = imported_after(_RUNTIME_ONLY)
    assert got["y"] == [-1.0, -1.0]
    assert not got["registries"]
    assert got["fresh"] == 8.0


_TIMED = """
import json, threading
import numpy as np
from solver.kernels import cache_loading, small
seen = {}
def load():
    small.mat_vec(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0]))
    seen["thread"] = cache_loading.load_seconds()
worker = threading.Thread(target=load)
worker.start()
worker.join()
print(json.dumps({"thread": seen["thread"], "main": cache_loading.load_seconds()}))
"""


def test_the_time_spent_loading_is_counted_for_the_thread_that_loads():
    """``load_seconds`` (what a run's ``load_time_s`` reads) counts the loads of the calling
    thread only: a kernel another thread loads meanwhile is not taken out of this thread's
    run time."""
    if not cache_loading.install():
        pytest.skip("this Numba loads its cache its own way")
    _load()  # the kernel cached
    got = imported_after(_TIMED)
    assert got["thread"] > 0.0
    assert got["main"] == 0.0
