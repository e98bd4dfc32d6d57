"""Studies: parameter sweeps, Monte Carlo samples and formulation comparisons on Dask.

``study(model, vary={"solver.dt": [1e-3, 5e-4]}, ...)`` runs one case per grid point (and
sample), locally on a ``LocalCluster`` or on a Dask cluster, and returns one table row per
case. Modules, from the bottom up: ``keys`` (dotted paths into the model data), ``values``
(values and distributions), ``cases`` (the grid and the draws, validated), ``run`` (one
case on a worker), ``reference`` (distances from a reference solution), ``table`` (the
rows and ``study.csv``), ``engine`` (the Dask client), ``warmup`` (the compiled code, once
per host), ``study`` (the ``Study`` and ``study``), ``output`` (the study folder),
``plots`` (the comparison figures, matplotlib). Importing this package imports neither
Dask nor pandas nor matplotlib: they load when a study runs.
"""

from solver.studies.engine import default_workers
from solver.studies.errors import StudyError
from solver.studies.keys import get_value, leaf_keys, set_value
from solver.studies.study import AUTO, Study, study
from solver.studies.table import write_csv
from solver.studies.values import Distribution, parse_distribution, parse_values

__all__ = [
    "AUTO",
    "Distribution",
    "Study",
    "StudyError",
    "default_workers",
    "get_value",
    "leaf_keys",
    "parse_distribution",
    "parse_values",
    "set_value",
    "study",
    "write_csv",
]
