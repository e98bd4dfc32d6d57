"""García Vallejo's planar belt element (García Vallejo (2006) §7.2, eqs. (7.1)–(7.17)).

Dufva's shear-deformable element (Dufva, Sopanen and Mikkola, 2005) with the longitudinal
strain split into its axial and bending parts and a stiffness factor on each: α₁ (axial)
and α₂ (bending, and the shear with it), so that a belt, stiff in tension and soft in
bending, is one element.

Coordinates and mass are Omar and Shabana's: 12 per element ``[r^m, r_x^m, r_y^m, r^n,
r_x^n, r_y^n]`` (2D), ``r = S(x, y) e`` cubic in x and linear in y, ``M = ∫ ρ Sᵀ S dV``.
The elastic forces use Dufva's kinematics instead of the continuum strain:

* the centreline ``r_c = S(x, 0) e`` (Hermite part), ``a = r_c,x``, ``b = r_c,xx``;
* the section vector ``r_s = (I + Ĩ sin γ) n_ψ`` (7.4), ``n_ψ = Ĩ a/|a|`` (7.6)–(7.7), turned
  from the normal by the shear angle; ``sin γ = −r_x·r_y/(|r_x| |r_y|)`` at each node (2.60),
  interpolated linearly between the nodes (7.8): ``s = (1 − ξ) sin γ^m + ξ sin γ^n``;
* the transverse strain of Dufva, ``ε_yy = (1 − ξ)(|r_y^m| − 1) + ξ (|r_y^n| − 1)`` (2.64; the
  thesis prints the norm without the "− 1", which would stress the undeformed element).

With ``c = a·a``, the material curvature ``k = (a × b)/c`` (rotation of the tangent per unit
reference length) and ``s' = ds/dx``, the products of (7.12)–(7.13) are
``r_c,x·r_s = −s|a|``, ``r_s,x = −(k + s') t − s k n_ψ``, so ``p = r_c,x·r_s,x = −|a| (k + s')``,
``q = r_s,x·r_s,x = (k + s')² + s² k²`` and ``r_s,x·r_s = s s'``. Integrated over a symmetric
section (``A``, ``I = ∫y² dA``, ``I₄ = ∫y⁴ dA``; the odd powers of y vanish), the energy
(7.15)–(7.16), with the ½ that (7.9) omits, plus ``½ ∫ E ε_yy² dV``, is

    U = ∫₀ˡ { E α₁ A/8 (c − 1)² + E α₂ I/2 [c (k + s')² + ½ (c − 1) q] + E α₂ I₄/8 q²
              + G k_s α₂/2 (A s² c + I s² s'²) + E A/2 ε_yy² } dx

(the erratum of (7.12): its y term is ``y (c − 1) p``, without a "− 1" on p; it is odd in y and
drops out). A straight unstressed element has c = 1, k = s = 0, |r_y| = 1: U = 0; a rigid
motion changes none of c, k, s, |r_y|. Pure stretch λ gives the axial force
``N = E α₁ A ε λ`` (``ε = ½(λ² − 1)``); pure bending the moment ``E α₂ I k (1 + I₄ k²/(2I))``.

The elastic force ``Q_e = −∂U/∂e`` (7.17) and its exact Jacobian come from the chain rule
through ``z = (c, k, sin γ^m, sin γ^n, |r_y^m|, |r_y^n|)`` at each Gauss point: the stretch and
curvature with their derivatives are those of the Euler–Bernoulli element
(``euler_bernoulli.elastic_line_strains``), the nodal ones are closed forms, and
``∂²U/∂e² = Σ_g w_g [J_zᵀ W_zz J_z + Σ_k W_{z_k} ∂²z_k/∂e²]``. Five Gauss points along the
element. Material damping is not part of this element.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.mechanics.bodies.ancf import shapes
from solver.mechanics.bodies.ancf.element import ElementModel, InternalForces
from solver.mechanics.bodies.ancf.euler_bernoulli import elastic_line_strains
from solver.mechanics.bodies.ancf.shapes import gauss, hermite

#: Gauss points along the element
POINTS = 5
#: positions of the Hermite coordinates (r^m, r_x^m, r^n, r_x^n) among the 6 node slots,
#: and their columns among the element's 12 coordinates
HERMITE_SLOTS = (0, 1, 3, 4)
HERMITE_COLS = np.array([0, 1, 2, 3, 6, 7, 8, 9])
#: the slopes (r_x, r_y) of node m and of node n
NODE_M = np.array([2, 3, 4, 5])
NODE_N = np.array([8, 9, 10, 11])
HERMITE_GRID = np.ix_(HERMITE_COLS, HERMITE_COLS)
NODE_M_GRID = np.ix_(NODE_M, NODE_M)
NODE_N_GRID = np.ix_(NODE_N, NODE_N)


@dataclass(frozen=True)
class BeltFactors:
    """α₁ (axial), α₂ (bending and shear) stiffness factors and the shear correction k_s."""

    axial: float = 1.0
    bending: float = 1.0
    shear: float = 5.0 / 6.0


def cowper_shear_factor(shape: str, nu: float) -> float:
    """Cowper's shear correction factor: ``10(1 + ν)/(12 + 11ν)`` for a rectangle (also used
    for a ``general`` section), ``6(1 + ν)/(7 + 6ν)`` for a circle."""
    if shape == "circle":
        return 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu)
    return 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu)


class Belt2D(ElementModel):
    """The belt element (12 coordinates): Dufva kinematics, α₁ and α₂ (module docstring)."""

    name = "belt"
    m = 6
    d = 2
    node_vectors = ("r", "r_x", "r_y")

    def __init__(self, length, section, material, factors: BeltFactors | None = None) -> None:
        super().__init__(length, section, material)
        self.factors = factors or BeltFactors()
        f, mat, sec = self.factors, material, section
        inertia4 = float(sec.w @ sec.y**4)
        self.coef = {
            "axial": mat.E * f.axial * sec.area / 8.0,
            "bending": mat.E * f.bending * sec.Syy / 2.0,
            "bending4": mat.E * f.bending * inertia4 / 8.0,
            "shear": mat.G * f.shear * f.bending * sec.area / 2.0,
            "shear2": mat.G * f.shear * f.bending * sec.Syy / 2.0,
            "transverse": mat.E * sec.area / 2.0,
        }
        xi, w = gauss(POINTS)
        self.xi = xi
        self.weights = w * self.length
        ln = self.length
        eye = np.eye(2)
        sx = np.einsum("gi,ab->gaib", hermite(xi, ln, 1), eye).reshape(len(xi), 2, 8)
        sxx = np.einsum("gi,ab->gaib", hermite(xi, ln, 2), eye).reshape(len(xi), 2, 8)
        self.B = np.concatenate([sx, sxx], axis=1)  # (G, 4, 8): r_c,x and r_c,xx rows
        # v = (c, κ, s, s', ε) from z = (c, κ, σ_m, σ_n, ρ_m, ρ_n) at each point (ε
        # affine: its constant part drops out of the derivatives)
        tz = np.zeros((len(xi), 5, 6))
        tz[:, 0, 0] = tz[:, 1, 1] = 1.0
        tz[:, 2, 2], tz[:, 2, 3] = 1.0 - xi, xi
        tz[:, 3, 2], tz[:, 3, 3] = -1.0 / ln, 1.0 / ln
        tz[:, 4, 4], tz[:, 4, 5] = 1.0 - xi, xi
        self._tz = tz

    # ---- mass: Omar and Shabana's shape functions over the section ---------------------
    def _volume_functions(self):
        xi, wx = gauss(5)
        s = self.section
        xx = np.repeat(xi, len(s.w))
        yy = np.tile(s.y, len(xi))
        w = np.repeat(wx * self.length, len(s.w)) * np.tile(s.w, len(xi))
        return shapes.omar(xx, yy, self.length), w

    def shape_values(self, xi):
        xi = np.asarray(xi, float)
        return shapes.omar(xi, np.zeros_like(xi), self.length)

    # ---- elasticity ---------------------------------------------------------------------------
    def _nodal(self, x: np.ndarray, y: np.ndarray, order: int):
        """Per node, ``sin γ = −x·y/(|x||y|)`` and ``|y|`` of its slopes ``x = r_x``,
        ``y = r_y`` ``(N, 2)``: values ``(N,)``, gradients ``(N, 4)`` and Hessians
        ``(N, 4, 4)`` over ``(x, y)``."""
        p = np.sum(x * y, axis=1)
        lx, ly = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
        gx, gy = 1.0 / lx, 1.0 / ly
        sine = -p * gx * gy
        if order == 0:
            return sine, ly, None, None, None, None
        dgx = -x * (gx**3)[:, None]  # ∂(1/|x|)/∂x
        dgy = -y * (gy**3)[:, None]
        g_sine = -np.hstack(
            [
                y * (gx * gy)[:, None] + (p * gy)[:, None] * dgx,
                x * (gx * gy)[:, None] + (p * gx)[:, None] * dgy,
            ]
        )
        g_len = np.hstack([np.zeros_like(y), y * gy[:, None]])
        if order == 1:
            return sine, ly, g_sine, g_len, None, None
        eye = np.eye(2)
        outer = lambda a, b: a[:, :, None] * b[:, None, :]  # noqa: E731
        hgx = -eye * (gx**3)[:, None, None] + 3.0 * outer(x, x) * (gx**5)[:, None, None]
        hgy = -eye * (gy**3)[:, None, None] + 3.0 * outer(y, y) * (gy**5)[:, None, None]
        hxx = outer(y, dgx) + outer(dgx, y)
        hxx = hxx * gy[:, None, None] + hgx * (p * gy)[:, None, None]
        hyy = outer(x, dgy) + outer(dgy, x)
        hyy = hyy * gx[:, None, None] + hgy * (p * gx)[:, None, None]
        hxy = (
            eye * (gx * gy)[:, None, None]
            + outer(y, dgy) * gx[:, None, None]
            + outer(dgx, x) * gy[:, None, None]
            + outer(dgx, dgy) * p[:, None, None]
        )
        h_sine = np.zeros((len(p), 4, 4))
        h_sine[:, :2, :2], h_sine[:, 2:, 2:] = -hxx, -hyy
        h_sine[:, :2, 2:], h_sine[:, 2:, :2] = -hxy, -np.swapaxes(hxy, 1, 2)
        h_len = np.zeros((len(p), 4, 4))
        h_len[:, 2:, 2:] = (eye - outer(y, y) * (gy**2)[:, None, None]) * gy[:, None, None]
        return sine, ly, g_sine, g_len, h_sine, h_len

    def _energy(self, e: np.ndarray, order: int):
        """Strain energy of elements ``e`` ``(N, 12)`` ``(N,)``, its gradient ``(N, 12)``
        and Hessian ``(N, 12, 12)`` (``None`` above ``order``); module docstring for W."""
        n, g = e.shape[0], len(self.xi)
        strain, grad, hess = elastic_line_strains(self.B, e[:, HERMITE_COLS], order == 2)
        lam, kap = 1.0 + strain[:, :g], strain[:, g:]
        c = lam * lam
        node_m = self._nodal(e[:, 2:4], e[:, 4:6], order)
        node_n = self._nodal(e[:, 8:10], e[:, 10:12], order)
        xi, ln = self.xi, self.length
        s = node_m[0][:, None] * (1.0 - xi) + node_n[0][:, None] * xi
        ds = ((node_n[0] - node_m[0]) / ln)[:, None] + 0.0 * xi
        eps = (node_m[1][:, None] - 1.0) * (1.0 - xi) + (node_n[1][:, None] - 1.0) * xi
        co = self.coef
        a1, a2, a4 = co["axial"], co["bending"], co["bending4"]
        g1, g2, e1 = co["shear"], co["shear2"], co["transverse"]
        u = kap + ds
        ss = s * s
        q = u * u + ss * kap * kap
        cm1 = c - 1.0
        w = (
            a1 * cm1 * cm1
            + a2 * (c * u * u + 0.5 * cm1 * q)
            + a4 * q * q
            + g1 * ss * c
            + g2 * ss * ds * ds
            + e1 * eps * eps
        )
        wt = self.weights
        energy = w @ wt
        if order == 0:
            return energy, None, None
        # first derivatives of W in v = (c, κ, s, s', ε) and of Q
        q_k, q_d, q_s = 2.0 * u + 2.0 * ss * kap, 2.0 * u, 2.0 * s * kap * kap
        w_v = np.stack(
            [
                2.0 * a1 * cm1 + a2 * (u * u + 0.5 * q) + g1 * ss,
                a2 * (2.0 * c * u + 0.5 * cm1 * q_k) + 2.0 * a4 * q * q_k,
                a2 * 0.5 * cm1 * q_s
                + 2.0 * a4 * q * q_s
                + 2.0 * g1 * s * c
                + 2.0 * g2 * s * ds * ds,
                a2 * (2.0 * c * u + 0.5 * cm1 * q_d) + 2.0 * a4 * q * q_d + 2.0 * g2 * ss * ds,
                2.0 * e1 * eps,
            ],
            axis=-1,
        )  # (N, G, 5)
        # z = (c, κ, σ_m, σ_n, ρ_m, ρ_n): v = T z per Gauss point (s, s', ε linear in z)
        tz = self._tz  # (G, 5, 6)
        w_z = np.einsum("ngv,gvz->ngz", w_v, tz) * wt[:, None]  # weighted
        lam_g, kap_g = grad[:, :g], grad[:, g:]  # (N, G, 8)
        gc = 2.0 * lam[..., None] * lam_g
        force = np.zeros((n, 12))
        force[:, HERMITE_COLS] = np.einsum("ng,ngk->nk", w_z[..., 0], gc) + np.einsum(
            "ng,ngk->nk", w_z[..., 1], kap_g
        )
        nodal = w_z[..., 2:].sum(axis=1)  # (N, 4): σ_m, σ_n, ρ_m, ρ_n
        force[:, NODE_M] += nodal[:, 0:1] * node_m[2] + nodal[:, 2:3] * node_m[3]
        force[:, NODE_N] += nodal[:, 1:2] * node_n[2] + nodal[:, 3:4] * node_n[3]
        if order == 1:
            return energy, force, None
        # second derivatives of W in v
        q_kk, q_ks, q_ss = 2.0 + 2.0 * ss, 4.0 * s * kap, 2.0 * kap * kap
        w_vv = np.zeros((n, g, 5, 5))
        w_vv[..., 0, 0] = 2.0 * a1
        w_vv[..., 0, 1] = a2 * (2.0 * u + 0.5 * q_k)
        w_vv[..., 0, 2] = 0.5 * a2 * q_s + 2.0 * g1 * s
        w_vv[..., 0, 3] = a2 * (2.0 * u + 0.5 * q_d)
        w_vv[..., 1, 1] = a2 * (2.0 * c + 0.5 * cm1 * q_kk) + 2.0 * a4 * (q_k * q_k + q * q_kk)
        w_vv[..., 1, 2] = 0.5 * a2 * cm1 * q_ks + 2.0 * a4 * (q_k * q_s + q * q_ks)
        w_vv[..., 1, 3] = a2 * (2.0 * c + cm1) + 2.0 * a4 * (q_k * q_d + 2.0 * q)
        w_vv[..., 2, 2] = (
            0.5 * a2 * cm1 * q_ss
            + 2.0 * a4 * (q_s * q_s + q * q_ss)
            + 2.0 * g1 * c
            + 2.0 * g2 * ds * ds
        )
        w_vv[..., 2, 3] = 2.0 * a4 * q_s * q_d + 4.0 * g2 * s * ds
        w_vv[..., 3, 3] = a2 * (2.0 * c + cm1) + 2.0 * a4 * (q_d * q_d + 2.0 * q) + 2.0 * g2 * ss
        w_vv[..., 4, 4] = 2.0 * e1
        w_vv = w_vv + np.swapaxes(np.triu(w_vv, 1), -1, -2)
        w_zz = (np.swapaxes(tz, 1, 2) @ w_vv @ tz) * wt[:, None, None]
        jz = np.zeros((n, g, 6, 12))  # ∂z/∂e
        jz[:, :, 0, HERMITE_COLS] = gc
        jz[:, :, 1, HERMITE_COLS] = kap_g
        jz[:, :, 2, NODE_M] = node_m[2][:, None]
        jz[:, :, 3, NODE_N] = node_n[2][:, None]
        jz[:, :, 4, NODE_M] = node_m[3][:, None]
        jz[:, :, 5, NODE_N] = node_n[3][:, None]
        jac = np.swapaxes(jz.reshape(n, 6 * g, 12), 1, 2) @ (w_zz @ jz).reshape(n, 6 * g, 12)
        lam_h, kap_h = hess[:, :g], hess[:, g:]  # (N, G, 8, 8)
        hc = 2.0 * (lam_g[..., :, None] * lam_g[..., None, :] + lam[..., None, None] * lam_h)
        herm = np.einsum("ng,ngij->nij", w_z[..., 0], hc) + np.einsum(
            "ng,ngij->nij", w_z[..., 1], kap_h
        )
        jac[:, HERMITE_GRID[0], HERMITE_GRID[1]] += herm
        jac[:, NODE_M_GRID[0], NODE_M_GRID[1]] += (
            nodal[:, 0, None, None] * node_m[4] + nodal[:, 2, None, None] * node_m[5]
        )
        jac[:, NODE_N_GRID[0], NODE_N_GRID[1]] += (
            nodal[:, 1, None, None] * node_n[4] + nodal[:, 3, None, None] * node_n[5]
        )
        return energy, force, jac

    def internal(self, E, Edot, jacobian=False):
        n = E.shape[0]
        _, grad, hess = self._energy(E.reshape(n, 12), 2 if jacobian else 1)
        return InternalForces(-grad, -hess if jacobian else None)

    def energy(self, E):
        return self._energy(E.reshape(E.shape[0], 12), 0)[0]

    def axial_force(self, stretch):
        """Axial force (N) of the centreline at the stretch ``|r_c,x|``: ``E α₁ A ε λ``."""
        lam = np.asarray(stretch, float)
        return self.material.E * self.factors.axial * self.section.area * 0.5 * (lam**2 - 1) * lam


def belt_factors(body) -> BeltFactors:
    """The ``BeltFactors`` of a model body (``belt`` options; k_s by Cowper if not given)."""
    opts = body.belt
    shear = None if opts is None else opts.shear_factor
    if shear is None:
        shear = cowper_shear_factor(body.section.shape, float(body.material.nu))
    if opts is None:
        return BeltFactors(1.0, 1.0, shear)
    return BeltFactors(float(opts.axial_factor), float(opts.bending_factor), float(shear))
