"""Biela's numerics: model description, mechanics, analyses. Never imports Qt or VTK.

Stable API (DESIGN §2)::

    from solver import load_model, save_model, check
    model = load_model("examples/pendulum.json")   # raises ModelError naming the bad item
    report = check(model)                          # degrees of freedom, warnings
    result = simulate(model, analysis="kinematic", dt=1e-3, t_end=2.0)
    result.to_csv("out.csv")
    for frame in simulate(model, stream=True): ...  # frames as they are computed
    formulation_parameters("penalty")  # each formulation's own parameters, defaults, meaning

``check`` raises ``AssemblyError`` when the joints cannot be closed at t = 0 (``.items`` names
them, ``.residual`` is the remaining ‖Φ‖). ``Model`` objects pickle and deep-copy exactly.
"""

from solver.analysis.check import CheckReport, check
from solver.analysis.formulations.parameters import Parameter, formulation_parameters
from solver.analysis.kinematics import AssemblyError
from solver.analysis.simulate import Simulation, simulate
from solver.model import Model, ModelError, load_model, save_model
from solver.results import Frame, Result

__version__ = "0.1.0"

__all__ = [
    "AssemblyError",
    "CheckReport",
    "Frame",
    "Model",
    "ModelError",
    "Parameter",
    "Result",
    "Simulation",
    "__version__",
    "check",
    "formulation_parameters",
    "load_model",
    "save_model",
    "simulate",
]
