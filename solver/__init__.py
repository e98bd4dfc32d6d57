"""Biela's numerics: model description, mechanics, analyses. Never imports Qt or VTK.

Stable API (DESIGN §2)::

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
from solver.analysis.warmup import compile_solver, is_compiled
from solver.importers import Imported, import_model, write_imported
from solver.model import Model, ModelError, load_model, save_model
from solver.model.description import RESULT_REQUESTS, ResultRequest
from solver.results import Frame, Result
from solver.studies import Study, StudyError, study
from solver.version import __version__  # noqa: E402

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
