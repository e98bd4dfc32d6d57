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
``QuarticForm`` evaluates the same energy as ``D:T:D`` with ``D = P − P₀`` (P₀ the
reference), an identity (checked in the tests) that avoids subtracting large numbers near
the undeformed state; then ``F = −4 (T:D) E`` and the last term of (3.32) is ``4 (T:D)``.

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


class QuarticForm:
    """``U(E) = D:T:D`` with ``D = E Eᵀ − P₀``, vectorised over elements.

    ``P₀ = E₀ E₀ᵀ`` is the reference configuration in the element's material frame (node m
    at the origin, slopes the unit axes), where ``s_αᵀ P₀ s_β = δ_αβ``: the strains are
    ``ε_αβ = ½ s_αᵀ D s_β`` and the energy ``P:T:P − k B:P + U₀`` of the thesis equals
    ``D:T:D`` identically (``4 T:P₀ = 2k B`` and ``P₀:T:P₀ = U₀``). This form is used because it
    does not subtract large numbers near the undeformed state. ``P₀ = 0`` gives the
    damping's ``Ṗ:T_v:Ṗ``.

    Arrays of elements: ``E`` is ``(N, m, d)``. Results: energies ``(N,)``, forces
    ``−∂U/∂E`` as ``(N, m·d)`` and their Jacobians as ``(N, m·d, m·d)``:

        F = −4 (T:D) E,   ∂F_ia/∂E_kb = −4 Σ_jl E_ja (T_ijkl + T_ijlk) E_lb − 4 (T:D)_ik δ_ab.
    """

    def __init__(self, tensor: np.ndarray, reference: np.ndarray | None = None) -> None:
        m = tensor.shape[0]
        self.m = m
        self.T2 = tensor.reshape(m * m, m * m)
        ts = tensor + tensor.transpose(0, 1, 3, 2)  # T_ijkl + T_ijlk
        # for the Jacobian: (j, i, k, l) → rows j, columns (i, k, l)
        self.Ts_j = np.ascontiguousarray(ts.transpose(1, 0, 2, 3).reshape(m, m**3))
        self.P0 = np.zeros((m, m)) if reference is None else np.asarray(reference, float)

    def contract(self, p: np.ndarray) -> np.ndarray:
        """``T:P`` for symmetric ``P`` ``(N, m, m)``."""
        n = p.shape[0]
        return (p.reshape(n, -1) @ self.T2.T).reshape(n, self.m, self.m)

    def strain_matrix(self, E: np.ndarray) -> np.ndarray:
        return E @ E.transpose(0, 2, 1) - self.P0

    def energy(self, E: np.ndarray) -> np.ndarray:
        dmat = self.strain_matrix(E)
        return np.einsum("nij,nij->n", dmat, self.contract(dmat))

    def gradient_term(self, E: np.ndarray, Edot: np.ndarray) -> np.ndarray:
        """``Σ_jl E_ja Ts_ijkl Ė_lb`` as ``(N, m, d, m, d)`` (indices i, a, k, b)."""
        n, m, d = E.shape
        # W[n, a, (i, k, l)] = Σ_j E[n, j, a] Ts[j, (i, k, l)]
        w = E.transpose(0, 2, 1) @ self.Ts_j  # (N, d, m³)
        w = w.reshape(n, d * m * m, m)  # rows (a, i, k), columns l
        x = w @ Edot  # (N, d·m·m, d): [a, i, k, b]
        return x.reshape(n, d, m, m, d).transpose(0, 2, 1, 3, 4)

    def forces(self, E: np.ndarray, jacobian: bool = False):
        """``(F, ∂F/∂e)``: ``F = −∂U/∂e`` ``(N, m·d)``; the Jacobian or ``None``."""
        n, m, d = E.shape
        y4 = 4.0 * self.contract(self.strain_matrix(E))
        force = -(y4 @ E).reshape(n, m * d)
        if not jacobian:
            return force, None
        jac = -4.0 * self.gradient_term(E, E)
        jac -= y4[:, :, None, :, None] * np.eye(d)[None, None, :, None, :]
        return force, jac.reshape(n, m * d, m * d)
