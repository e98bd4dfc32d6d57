"""What the workbench says about a finished run: counts in words and the step-size warnings.

Two warnings about the time step of a dynamic run, both from the solver's own figures:

- stability: the step exceeds the stability monitor's estimate of the largest stable step
  (``Result.stability["warning"]``, set by the solver);
- accuracy: the run was stable but the total energy ``T + V + Vₑ − W`` (constant for the
  exact solution) drifted by more than ``DRIFT_TOLERANCE`` of the energy the mechanism
  exchanges. The warning gives the drift, the step against the largest stable step
  (``dt_max_estimate`` of the summary), the steps per period of the fastest mode (from
  ``ω_max``) and a step for about ``TARGET_DRIFT`` drift, assuming a drift proportional to
  Δt² (the second-order schemes).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Relative energy drift (of the energy exchanged) above which a run is called inaccurate.
DRIFT_TOLERANCE = 0.01
#: The relative drift the suggested step aims at.
TARGET_DRIFT = 0.001


def count(n: int, noun: str) -> str:
    """``"1 frame"``, ``"2 frames"``, ``"no frames"``."""
    if n == 0:
        return f"no {noun}s"
    return f"{n} {noun}{'' if n == 1 else 's'}"


def stability_warning(result: Any) -> str | None:
    """The stability monitor's warning of a finished run (``Result.stability``), or None."""
    stability = getattr(result, "stability", None) or {}
    return stability.get("warning")


def energy_exchanged(columns: list[str], data: np.ndarray) -> float:
    """The largest swing (J) of the kinetic, the potential + elastic energy and the work:
    the scale against which an energy drift is judged."""
    index = {c: i for i, c in enumerate(columns)}

    def swing(*names: str) -> float:
        cols = [index[n] for n in names if n in index]
        if not cols or len(data) == 0:
            return 0.0
        values = data[:, cols].sum(axis=1)
        return float(np.ptp(values))

    return max(
        swing("energy.kinetic"),
        swing("energy.potential", "energy.elastic"),
        swing("energy.work"),
    )


def accuracy_warning(summary: dict, stability: dict | None, exchanged: float) -> str | None:
    """The warning for a stable run whose energy drifted (see the module docstring)."""
    if summary.get("analysis") != "dynamic":
        return None
    drift = summary.get("max_energy_drift")
    dt = summary.get("dt")
    if drift is None or not dt or not math.isfinite(drift) or exchanged <= 1e-12:
        return None
    relative = drift / exchanged
    if relative <= DRIFT_TOLERANCE:
        return None
    text = (
        f"the energy drifted by {drift:.3g} J ({100 * relative:.3g} % of the {exchanged:.3g} J "
        f"the mechanism exchanges) with Δt = {dt:g} s"
    )
    dt_max = summary.get("dt_max_estimate")
    if dt_max is not None and math.isfinite(dt_max):
        text += f", below the largest stable step ≈ {dt_max:.3g} s: stable but inaccurate"
    else:
        text += ": stable but inaccurate"
    omega = (stability or {}).get("omega_max")
    if omega:
        text += f" ({2 * math.pi / (omega * dt):.3g} steps per period of the fastest mode)"
    suggested = dt * math.sqrt(TARGET_DRIFT / relative)
    return text + f"; try Δt ≤ {_round_down(suggested):g} s"


def _round_down(x: float) -> float:
    """``x`` rounded down to one significant digit of 1, 2 or 5 (0.0158 → 0.01)."""
    power = 10.0 ** math.floor(math.log10(x))
    for m in (5, 2, 1):
        if m * power <= x:
            return m * power
    return power
