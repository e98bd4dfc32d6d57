"""Result quantities the "Add plot…" dialog offers beyond the run's own columns: the
reactions, driver efforts, accelerations and joint coordinates of every joint, driver and
body (``outputs`` requests), computed from the finished run's rows when first plotted
(``solver.requested_from_rows``; models of rigid bodies and point masses)."""

from __future__ import annotations

from solver import (
    RESULT_REQUESTS,
    ResultRequest,
    request_columns,
    request_for_column,
    requested_from_rows,
    rows_suffice,
)
from solver.model import Model


def available(model: Model | None, run) -> list[str]:
    """Every quantity that can be plotted: the run's own and the computable ones."""
    names = run.quantities()
    if model is None or not rows_suffice(model):
        return names
    every = [ResultRequest(kind) for kind in RESULT_REQUESTS]
    have = set(names)
    return names + [c for c in request_columns(model, every) if c not in have]


def ensure(model: Model | None, run, names, analysis: str = "dynamic") -> list[str]:
    """Compute the quantities among ``names`` that the run does not hold yet (each whole
    request: all columns of the joint, driver or body) and add them to ``run``; the columns
    added. Raises ``ValueError`` with a sentence for the user when that is not possible."""
    have = set(run.quantities())
    missing = [n for n in names if n not in have]
    if not missing:
        return []
    if model is None or not rows_suffice(model):
        raise ValueError("these quantities are computed after a run for rigid bodies only")
    if run.status == "running":
        raise ValueError("wait for the run to end to compute them")
    added: list[str] = []
    for name in missing:
        if name in added:
            continue
        request = request_for_column(model, name)
        if request is None:
            raise ValueError(f'"{name}" is not a quantity of this model')
        columns, values = requested_from_rows(model, run.columns, run.data, [request], analysis)
        new = [c for c in columns if c not in run.columns]
        run.add_columns(new, values[:, [columns.index(c) for c in new]])
        added += new
    return added
