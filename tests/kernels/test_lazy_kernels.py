"""Kernels whose Numba dispatcher is made on first use (``jit.Kernel``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from solver.kernels import jit, small
from tests.solver.test_no_qt_import import imported_after

pytestmark = pytest.mark.skipif(not jit.ENABLED, reason="compiled kernels")


def _twice(x):
    return 2.0 * x


def _sum_of_twice(a):
    acc = 0.0
    for v in a:
        acc += _callee(v)
    return acc


_callee = None  # set by the test: the kernel that _sum_of_twice calls


def test_a_kernel_makes_its_dispatcher_when_first_called():
    k = jit.kernel(_twice, cache=False)
    assert k._dispatcher is None
    assert k(1.5) == 3.0
    assert k._dispatcher is not None
    assert len(k.signatures) == 1  # the dispatcher's attributes read through
    assert k(x=2.5) == 5.0  # by keyword, as the dispatcher takes them


def test_a_kernel_called_by_a_kernel_is_made_when_the_caller_compiles(monkeypatch):
    callee = jit.kernel(_twice, cache=False)
    monkeypatch.setitem(globals(), "_callee", callee)
    caller = jit.kernel(_sum_of_twice, cache=False)
    assert caller(np.array([1.0, 2.0])) == 6.0
    assert callee._dispatcher is not None  # typed as its dispatcher, compiled with it


def test_a_kernel_pickles_by_name():
    assert pickle.loads(pickle.dumps(small.mat_vec)) is small.mat_vec


_MADE = """
import json
from numba.core import dispatcher
made = []
init = dispatcher.Dispatcher.__init__
def counting(self, *args, **kwargs):
    made.append(self.py_func.__qualname__)
    init(self, *args, **kwargs)
dispatcher.Dispatcher.__init__ = counting
from solver.kernels import system  # several hundred kernels, with the modules it imports
print(json.dumps({"made": made}))
"""


def test_importing_the_kernels_makes_no_dispatcher():
    assert imported_after(_MADE) == {"made": []}
