"""How hard LLVM optimises the code of each compiled kernel.

Numba compiles every kernel into a module of its own, links into it the modules of the
kernels it calls (already optimised on their own) and optimises the linked whole again,
at LLVM's -O3 with loop vectorisation, before it makes machine code. So every kernel
optimises again everything under it, and a kernel that assembles the system (a loop over
the items of a model, a formulation's time steps) optimises every element kernel once
more: most of the time of a first compile goes there.

So only the leaves of the call tree get -O3: the kernels marked
``@kernel(full_optimisation=True)``, which compute one item (an element, a joint's rows, a
marker, a force element or contact law, a time function, a rotation) or factorise a
matrix; the kernels they are linked into keep that code. The kernels that assemble (a loop
over a model's items, the system's entries, a formulation's steps) are optimised at -O1
(their own functions, then their module with their callees linked in): their own code is
calls, index arithmetic and short loops, and -O1 keeps LLVM's loop vectorisation (without
it the 64-bar chain's steps were 7 % slower). Measured on two cores (``python -m
solver.compiled --jobs 2`` on an empty cache, before and after in turn): 201 → 159 s and
209 → 182 s; the steps of the spatial four-bar about 4 % slower, of the 64-bar chain, the
ANCF slider and Newton's cradle within the noise of 2 %.

Numba reads its optimisation level (``numba.core.config.OPT``) when it optimises;
:func:`install` wraps those two steps (``CPUCodeLibrary._optimize_functions`` and
``_optimize_final_module``) to set it for the lightly optimised kernels only, under
Numba's compiler lock. A Numba without those steps, or with ``NUMBA_OPT`` set to ``max``
or below 2, compiles every kernel as usual: slower to compile, never different in result.
"""

from __future__ import annotations

#: the LLVM optimisation level of a lightly optimised kernel (its functions and its module)
LIGHT_LEVEL = 1

#: ``(library name, mangled-name prefix)`` of every lightly optimised kernel
_LIGHT: set[tuple[str, str]] = set()

#: the names of the libraries optimised at ``LIGHT_LEVEL`` in this process (for tests)
LIGHTLY_OPTIMISED: list[str] = []


def mangled_prefix(module: str, qualname: str) -> str:
    """The start of the symbol Numba gives the function ``module.qualname`` (Itanium
    mangling: each dotted part as its length and its text)."""
    return "_ZN" + "".join(f"{len(p)}{p}" for p in f"{module}.{qualname}".split("."))


def mark_light(func) -> None:
    """Optimise the linked module of ``func`` (a plain Python function about to be
    compiled) at ``LIGHT_LEVEL``."""
    _LIGHT.add((func.__qualname__, mangled_prefix(func.__module__, func.__qualname__)))


def _is_light(library, module=None) -> bool:
    """Whether ``library`` (a Numba code library) is the compiled code of a lightly
    optimised kernel: its name is the kernel's and ``module`` (an LLVM module of it; its
    linked module by default) defines the kernel's function (names alone are not unique
    across modules)."""
    prefixes = [p for name, p in _LIGHT if name == library.name]
    if not prefixes:
        return False
    functions = (library._final_module if module is None else module).functions
    return any(
        fn.name.startswith(p) and not fn.is_declaration for fn in functions for p in prefixes
    )


def install() -> bool:
    """Wrap Numba's optimisation of a kernel's functions and of its linked module so that
    the lightly optimised kernels get ``LIGHT_LEVEL``; returns whether this Numba allowed it. Installing twice is one."""
    try:
        from numba.core import codegen, config

        library_class = codegen.CPUCodeLibrary
        original = library_class._optimize_final_module
        library_class._optimize_functions  # noqa: B018 (the step must exist)
        level_type = type(config.OPT)
    except (ImportError, AttributeError):
        return False
    if getattr(original, "level_aware", False):
        return True
    if getattr(config.OPT, "is_opt_max", False) or int(config.OPT) <= LIGHT_LEVEL:
        return False

    def at_light_level(step):
        """``step(self, *args)`` run at ``LIGHT_LEVEL`` for a lightly optimised kernel."""

        def run(self, *args):
            if not _is_light(self, *args):
                return step(self, *args)
            saved = config.OPT
            config.OPT = level_type(LIGHT_LEVEL)
            try:
                return step(self, *args)
            finally:
                config.OPT = saved
                if not args:
                    LIGHTLY_OPTIMISED.append(self.name)

        run.level_aware = True
        return run

    # each function of the kernel's own module, then the module with its callees linked in
    library_class._optimize_functions = at_light_level(library_class._optimize_functions)
    library_class._optimize_final_module = at_light_level(original)
    return True
