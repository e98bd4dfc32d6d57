"""Continuum ANCF elements (Omar–Shabana 2D, Yakoub–Shabana 3D): elastic and damping
forces of one element and their exact Jacobians from the invariant tensors.

With ``E`` the ``m × d`` nodal vectors of an element (``e = E.ravel()``, index ``i·d + a``)
and the invariant tensor ``T`` of its geometry and material
(``solver.mechanics.bodies.ancf.invariants``: ``T_ijkl = λ/8 H_ijkl + G/4 H_ikjl``), the
St. Venant–Kirchhoff energy is the quartic form (García Vallejo (2006) §3.2, (3.22)–(3.35))

    U = D:T:D,   D = E Eᵀ − P₀    (P₀ = E₀ E₀ᵀ, the straight unstressed element),
    F = −∂U/∂E = −4 Y E,   Y = T:D,
    ∂F_ia/∂E_kb = −4 Σ_jl E_ja (T_ijkl + T_ijlk) E_lb − 4 Y_ik δ_ab.

(``D:T:D`` equals the thesis's ``P:T:P − k B:P + U₀`` identically and does not subtract
large numbers near the undeformed state.) Internal damping (§3.3) uses the tensor ``T_v``
of the viscous Lamé constants and the rate ``Ṗ = Ė Eᵀ + E Ėᵀ``: ``P_d = Ṗ:T_v:Ṗ``,

    F_d = −4 Z E,   Z = T_v:Ṗ,
    ∂F_d/∂Ė_kb = −4 Σ_jl E_ja (T_v,ijkl + T_v,ijlk) E_lb,
    ∂F_d/∂E_kb = −4 [Σ_jl E_ja (T_v,ijkl + T_v,ijlk) Ė_lb + Z_ik δ_ab]   ((3.83)–(3.84)),

the strict derivative of (3.57) (the coefficients printed in (3.60)–(3.61) are twice it).
A rigid motion leaves D and Ṗ zero: no force, no dissipation.

One source for every caller: the element classes call :func:`continuum_internal` over a
beam's elements; the system kernels call :func:`continuum_element` for each element.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.jit import kernel


@kernel(full_optimisation=True)
def _contract(T, D, m):
    """``T:D`` (``m × m``) over the first ``m`` indices of ``T``."""
    Y = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            acc = 0.0
            for k in range(m):
                for l in range(m):  # noqa: E741
                    acc += T[i, j, k, l] * D[k, l]
            Y[i, j] = acc
    return Y


@kernel(full_optimisation=True)
def _add_gradient_term(T, E, V, m, d, scale, out):
    """``out[(i, a), (k, b)] += scale Σ_jl E_ja (T_ijkl + T_ijlk) V_lb``."""
    w = np.empty((m, m))
    for i in range(m):
        for a in range(d):
            # w[k, l] = Σ_j E_ja (T_ijkl + T_ijlk)
            w[:, :] = 0.0
            for j in range(m):
                eja = E[j, a]
                if eja != 0.0:
                    for k in range(m):
                        for l in range(m):  # noqa: E741
                            w[k, l] += eja * (T[i, j, k, l] + T[i, j, l, k])
            r = i * d + a
            for k in range(m):
                for b in range(d):
                    acc = 0.0
                    for l in range(m):  # noqa: E741
                        acc += w[k, l] * V[l, b]
                    out[r, k * d + b] += scale * acc


@kernel(full_optimisation=True)
def continuum_element(T, P0, Tv, m, d, e, ed, damped, jacobian, force, kq, kqd):
    """One element of ``m`` nodal vectors in ``d`` dimensions (``T``, ``Tv`` may be larger
    tensors: their first ``m`` indices are used): ``F`` into ``force`` and, with
    ``jacobian``, ``∂F/∂e`` into ``kq`` and ``∂F/∂ė`` into ``kqd`` (the first ``m·d``
    entries, overwritten; ``kqd`` stays zero without damping). Returns ``(U, P_d)``."""
    k = m * d
    E = np.empty((m, d))
    Ed = np.empty((m, d))
    for i in range(m):
        for a in range(d):
            E[i, a] = e[i * d + a]
            Ed[i, a] = ed[i * d + a]
    D = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            acc = 0.0
            for a in range(d):
                acc += E[i, a] * E[j, a]
            D[i, j] = acc - P0[i, j]
    Y = _contract(T, D, m)
    energy = 0.0
    for i in range(m):
        for j in range(m):
            energy += D[i, j] * Y[i, j]
    Z = np.zeros((m, m))
    if damped:
        pdot = np.empty((m, m))
        for i in range(m):
            for j in range(m):
                acc = 0.0
                for a in range(d):
                    acc += Ed[i, a] * E[j, a] + E[i, a] * Ed[j, a]
                pdot[i, j] = acc
        Z = _contract(Tv, pdot, m)
    power = 0.0
    for i in range(m):
        for a in range(d):
            acc = 0.0
            for j in range(m):
                acc += (Y[i, j] + Z[i, j]) * E[j, a]
            force[i * d + a] = -4.0 * acc
            if damped:
                fd = 0.0
                for j in range(m):
                    fd += Z[i, j] * E[j, a]
                power -= 4.0 * fd * Ed[i, a]
    if jacobian:
        for r in range(k):
            for c in range(k):
                kq[r, c] = 0.0
                kqd[r, c] = 0.0
        _add_gradient_term(T, E, E, m, d, -4.0, kq)
        for i in range(m):
            for kk in range(m):
                v = -4.0 * (Y[i, kk] + Z[i, kk])
                for a in range(d):
                    kq[i * d + a, kk * d + a] += v
        if damped:
            _add_gradient_term(Tv, E, Ed, m, d, -4.0, kq)
            _add_gradient_term(Tv, E, E, m, d, -4.0, kqd)
    return energy, power


@kernel(full_optimisation=True)
def continuum_internal(T, P0, Tv, damped, E, Ed, jacobian):
    """All elements of a beam (``E``, ``Ed`` ``(N, m, d)``): ``(force (N, m·d), ∂F/∂e,
    ∂F/∂ė (N, m·d, m·d), energy (N,), power)``; the Jacobians are ``(0, m·d, m·d)``
    without ``jacobian``."""
    n, m, d = E.shape
    k = m * d
    force = np.zeros((n, k))
    nj = n if jacobian else 0
    kq = np.zeros((nj, k, k))
    kqd = np.zeros((nj, k, k))
    energy = np.zeros(n)
    power = 0.0
    wq = np.zeros((k, k))
    wqd = np.zeros((k, k))
    for i in range(n):
        u, p = continuum_element(
            T, P0, Tv, m, d, E[i].ravel(), Ed[i].ravel(), damped, jacobian, force[i], wq, wqd
        )
        energy[i] = u
        power += p
        if jacobian:
            kq[i] = wq
            kqd[i] = wqd
    return force, kq, kqd, energy, power
