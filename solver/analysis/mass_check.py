"""Is there mass in every direction the joints leave free? (checked before a dynamic run)

Every formulation needs the mass matrix to be positive definite on the null space of the
constraint Jacobian: it is if and only if ``A = M + s Φ_qᵀ Φ_q`` is positive definite
(``M`` is positive semi-definite; ``s`` scales the constraint rows to the size of ``M``).
A body with no mass or no inertia in a direction no joint fixes makes ``A`` singular and
its accelerations undefined: every formulation would then fail with a matrix-level error
(or, the adaptive one, silently return nonsense).

The model reader requires positive masses and inertias, but a body can still carry
nothing *in floating point*: a mass or a moment of inertia 10¹² times smaller than the
largest in the model. Only then (``LIGHT``) is ``A`` formed and its smallest eigenvalue
compared with the largest (``SINGULAR``); models without such a body cost nothing.
"""

from __future__ import annotations

import numpy as np

from solver.analysis.errors import SimulationError
from solver.lazy_scipy import issparse
from solver.mechanics.system import MultibodySystem

#: a body is "light" (worth the full check) below this fraction of the model's largest
#: mass, or with a principal moment below this fraction of the largest moment
LIGHT = 1e-12
#: ``A`` is singular when its smallest eigenvalue is below this fraction of its largest
SINGULAR = 1e-13
#: above this many coordinates the full check (a dense eigen-analysis) is skipped
MAX_COORDINATES = 2000


def _light_bodies(system: MultibodySystem) -> list[str]:
    """Names of the bodies with (numerically) no mass or no inertia about some axis."""
    # bodies given by mass and inertia (flexible bodies carry their mass in their elements)
    bodies = [
        b
        for b in system.model.bodies
        if b.name in system.slots and isinstance(getattr(b, "mass", None), (int, float))
    ]
    masses = [float(b.mass) for b in bodies]
    moments = {
        b.name: np.linalg.eigvalsh(np.array(b.inertia, dtype=float))
        for b in bodies
        if getattr(b, "inertia", None) is not None and system.slots[b.name].kind == "rigid"
    }
    m_max = max(masses, default=0.0)
    j_max = max((float(j.max()) for j in moments.values()), default=0.0)
    light = []
    for b, m in zip(bodies, masses, strict=True):
        j = moments.get(b.name)
        if m <= LIGHT * m_max or (j is not None and float(j.min()) <= LIGHT * j_max):
            light.append(b.name)
    return light


def check_mass(system: MultibodySystem, q: np.ndarray, t: float = 0.0) -> None:
    """Raise ``SimulationError`` at ``t`` naming the body if the mass matrix is singular
    in a direction the constraints leave free at ``q``."""
    light = _light_bodies(system)
    if not light or system.n > MAX_COORDINATES:
        return
    m = system.mass(q)
    m = m.toarray() if issparse(m) else np.asarray(m, dtype=float)
    c = system.constraints(q, np.zeros(system.n), t)
    h = c.phi_q.toarray() if issparse(c.phi_q) else np.asarray(c.phi_q, dtype=float)
    hth = h.T @ h
    scale = np.abs(np.diag(m)).max() / max(np.abs(np.diag(hth)).max(), 1e-300)
    a = m + scale * hth
    a = 0.5 * (a + a.T)
    values, vectors = np.linalg.eigh(a)
    top = max(abs(float(values[-1])), 1e-300)
    if values[0] > SINGULAR * top:
        return
    v = vectors[:, 0]
    share = {
        name: float(v[s.offset : s.offset + s.size] @ v[s.offset : s.offset + s.size])
        for name, s in system.slots.items()
    }
    body = max(share, key=share.get)
    raise SimulationError(
        t,
        f'the mass matrix is singular: body "{body}" has no mass or inertia in a direction '
        f"the joints leave free (smallest eigenvalue of M + s Φ_qᵀΦ_q is "
        f"{values[0] / top:.1e} of the largest)",
        f'give "{body}" a mass and a positive-definite inertia comparable with the other '
        "bodies, or hold it with joints",
    )
