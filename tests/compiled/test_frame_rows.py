"""The frames of the compiled steppers' rows of scalars: every column in its field."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis.compiled_steps import _frame
from solver.compiled import augmented_lagrangian, central_differences, null_space

FIELDS = {
    "OUT_T": "t",
    "OUT_KIN": "kinetic",
    "OUT_POT": "potential",
    "OUT_ELA": "elastic",
    "OUT_WORK": "work",
    "OUT_PHI": "constraint_position",
    "OUT_PHIV": "constraint_velocity",
    "OUT_ITS": "iterations",
}


@pytest.mark.parametrize("mod", [augmented_lagrangian, central_differences, null_space])
def test_each_column_lands_in_its_field(mod):
    row = [float(10 + i) for i in range(mod.N_OUT)]
    q, qd, qdd = np.zeros(3), np.ones(3), np.full(3, 2.0)
    frame = _frame(row, q, qd, qdd, mod)
    for column, field in FIELDS.items():
        assert getattr(frame, field) == row[getattr(mod, column)], field
    assert frame.q is q and frame.qd is qd and frame.qdd is qdd
    assert frame.row is None and frame.substep is None
