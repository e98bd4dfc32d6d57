"""Result quantities computed on request from each output state: joint reactions, driver
efforts, body accelerations, joint coordinates (``outputs: [{"reactions": "J1"}]``).

They are computed after the step, from the state alone, in reference-point coordinates
whatever the coordinates and the formulation of the run, so they mean the same for every
formulation and analysis (``state``, ``multipliers``, ``reactions``, ``joint_coordinates``,
``requested``).
"""

from solver.analysis.outputs.requested import (
    RequestedOutputs,
    request_columns,
    request_for_column,
    requested_from_rows,
    rows_suffice,
)

__all__ = [
    "RequestedOutputs",
    "request_columns",
    "request_for_column",
    "requested_from_rows",
    "rows_suffice",
]
