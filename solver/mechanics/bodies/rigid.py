"""Rigid bodies in reference-point coordinates: centre of mass + Euler parameters.

Each body has seven coordinates ``[x, y, z, e0, e1, e2, e3]`` and the same seven
velocities ``q̇``. With ``ω̄ = 2 G(p) ṗ`` (body frame) the kinetic energy is
``T = ½ m ṙ·ṙ + ½ ω̄ᵀ J ω̄``, so the mass matrix is ``diag(m I₃, 4 GᵀJG)`` and Lagrange's
equations add the quadratic-velocity force ``Q_v = 8 Ġᵀ J Ġ p`` (``Ġ = G(ṗ)``).
The p-block of M is singular along p; the Euler-parameter norm constraint
``pᵀp − 1 = 0`` (in ``solver.mechanics.system``) supplies that direction.

The group holds all rigid bodies of a system: ``mass (n,)``, ``inertia (n, 3, 3)`` about
the centre of mass in body axes (general tensors allowed). Their equations (mass blocks,
quadratic-velocity forces and their Jacobians, energy) are the compiled kernels of
``solver.kernels.system``.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.rotations import body_angular_velocity, rotation_matrix


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

    def momentum(self, q: np.ndarray, qd: np.ndarray, origin=(0.0, 0.0, 0.0)):
        """Total linear momentum and angular momentum about ``origin`` (global)."""
        r, p = self.split(q)
        rd, pd = self.split(qd)
        lin = self.mass[:, None] * rd
        a = rotation_matrix(p)
        wb = body_angular_velocity(p, pd)
        spin = np.einsum("nij,njk,nk->ni", a, self.inertia, wb)
        ang = np.cross(r - np.asarray(origin), lin) + spin
        return lin.sum(axis=0), ang.sum(axis=0)
