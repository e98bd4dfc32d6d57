"""Loading a cached kernel without parsing the code kept for linking it.

Numba caches each compiled kernel as its machine code (an object file) and its LLVM
bitcode, which it needs only to link the kernel into a kernel compiled later. On loading,
it parses that bitcode at once, to list the symbols the object defines: about 80 % of
the time a warm run spends loading its kernels (0.22 of 0.28 s for a short augmented-
Lagrangian run, whose time steps alone keep 3.6 MB of bitcode).

:func:`install` makes the load read the defined symbols from the object file's symbol
table instead (ELF, 64-bit little-endian: Linux on x86-64 and AArch64), and parse the
bitcode only when something links the kernel. An object file of another format, or a
Numba without the steps this relies on (``CPUCodeLibrary._unserialize``,
``_set_compiled_object``, ``_finalize_final_module``, the engine's set of defined
symbols), loads as usual.

Numba also refreshes its target before every load: it imports and registers the
implementations of everything it can compile (its NumPy, linear-algebra, random, typed
containers and CPython modules; SciPy's BLAS with them) and initialises its reference-
counting runtime, about 0.09 s of a warm run's start-up. Machine code loaded from the
cache needs only the runtime; :func:`install` makes the loads initialise just that, and
leaves the rest to the first compile, which refreshes the target itself (and a cached
kernel that calls BLAS or LAPACK imports SciPy's on its first call, as Numba's compiled
code always does).
"""

from __future__ import annotations

import struct
import threading
import time

_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym
_SYMTAB, _UNDEFINED, _GLOBAL, _WEAK = 2, 0, 1, 2


def elf_symbols(obj: bytes):
    """``(name, info, section, value, size)`` of every named symbol in the symbol tables of
    the 64-bit little-endian ELF object file ``obj`` (``info``: binding << 4 | type; the
    section 0 for an undefined one). Raises ``ValueError`` if ``obj`` is not one, and
    ``struct.error``, ``IndexError`` or ``UnicodeDecodeError`` if it is malformed."""
    if obj[:6] != b"\x7fELF\x02\x01":
        raise ValueError("not a 64-bit little-endian ELF object")
    (offset,) = struct.unpack_from("<Q", obj, 0x28)
    size, count = struct.unpack_from("<HH", obj, 0x3A)
    sections = [_SECTION.unpack_from(obj, offset + i * size) for i in range(count)]
    for _, kind, _, _, start, length, link, _, _, entry in sections:
        if kind != _SYMTAB or entry != _SYMBOL.size:
            continue
        strings_at = sections[link][4]
        for at in range(start, start + length, entry):
            name, info, _, section, value, extent = _SYMBOL.unpack_from(obj, at)
            if name:
                end = obj.index(b"\0", strings_at + name)
                yield obj[strings_at + name : end].decode(), info, section, value, extent


def defined_symbols(obj: bytes) -> set[str] | None:
    """The names of the global and weak symbols that the ELF object file ``obj`` defines
    (those a linker or a JIT engine can find in it), or ``None`` if ``obj`` is not a
    64-bit little-endian ELF file with a symbol table, or defines none (the caller then
    loads the object as Numba does)."""
    try:
        names = {
            name
            for name, info, section, _, _ in elf_symbols(obj)
            if section != _UNDEFINED and info >> 4 in (_GLOBAL, _WEAK)
        }
    except (struct.error, ValueError, IndexError, UnicodeDecodeError):
        return None
    return names or None


#: per thread (a load runs in the thread that calls the kernel): the seconds spent loading
#: kernels from the cache (:func:`load_seconds`) and the depth of the loads under way (a
#: load inside another counts once)
_loading = threading.local()


def load_seconds() -> float:
    """The seconds the calling thread has spent so far loading cached kernels (machine code
    read, linked and initialised; 0 where this Numba does not allow :func:`install`): a
    part of the process's start-up, paid by the first run that calls each kernel."""
    return getattr(_loading, "seconds", 0.0)


class _LinkingModule:
    """``CPUCodeLibrary._shared_module``: the module to link into later kernels, parsed
    from its bitcode the first time it is read."""

    def __init__(self, parse) -> None:
        self._parse = parse

    def __get__(self, library, owner=None):
        if library is None:
            return self
        state = library.__dict__
        pending = state.pop("_linking_bitcode", None)
        if pending is not None:
            state["_linking_module"] = self._parse(pending)
        return state.get("_linking_module")

    def __set__(self, library, module) -> None:
        library.__dict__.pop("_linking_bitcode", None)
        library.__dict__["_linking_module"] = module


def _load_with_runtime_only() -> bool:
    """Make ``Cache.load_overload`` initialise only Numba's runtime where it refreshes the
    whole target; returns whether this Numba allowed it."""
    try:
        from numba.core import caching
        from numba.core.runtime import rtsys

        original = caching.Cache.__dict__["load_overload"]
        rtsys.initialize  # noqa: B018 (the step this relies on)
    except (ImportError, AttributeError, KeyError):
        return False
    if getattr(original, "runtime_only", False):
        return True

    def load_overload(self, sig, target_context):
        state = target_context.__dict__
        outer = state.get("refresh")  # loads run under Numba's compiler lock
        state["refresh"] = lambda: rtsys.initialize(target_context)
        start = time.perf_counter()
        depth = getattr(_loading, "depth", 0)
        _loading.depth = depth + 1
        try:
            return original(self, sig, target_context)
        finally:
            _loading.depth = depth
            if not depth:
                _loading.seconds = load_seconds() + time.perf_counter() - start
            if outer is None:
                del state["refresh"]
            else:
                state["refresh"] = outer

    load_overload.runtime_only = True
    caching.Cache.load_overload = load_overload
    return True


def install() -> bool:
    """Load cached kernels without parsing their bitcode until it is needed, and without
    refreshing Numba's target (its runtime only); returns whether this Numba allowed the
    first. Installing twice is one."""
    _load_with_runtime_only()
    try:
        import llvmlite.binding as ll
        from numba.core import codegen

        library_class = codegen.CPUCodeLibrary
        original = library_class.__dict__["_unserialize"].__func__
        for step in ("_set_compiled_object", "_finalize_final_module", "enable_object_caching"):
            getattr(library_class, step)
    except (ImportError, AttributeError, KeyError):
        return False
    if getattr(original, "lazy_linking", False):
        return True

    def unserialize(cls, codegen, state):
        name, kind, data = state
        symbols = defined_symbols(data[0]) if kind == "object" else None
        engine = getattr(codegen, "_engine", None)
        if not symbols or not isinstance(getattr(engine, "_defined_symbols", None), set):
            return original(cls, codegen, state)
        object_code, linking_bitcode = data
        library = codegen.create_library(name)
        library.enable_object_caching()
        library._set_compiled_object(object_code)
        library.__dict__["_linking_bitcode"] = linking_bitcode
        library._finalize_final_module()
        engine._defined_symbols |= symbols
        return library

    unserialize.lazy_linking = True
    library_class._shared_module = _LinkingModule(ll.parse_bitcode)
    library_class._unserialize = classmethod(unserialize)
    return True
