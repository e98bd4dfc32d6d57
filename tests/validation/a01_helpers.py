"""Shared helpers for the IFToMM A01 pendulum checks of the formulation tests.

The pendulum (``examples/pendulum.json``) is released from rest with the bob at x = L,
y = 0 (hinge at the origin, gravity along −y), so the bob passes below the hinge (x = 0)
at T/4, 3T/4, 5T/4, …, and ``vy`` vanishes at every quarter period (turning points and
the bottom). Times in s, positions in m.
"""

from __future__ import annotations

import numpy as np


def zero_crossings(t: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Times where the sampled ``v(t)`` changes sign, linearly interpolated."""
    t, v = np.asarray(t, dtype=float), np.asarray(v, dtype=float)
    k = np.flatnonzero(np.sign(v[:-1]) * np.sign(v[1:]) < 0)
    return t[k] - v[k] * (t[k + 1] - t[k]) / (v[k + 1] - v[k])


def period_from_bottom_passes(t: np.ndarray, x: np.ndarray) -> float:
    """Period from the first two passes of the bob below the hinge (x = 0): twice their
    spacing. Needs a run of at least 3T/4 (1.8 s for A01)."""
    tc = zero_crossings(t, x)
    assert len(tc) >= 2, "the bob passed below the hinge fewer than twice"
    return 2.0 * float(tc[1] - tc[0])


def result_period(result, body: str = "bob") -> float:
    """``period_from_bottom_passes`` on a ``Result``'s ``<body>.x`` column."""
    return period_from_bottom_passes(result.t, result.column(f"{body}.x"))


def period_from_quarter_crossings(t: np.ndarray, vy: np.ndarray) -> tuple[float, np.ndarray]:
    """Period from every zero of ``vy`` (one each quarter period) by a least-squares line
    through them: ``(period, crossing times)``. Uses the whole run, so it averages the
    sampling error of single crossings."""
    tc = zero_crossings(t, vy)
    assert len(tc) >= 3, "fewer than three quarter periods in the run"
    quarter = np.polyfit(np.arange(len(tc)), tc, 1)[0]
    return 4.0 * float(quarter), tc


def max_energy_drift(totals) -> float:
    """``max |E(t) − E(0)|`` over a sequence of ``energy.total`` values (J)."""
    e = np.asarray(list(totals), dtype=float)
    return float(np.abs(e - e[0]).max())
