"""The system's arrays as one reference: what the compiled kernels take as ``P`` and ``pt``.

A ``NamedTuple`` of arrays is passed to a compiled function *by value*: every call and every
entry from Python unpacks each of its 45 arrays (pointer, shape, strides, reference count),
which made up most of the time to compile the kernels. A Numba ``StructRef`` with the same
fields is one pointer, and the kernels read its fields with the same ``P.name`` syntax, so
their source does not change. :func:`system_struct` and :func:`patterns_struct` wrap a
:class:`~solver.kernels.system.SystemArrays` and a :class:`~solver.kernels.system.Patterns`
(their arrays are shared, not copied: writes through the struct, such as a joint torque's
last angle, are seen in the tuple). With ``BIELA_JIT=0`` they return the tuples themselves.

Python code reads the tuples (``MultibodySystem.packed``); the structs are only passed on.
"""

from __future__ import annotations

from numba.core import types
from numba.experimental import structref

from solver.kernels import jit
from solver.kernels.jit import kernel
from solver.kernels.system import Patterns, SystemArrays


class _Struct(types.StructRef):
    def preprocess_fields(self, fields):
        # literal field types (an int given as a constant) would make one type per value
        return tuple((name, types.unliteral(t)) for name, t in fields)


@structref.register
class SystemType(_Struct):
    """Numba type of :class:`SystemStruct`."""


class SystemStruct(structref.StructRefProxy):
    """:class:`SystemArrays` by reference."""


@structref.register
class PatternsType(_Struct):
    """Numba type of :class:`PatternsStruct`."""


class PatternsStruct(structref.StructRefProxy):
    """:class:`Patterns` by reference."""


structref.define_proxy(SystemStruct, SystemType, list(SystemArrays._fields))
structref.define_proxy(PatternsStruct, PatternsType, list(Patterns._fields))


@kernel(full_optimisation=True)
def _system(P):
    return SystemStruct(*P)


@kernel(full_optimisation=True)
def _patterns(pt):
    return PatternsStruct(*pt)


def system_struct(P: SystemArrays):
    """``P`` as the kernels take it (the tuple itself when kernels are not compiled)."""
    return _system(P) if jit.ENABLED else P


def patterns_struct(pt: Patterns):
    """``pt`` as the kernels take it (the tuple itself when kernels are not compiled)."""
    return _patterns(pt) if jit.ENABLED else pt
