"""The initial configuration of a closed belt: static equilibrium on its pulleys.

García Vallejo (2006) §7.5 starts the belt drive from the static solution (no inertia) of the
belt mounted on the pulleys, found by Newton–Raphson. Here the belt's own coordinates are
the unknowns, the pulleys of its ``pulley_contact`` forces are held at their initial
positions, and the residual is

    Q(q) = Q_e(q) + Q_n(q) + Q_g = 0,

the elastic forces of the elements (their exact Jacobian), the penalty normal forces of
the contacts at rest (``f_n = k_p d n`` per unit length, ``contact_kernels``; friction and
the penetration-rate term vanish at rest) and the weight. A belt on circular pulleys can
slide round its path at almost no cost in energy (exactly none for a continuous belt on
round pulleys), so that direction is fixed: node 0 keeps its place along the path's tangent
there (one linear constraint with its multiplier). Newton with a backtracking line search
on ``|Q|``; the starting point is the path itself.
"""

from __future__ import annotations

import numpy as np

from solver.lazy_scipy import sparse as sp
from solver.lazy_scipy import sparse_linalg as spla
from solver.mechanics.bodies.ancf.pulley_kernels import normal_forces
from solver.mechanics.bodies.ancf.shapes import gauss, hermite
from solver.model import description as d
from solver.model.errors import ModelError

#: Newton iterations allowed for the initial equilibrium
MAX_ITERATIONS = 200
#: converged when the step is below this fraction of the belt's natural length
TOLERANCE = 1e-12


def belt_contacts(model: d.Model, body_name: str) -> list[d.Force]:
    return [f for f in model.forces if f.type == "pulley_contact" and f.belt == body_name]


def loop_starts_in_equilibrium(model: d.Model, body: d.FlexibleBody) -> bool:
    """``loop.initial``: ``equilibrium``, or by default when the belt has pulley contacts."""
    initial = body.loop.initial
    if initial is None:
        return bool(belt_contacts(model, body.name))
    return initial == "equilibrium"


def _assemble(beam, q: np.ndarray, contacts, gravity) -> tuple[np.ndarray, sp.csr_matrix]:
    """``Q`` and ``∂Q/∂q`` over the beam's own coordinates."""
    el = beam.element
    cols = beam.element_table(beam.vector_cols) - beam.offset  # all own: a closed belt
    n = beam.size
    E = q[cols].reshape(beam.n_elements, el.m, el.d)
    out = el.internal(E, np.zeros_like(E), True)
    force = np.bincount(cols.ravel(), weights=out.force.ravel(), minlength=n)
    blocks = [out.kq]
    g = np.asarray(gravity, float)[: el.d]
    force += np.bincount(
        cols.ravel(), weights=np.tile(np.kron(el.gravity, g), beam.n_elements), minlength=n
    )
    for shape, weight, centre, radius, k in contacts:
        qc, kc = normal_forces(shape, weight, E, centre, radius, k)
        force += np.bincount(cols.ravel(), weights=qc.ravel(), minlength=n)
        blocks.append(kc)
    size = cols.shape[1]
    rows = np.repeat(cols, size, axis=1).ravel()
    cc = np.tile(cols, (1, size)).ravel()
    vals = sum(blocks).ravel()
    return force, sp.csr_matrix((vals, (rows, cc)), shape=(n, n))


def settle_on_pulleys(beam, model: d.Model, gravity, q0: np.ndarray, where: str) -> np.ndarray:
    """The beam's coordinates in static equilibrium on its pulleys (module docstring),
    starting from ``q0`` (its coordinates on the wrap path)."""
    el = beam.element
    contacts = []
    for f in belt_contacts(model, beam.name):
        xi, w = gauss(f.gauss_points or 5)
        shape = el._line_functions(hermite(xi, el.length))
        contacts.append(
            (
                shape,
                w * el.length,
                np.asarray(f.pulley.center, float)[:2],
                f.pulley.radius,
                f.stiffness,
            )
        )
    n = beam.size
    tangent = beam.node_frames[0][: el.d, 0]
    fix = np.zeros(n)
    fix[: el.d] = tangent  # node 0's position along the path's tangent
    q = q0.copy()
    lam = 0.0
    scale = el.length * beam.n_elements
    force, jac = _assemble(beam, q, contacts, gravity)
    residual = np.append(force - fix * lam, 0.0)
    for _ in range(MAX_ITERATIONS):
        kkt = sp.bmat(
            [[jac, sp.csr_matrix(-fix[:, None])], [sp.csr_matrix(fix[None, :]), None]], format="csc"
        )
        try:
            step = spla.spsolve(kkt, -residual)
        except RuntimeError:
            step = np.full(n + 1, np.nan)
        if not np.all(np.isfinite(step)):
            break
        norm0 = np.linalg.norm(residual)
        alpha = 1.0
        while True:
            q_try = q + alpha * step[:n]
            lam_try = lam + alpha * step[n]
            f_try, j_try = _assemble(beam, q_try, contacts, gravity)
            r_try = np.append(f_try - fix * lam_try, fix @ (q_try - q0))
            if np.linalg.norm(r_try) < norm0 or alpha < 1e-4:
                break
            alpha *= 0.5
        q, lam, jac, residual = q_try, lam_try, j_try, r_try
        if alpha * np.abs(step[:n]).max() <= TOLERANCE * scale:
            return q
    raise ModelError(
        where,
        "the closed belt found no static equilibrium on its pulleys (check the circles, the "
        'pulley contacts and the strain, or start on the path with "initial": "path")',
        "loop.initial",
    )
