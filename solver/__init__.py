"""Biela's numerics: model description, mechanics, analyses. Never imports Qt or VTK.

Stable API (DESIGN §2)::

    from solver import load_model, save_model, check
    model = load_model("examples/pendulum.json")   # raises ModelError naming the bad item
    report = check(model)                          # degrees of freedom, warnings
"""

from solver.analysis.check import CheckReport, check
from solver.model import Model, ModelError, load_model, save_model

__version__ = "0.1.0"

__all__ = ["CheckReport", "Model", "ModelError", "__version__", "check", "load_model", "save_model"]
