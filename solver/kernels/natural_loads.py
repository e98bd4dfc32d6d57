"""Body-axes forces and torques on natural-coordinate bodies: their generalised forces.

A body's axes are linear in its four entities ``e_i`` (points and unit vectors),
``a_k = Σ_i X_ki e_i`` (X: the body's axes coefficients, 3×4), and a body point is
``P = Σ_i c_i e_i``. A load's vector ``u`` (3, global or in body axes) gives the entity
weights ``w = Xᵀ u`` and, in body axes, the global vector ``Σ_j w_j e_j``:

* ``FORCE``, a force ``f̄`` in body axes at P: ``f = Σ_j w_j e_j``, ``Q_i = c_i f`` and
  ``∂Q_i/∂e_j = c_i w_j I``; power ``f·Ṗ``;
* ``TORQUE`` (global ``n = u``) or ``BODY_TORQUE`` (``n = Σ_j w_j e_j``): the virtual
  rotation of an orthonormal frame is ``δθ = ½ Σ_k a_k × δa_k``, so ``n·δθ = Σ_i δe_i·Q_i``
  with ``Q_i = ½ n × v_i``, ``v_i = Σ_j (XᵀX)_ij e_j``;
  ``∂Q_i/∂e_j = ½ ((XᵀX)_ij ñ − w_j ṽ_i)`` (the second term in body axes only); power
  ``n·ω`` with ``ω = ½ Σ_k a_k × ȧ_k``.

Either power is ``Σ_i Q_i·ė_i``, which is how :mod:`solver.kernels.system` evaluates it.
No load depends on the velocities. SI units.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.scratch import local_zeros

#: load types
FORCE, TORQUE, BODY_TORQUE = np.int64(0), np.int64(1), np.int64(2)


@kernel(full_optimisation=True)
def entities(x, cols, fixed, rates, out):
    """The four entities ``out (4, 3)`` from ``x`` (q, or q̇ with ``rates``) over their
    columns ``cols (12,)``; a fixed entity (column −1) is ``fixed (4, 3)``, at rest."""
    for i in range(4):
        for a in range(3):
            c = cols[3 * i + a]
            if c >= 0:
                out[i, a] = x[c]
            elif rates:
                out[i, a] = 0.0
            else:
                out[i, a] = fixed[i, a]


@kernel(full_optimisation=True)
def natural_load(typ, X, c, u, e, out, blocks, jacobians):
    """Load of type ``typ`` with axes coefficients ``X (3, 4)``, point coefficients
    ``c (4,)`` and vector ``u (3,)`` at the entities ``e (4, 3)``: ``Q_i`` into
    ``out (4, 3)`` and, with ``jacobians``, ``∂Q_i/∂e_j`` into ``blocks (4, 3, 4, 3)``
    (every entry written; see the module docstring)."""
    w = local_zeros(4)
    for j in range(4):
        w[j] = X[0, j] * u[0] + X[1, j] * u[1] + X[2, j] * u[2]
    g = local_zeros(3)  # the load's global vector
    for a in range(3):
        if typ == TORQUE:
            g[a] = u[a]
        else:
            g[a] = w[0] * e[0, a] + w[1] * e[1, a] + w[2] * e[2, a] + w[3] * e[3, a]
    if typ == FORCE:
        for i in range(4):
            for a in range(3):
                out[i, a] = c[i] * g[a]
        if jacobians:
            blocks[:] = 0.0
            for i in range(4):
                for j in range(4):
                    for a in range(3):
                        blocks[i, a, j, a] = c[i] * w[j]
        return
    gram = local_zeros((4, 4))  # XᵀX
    for i in range(4):
        for j in range(4):
            gram[i, j] = X[0, i] * X[0, j] + X[1, i] * X[1, j] + X[2, i] * X[2, j]
    v = local_zeros((4, 3))
    for i in range(4):
        for a in range(3):
            v[i, a] = gram[i, 0] * e[0, a] + gram[i, 1] * e[1, a]
            v[i, a] += gram[i, 2] * e[2, a] + gram[i, 3] * e[3, a]
    for i in range(4):
        out[i, 0] = 0.5 * (g[1] * v[i, 2] - g[2] * v[i, 1])
        out[i, 1] = 0.5 * (g[2] * v[i, 0] - g[0] * v[i, 2])
        out[i, 2] = 0.5 * (g[0] * v[i, 1] - g[1] * v[i, 0])
    if jacobians:
        body = typ == BODY_TORQUE
        for i in range(4):
            for j in range(4):
                s = 0.5 * gram[i, j]
                r = 0.5 * w[j] if body else 0.0
                # ½ (XᵀX)_ij ñ − ½ w_j ṽ_i: skew(x)[a, b] = −ε_abk x_k
                blocks[i, 0, j, 0] = 0.0
                blocks[i, 1, j, 1] = 0.0
                blocks[i, 2, j, 2] = 0.0
                blocks[i, 0, j, 1] = -s * g[2] + r * v[i, 2]
                blocks[i, 0, j, 2] = s * g[1] - r * v[i, 1]
                blocks[i, 1, j, 0] = s * g[2] - r * v[i, 2]
                blocks[i, 1, j, 2] = -s * g[0] + r * v[i, 0]
                blocks[i, 2, j, 0] = -s * g[1] + r * v[i, 1]
                blocks[i, 2, j, 1] = s * g[0] - r * v[i, 0]
