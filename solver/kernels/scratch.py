"""Small fixed-size work arrays on a kernel's stack: no allocation, no reference count.

``local(shape)``, ``local_zeros(shape)`` (float64) and ``local_int(shape)``,
``local_int_zeros(shape)`` (int64) are ``np.empty`` and ``np.zeros`` for a shape of
integer constants: numbers written in the source or module-level constants by name
(``local((3, 4))``, ``local(SLOTS)``; not ``local(pl.SLOTS)``, whose value Numba does not
take as a constant, nor an expression such as ``2 * n``). In a compiled kernel the array
lives in the kernel's stack frame: its memory is reserved once, at the kernel's entry, so
a ``local`` inside a loop is the same memory at every pass (as with ``np.empty`` it holds
whatever was left there; ``local_zeros`` clears it each time it is reached). It costs
neither the heap allocation nor the atomic reference counts of a NumPy array, which on the
small models are a good part of a step's time (a joint's 3 × 4 blocks, a force element's
loads: hundreds per step), and kernels compiled without reference counting may make them.

A local array must not outlive its kernel: never return it, never keep it in something
returned; pass it down to the kernels it calls. A shape that is not constant is a typing
error when the kernel compiles. With compiled kernels off (``BIELA_JIT=0``) they are the
NumPy functions.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from solver.kernels.jit import ENABLED


def _dims(shape) -> tuple[int, ...] | None:
    """The dimensions of a constant shape type, else ``None``."""
    if isinstance(shape, types.IntegerLiteral):
        return (shape.literal_value,)
    if isinstance(shape, types.BaseTuple) and all(
        isinstance(s, types.IntegerLiteral) for s in shape
    ):
        return tuple(s.literal_value for s in shape)
    return None


def _codegen(element, dims: tuple[int, ...], clear: bool, array_type):
    """Lowering of a C-ordered ``dims`` array over memory reserved in the calling
    function's entry block (no meminfo: nothing to count or free); cleared if ``clear``."""
    size = int(np.prod(dims, dtype=np.int64))

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        value_type = context.get_value_type(element)
        data = cgutils.alloca_once(builder, value_type, size=max(1, size))
        itemsize = context.get_abi_sizeof(context.get_data_type(element))
        if clear and size:
            cgutils.memset(builder, data, intp(size * itemsize), 0)
        strides, step = [], itemsize
        for d in reversed(dims):
            strides.insert(0, step)
            step *= d
        array = context.make_array(array_type)(context, builder)
        populate_array(
            array,
            data=data,
            shape=[intp(d) for d in dims],
            strides=[intp(s) for s in strides],
            itemsize=itemsize,
            meminfo=None,
        )
        return array._getvalue()

    return codegen


def _make(name: str, element, clear: bool):
    """The intrinsic ``name(shape) → array`` of ``element`` on the caller's stack."""

    def typer(typingctx, shape):
        dims = _dims(shape)
        if dims is None:
            return None  # Numba tries the constants' literal types next, else reports
        array_type = types.Array(element, len(dims), "C")
        return array_type(shape), _codegen(element, dims, clear, array_type)

    typer.__name__ = typer.__qualname__ = name
    return intrinsic(typer)


if ENABLED:
    local = _make("local", types.float64, False)
    local_zeros = _make("local_zeros", types.float64, True)
    local_int = _make("local_int", types.int64, False)
    local_int_zeros = _make("local_int_zeros", types.int64, True)
else:

    def local(shape):
        return np.empty(shape)

    def local_zeros(shape):
        return np.zeros(shape)

    def local_int(shape):
        return np.empty(shape, np.int64)

    def local_int_zeros(shape):
        return np.zeros(shape, np.int64)
