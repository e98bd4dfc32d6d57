"""The normal force of a rigid pulley on a planar belt at rest (García Vallejo (2006) (7.18)–(7.20)).

At points of the centreline ``r = Σ s_i E_i`` (Gauss points of each element, weights
``W`` per unit length of the undeformed belt), with the pulley's centre ``c`` and radius R:

    ρ = |r − c|,  n = (r − c)/ρ,  d = R − ρ,   f_n = k_p d n  (d > 0; zero otherwise),

and ``Q = Σ W sᵀ f_n``, ``∂f_n/∂r = k_p [−n nᵀ + (d/ρ)(I − n nᵀ)]``. This is the static part of
the ``pulley_contact`` force (``forces.pulley_contact``), used for the belt's initial
equilibrium; its elastic energy is ``Σ W k_p d²/2``.
"""

from __future__ import annotations

import numpy as np


def normal_forces(shape, weight, E, centre, radius: float, k: float):
    """``(Q (N, m·2), ∂Q/∂e (N, m·2, m·2))`` on elements ``E`` ``(N, m, 2)``: ``shape`` the
    centreline functions at the points ``(G, m)``, ``weight`` ``(G,)`` (m)."""
    r = np.einsum("gi,nia->nga", shape, E)
    w = r - np.asarray(centre, float)[:2]
    rho = np.linalg.norm(w, axis=-1)
    n = w / rho[..., None]
    depth = radius - rho
    on = depth > 0.0
    f = (k * np.where(on, depth, 0.0))[..., None] * n  # (N, G, 2)
    nn = n[..., :, None] * n[..., None, :]
    eye = np.eye(2)
    jac = k * (-nn + (depth / rho)[..., None, None] * (eye - nn))
    jac = np.where(on[..., None, None], jac, 0.0)  # (N, G, 2, 2)
    m = shape.shape[1]
    nel = E.shape[0]
    q = np.einsum("g,gi,nga->nia", weight, shape, f).reshape(nel, 2 * m)
    kq = np.einsum("g,gi,gj,ngab->niajb", weight, shape, shape, jac).reshape(nel, 2 * m, 2 * m)
    return q, kq


def normal_energy(shape, weight, E, centre, radius: float, k: float) -> float:
    """``Σ W k_p d²/2`` over the points in contact (J)."""
    r = np.einsum("gi,nia->nga", shape, E)
    depth = radius - np.linalg.norm(r - np.asarray(centre, float)[:2], axis=-1)
    return float(0.5 * k * np.einsum("g,ng->", weight, np.maximum(depth, 0.0) ** 2))
