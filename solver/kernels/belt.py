"""García Vallejo's planar belt element: strain energy, elastic forces and exact Jacobian.

The element and its energy density are described in
``solver.mechanics.bodies.ancf.belt``: 12 coordinates ``e = [r^m, r_x^m, r_y^m, r^n, r_x^n,
r_y^n]``, and at each Gauss point, with ``v = (c, κ, s, s', ε)`` (the squared stretch
``c = λ²`` and material curvature κ of the centreline, the interpolated shear sine ``s`` and
its slope ``s'``, the transverse strain ε),

    W = a₁ (c − 1)² + a₂ [c u² + ½ (c − 1) Q] + a₄ Q² + g₁ s² c + g₂ s² s'² + e₁ ε²,
    u = κ + s',   Q = u² + s² κ²,

``par`` = ``(a₁, a₂, a₄, g₁, g₂, e₁, l)`` (the coefficients of W and the element length, m).
``v = T z`` is linear in ``z = (c, κ, σ_m, σ_n, ρ_m, ρ_n)``: the nodal shear sines
``σ = −r_x·r_y/(|r_x| |r_y|)`` and section lengths ``ρ = |r_y|`` of nodes m and n, interpolated
linearly (``s = (1 − ξ) σ_m + ξ σ_n``, ``s' = (σ_n − σ_m)/l``, ``ε = (1 − ξ)(ρ_m − 1) + ξ
(ρ_n − 1)``). The stretch and curvature with their derivatives over the slope ``p = r_c,x``
and ``q = r_c,xx`` are those of the elastic line (``elastic_line.strains_pq``); so

    U = Σ_g w_g W_g,   ∂U/∂e = Σ_g w_g J_zᵀ ∂W/∂z,
    ∂²U/∂e² = Σ_g w_g [J_zᵀ (∂²W/∂z²) J_z + Σ_k ∂W/∂z_k ∂²z_k/∂e²],

and the elastic force is ``F = −∂U/∂e``. ``B[g]`` ``(4, 12)`` gives ``(p, q) = B[g] e``
(zero in the r_y columns); ``xw`` holds the Gauss abscissae ξ_g (row 0) and the weights
``w_g`` (m, row 1). No material damping.

One source for every caller: the element class calls :func:`belt_internal` over a beam's
elements; the system kernels call :func:`belt_element` for each element.
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.elastic_line import strains_pq
from solver.kernels.jit import kernel
from solver.kernels.scratch import local_zeros

#: the slopes (r_x, r_y) of node m and of node n among the element's 12 coordinates
NODE_M, NODE_N = 2, 8
#: the columns of the centreline's coordinates (r^m, r_x^m, r^n, r_x^n): B's non-zero ones
HERMITE = (0, 1, 2, 3, 6, 7, 8, 9)


@kernel(full_optimisation=True)
def _nodal(e, o, grad, hess, jacobian):
    """Shear sine ``σ = −x·y/(|x||y|)`` and length ``ρ = |y|`` of one node's slopes
    ``x = e[o:o+2]``, ``y = e[o+2:o+4]``; their gradients over ``(x, y)`` into ``grad``
    ``(2, 4)`` and, with ``jacobian``, their Hessians into ``hess`` ``(2, 4, 4)`` (rows: σ,
    then ρ)."""
    x0, x1, y0, y1 = e[o], e[o + 1], e[o + 2], e[o + 3]
    p = x0 * y0 + x1 * y1
    lx = math.sqrt(x0 * x0 + x1 * x1)
    ly = math.sqrt(y0 * y0 + y1 * y1)
    gx, gy = 1.0 / lx, 1.0 / ly
    sine = -p * gx * gy
    gx3, gy3 = gx * gx * gx, gy * gy * gy
    dgx0, dgx1 = -x0 * gx3, -x1 * gx3  # ∂(1/|x|)/∂x
    dgy0, dgy1 = -y0 * gy3, -y1 * gy3
    gg = gx * gy
    grad[0, 0] = -(y0 * gg + p * gy * dgx0)
    grad[0, 1] = -(y1 * gg + p * gy * dgx1)
    grad[0, 2] = -(x0 * gg + p * gx * dgy0)
    grad[0, 3] = -(x1 * gg + p * gx * dgy1)
    grad[1, 0] = 0.0
    grad[1, 1] = 0.0
    grad[1, 2] = y0 * gy
    grad[1, 3] = y1 * gy
    if jacobian:
        xv = (x0, x1)
        yv = (y0, y1)
        dgx = (dgx0, dgx1)
        dgy = (dgy0, dgy1)
        gx5, gy5 = gx3 * gx * gx, gy3 * gy * gy
        for a in range(2):
            for b in range(2):
                eye = 1.0 if a == b else 0.0
                hgx = -eye * gx3 + 3.0 * xv[a] * xv[b] * gx5
                hgy = -eye * gy3 + 3.0 * yv[a] * yv[b] * gy5
                hxx = (yv[a] * dgx[b] + dgx[a] * yv[b]) * gy + hgx * p * gy
                hyy = (xv[a] * dgy[b] + dgy[a] * xv[b]) * gx + hgy * p * gx
                hxy = eye * gg + yv[a] * dgy[b] * gx + dgx[a] * xv[b] * gy + dgx[a] * dgy[b] * p
                hess[0, a, b] = -hxx
                hess[0, 2 + a, 2 + b] = -hyy
                hess[0, a, 2 + b] = -hxy
                hess[0, 2 + b, a] = -hxy
                hess[1, a, b] = 0.0
                hess[1, a, 2 + b] = 0.0
                hess[1, 2 + b, a] = 0.0
                hess[1, 2 + a, 2 + b] = (eye - yv[a] * yv[b] * gy * gy) * gy
    return sine, ly


#: the length of :func:`belt_element`'s work array
BELT_WORK = 376


@kernel(full_optimisation=True)
def belt_element(B, par, xw, e, jacobian, force, kq, work):
    """One element: ``F = −∂U/∂e`` into ``force`` ``(12,)`` and, with ``jacobian``, ``∂F/∂e``
    into ``kq`` ``(12, 12)`` (both overwritten); ``work``: ``BELT_WORK`` values of scratch
    (passed rather than allocated per element). Returns the strain energy U (J).

    The Jacobian gathers ``J_zᵀ (∂²W/∂z²) J_z`` by blocks: with ``(c, κ)`` over ``(p, q) =
    B_g e`` (their gradients ``G_g``, 2×4) and the nodal rows ``N`` (4×12, the same at every
    point), ``Σ_g B_gᵀ X_g B_g + P N + (P N)ᵀ + Nᵀ C N`` with the 4×4 ``X_g`` (the (c, κ)
    block through ``G_g``, and their second derivatives), ``P = Σ_g B_gᵀ G_gᵀ W_{(c,κ),nodal}``
    and ``C = Σ_g W_{nodal,nodal}``."""
    a1, a2, a4, g1, g2, e1, ln = par[0], par[1], par[2], par[3], par[4], par[5], par[6]
    G = B.shape[0]
    force[:] = 0.0
    gm = work[0:8].reshape((2, 4))
    hm = work[8:40].reshape((2, 4, 4))
    gn = work[40:48].reshape((2, 4))
    hn = work[48:80].reshape((2, 4, 4))
    gpq = work[80:88].reshape((2, 4))
    hpq = work[88:120].reshape((2, 4, 4))
    x = work[120:136].reshape((4, 4))
    xb = work[136:184].reshape((4, 12))
    wv = work[184:189]
    wvv = work[189:214].reshape((5, 5))
    wz = work[214:220]
    wzz = work[220:256].reshape((6, 6))
    nodal = work[256:260]  # Σ_g w_g ∂W/∂(σ_m, σ_n, ρ_m, ρ_n)
    gc = work[260:264]
    pm = work[264:312].reshape((12, 4))
    cm = work[312:328].reshape((4, 4))
    wt = work[328:344].reshape((4, 4))  # W_vv T over (c, κ, s, s′) × (c, κ, σ_m, σ_n)
    ym = work[358:374].reshape((4, 4))
    nodal[:] = 0.0
    sig_m, rho_m = _nodal(e, NODE_M, gm, hm, jacobian)
    sig_n, rho_n = _nodal(e, NODE_N, gn, hn, jacobian)
    if jacobian:
        kq[:] = 0.0
        wvv[:] = 0.0
        pm[:] = 0.0
        cm[:] = 0.0
    energy = 0.0
    ds = (sig_n - sig_m) / ln
    for g in range(G):
        xi, wg = xw[0, g], xw[1, g]
        Bg = B[g]
        strains = strains_pq(Bg, e, gpq, hpq, jacobian)
        lam = 1.0 + strains[0]
        kap = strains[1]
        c = lam * lam
        s = (1.0 - xi) * sig_m + xi * sig_n
        eps = (1.0 - xi) * (rho_m - 1.0) + xi * (rho_n - 1.0)
        u = kap + ds
        ss = s * s
        qq = u * u + ss * kap * kap
        cm1 = c - 1.0
        energy += wg * (
            a1 * cm1 * cm1
            + a2 * (c * u * u + 0.5 * cm1 * qq)
            + a4 * qq * qq
            + g1 * ss * c
            + g2 * ss * ds * ds
            + e1 * eps * eps
        )
        q_k, q_d, q_s = 2.0 * u + 2.0 * ss * kap, 2.0 * u, 2.0 * s * kap * kap
        wv[0] = 2.0 * a1 * cm1 + a2 * (u * u + 0.5 * qq) + g1 * ss
        wv[1] = a2 * (2.0 * c * u + 0.5 * cm1 * q_k) + 2.0 * a4 * qq * q_k
        wv[2] = (
            a2 * 0.5 * cm1 * q_s + 2.0 * a4 * qq * q_s + 2.0 * g1 * s * c + 2.0 * g2 * s * ds * ds
        )
        wv[3] = a2 * (2.0 * c * u + 0.5 * cm1 * q_d) + 2.0 * a4 * qq * q_d + 2.0 * g2 * ss * ds
        wv[4] = 2.0 * e1 * eps
        # w_g Tᵀ ∂W/∂v: v = T z, (c, κ) themselves, s, s', ε linear in the nodal values
        wz[0] = wg * wv[0]
        wz[1] = wg * wv[1]
        wz[2] = wg * ((1.0 - xi) * wv[2] - wv[3] / ln)
        wz[3] = wg * (xi * wv[2] + wv[3] / ln)
        wz[4] = wg * (1.0 - xi) * wv[4]
        wz[5] = wg * xi * wv[4]
        # the point's (c, κ) over (p, q): ∂c = 2λ ∂λ
        for r in range(4):
            gc[r] = 2.0 * lam * gpq[0, r]
        v0 = wz[0] * gc[0] + wz[1] * gpq[1, 0]  # w_c ∂c + w_κ ∂κ over (p, q)
        v1 = wz[0] * gc[1] + wz[1] * gpq[1, 1]
        v2 = wz[0] * gc[2] + wz[1] * gpq[1, 2]
        v3 = wz[0] * gc[3] + wz[1] * gpq[1, 3]
        for j in HERMITE:  # the (c, κ) part of ∂U/∂e: Bgᵀ (w_c ∂c + w_κ ∂κ)
            force[j] -= Bg[0, j] * v0 + Bg[1, j] * v1 + Bg[2, j] * v2 + Bg[3, j] * v3
        for k in range(4):
            nodal[k] += wz[2 + k]
        if jacobian:
            q_kk, q_ks, q_ss = 2.0 + 2.0 * ss, 4.0 * s * kap, 2.0 * kap * kap
            wvv[0, 0] = 2.0 * a1
            wvv[0, 1] = a2 * (2.0 * u + 0.5 * q_k)
            wvv[0, 2] = 0.5 * a2 * q_s + 2.0 * g1 * s
            wvv[0, 3] = a2 * (2.0 * u + 0.5 * q_d)
            wvv[1, 1] = a2 * (2.0 * c + 0.5 * cm1 * q_kk) + 2.0 * a4 * (q_k * q_k + qq * q_kk)
            wvv[1, 2] = 0.5 * a2 * cm1 * q_ks + 2.0 * a4 * (q_k * q_s + qq * q_ks)
            wvv[1, 3] = a2 * (2.0 * c + cm1) + 2.0 * a4 * (q_k * q_d + 2.0 * qq)
            wvv[2, 2] = (
                0.5 * a2 * cm1 * q_ss
                + 2.0 * a4 * (q_s * q_s + qq * q_ss)
                + 2.0 * g1 * c
                + 2.0 * g2 * ds * ds
            )
            wvv[2, 3] = 2.0 * a4 * q_s * q_d + 4.0 * g2 * s * ds
            wvv[3, 3] = a2 * (2.0 * c + cm1) + 2.0 * a4 * (q_d * q_d + 2.0 * qq) + 2.0 * g2 * ss
            wvv[4, 4] = 2.0 * e1
            for r in range(5):
                for col in range(r):
                    wvv[r, col] = wvv[col, r]
            # w_g Tᵀ W_vv T: c, κ are z_0, z_1; s = (1 − ξ) σ_m + ξ σ_n, s' = (σ_n − σ_m)/l,
            # ε (uncoupled from the others) = (1 − ξ) ρ_m + ξ ρ_n − 1
            il = 1.0 / ln
            xm = 1.0 - xi
            for r in range(4):  # rows of W_vv T over (c, κ, σ_m, σ_n): wt[r, 0:4]
                wt_c = wvv[r, 0]
                wt_k = wvv[r, 1]
                wt_m = xm * wvv[r, 2] - il * wvv[r, 3]
                wt_n = xi * wvv[r, 2] + il * wvv[r, 3]
                wt[r, 0], wt[r, 1], wt[r, 2], wt[r, 3] = wt_c, wt_k, wt_m, wt_n
            for col in range(4):
                wzz[0, col] = wg * wt[0, col]
                wzz[1, col] = wg * wt[1, col]
                wzz[2, col] = wg * (xm * wt[2, col] - il * wt[3, col])
                wzz[3, col] = wg * (xi * wt[2, col] + il * wt[3, col])
            ee = wg * wvv[4, 4]
            wzz[4, 4] = ee * xm * xm
            wzz[4, 5] = ee * xm * xi
            wzz[5, 4] = ee * xm * xi
            wzz[5, 5] = ee * xi * xi
            for r in range(4):
                for col in range(4, 6):
                    wzz[r, col] = 0.0
                    wzz[col, r] = 0.0
            # X_g = w_c ∂²c + w_κ ∂²κ + G_gᵀ W_(c,κ)(c,κ) G_g over (p, q), ∂²c = 2 (∂λ ∂λᵀ + λ ∂²λ)
            for r in range(4):
                gr0, gr1 = gc[r], gpq[1, r]
                for col in range(4):
                    gc0, gc1 = gc[col], gpq[1, col]
                    x[r, col] = (
                        wz[0] * 2.0 * (gpq[0, r] * gpq[0, col] + lam * hpq[0, r, col])
                        + wz[1] * hpq[1, r, col]
                        + gr0 * (wzz[0, 0] * gc0 + wzz[0, 1] * gc1)
                        + gr1 * (wzz[1, 0] * gc0 + wzz[1, 1] * gc1)
                    )
                for z in range(4):  # Y_g = G_gᵀ W_(c,κ),nodal
                    ym[r, z] = gr0 * wzz[0, 2 + z] + gr1 * wzz[1, 2 + z]
            for r in range(4):  # xb = X_g Bg over the centreline's columns
                for j in HERMITE:
                    xb[r, j] = (
                        x[r, 0] * Bg[0, j] + x[r, 1] * Bg[1, j] + x[r, 2] * Bg[2, j]
                        + x[r, 3] * Bg[3, j]
                    )  # fmt: skip
            for i in HERMITE:  # kq −= Bgᵀ X_g Bg
                for j in HERMITE:
                    kq[i, j] -= (
                        Bg[0, i] * xb[0, j] + Bg[1, i] * xb[1, j] + Bg[2, i] * xb[2, j]
                        + Bg[3, i] * xb[3, j]
                    )  # fmt: skip
            for j in HERMITE:  # P += Bgᵀ Y_g
                for z in range(4):
                    acc = 0.0
                    for r in range(4):
                        acc += Bg[r, j] * ym[r, z]
                    pm[j, z] += acc
            for a in range(4):
                for b in range(4):
                    cm[a, b] += wzz[2 + a, 2 + b]
    # the nodal parts: Σ_g w_g ∂W/∂σ ∂σ/∂e (and ρ), and their second derivatives
    for k in range(4):
        force[NODE_M + k] -= nodal[0] * gm[0, k] + nodal[2] * gm[1, k]
        force[NODE_N + k] -= nodal[1] * gn[0, k] + nodal[3] * gn[1, k]
    if jacobian:
        for a in range(4):
            for b in range(4):
                kq[NODE_M + a, NODE_M + b] -= nodal[0] * hm[0, a, b] + nodal[2] * hm[1, a, b]
                kq[NODE_N + a, NODE_N + b] -= nodal[1] * hn[0, a, b] + nodal[3] * hn[1, a, b]
        # N: the nodal rows (σ_m, σ_n, ρ_m, ρ_n), 4 columns each (the node's slopes)
        for z in range(4):
            nz = gm[0] if z == 0 else (gn[0] if z == 1 else (gm[1] if z == 2 else gn[1]))
            oz = NODE_M if z % 2 == 0 else NODE_N
            for i in range(12):  # P N and its transpose
                p = pm[i, z]
                for k in range(4):
                    v = p * nz[k]
                    kq[i, oz + k] -= v
                    kq[oz + k, i] -= v
            for z2 in range(4):  # Nᵀ C N
                n2 = gm[0] if z2 == 0 else (gn[0] if z2 == 1 else (gm[1] if z2 == 2 else gn[1]))
                o2 = NODE_M if z2 % 2 == 0 else NODE_N
                cz = cm[z, z2]
                for k in range(4):
                    for k2 in range(4):
                        kq[oz + k, o2 + k2] -= cz * nz[k] * n2[k2]
    return energy


@kernel(full_optimisation=True)
def belt_internal(B, par, xw, E, jacobian):
    """All elements of a beam (``E`` ``(N, 12)``): ``(force (N, 12), ∂F/∂e (N, 12, 12),
    energy (N,))``; the Jacobians are empty ``(0, 12, 12)`` without ``jacobian``."""
    n = E.shape[0]
    force = np.zeros((n, 12))
    kq = np.zeros((n if jacobian else 0, 12, 12))
    energy = np.zeros(n)
    wq = local_zeros((12, 12))
    work = local_zeros(BELT_WORK)
    for i in range(n):
        energy[i] = belt_element(B, par, xw, E[i], jacobian, force[i], wq, work)
        if jacobian:
            kq[i] = wq
    return force, kq, energy
