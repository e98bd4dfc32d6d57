"""Spatial gradient-deficient ANCF cable (12 coordinates ``[r^m, r_x^m, r^n, r_x^n]``).

The node carries a position and one slope; there is no section orientation, hence no
torsion. Cubic Hermite interpolation ``r = Σ h_i(x) e_i``. Elastic energy: the
Green–Lagrange strain of the centreline and its curvature vector (the "simple model" of
Berzeri and Shabana named in García Vallejo (2006) §2.4.1), the curvature taken per unit length of
the unstressed reference (``x``), so that in a plane the energy is that of the extensible
elastica (``N ≈ EA ε``, ``M = EI dθ/dx``) and a refined mesh converges to it:

    U = ½ ∫₀^l [EA ε² + EI |k|²] dx,   ε = ½ (r_x·r_x − 1),   k = (r_x × r_xx)/|r_x|²,

(``|k| = |r_x| κ`` with κ the geometric curvature of the deformed line; measuring per unit
deformed length, ``|r_x|⁻³``, would couple stretch and bending through terms of order
``(I/A) κ²``, which do not vanish with the element length.) Both vanish for any rigid
motion of the straight reference. With ``p = r_x`` and ``q = r_xx`` at a point,
``c = p × q``, ``A = p·p``, ``a = A^{-1}``:

    ∂k/∂(p, q) = a [−q̃, p̃] + c ∂aᵀ,
    ∂²k_i = a ∂²c_i + ∂c_i ⊗ ∂a + ∂a ⊗ ∂c_i + c_i ∂²a,

with ``∂²c_i/∂p_j∂q_k = ε_ijk``, ``∂a = −2A^{-2} [p, 0]``,
``∂²a = 8 A^{-3} [p,0][p,0]ᵀ − 2 A^{-2} diag(I, 0)``. Five Gauss points along the
element (exact for the axial part). The bending stiffness uses ``I = ½ (Iy + Iz)`` (the
cable cannot tell the section axes apart). Damping: ``P_d = ½ γ ∫ (EA ε̇² + EI |k̇|²) dx``.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.bodies.ancf.element import ElementModel, InternalForces
from solver.mechanics.bodies.ancf.shapes import gauss, hermite

LEVI_CIVITA = np.zeros((3, 3, 3))
for _i, _j, _k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
    LEVI_CIVITA[_i, _j, _k] = 1.0
    LEVI_CIVITA[_i, _k, _j] = -1.0


def _skew(v: np.ndarray) -> np.ndarray:
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def curvature_vector(p: np.ndarray, q: np.ndarray, hessian: bool = True):
    """``k``, ``∂k/∂(p, q)`` ``(…, 3, 6)`` and ``∂²k`` ``(…, 3, 6, 6)`` (or ``None``)."""
    big_a = np.sum(p * p, axis=-1)
    c = np.cross(p, q)
    a = 1.0 / big_a
    k = c * a[..., None]
    dc = np.concatenate([-_skew(q), _skew(p)], axis=-1)  # (…, 3, 6)
    pp = np.concatenate([p, np.zeros_like(p)], axis=-1)  # [p, 0]
    da = -2.0 * big_a[..., None] ** -2 * pp  # ∂a
    jac = a[..., None, None] * dc + c[..., :, None] * da[..., None, :]
    if not hessian:
        return k, jac, None
    d2c = np.zeros((3, 6, 6))
    d2c[:, :3, 3:] = LEVI_CIVITA
    d2c[:, 3:, :3] = LEVI_CIVITA.transpose(0, 2, 1)
    block = np.zeros((6, 6))
    block[:3, :3] = np.eye(3)
    d2a = (
        8.0 * big_a[..., None, None] ** -3 * pp[..., :, None] * pp[..., None, :]
        - 2.0 * big_a[..., None, None] ** -2 * block
    )
    hess = (
        a[..., None, None, None] * d2c
        + dc[..., :, :, None] * da[..., None, None, :]
        + da[..., None, :, None] * dc[..., :, None, :]
        + c[..., :, None, None] * d2a[..., None, :, :]
    )
    return k, jac, hess


class Cable3D(ElementModel):
    """Gradient-deficient spatial cable element (12 coordinates).

    Everything is first summed per Gauss point in the 6-dimensional space of ``(p, q) =
    (r_x, r_xx)`` and then mapped to the nodal coordinates through the Hermite values
    (``∂p/∂E_jb = h'_j δ``, ``∂q/∂E_jb = h''_j δ``)."""

    name = "cable"
    m = 4
    d = 3
    node_vectors = ("r", "r_x")

    def __init__(self, length, section, material) -> None:
        super().__init__(length, section, material)
        ln = self.length
        xi, w = gauss(5)
        self.hs = np.stack([hermite(xi, ln, 1), hermite(xi, ln, 2)], axis=1)  # (G, 2, 4)
        self.ng = len(xi)
        self.ea = material.E * section.area * w * ln  # per Gauss point
        self.ei = material.E * 0.5 * (section.Syy + section.Szz) * w * ln
        self.gamma = material.damping
        self._path = None

    def shape_values(self, xi):
        return hermite(xi, self.length)

    def _map_hessian(self, h: np.ndarray) -> np.ndarray:
        """``(N, G, 2, 3, 2, 3)`` Hessians over (p, q) → summed ``(N, 12, 12)`` over E."""
        if self._path is None:
            self._path = np.einsum_path("gui,ngubvc,gvl->nibl" + "c", self.hs, h, self.hs)[0]
        out = np.einsum("gui,ngubvc,gvl->niblc", self.hs, h, self.hs, optimize=self._path)
        n = h.shape[0]
        return out.reshape(n, 12, 12)

    def _pq(self, E: np.ndarray):
        pq = np.einsum("gui,nib->ngub", self.hs, E)  # (N, G, 2, 3)
        return pq[:, :, 0], pq[:, :, 1]

    def internal(self, E, Edot, jacobian=False):
        n = E.shape[0]
        p, q = self._pq(E)
        eps = 0.5 * (np.sum(p * p, axis=-1) - 1.0)  # (N, G)
        k, jk, hk = curvature_vector(p, q, jacobian or self.damped)
        ea, ei = self.ea[None, :], self.ei[None, :]
        grad = np.zeros(p.shape[:2] + (6,))
        grad[..., :3] = (ea * eps)[..., None] * p
        grad += ei[..., None] * np.einsum("ngik,ngi->ngk", jk, k)
        hess = None
        if jacobian:
            hess = ei[..., None, None] * (
                np.einsum("ngik,ngil->ngkl", jk, jk) + np.einsum("ngi,ngikl->ngkl", k, hk)
            )
            hess[..., :3, :3] += ea[..., None, None] * (
                p[..., :, None] * p[..., None, :] + eps[..., None, None] * np.eye(3)
            )
        power = 0.0
        kdd = None
        if self.damped:
            pd, qd = self._pq(Edot)
            pqd = np.concatenate([pd, qd], axis=-1)
            g = self.gamma
            epsd = np.sum(p * pd, axis=-1)
            kd_rate = np.einsum("ngik,ngk->ngi", jk, pqd)  # k̇
            damp = np.zeros_like(grad)
            damp[..., :3] = (g * ea * epsd)[..., None] * p
            damp += (g * ei)[..., None] * np.einsum("ngik,ngi->ngk", jk, kd_rate)
            grad = grad + damp  # −Q_d in (p, q)
            if jacobian:
                hkd = np.einsum("ngikl,ngl->ngik", hk, pqd)  # ∂k̇/∂(p, q)
                hess = hess + (g * ei)[..., None, None] * (
                    np.einsum("ngik,ngil->ngkl", jk, hkd)
                    + np.einsum("ngi,ngikl->ngkl", kd_rate, hk)
                )
                hess[..., :3, :3] += (g * ea)[..., None, None] * (
                    p[..., :, None] * pd[..., None, :] + epsd[..., None, None] * np.eye(3)
                )
                cdd = (g * ei)[..., None, None] * np.einsum("ngik,ngil->ngkl", jk, jk)
                cdd[..., :3, :3] += (g * ea)[..., None, None] * (p[..., :, None] * p[..., None, :])
                kdd = -self._map_hessian(cdd.reshape(n, self.ng, 2, 3, 2, 3))
        force = -np.einsum("gui,ngub->nib", self.hs, grad.reshape(n, self.ng, 2, 3)).reshape(n, 12)
        if self.damped:
            power = float(
                np.sum(-np.einsum("gui,ngub->nib", self.hs, damp.reshape(n, self.ng, 2, 3)) * Edot)
            )
        kq = -self._map_hessian(hess.reshape(n, self.ng, 2, 3, 2, 3)) if jacobian else None
        return InternalForces(force, kq, kdd, power)

    def energy(self, E):
        p, q = self._pq(E)
        eps = 0.5 * (np.sum(p * p, axis=-1) - 1.0)
        k, _, _ = curvature_vector(p, q, False)
        return 0.5 * (eps * eps) @ self.ea + 0.5 * np.sum(k * k, axis=-1) @ self.ei
