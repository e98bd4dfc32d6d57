"""Internal (material) damping of ANCF elements (García Vallejo (2006) §3.3).

**Continuum elements** (Omar, Yakoub): the viscous stress of the linear viscoelastic law
(3.54)–(3.56),

    σ_v = 2G γ_d ε̇ + (K γ_s − 2G γ_d/3) tr(ε̇) I = 2 G_v ε̇ + λ_v tr(ε̇) I,

with the Rayleigh dissipation function ``P_d = ½ ∫ σ_v : ε̇ dV₀`` (3.57) and the consistent
damping force ``Q_d = −∂P_d/∂ė = −∫ σ_v : ∂ε̇/∂ė dV₀``. This is the strict derivative of
(3.57): the coefficients printed in (3.60)–(3.61) are twice it (García Vallejo (2006) §3.3,
"Caution"), so a bar in uniaxial stress has ``σ = E (ε + γ_xx ε̇)`` with ``γ_xx = (γ_s + 2γ_d)/3``
(3.80) exactly, and a mode of frequency ω gets the damping ratio ``ξ ≈ γ ω/2`` ((3.62)–(3.64)).

With ``ε̇_αβ = ½ s_αᵀ Ṗ s_β``, ``Ṗ = Ė Eᵀ + E Ėᵀ``, the invariants of the elastic energy give
``P_d = Ṗ:T_v:Ṗ`` with ``T_v = λ_v/8 H + G_v/4 H'`` (``invariants``), so

    Q_d = −4 (T_v:Ṗ) E,
    ∂Q_d/∂Ė_kb = −4 Σ_jl E_ja (T_v,ijkl + T_v,ijlk) E_lb,
    ∂Q_d/∂E_kb = −4 [Σ_jl E_ja (T_v,ijkl + T_v,ijlk) Ė_lb + (T_v:Ṗ)_ik δ_ab]   ((3.83)–(3.84)).

A rigid motion has ``Ṗ``-strain rates zero (3.86)–(3.90), so it dissipates nothing.
``solver.kernels.continuum`` evaluates these forces and Jacobians.

**Line elements** (Euler–Bernoulli, cable): their energy is ``½ Σ c_s ε_s²`` over strain
samples ε_s (axial strain, curvature) at Gauss points; the same law in uniaxial form gives
``P_d = ½ γ Σ c_s ε̇_s²`` with ``γ = γ_xx`` (``solver.kernels.elastic_line`` for the planar
elements, ``cable`` for the cable). It also vanishes in rigid motion, since the strains do
not change.
"""
