"""SciPy's modules, imported when first used.

Importing ``scipy.sparse`` and ``scipy.linalg`` takes about 0.1 s, a quarter of a short
warm run's start-up, and a small system stepping compiled uses neither: its matrices are
dense and assembled by the kernels, its renumbering is ``solver.analysis.reordering``'s.
The solver's modules therefore name SciPy's through these stand-ins, which import the
module when one of its attributes is first read (and keep the attribute).
"""

from __future__ import annotations

import importlib
import sys


class _Module:
    """The SciPy module ``name``, imported when one of its attributes is first read."""

    def __init__(self, name: str) -> None:
        self.__dict__["_name"] = name

    def __getattr__(self, attribute: str):
        value = getattr(importlib.import_module(self.__dict__["_name"]), attribute)
        self.__dict__[attribute] = value
        return value

    def __repr__(self) -> str:
        return f"<SciPy's {self.__dict__['_name']}, imported on first use>"


sparse = _Module("scipy.sparse")
sparse_linalg = _Module("scipy.sparse.linalg")
linalg = _Module("scipy.linalg")
lapack = _Module("scipy.linalg.lapack")
integrate = _Module("scipy.integrate")


def issparse(x) -> bool:
    """Whether ``x`` is a SciPy sparse matrix or array (without importing SciPy's sparse
    module: nothing is one before it is imported)."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and module.issparse(x)
