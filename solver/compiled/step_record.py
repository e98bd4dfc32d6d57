"""Where a compiled stepper writes its steps (:class:`StepRecord`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class StepRecord(NamedTuple):
    """The per-step output buffers of a compiled stepper: row ``k`` of ``out`` gets step
    ``k``'s scalars (columns ``OUT_*`` of the stepper's module), ``q``, ``qd``, ``qdd``
    its state and ``lam`` its multipliers (where the stepper gives them); the energies
    only where ``want[k]`` (where the stepper skips them elsewhere)."""

    out: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    want: np.ndarray
