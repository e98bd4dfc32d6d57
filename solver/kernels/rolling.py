"""The no-slip rows of rolling discs: ``B q̇ = 0``, ``B q̈ = γ``, and their derivatives.

A disc (a rigid body with Euler parameters p) of radius R rolls on a ground plane: centre
C (a point marker on the disc), unit axle a (a direction marker on the disc), unit
normal n (a direction marker on ground: constant). With ``c = a·n`` and
``s = √(1 − c²)``, the disc radius pointing at the plane is ``w = (n − c a)/s`` and the
contact point ``Q = C − R w``. A row asks the disc's material point at Q to have no
velocity along ``e``: the rolling direction ``t = (a × n)/s`` (longitudinal) or the
lateral ``l = n × t``:

    B q̇ = e·v_Q,   v_Q = Ċ − R ω × w,   ω = 2 E(p) ṗ,

so (with ``k = e × w``) ``B = [eᵀ J_c] + [2R kᵀ E(p)]`` over the centre marker's columns
and the disc's Euler parameters (they overlap: the entries add up). These rows are not
integrable: ``B q̈ = γ`` with ``γ = −Ḃ q̇ = −(ė·v_Q + e·J̇_c q̇ − R e·(ω × ẇ))``
(``d(E(p)) ṗ/dt = E(ṗ) ṗ = 0``).

Implicit integrators also need ``∂(Bᵀμ)/∂q`` at fixed μ and ``∂(B q̇)/∂q`` at fixed q̇:
e, w and k depend on q only through the axle (``∂a/∂q = J_a``), with

    ∂t/∂a = (−ñ + (c/s) t nᵀ)/s,   ∂w/∂a = (−(a nᵀ + c I) + (c/s) w nᵀ)/s,
    ∂l/∂a = ñ ∂t/∂a,   ∂k/∂a = −w̃ ∂e/∂a + ẽ ∂w/∂a,

``E(p)ᵀ k = L(k) p`` and ``∂(E(p) ṗ)/∂p = −E(ṗ)`` (``solver.kernels.rotations``). The
system (``solver.kernels.system``) multiplies the blocks of :func:`row` and
:func:`row_derivatives` by the markers' Jacobians. SI units.
"""

from __future__ import annotations

import math

from solver.kernels.jit import kernel
from solver.kernels.rotations import cross, dot3, e_matrix, l_matrix
from solver.kernels.scratch import local, local_zeros

#: the directions of a row (``lateral`` false: the rolling direction t)
LONGITUDINAL, LATERAL = 0, 1


@kernel(full_optimisation=True)
def _frame(u, ud, inn, ia, lateral):
    """``(e, ė, w, ẇ, c, s, t)`` of a row at the marker values ``u`` and velocities ``ud``."""
    n = u[inn]
    a = u[ia]
    ad = ud[ia]
    c = dot3(a, n)
    s = math.sqrt(max(1.0 - c * c, 1e-300))
    cd = dot3(ad, n)
    uu = n - c * a
    uud = -cd * a - c * ad
    sd = dot3(uu, uud) / s
    w = uu / s
    wd = (uud - w * sd) / s
    t = cross(a, n) / s
    td = (cross(ad, n) - t * sd) / s
    if lateral:
        return cross(n, t), cross(n, td), w, wd, c, s, t
    return t, td, w, wd, c, s, t


@kernel(full_optimisation=True)
def row(u, ud, jdq, ic, inn, ia, lateral, radius, p, pd, bp):
    """One row with centre, normal and axle markers ``ic``, ``inn``, ``ia`` on the disc of
    Euler parameters ``p`` (rates ``pd``): writes ``2R E(p)ᵀ(e × w)`` (its entries over p)
    into ``bp`` (4,) and returns ``(e, γ, B q̇)``; the row's entries over the centre
    marker's columns are ``eᵀ J_c``."""
    e, ed, w, wd, _, _, _ = _frame(u, ud, inn, ia, lateral)
    emat = e_matrix(p)
    omega = local_zeros(3)
    for i in range(3):
        for j in range(4):
            omega[i] += 2.0 * emat[i, j] * pd[j]
    k = cross(e, w)
    for j in range(4):
        bp[j] = 2.0 * radius * (emat[0, j] * k[0] + emat[1, j] * k[1] + emat[2, j] * k[2])
    vq = ud[ic] - radius * cross(omega, w)
    gamma = -(dot3(ed, vq) + dot3(e, jdq[ic]) - radius * dot3(e, cross(omega, wd)))
    return e, gamma, dot3(e, vq)


@kernel(full_optimisation=True)
def row_derivatives(u, ud, ic, inn, ia, lateral, radius, p, pd, mu, hca, kpp, kpa, da, dp):
    """The blocks of ``∂(Bᵀμ)/∂q`` and ``∂(B q̇)/∂q`` of one row (see the module
    docstring) for its multiplier ``mu``, into ``hca`` (3×3) ``μ ∂e/∂a``, ``kpp`` (4×4)
    ``2Rμ L(k)``, ``kpa`` (4×3) ``2Rμ E(p)ᵀ ∂k/∂a``, ``da`` (3,)
    ``u̇_cᵀ ∂e/∂a + R ωᵀ ∂k/∂a`` and ``dp`` (4,) ``−2R E(ṗ)ᵀ k``; returns e. The system adds
    ``∂(J_cᵀ μe)/∂q`` (the centre marker's own term), ``J_cᵀ hca J_a``, ``kpp``, ``kpa J_a``
    to the first and ``eᵀ ∂u̇_c/∂q``, ``da J_a``, ``dp`` to the second."""
    e, _, w, _, c, s, t = _frame(u, ud, inn, ia, lateral)
    n = u[inn]
    a = u[ia]
    ratio = c / s
    dt = local((3, 3))
    dw = local((3, 3))
    for i in range(3):
        for j in range(3):
            dt[i, j] = ratio * t[i] * n[j] / s
            dw[i, j] = (ratio * w[i] * n[j] - a[i] * n[j]) / s
        dw[i, i] -= c / s
    dt[0, 1] += n[2] / s  # −ñ/s
    dt[0, 2] -= n[1] / s
    dt[1, 0] -= n[2] / s
    dt[1, 2] += n[0] / s
    dt[2, 0] += n[1] / s
    dt[2, 1] -= n[0] / s
    de = local((3, 3))
    dk = local((3, 3))
    col = local(3)
    dwc = local(3)
    for j in range(3):
        for i in range(3):
            col[i] = dt[i, j]
            dwc[i] = dw[i, j]
        if lateral:
            col = cross(n, col)
        ek = cross(e, dwc)
        wk = cross(w, col)
        for i in range(3):
            de[i, j] = col[i]
            dk[i, j] = ek[i] - wk[i]
    emat = e_matrix(p)
    edot = e_matrix(pd)
    k = cross(e, w)
    omega = local_zeros(3)
    for i in range(3):
        for j in range(4):
            omega[i] += 2.0 * emat[i, j] * pd[j]
    lk = l_matrix(k)
    scale = 2.0 * radius * mu
    for i in range(4):
        for j in range(4):
            kpp[i, j] = scale * lk[i, j]
        for j in range(3):
            acc = 0.0
            for x in range(3):
                acc += emat[x, i] * dk[x, j]
            kpa[i, j] = scale * acc
        dp[i] = -2.0 * radius * (edot[0, i] * k[0] + edot[1, i] * k[1] + edot[2, i] * k[2])
    udc = ud[ic]
    for j in range(3):
        acc = 0.0
        for x in range(3):
            hca[x, j] = mu * de[x, j]
            acc += udc[x] * de[x, j] + radius * omega[x] * dk[x, j]
        da[j] = acc
    return e
