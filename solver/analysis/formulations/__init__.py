"""Dynamic formulations (docs/model_format.md §11), one module each, behind ``Formulation``."""

from __future__ import annotations

import importlib

from solver.analysis.formulations.base import DynamicState, Formulation
from solver.analysis.formulations.parameters import Parameter, formulation_parameters
from solver.model.errors import UnsupportedFeature

#: formulation name → (module, class)
REGISTRY = {
    "lagrange_baumgarte": ("solver.analysis.formulations.lagrange_baumgarte", "LagrangeBaumgarte"),
    "penalty": ("solver.analysis.formulations.penalty", "Penalty"),
    "augmented_lagrangian": (
        "solver.analysis.formulations.augmented_lagrangian",
        "AugmentedLagrangian",
    ),
    "null_space": ("solver.analysis.formulations.null_space", "NullSpace"),
    "central_differences": (
        "solver.analysis.formulations.central_differences",
        "CentralDifferences",
    ),
    "index3_newmark": ("solver.analysis.formulations.index3_newmark", "Index3Newmark"),
}


def formulation_class(name: str) -> type[Formulation]:
    """The class implementing formulation ``name`` (``UnsupportedFeature`` if this version
    has none)."""
    if name not in REGISTRY:
        raise UnsupportedFeature(
            "solver",
            f'"{name}" is not a formulation of this version (available: {", ".join(REGISTRY)})',
            "formulation",
        )
    module, cls = REGISTRY[name]
    try:
        return getattr(importlib.import_module(module), cls)
    except ModuleNotFoundError:
        raise UnsupportedFeature(
            "solver", f'"{name}" is not available in this version of the solver', "formulation"
        ) from None


__all__ = [
    "REGISTRY",
    "DynamicState",
    "Formulation",
    "Parameter",
    "formulation_class",
    "formulation_parameters",
]
