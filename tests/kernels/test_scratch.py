"""Work arrays on a kernel's stack (``solver.kernels.scratch``)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.kernels import jit
from solver.kernels.scratch import local, local_int, local_int_zeros, local_zeros
from tests.solver.test_no_qt_import import imported_after

ROWS = 3  # a module-level constant: a shape Numba takes as constant


def _sums(x):
    """Per element of ``x``: the sum of a 3 × 4 block cleared and filled in a loop (with
    compiled kernels off, ``BIELA_JIT=0``, the tests call the NumPy functions)."""
    out = np.empty(x.shape[0])
    for k in range(x.shape[0]):
        block = local_zeros((ROWS, 4))
        for i in range(ROWS):
            block[i, i] += x[k] * (i + 1)  # reads the cleared entry
        out[k] = block.sum()
    return out


def test_local_zeros_is_cleared_at_every_pass_of_a_loop():
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(jit.kernel(_sums, cache=False)(x), x * 6.0)


def _filled(n):
    """``local`` and ``local_int`` written before read; an empty one passes as an array."""
    a = local((2, 2))
    idx = local_int(ROWS)
    none = local_int_zeros(0)
    acc = 0.0
    for k in range(n):
        for i in range(2):
            for j in range(2):
                a[i, j] = k + i - j
        for i in range(ROWS):
            idx[i] = i * k
        acc += a.sum() + idx.sum() + none.shape[0]
    return acc


def test_local_arrays_of_both_types_hold_what_is_written():
    want = sum(4.0 * k + 3.0 * k for k in range(5))
    assert jit.kernel(_filled, cache=False)(5) == want


def _into(out):
    """A local array passed to a kernel that fills it (``_fill``)."""
    a = local(4)
    _fill(a)
    for i in range(4):
        out[i] = a[i]


def _fill(a):
    for i in range(a.shape[0]):
        a[i] = 2.0 * i


@pytest.mark.skipif(not jit.ENABLED, reason="compiled kernels")
def test_a_kernel_without_reference_counting_may_make_local_arrays():
    global _fill  # the callee as a compiled kernel, as the solver's are
    plain = _fill
    _fill = jit.kernel(plain, refcounted=False, cache=False)
    try:
        out = np.zeros(4)
        jit.kernel(_into, refcounted=False, cache=False)(out)
        np.testing.assert_allclose(out, [0.0, 2.0, 4.0, 6.0])
    finally:
        _fill = plain


def _sized(n):
    return local(n)


@pytest.mark.skipif(not jit.ENABLED, reason="compiled kernels")
def test_a_shape_known_only_at_run_time_does_not_compile():
    with pytest.raises(Exception, match="local"):  # Numba's typing error names it
        jit.kernel(_sized, cache=False)(3)


_ALLOCATIONS = """
import json
import numpy as np
from numba.core.runtime import rtsys
from solver.kernels import jit
from solver.kernels.scratch import local_zeros

def heap(x):
    acc = 0.0
    for k in range(x.shape[0]):
        a = np.zeros((3, 3))
        a[0, 0] = x[k]
        acc += a[0, 0]
    return acc

def stack(x):
    acc = 0.0
    for k in range(x.shape[0]):
        a = local_zeros((3, 3))
        a[0, 0] = x[k]
        acc += a[0, 0]
    return acc

counts = {}
for name, f in (("heap", heap), ("stack", stack)):
    k = jit.kernel(f, cache=False)
    k(np.ones(1))
    for n in (10, 1000):
        before = rtsys.get_allocation_stats().alloc
        k(np.ones(n))
        counts[f"{name} {n}"] = rtsys.get_allocation_stats().alloc - before
print(json.dumps(counts))
"""


@pytest.mark.skipif(not jit.ENABLED, reason="compiled kernels")
def test_local_arrays_allocate_nothing(monkeypatch):
    monkeypatch.setenv("NUMBA_NRT_STATS", "1")
    counts = imported_after(_ALLOCATIONS)
    # the counter counts: one array per pass on the heap (and the argument's)
    assert counts["heap 1000"] - counts["heap 10"] == 990
    assert counts["stack 1000"] == counts["stack 10"]  # none per pass


def _escaping_locals(source: str) -> list[str]:
    """``function: name`` for each function of ``source`` that returns an array made by a
    ``local…`` call, directly or under another name (``b = a``, ``b, c = a, x``,
    ``b = a if … else …``); an element or a slice read from it is a copy or a view."""
    import ast

    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef):
            continue

        def pairs(node):  # (target, value) of an assignment, element by element if it can
            for target in node.targets:
                value = node.value
                if (
                    isinstance(target, ast.Tuple)
                    and isinstance(value, ast.Tuple)
                    and len(target.elts) == len(value.elts)
                ):  # b, c = a, x
                    yield from zip(target.elts, value.elts, strict=True)
                else:
                    yield target, value

        def is_local(value) -> bool:
            call = value.func if isinstance(value, ast.Call) else None
            return isinstance(call, ast.Name) and call.id.startswith("local")

        made = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign):
                for to, value in pairs(node):
                    if is_local(value) and isinstance(to, ast.Name):
                        made.add(to.id)

        def names(value) -> set[str]:
            if isinstance(value, ast.Name):
                return {value.id}
            if isinstance(value, (ast.Tuple, ast.List)):
                return set().union(*(names(v) for v in value.elts)) if value.elts else set()
            if isinstance(value, ast.IfExp):
                return names(value.body) | names(value.orelse)
            return set()

        grew = True
        while grew:
            grew = False
            for node in ast.walk(fn):
                if not isinstance(node, ast.Assign):
                    continue
                for to, value in pairs(node):
                    if names(value) & made and names(to) - made:
                        made.update(names(to))
                        grew = True
        for node in ast.walk(fn):
            if isinstance(node, ast.Return) and node.value is not None:
                found += [f"{fn.name}: {n}" for n in sorted(names(node.value) & made)]
    return found


def test_no_kernel_of_the_solver_returns_a_local_array():
    from pathlib import Path

    import solver

    escaping = []
    for path in sorted(Path(solver.__file__).parent.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "local" in text and path.name != "scratch.py":
            escaping += [f"{path.name} {e}" for e in _escaping_locals(text)]
    assert escaping == []


def test_the_escape_check_finds_a_returned_local_array():
    source = """
def direct():
    a = local(3)
    return a

def renamed(x):
    a = local_zeros((2, 2))
    b, c = a, x
    return c, b

def paired(x):
    d, e = np.empty(3), local(3)
    return d, x

def copied():
    a = local(3)
    out = np.empty(3)
    out[0] = a[0]
    return out, a[1]
"""
    assert _escaping_locals(source) == ["direct: a", "renamed: b"]
    assert _escaping_locals(source.replace("return d, x", "return e, x")) == [
        "direct: a", "renamed: b", "paired: e",
    ]  # fmt: skip
