"""Biela's numerics: model description, mechanics, analyses. Never imports Qt or VTK.

Stable API (see the README, "Python")::

    from solver import load_model, save_model, check
    model = load_model("examples/pendulum.json")   # raises ModelError naming the bad item
    report = check(model)                          # degrees of freedom, warnings
    assembly = assemble_model(model)               # poses that close every joint at t = 0
    result = simulate(model, analysis="kinematic", dt=1e-3, t_end=2.0)
    result.to_csv("out.csv")
    for frame in simulate(model, stream=True): ...  # frames as they are computed
    formulation_parameters("penalty")  # each formulation's own parameters, defaults, meaning
    model.requests = [ResultRequest("reactions", ("J1",))]  # or outputs: [{"reactions": "J1"}]
    result.reaction("J1")  # force and torque on body2 at the joint point; effort, ...
    request_columns(model, requests), requested_from_rows(model, columns, rows, requests)
    import_model("folder_or_file")  # MUBODYNA folders, MJCF, URDF → Imported(model, warnings)
    table = study(model, vary={"solver.dt": [1e-3, 5e-4]})  # one row per case, on Dask

``check`` raises ``AssemblyError`` when the joints cannot be closed at t = 0 (``.items`` names
them, ``.residual`` is the remaining ‖Φ‖, ``.report`` the counts and Grübler's DOF).
``Model`` objects pickle and deep-copy exactly.
"""

from typing import TYPE_CHECKING

from solver.version import __version__

#: public name → the module that defines it (imported on first use: ``import solver.model``
#: alone does not load the analyses, the kernels or Numba)
_WHERE = {
    "Assembly": "solver.analysis.assembly",
    "Pose": "solver.analysis.assembly",
    "assemble_model": "solver.analysis.assembly",
    "CheckReport": "solver.analysis.check",
    "check": "solver.analysis.check",
    "Parameter": "solver.analysis.formulations.parameters",
    "formulation_parameters": "solver.analysis.formulations.parameters",
    "AssemblyError": "solver.analysis.kinematics",
    "request_columns": "solver.analysis.outputs",
    "request_for_column": "solver.analysis.outputs",
    "requested_from_rows": "solver.analysis.outputs",
    "rows_suffice": "solver.analysis.outputs",
    "Simulation": "solver.analysis.simulate",
    "simulate": "solver.analysis.simulate",
    "compile_solver": "solver.analysis.warmup",
    "compiled_parts": "solver.analysis.warmup",
    "is_compiled": "solver.analysis.warmup",
    "Imported": "solver.importers",
    "import_model": "solver.importers",
    "write_imported": "solver.importers",
    "Model": "solver.model",
    "ModelError": "solver.model",
    "load_model": "solver.model",
    "save_model": "solver.model",
    "RESULT_REQUESTS": "solver.model.description",
    "ResultRequest": "solver.model.description",
    "Frame": "solver.results",
    "Result": "solver.results",
    "Study": "solver.studies",
    "StudyError": "solver.studies",
    "study": "solver.studies",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from solver.analysis.assembly import Assembly, Pose, assemble_model
    from solver.analysis.check import CheckReport, check
    from solver.analysis.formulations.parameters import Parameter, formulation_parameters
    from solver.analysis.kinematics import AssemblyError
    from solver.analysis.outputs import (
        request_columns,
        request_for_column,
        requested_from_rows,
        rows_suffice,
    )
    from solver.analysis.simulate import Simulation, simulate
    from solver.analysis.warmup import compile_solver, compiled_parts, is_compiled
    from solver.importers import Imported, import_model, write_imported
    from solver.model import Model, ModelError, load_model, save_model
    from solver.model.description import RESULT_REQUESTS, ResultRequest
    from solver.results import Frame, Result
    from solver.studies import Study, StudyError, study

__all__ = [
    "Assembly",
    "AssemblyError",
    "CheckReport",
    "Frame",
    "Imported",
    "Model",
    "ModelError",
    "Parameter",
    "Pose",
    "RESULT_REQUESTS",
    "Result",
    "ResultRequest",
    "Simulation",
    "__version__",
    "assemble_model",
    "check",
    "compile_solver",
    "compiled_parts",
    "formulation_parameters",
    "import_model",
    "is_compiled",
    "load_model",
    "request_columns",
    "request_for_column",
    "requested_from_rows",
    "rows_suffice",
    "save_model",
    "simulate",
    "write_imported",
    "study",
    "Study",
    "StudyError",
]
