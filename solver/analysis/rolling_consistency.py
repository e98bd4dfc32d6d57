"""Consistency of the no-slip conditions of rolling discs (wheels), checked before a run.

The velocities of a model with rolling discs obey ``[Φ_q; B] q̇ = [−Φ_t; 0]``. Each no-slip
row of ``B`` should remove one more freedom: ``rank [Φ_q; B] = rank Φ_q + rows(B)``. When
it does not, some wheels' no-slip conditions repeat (or, with drivers, contradict) what
the joints and the other wheels already impose: e.g. two wheels on one rigid axle that
both refuse to slip sideways, or four wheels on fixed axles that are not all parallel.
The wheels' contact forces are then undetermined and MUBODYNA's solution stalls on a
singular matrix (Villar Alegría (2018) §2.2); here the model is refused before the run, naming the
joints involved and the ``slip`` option that makes it consistent.

The rows are taken in joint order; a row that adds nothing to the span of ``Φ_q`` (all of
it, Euler-parameter norms included) and of the rows kept before it is dependent, and the
joints whose kept rows make it up are the ones involved.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.analysis.linalg import dense
from solver.mechanics.constraints.rolling import SLIP_ROWS
from solver.mechanics.system import MultibodySystem
from solver.model.errors import ModelError, UnsupportedFeature

#: (longitudinal, lateral) no-slip rows → the ``slip`` option that has exactly them
SLIP_OF_ROWS = {rows: slip for slip, rows in SLIP_ROWS.items()}
#: a row is dependent when less than this fraction of it lies outside the span of the others
RELATIVE_TOLERANCE = 1e-8


@dataclass
class RollingConsistency:
    """The result of the check: dependent rows, the joints involved, the fixes."""

    rows: int = 0
    dependent: list[tuple[str, str]] = field(default_factory=list)  # (joint, direction)
    involved: list[str] = field(default_factory=list)  # joint names, in model order
    fixes: dict[str, tuple[str, str]] = field(default_factory=dict)  # joint: (old, new slip)

    @property
    def ok(self) -> bool:
        return not self.dependent

    def location(self) -> str:
        """``joints "A", "B"``: the wheels involved."""
        plural = "s" if len(self.involved) > 1 else ""
        return f"joint{plural} " + ", ".join(f'"{n}"' for n in self.involved)

    def reason(self) -> str:
        k = len(self.dependent)
        fixes = " and ".join(
            f'"slip": "{new}" on "{name}" (it has "{old}")'
            for name, (old, new) in self.fixes.items()
        )
        discs = "these rolling discs" if len(self.involved) > 1 else "this rolling disc"
        return (
            f"the no-slip conditions of {discs} are not independent ({k} of the "
            f"{self.rows} no-slip equations {'repeats' if k == 1 else 'repeat'} what the "
            "joints and the other wheels impose: the wheels' velocities are over-determined "
            f"and their contact forces undetermined); let a wheel slip: set {fixes}"
        )


def rolling_consistency(
    system: MultibodySystem, q: np.ndarray, t: float = 0.0
) -> RollingConsistency:
    """Which no-slip rows of ``system`` are dependent at ``q`` (assembled), and the fixes."""
    out = RollingConsistency(rows=system.m_nh)
    if not system.m_nh:
        return out
    h = dense(system.constraints(q, None, t).phi_q)
    b = dense(system.velocity_constraints(q, np.zeros(system.n), t)[0])
    norms = np.linalg.norm(b, axis=1)
    # orthonormal basis of the row space of Φ_q; B projected onto its complement
    if len(h):
        _, s, vt = np.linalg.svd(h, full_matrices=False)
        tol = max(h.shape) * np.finfo(float).eps * (s[0] if len(s) else 0.0) * 1e3
        basis = vt[s > tol]
        b = b - (b @ basis.T) @ basis
    owner: dict[int, str] = {}
    for key, rows in system.velocity_rows.items():
        for r in rows:
            owner[r] = key.split(":", 1)[1]
    lateral = system.rolling.lateral
    kept: list[int] = []
    involved: set[str] = set()
    dropped: dict[str, set[bool]] = {}
    for r in range(system.m_nh):
        scale = max(norms[r], 1.0)
        if kept:
            coef, *_ = np.linalg.lstsq(b[kept].T, b[r], rcond=None)
            residual = np.linalg.norm(b[r] - b[kept].T @ coef)
        else:
            coef, residual = np.zeros(0), np.linalg.norm(b[r])
        if residual > RELATIVE_TOLERANCE * scale:
            kept.append(r)
            continue
        name = owner[r]
        out.dependent.append((name, "lateral" if lateral[r] else "longitudinal"))
        dropped.setdefault(name, set()).add(bool(lateral[r]))
        involved.add(name)
        # the kept rows that make up this one (beyond the joints): a visible contribution
        big = np.abs(coef) * np.linalg.norm(b[kept], axis=1) > 1e-6 * scale if kept else []
        involved.update(owner[kept[i]] for i in np.flatnonzero(big))
    joints = {j.name: j for j in system.model.joints}
    out.involved = [n for n in joints if n in involved]
    for name, lost in dropped.items():
        old = joints[name].slip or "none"
        longitudinal, lat = SLIP_ROWS[old]
        new = SLIP_OF_ROWS[(longitudinal and False not in lost, lat and True not in lost)]
        out.fixes[name] = (old, new)
    return out


def check_rolling_consistency(system: MultibodySystem, q: np.ndarray, t: float = 0.0) -> None:
    """Raise ``ModelError`` (one line: joints, cause, fix) when the no-slip rows conflict."""
    result = rolling_consistency(system, q, t)
    if not result.ok:
        raise ModelError(result.location(), result.reason())


def formulations_with_rolling() -> list[str]:
    """Names of the formulations that integrate no-slip rows (``velocity_constraints``)."""
    from solver.analysis.formulations import REGISTRY, formulation_class

    out = []
    for name in REGISTRY:
        try:
            if getattr(formulation_class(name), "velocity_constraints", False):
                out.append(name)
        except ModelError:  # not available in this build
            continue
    return out


def check_formulation_handles_rolling(system: MultibodySystem, name: str, formulation) -> None:
    """Refuse (``UnsupportedFeature``) a formulation that cannot integrate the no-slip rows
    of the model's rolling discs, naming the discs and the formulations that can."""
    if not system.m_nh or getattr(formulation, "velocity_constraints", False):
        return
    joints = [key.split(":", 1)[1] for key in system.velocity_rows]
    names = ", ".join(f'"{n}"' for n in joints)
    able = formulations_with_rolling()
    raise UnsupportedFeature(
        f"joint{'s' if len(joints) > 1 else ''} {names}",
        f"rolling without slip (velocity-level no-slip equations) is not integrated by the "
        f"{name} formulation; use {' or '.join(able)}, or give "
        f'{"these discs" if len(joints) > 1 else "the disc"} "slip": "free"',
    )
