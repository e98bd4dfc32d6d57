"""Biela's numerics: model description, mechanics, analyses. Never imports Qt or VTK.

Stable API (DESIGN §2)::

    from solver import load_model, save_model, check
    model = load_model("examples/pendulum.json")   # raises ModelError naming the bad item
    report = check(model)                          # degrees of freedom, warnings
    result = simulate(model, analysis="kinematic", dt=1e-3, t_end=2.0)
    result.to_csv("out.csv")
    for frame in simulate(model, stream=True): ...  # frames as they are computed
"""

from solver.analysis.check import CheckReport, check
from solver.analysis.simulate import Simulation, simulate
from solver.model import Model, ModelError, load_model, save_model
from solver.results import Frame, Result

__version__ = "0.1.0"

__all__ = [
    "CheckReport",
    "Frame",
    "Model",
    "ModelError",
    "Result",
    "Simulation",
    "__version__",
    "check",
    "load_model",
    "save_model",
    "simulate",
]
