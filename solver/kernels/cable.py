"""The spatial gradient-deficient cable (``solver.mechanics.bodies.ancf.cable``): strains,
energy, forces and exact Jacobians of one element.

At each Gauss point g the rows of ``B[g]`` ``(6, k)`` give ``p = r_x`` (rows 0–2) and
``q = r_xx`` (rows 3–5) as ``B[g] e``. The strains there are the Green–Lagrange strain of
the centreline and its curvature vector per unit reference length,

    ε = ½ (p·p − 1),        k = c a,   c = p × q,   a = 1/A,   A = p·p,

with, over ``z = (p, q)``,

    ∂ε/∂p = p,   ∂²ε/∂p² = I,
    ∂k_i = a ∂c_i + c_i ∂a,   ∂c/∂p = −q̃,   ∂c/∂q = p̃,   ∂a/∂p = −2 p/A²,
    ∂²k_i = a ∂²c_i + ∂c_i ⊗ ∂a + ∂a ⊗ ∂c_i + c_i ∂²a,
    ∂²c_i/∂p_j∂q_l = ε_ijl,   ∂²a/∂p² = 8 p pᵀ/A³ − 2 I/A².

The energy is ``U = ½ Σ_g (c_ε,g ε_g² + c_κ,g |k_g|²)`` (``coef`` ``(2, G)``: ``EA w_g l``
and ``EI w_g l``), its damping ``P_d = ½ γ Σ_g (c_ε,g ε̇_g² + c_κ,g |k̇_g|²)``: the four
strains ``(ε, k₀, k₁, k₂)`` of each point go through
:func:`solver.kernels.elastic_line.point_terms`.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.elastic_line import point_terms
from solver.kernels.jit import kernel
from solver.kernels.scratch import local_zeros


@kernel(inline="always")
def cable_work(k):
    """The length of :func:`cable_element`'s work array for elements of ``k`` coordinates."""
    return 24 + 144 + 72 + 6 + 6 * k


@kernel(full_optimisation=True)
def cable_strains(Bg, e, gz, hz, hessian):
    """``(ε, k₀, k₁, k₂)`` at one point (``Bg`` ``(6, k)``, ``e`` ``(k,)``), their gradients
    over ``z = (p, q)`` into ``gz`` ``(4, 6)`` and, with ``hessian``, their Hessians into
    ``hz`` ``(4, 6, 6)``: the equations of the module docstring."""
    n = Bg.shape[1]
    z = local_zeros(6)
    for r in range(6):
        acc = 0.0
        for j in range(n):
            acc += Bg[r, j] * e[j]
        z[r] = acc
    p0, p1, p2, q0, q1, q2 = z[0], z[1], z[2], z[3], z[4], z[5]
    big_a = p0 * p0 + p1 * p1 + p2 * p2
    a = 1.0 / big_a
    c = (p1 * q2 - p2 * q1, p2 * q0 - p0 * q2, p0 * q1 - p1 * q0)
    # ∂c_i/∂z: [−q̃, p̃] (ṽ w = v × w)
    dc = local_zeros((3, 6))
    dc[0, 1], dc[0, 2] = q2, -q1
    dc[1, 0], dc[1, 2] = -q2, q0
    dc[2, 0], dc[2, 1] = q1, -q0
    dc[0, 4], dc[0, 5] = -p2, p1
    dc[1, 3], dc[1, 5] = p2, -p0
    dc[2, 3], dc[2, 4] = -p1, p0
    da = local_zeros(6)
    for j in range(3):
        da[j] = -2.0 * z[j] * a * a
    gz[:] = 0.0
    for j in range(3):
        gz[0, j] = z[j]
    for i in range(3):
        for j in range(6):
            gz[1 + i, j] = a * dc[i, j] + c[i] * da[j]
    if hessian:
        hz[:] = 0.0
        for j in range(3):
            hz[0, j, j] = 1.0
        d2a = local_zeros((3, 3))
        for j in range(3):
            for m in range(3):
                d2a[j, m] = 8.0 * z[j] * z[m] * a * a * a - (2.0 * a * a if j == m else 0.0)
        for i in range(3):
            h = hz[1 + i]
            for j in range(6):
                for m in range(6):
                    h[j, m] = dc[i, j] * da[m] + da[j] * dc[i, m]
            for j in range(3):
                for m in range(3):
                    h[j, m] += c[i] * d2a[j, m]
            # a ∂²c_i: ε_ijl at (p_j, q_l) and (q_l, p_j)
            j, m = (i + 1) % 3, (i + 2) % 3
            h[j, 3 + m] += a
            h[3 + m, j] += a
            h[m, 3 + j] -= a
            h[3 + j, m] -= a
    return 0.5 * (big_a - 1.0), c[0] * a, c[1] * a, c[2] * a


@kernel(full_optimisation=True)
def cable_element(B, coef, gamma, e, ed, jacobian, force, kq, kqd, grad, work):
    """One element: ``F = F_e + F_d`` into ``force`` ``(k,)`` and, with ``jacobian``,
    ``∂F/∂e`` into ``kq`` and ``∂F/∂ė`` into ``kqd`` ``(k, k)`` (all overwritten; ``kqd``
    stays zero without damping). ``grad`` ``(4, k)`` and ``work`` (:func:`cable_work`
    values) are work arrays. Returns ``(U, P_d)``: strain energy (J) and damping power
    ``F_d·ė`` (W)."""
    G = B.shape[0]
    k = B.shape[2]
    force[:] = 0.0
    if jacobian:
        kq[:] = 0.0
        kqd[:] = 0.0
    energy = 0.0
    power = 0.0
    gz = work[0:24].reshape((4, 6))
    hz = work[24:168].reshape((4, 6, 6))
    x = work[168:204].reshape((6, 6))
    y = work[204:240].reshape((6, 6))
    bed = work[240:246]
    xb = work[246 : 246 + 6 * k].reshape((6, k))
    sums, scratch = (force, kq, kqd), (grad, x, y, bed, xb)
    for g in range(G):
        Bg = B[g]
        strains = cable_strains(Bg, e, gz, hz, jacobian)
        ce, ck = coef[0, g], coef[1, g]
        weights = (ce, ck, ck, ck)
        u, p = point_terms(Bg, 6, strains, gz, hz, weights, gamma, ed, jacobian, sums, scratch)
        energy += u
        power += p
    return energy, power


@kernel(full_optimisation=True)
def cable_internal(B, coef, gamma, E, Ed, jacobian):
    """All elements of a cable (``E``, ``Ed`` ``(N, k)``): ``(force (N, k), ∂F/∂e (N, k, k),
    ∂F/∂ė (N, k, k), energy (N,), power)``; the Jacobians are empty ``(0, k, k)`` without
    ``jacobian``."""
    n, k = E.shape
    force = np.zeros((n, k))
    nj = n if jacobian else 0
    kq = np.zeros((nj, k, k))
    kqd = np.zeros((nj, k, k))
    energy = np.zeros(n)
    power = 0.0
    grad = np.zeros((4, k))
    work = np.zeros(cable_work(k))
    wq = np.zeros((k, k))
    wqd = np.zeros((k, k))
    for i in range(n):
        u, p = cable_element(B, coef, gamma, E[i], Ed[i], jacobian, force[i], wq, wqd, grad, work)
        energy[i] = u
        power += p
        if jacobian:
            kq[i] = wq
            kqd[i] = wqd
    return force, kq, kqd, energy, power
