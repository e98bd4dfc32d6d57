"""Invariant matrices of the continuum-mechanics ANCF elements (García Vallejo (2006) §3.2,
(3.22)–(3.35)).

St. Venant–Kirchhoff energy ``U = ∫ [λ/2 (tr ε)² + G ε:ε] dV₀`` with the Green–Lagrange strain
``ε_αβ = ½ (r_α·r_β − δ_αβ)``. Because ``S = [s₁ I, …, s_m I]``, every strain is a bilinear
form of the nodal vectors: with ``E`` the ``m × d`` matrix of nodal vectors (``e = E.ravel()``)
and ``s_α = ∂s/∂x_α`` (m), ``r_α·r_β = s_αᵀ P s_β`` with ``P = E Eᵀ``. Writing
``A(x) = Σ_α s_α s_αᵀ`` (m × m), the energy is a polynomial in P whose coefficients are
integrals computed once (the thesis's invariant matrices, reduced to scalar tensors by the
block structure — García Vallejo (2006) §3.2, "implementation consequence"):

    H_ijkl = ∫ A_ij A_kl dV₀,   B = ∫ A dV₀,   V = ∫ dV₀,
    T_ijkl = λ/8 H_ijkl + G/4 H_ikjl,
    U = P:T:P − k B:P + U₀,      k = nλ/4 + G/2,   U₀ = (n²λ/8 + nG/4) V,

(n = 2 or 3 material directions; U₀ is (3.34)–(3.35): (9λ + 6G)/8 V in 3D, (λ + G)/2 V in 2D).
Then, with ``Y = T:P`` (m × m, symmetric),

    F = −∂U/∂E = −(4Y − 2kB) E                       (the thesis's −(K₂(e) + K₁) e)
    ∂F_ia/∂E_kb = −4 Σ_jl E_ja (T_ijkl + T_ijlk) E_lb − (4Y − 2kB)_ik δ_ab     ((3.32))

(k₂ = λ + G, the erratum of (3.26), is built in: the energy is differentiated directly.)
``solver.kernels.continuum`` evaluates the same energy as ``D:T:D`` with ``D = P − P₀`` (P₀
the reference), an identity (checked in the tests) that avoids subtracting large numbers
near the undeformed state; then ``F = −4 (T:D) E`` and the last term of (3.32) is
``4 (T:D)``.

No quadrature is done at run time. P is unchanged by a rigid rotation of the nodal vectors
(E → E Rᵀ), and translations drop out because ``A`` annihilates the position functions
(their sum is 1), so one set of invariants serves every element of equal length, section and
material, whatever its orientation (3.36)–(3.42): the strain measure is taken in the local
material frame of the straight reference, where ``J₀`` is a rotation and the isotropic
energy is the same as in the global frame.
"""

from __future__ import annotations

import numpy as np


class ContinuumInvariants:
    """``H``, ``B`` and ``V`` of one element geometry from its shape-function derivatives.

    ``derivs`` has shape ``(P, n, m)`` (the derivatives along the n material directions at P
    quadrature points) and ``weights`` ``(P,)`` (volume weights, summing to V).
    """

    def __init__(self, derivs: np.ndarray, weights: np.ndarray) -> None:
        derivs = np.asarray(derivs, float)
        w = np.asarray(weights, float)
        self.n = derivs.shape[1]
        self.m = derivs.shape[2]
        a = np.einsum("pai,paj->pij", derivs, derivs)
        self.H = np.einsum("p,pij,pkl->ijkl", w, a, a)
        self.B = np.einsum("p,pij->ij", w, a)
        self.V = float(np.sum(w))

    def tensor(self, lam: float, mu: float) -> np.ndarray:
        """``T = λ/8 H_ijkl + μ/4 H_ikjl`` for an isotropic quadratic form of the strain."""
        return lam / 8.0 * self.H + mu / 4.0 * self.H.transpose(0, 2, 1, 3)
