"""Rigid bodies in reference-point coordinates: centre of mass + Euler parameters.

Each body has seven coordinates ``[x, y, z, e0, e1, e2, e3]`` and the same seven
velocities ``q̇``. With ``ω̄ = 2 G(p) ṗ`` (body frame) the kinetic energy is
``T = ½ m ṙ·ṙ + ½ ω̄ᵀ J ω̄``, so the mass matrix is ``diag(m I₃, 4 GᵀJG)`` and Lagrange's
equations add the quadratic-velocity force ``Q_v = 8 Ġᵀ J Ġ p`` (``Ġ = G(ṗ)``).
The p-block of M is singular along p; the Euler-parameter norm constraint
``pᵀp − 1 = 0`` (in ``solver.mechanics.system``) supplies that direction.

Everything is vectorised over all rigid bodies of a system: ``mass (n,)``,
``inertia (n, 3, 3)`` about the centre of mass in body axes (general tensors allowed).
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.kernel_cache import compiled_kernels
from solver.mechanics.rotations import g_matrix


def _sandwich(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``aᵀ b c`` per body (batched products: a fraction of a three-operand einsum's cost)."""
    return np.matmul(np.matmul(np.swapaxes(a, 1, 2), b), c)


def _times(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``a x`` per body, ``(n, i, j) × (n, j) → (n, i)``."""
    return np.matmul(a, x[:, :, None])[:, :, 0]


def h_matrix(c: np.ndarray) -> np.ndarray:
    """``H(c)`` with ``G(x)ᵀ c = H(c) x`` for all x: ``[[0, −cᵀ], [c, −c̃]]``, ``(n, 4, 4)``.

    Linear in c: one product with the constant matrix of :func:`_h_matrix_formula`."""
    c = np.asarray(c, float)
    return (c @ _H_TENSOR).reshape(c.shape[:-1] + (4, 4))


def _h_matrix_formula(c: np.ndarray) -> np.ndarray:
    """``H(c)`` written out (see :func:`h_matrix`)."""
    n = c.shape[:-1]
    out = np.zeros(n + (4, 4))
    out[..., 0, 1:] = -c
    out[..., 1:, 0] = c
    out[..., 1, 2], out[..., 1, 3] = c[..., 2], -c[..., 1]
    out[..., 2, 1], out[..., 2, 3] = -c[..., 2], c[..., 0]
    out[..., 3, 1], out[..., 3, 2] = c[..., 1], -c[..., 0]
    return out


#: ``H(c).ravel() = c @ _H_TENSOR``
_H_TENSOR = np.array([_h_matrix_formula(row).ravel() for row in np.eye(3)])


#: from this many bodies on, the per-body blocks come from the compiled loops of
#: :mod:`solver.mechanics.bodies.rigid_kernels` (fewer: NumPy, no compilation needed)
COMPILED_MIN_BODIES = 64


def _kernels(bodies):
    """The compiled kernels module when ``bodies`` are many, else ``None``."""
    if len(bodies) < COMPILED_MIN_BODIES or not compiled_kernels():
        return None
    from solver.mechanics.bodies import rigid_kernels

    return rigid_kernels


class RigidBodies:
    """All rigid bodies of a system; ``offsets[i]`` is the first coordinate of body i."""

    def __init__(self, offsets, mass, inertia) -> None:
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.mass = np.asarray(mass, float)
        self.inertia = np.asarray(inertia, float).reshape(-1, 3, 3)
        self.cols = self.offsets[:, None] + np.arange(7)  # (n, 7)

    def __len__(self) -> int:
        return len(self.offsets)

    def split(self, x: np.ndarray):
        """``(r, p)`` of every body from a system vector."""
        blk = x[self.cols]
        return blk[:, :3], blk[:, 3:]

    def mass_blocks(self, q: np.ndarray) -> np.ndarray:
        """The 7×7 mass matrix of every body, ``(n, 7, 7)``."""
        _, p = self.split(q)
        kern = _kernels(self)
        if kern is not None:
            return kern.mass_blocks(np.ascontiguousarray(p), self.mass, self.inertia)
        g = g_matrix(p)
        if "_translation_blocks" not in self.__dict__:  # constant m I₃ blocks, built once
            base = np.zeros((len(self), 7, 7))
            base[:, :3, :3] = self.mass[:, None, None] * np.eye(3)
            self._translation_blocks = base
        out = self._translation_blocks.copy()
        out[:, 3:, 3:] = 4.0 * _sandwich(g, self.inertia, g)
        return out

    def mass_times(self, q: np.ndarray, a: np.ndarray) -> np.ndarray:
        """``M(q) a`` per body, ``(n, 7)``."""
        return _times(self.mass_blocks(q), a[self.cols])

    def mass_times_jacobian(self, q: np.ndarray, a: np.ndarray) -> np.ndarray:
        """``∂(M(q) a)/∂q`` per body (a held fixed), ``(n, 7, 7)``; nonzero in the p-block."""
        _, p = self.split(q)
        _, ap = self.split(a)
        kern = _kernels(self)
        if kern is not None:
            return kern.mass_times_jacobian(
                np.ascontiguousarray(p), np.ascontiguousarray(ap), self.inertia
            )
        g = g_matrix(p)
        ga = _times(g, ap)
        jga = _times(self.inertia, ga)
        out = np.zeros((len(self), 7, 7))
        # M_pp a = 4 Gᵀ J G a; G(p) a = −G(a) p.
        out[:, 3:, 3:] = 4.0 * (h_matrix(jga) - _sandwich(g, self.inertia, g_matrix(ap)))
        return out

    def quadratic_forces(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """``Q_v = 8 G(ṗ)ᵀ J G(ṗ) p`` per body, ``(n, 7)`` (zero translational part)."""
        _, p = self.split(q)
        _, pd = self.split(qd)
        kern = _kernels(self)
        if kern is not None:
            return kern.quadratic_forces(
                np.ascontiguousarray(p), np.ascontiguousarray(pd), self.inertia
            )
        gd = g_matrix(pd)
        w = _times(gd, p)
        out = np.zeros((len(self), 7))
        out[:, 3:] = 8.0 * _times(np.swapaxes(gd, 1, 2), _times(self.inertia, w))
        return out

    def quadratic_forces_jacobians(self, q: np.ndarray, qd: np.ndarray):
        """``(∂Q_v/∂q, ∂Q_v/∂q̇)`` per body, each ``(n, 7, 7)``."""
        _, p = self.split(q)
        _, pd = self.split(qd)
        kern = _kernels(self)
        if kern is not None:
            return kern.quadratic_forces_jacobians(
                np.ascontiguousarray(p), np.ascontiguousarray(pd), self.inertia
            )
        gd = g_matrix(pd)
        gdjgd = _sandwich(gd, self.inertia, gd)
        w = _times(gd, p)
        dq = np.zeros((len(self), 7, 7))
        dqd = np.zeros((len(self), 7, 7))
        dq[:, 3:, 3:] = 8.0 * gdjgd
        # Q_v = 8 G(ṗ)ᵀ c with c = J w, w = G(ṗ) p = −G(p) ṗ.
        jw = _times(self.inertia, w)
        dqd[:, 3:, 3:] = 8.0 * (h_matrix(jw) - _sandwich(gd, self.inertia, g_matrix(p)))
        return dq, dqd

    def body_angular_velocity(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        _, p = self.split(q)
        _, pd = self.split(qd)
        return 2.0 * _times(g_matrix(p), pd)

    def rotational_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        """``½ Σ ω̄ᵀ J ω̄`` (the translational part is the system's)."""
        wb = self.body_angular_velocity(q, qd)
        return float(0.5 * np.einsum("ni,nij,nj->", wb, self.inertia, wb))

    def momentum(self, q: np.ndarray, qd: np.ndarray, origin=(0.0, 0.0, 0.0)):
        """Total linear momentum and angular momentum about ``origin`` (global)."""
        from solver.mechanics.rotations import rotation_matrix

        r, p = self.split(q)
        rd, _ = self.split(qd)
        lin = self.mass[:, None] * rd
        a = rotation_matrix(p)
        wb = self.body_angular_velocity(q, qd)
        spin = np.einsum("nij,njk,nk->ni", a, self.inertia, wb)
        ang = np.cross(r - np.asarray(origin), lin) + spin
        return lin.sum(axis=0), ang.sum(axis=0)
