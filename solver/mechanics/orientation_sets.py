"""Orientation parameter sets for rigid bodies in reference-point coordinates (the null-space
Newmark thesis ch. 3, §9.1).

Every set ``o`` (``k`` parameters per body) is defined through the unit quaternion it
represents, ``p(o) = [e0, e1, e2, e3]`` (scalar first, body→global), with its exact first and
second derivatives ``P = ∂p/∂o`` (4×k) and ``∂²p/∂o²`` (4×k×k). The interface the thesis
uses (the null-space Newmark thesis §9.1) follows from them and from the Euler-parameter kinematics
of
``solver.mechanics.rotations`` (``ω = 2E(p)ṗ``, ``E(ṗ)ṗ = 0``):

* ``R(o)`` — rotation matrix;
* ``ω = B(o) ȯ`` with ``B = ∂ω/∂ȯ = 2E(p)P`` (global angular velocity, rad/s);
* ``ω̇ = B ö + 2E(p) ∂²p/∂o²[ȯ, ȯ]`` and ``∂ω̇/∂ȯ = 4E(p) ∂²p/∂o²[ȯ, ·]`` (ö fixed);
* ``S(o, v) = ∂(R(o) v)/∂o = S_p(p, v) P``.

Sets: ``euler_parameters`` (4, the default; ``p = o``, kept on the unit sphere by the norm
constraint), ``euler_zxz`` (α, β, γ: R = R_z(α) R_x(β) R_z(γ); singular at sin β = 0),
``rodrigues`` (reduced Euler–Rodrigues b = 2 sin(φ/2) n; singular at φ = ±π) and ``gibbs``
(Gibbs vector c = 2 tan(φ/2) n; infinite at φ = ±π). Arrays are vectorised over bodies:
``o`` is ``(n, k)``.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.rotations import e_matrix, rotate_jacobian, rotation_matrix

#: a set's singularity measure below this means "at the singularity" (stop the run)
SINGULAR = 1e-3


class OrientationSet:
    """Base class: subclasses give ``quaternion``, ``quaternion_jacobian``,
    ``quaternion_hessian``, ``from_quaternion`` and ``measure``."""

    name = ""
    size = 3
    #: what the measure tracks, for messages
    singularity = ""

    # ---- the quaternion map (per set) -------------------------------------------------
    def quaternion(self, o: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def quaternion_jacobian(self, o: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def quaternion_hessian(self, o: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def from_quaternion(self, p: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def measure(self, o: np.ndarray) -> np.ndarray:
        """Distance to the singularity in [0, 1] (1 far away), ``(n,)``; NaN counts as 0."""
        return np.ones(len(o))

    # ---- the thesis's interface ----------------------------------------------------------
    def rotation(self, o: np.ndarray) -> np.ndarray:
        """``R(o)``, ``(n, 3, 3)``."""
        return rotation_matrix(self.quaternion(o))

    def omega_jacobian(self, o: np.ndarray) -> np.ndarray:
        """``∂ω/∂ȯ = B(o)``, ``(n, 3, k)``."""
        return 2.0 * np.einsum(
            "nij,njk->nik", e_matrix(self.quaternion(o)), self.quaternion_jacobian(o)
        )

    def omega(self, o: np.ndarray, od: np.ndarray) -> np.ndarray:
        """Global angular velocity ``ω = B ȯ``, ``(n, 3)``."""
        return np.einsum("nik,nk->ni", self.omega_jacobian(o), od)

    def omega_dot(self, o: np.ndarray, od: np.ndarray, odd: np.ndarray) -> np.ndarray:
        """Global angular acceleration ``ω̇ = B ö + 2E(p) ∂²p/∂o²[ȯ, ȯ]``, ``(n, 3)``."""
        e = e_matrix(self.quaternion(o))
        quad = np.einsum("nakl,nk,nl->na", self.quaternion_hessian(o), od, od)
        return self.omega(o, odd) + 2.0 * np.einsum("nia,na->ni", e, quad)

    def omega_dot_jacobian(self, o: np.ndarray, od: np.ndarray) -> np.ndarray:
        """``∂ω̇/∂ȯ`` at fixed ö, ``(n, 3, k)``."""
        e = e_matrix(self.quaternion(o))
        lin = np.einsum("nakl,nk->nal", self.quaternion_hessian(o), od)
        return 4.0 * np.einsum("nia,nal->nil", e, lin)

    def rotate_jacobian(self, o: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``S(o, v) = ∂(R(o) v)/∂o`` for body-frame vectors ``v`` ``(n, 3)``, ``(n, 3, k)``."""
        s = rotate_jacobian(self.quaternion(o), v)
        return np.einsum("nia,nak->nik", s, self.quaternion_jacobian(o))


class EulerParameters(OrientationSet):
    """``o = p`` itself (4 parameters, unit norm by a constraint); no singularity."""

    name = "euler_parameters"
    size = 4

    def quaternion(self, o):
        return np.asarray(o, float)

    def quaternion_jacobian(self, o):
        return np.broadcast_to(np.eye(4), (len(o), 4, 4)).copy()

    def quaternion_hessian(self, o):
        return np.zeros((len(o), 4, 4, 4))

    def from_quaternion(self, p):
        return np.asarray(p, float).copy()


class EulerZXZ(OrientationSet):
    """Euler angles ``(α, β, γ)``, ``R = R_z(α) R_x(β) R_z(γ)`` (rad).

    With ``u = (α+γ)/2``, ``b = β/2``, ``w = (α−γ)/2``:
    ``p = [cos b cos u, sin b cos w, sin b sin w, cos b sin u]``. Singular where sin β = 0
    (α and γ are then not separable: ``∂ω/∂ȯ`` loses rank, the null-space Newmark thesis eq. 9.50).
    """

    name = "euler_zxz"
    singularity = "sin β = 0 (gimbal lock of the Z-X-Z angles)"
    #: ∂(u, b, w)/∂(α, β, γ)
    T = np.array([[0.5, 0.0, 0.5], [0.0, 0.5, 0.0], [0.5, 0.0, -0.5]])

    @staticmethod
    def _trig(o):
        u = 0.5 * (o[:, 0] + o[:, 2])
        b = 0.5 * o[:, 1]
        w = 0.5 * (o[:, 0] - o[:, 2])
        return np.cos(u), np.sin(u), np.cos(b), np.sin(b), np.cos(w), np.sin(w)

    def quaternion(self, o):
        cu, su, cb, sb, cw, sw = self._trig(np.asarray(o, float))
        return np.stack([cb * cu, sb * cw, sb * sw, cb * su], axis=-1)

    def quaternion_jacobian(self, o):
        cu, su, cb, sb, cw, sw = self._trig(np.asarray(o, float))
        z = np.zeros_like(cu)
        d = np.stack(  # ∂p/∂(u, b, w), (n, 4, 3)
            [
                np.stack([-cb * su, -sb * cu, z], -1),
                np.stack([z, cb * cw, -sb * sw], -1),
                np.stack([z, cb * sw, sb * cw], -1),
                np.stack([cb * cu, -sb * su, z], -1),
            ],
            axis=1,
        )
        return d @ self.T

    def quaternion_hessian(self, o):
        cu, su, cb, sb, cw, sw = self._trig(np.asarray(o, float))
        h = np.zeros((len(cu), 4, 3, 3))  # over (u, b, w)
        h[:, 0, 0, 0], h[:, 0, 1, 1] = -cb * cu, -cb * cu
        h[:, 0, 0, 1] = h[:, 0, 1, 0] = sb * su
        h[:, 1, 1, 1], h[:, 1, 2, 2] = -sb * cw, -sb * cw
        h[:, 1, 1, 2] = h[:, 1, 2, 1] = -cb * sw
        h[:, 2, 1, 1], h[:, 2, 2, 2] = -sb * sw, -sb * sw
        h[:, 2, 1, 2] = h[:, 2, 2, 1] = cb * cw
        h[:, 3, 0, 0], h[:, 3, 1, 1] = -cb * su, -cb * su
        h[:, 3, 0, 1] = h[:, 3, 1, 0] = -sb * cu
        return np.einsum("naij,ik,jl->nakl", h, self.T, self.T)

    def from_quaternion(self, p):
        a = rotation_matrix(np.asarray(p, float))
        beta = np.arccos(np.clip(a[:, 2, 2], -1.0, 1.0))
        alpha = np.arctan2(a[:, 0, 2], -a[:, 1, 2])
        gamma = np.arctan2(a[:, 2, 0], a[:, 2, 1])
        return np.stack([alpha, beta, gamma], axis=-1)

    def measure(self, o):
        return np.abs(np.sin(np.asarray(o, float)[:, 1]))


class Rodrigues(OrientationSet):
    """Reduced Euler–Rodrigues parameters ``b = 2 sin(φ/2) n`` (the null-space Newmark thesis eqs.
    9.57–9.59):
    ``p = [√(1 − bᵀb/4), b/2]``. Singular at φ = ±π (``e0 = 0``: ``∂ω/∂ȯ`` vanishes along b)."""

    name = "rodrigues"
    singularity = "a rotation of ±π from the reference (e0 = √(1 − bᵀb/4) → 0)"

    @staticmethod
    def _e0(o):
        return np.sqrt(np.maximum(1.0 - 0.25 * np.sum(o * o, axis=1), 0.0))

    def quaternion(self, o):
        o = np.asarray(o, float)
        return np.concatenate([self._e0(o)[:, None], 0.5 * o], axis=1)

    def quaternion_jacobian(self, o):
        o = np.asarray(o, float)
        e0 = self._e0(o)
        out = np.zeros((len(o), 4, 3))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, 0, :] = -o / (4.0 * e0[:, None])
        out[:, 1:, :] = 0.5 * np.eye(3)
        return out

    def quaternion_hessian(self, o):
        o = np.asarray(o, float)
        e0 = self._e0(o)[:, None, None]
        out = np.zeros((len(o), 4, 3, 3))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, 0] = -np.eye(3) / (4.0 * e0) - o[:, :, None] * o[:, None, :] / (16.0 * e0**3)
        return out

    def from_quaternion(self, p):
        p = np.asarray(p, float)
        p = np.where(p[:, :1] < 0.0, -p, p)
        return 2.0 * p[:, 1:]

    def measure(self, o):
        o = np.asarray(o, float)
        return np.nan_to_num(np.sqrt(1.0 - 0.25 * np.sum(o * o, axis=1)), nan=0.0)


class Gibbs(OrientationSet):
    """Gibbs vector ``c = 2 tan(φ/2) n`` (the null-space Newmark thesis eqs. 9.75–9.77): ``p = [1,
    c/2]/√(1 + cᵀc/4)``. Infinite at φ = ±π; the measure is ``e0 = cos(φ/2)``."""

    name = "gibbs"
    singularity = "a rotation of ±π from the reference (the Gibbs vector becomes infinite)"

    @staticmethod
    def _k(o):
        return 1.0 / np.sqrt(1.0 + 0.25 * np.sum(o * o, axis=1))

    def quaternion(self, o):
        o = np.asarray(o, float)
        k = self._k(o)[:, None]
        return np.concatenate([k, 0.5 * k * o], axis=1)

    def quaternion_jacobian(self, o):
        o = np.asarray(o, float)
        k = self._k(o)
        dk = -0.25 * (k**3)[:, None] * o  # ∂k/∂c
        out = np.empty((len(o), 4, 3))
        out[:, 0, :] = dk
        out[:, 1:, :] = 0.5 * (k[:, None, None] * np.eye(3) + o[:, :, None] * dk[:, None, :])
        return out

    def quaternion_hessian(self, o):
        o = np.asarray(o, float)
        k = self._k(o)
        dk = -0.25 * (k**3)[:, None] * o
        ddk = -0.25 * (k**3)[:, None, None] * np.eye(3) + (3.0 / 16.0) * (k**5)[:, None, None] * (
            o[:, :, None] * o[:, None, :]
        )
        eye = np.eye(3)
        out = np.empty((len(o), 4, 3, 3))
        out[:, 0] = ddk
        # ∂²(k c_i/2)/∂c_j∂c_l = (δ_ij ∂_l k + δ_il ∂_j k + c_i ∂²_jl k)/2
        out[:, 1:] = 0.5 * (
            eye[None, :, :, None] * dk[:, None, None, :]
            + eye[None, :, None, :] * dk[:, None, :, None]
            + o[:, :, None, None] * ddk[:, None, :, :]
        )
        return out

    def from_quaternion(self, p):
        p = np.asarray(p, float)
        p = np.where(p[:, :1] < 0.0, -p, p)
        return 2.0 * p[:, 1:] / p[:, :1]

    def measure(self, o):
        return np.nan_to_num(self._k(np.asarray(o, float)), nan=0.0)


SETS: dict[str, type[OrientationSet]] = {
    "euler_parameters": EulerParameters,
    "euler_zxz": EulerZXZ,
    "rodrigues": Rodrigues,
    "gibbs": Gibbs,
}


def orientation_set(name: str) -> OrientationSet:
    """The set called ``name`` (one of ``solver.model.description.ORIENTATIONS``)."""
    return SETS[name]()
