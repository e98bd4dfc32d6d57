"""The central-difference family of the null-space Newmark thesis §9.2 (Ch. 9.2): schemes, an ODE
integrator and their stability limits.

All variants advance ``x(t+Δt)`` and ``ẋ(t)`` from stored derivatives at ``t − Δt`` and the
acceleration ``ẍ(t) = g(ẋ(t), x(t), t)``, which makes them "conditionally explicit": with a
velocity-dependent g the acceleration is found by Newton iteration. Both updates are affine
in the unknown ``a = ẍ(t)``:

    x(t+Δt) − x(t) = d₀ + c_x a,    ẋ(t) = v₀ + c_v a,

which is all a constrained solver needs (``Scheme.coefficients``). Variants:

* ``standard``: ``x⁺ = 2x − x⁻ + Δt² a``, ``ẋ = (x⁺ − x⁻)/2Δt`` (ODE form; cancellation
  at small Δt, the null-space Newmark thesis Table 9.5);
* ``reformulated``: the same scheme written on ``ẋ`` and ``ẍ`` (the null-space Newmark thesis eqs.
  9.93, 9.96),
  ``x⁺ = x + Δt ẋ + Δt²/2 ẍ``, ``ẋ = ẋ⁻ + Δt/2 (ẍ⁻ + ẍ)`` — free of cancellation;
* ``family`` (α, β; the null-space Newmark thesis eqs. 9.99–9.100): ``x⁺ = x + Δt ẋ + Δt²/2 (α ẍ +
  (1−α) ẍ⁻)``,
  ``ẋ = ẋ⁻ + Δt (β ẍ + (1−β) ẍ⁻)``; α = 1, β = ½ is ``reformulated``;
* ``fourth_degree`` (α, β, γ; eqs. 9.129–9.132) with the jerk ``x⃛``;
* ``fifth_degree`` (α, β, γ, ζ; eqs. 9.158–9.162) with jerk and snap ``x⁗``.

At the first step (t = 0, ẋ(0) given) every variant takes ``x(Δt) = x + Δt ẋ + Δt²/2 ẍ``
with the higher derivatives at t = 0 set to zero (the null-space Newmark thesis Table 9.8: ``x⃛(0) =
0``).

Stability: applied to ``ẍ = −ω² x`` each scheme is a linear map of its stored state whose
entries depend on ``Δt ω`` only (the null-space Newmark thesis eqs. 9.116, 9.156, 9.163), so its
stability limit is
``Δt ≤ c/ω`` with ``c = stability_constant(scheme)``: 2 for CD, √(12/5) for α = 4/3 and
√(4/3) for α = 2 (β = ½).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

VARIANTS = ("standard", "reformulated", "family", "fourth_degree", "fifth_degree")

#: defaults of each variant's parameters (the null-space Newmark thesis §9.2: the stable sets of the
#: thesis)
DEFAULTS = {
    "standard": {"alpha": 1.0, "beta": 0.5},
    "reformulated": {"alpha": 1.0, "beta": 0.5},
    "family": {"alpha": 1.0, "beta": 0.5},
    "fourth_degree": {"alpha": 0.75, "beta": 1.0 / 3.0, "gamma": 0.5},
    "fifth_degree": {"alpha": 0.8, "beta": 1.0, "gamma": 1.0, "zeta": 1.0},
}

#: a spectral radius up to 1 + this counts as stable (eigenvalues of a double root on the
#: unit circle carry errors of about √ε)
RHO_TOLERANCE = 1e-7


@dataclass(frozen=True)
class Scheme:
    """One member of the family; ``degree`` 3 (family), 4 or 5 (how many derivatives
    beyond the acceleration are stored: 0, 1 (jerk) or 2 (jerk, snap))."""

    variant: str = "reformulated"
    alpha: float = 1.0
    beta: float = 0.5
    gamma: float = 0.5
    zeta: float = 1.0

    @classmethod
    def from_parameters(cls, params: dict) -> Scheme:
        """From ``solver.parameters``-style keys (``variant``, ``alpha``, ``beta``, …)."""
        variant = str(params.get("variant", "standard"))
        if variant not in VARIANTS:
            raise ValueError(f'"{variant}" is not a central-difference variant')
        vals = {**DEFAULTS[variant]}
        if variant in ("family", "fourth_degree", "fifth_degree"):
            for key in vals:
                if params.get(key) is not None:
                    vals[key] = float(params[key])
        return cls(variant, **vals)

    @property
    def extra(self) -> int:
        """Stored derivatives beyond ẍ: 0, 1 (jerk) or 2 (jerk and snap)."""
        return {"fourth_degree": 1, "fifth_degree": 2}.get(self.variant, 0)

    @property
    def label(self) -> str:
        v = self.variant
        if v in ("standard", "reformulated"):
            return f"{v} central differences"
        if v == "family":
            return f"central-difference family (α = {self.alpha:.6g}, β = {self.beta:.6g})"
        names = "α β γ" if v == "fourth_degree" else "α β γ ζ"
        vals = [self.alpha, self.beta, self.gamma, self.zeta][: len(names.split())]
        pairs = ", ".join(f"{n} = {x:.6g}" for n, x in zip(names.split(), vals, strict=True))
        return f"{v.replace('_', '-')} central differences ({pairs})"

    # ---- the affine update ------------------------------------------------------------------
    def coefficients(self, h: float, hist: tuple):
        """``(d₀, c_x, v₀, c_v)`` from the history ``(ẋ⁻, ẍ⁻[, x⃛⁻[, x⁗⁻]])`` at t − h."""
        al, be, ga, ze = self.alpha, self.beta, self.gamma, self.zeta
        if self.extra == 0:
            vm, am = hist[0], hist[1]
            if self.variant in ("standard", "reformulated"):
                al, be = 1.0, 0.5
            v0 = vm + h * (1.0 - be) * am
            return h * v0 + 0.5 * h * h * (1.0 - al) * am, h * h * (be + 0.5 * al), v0, h * be
        if self.extra == 1:
            vm, am, jm = hist[:3]
            j0, cj = -(am + h * (1.0 - ga) * jm) / (h * ga), 1.0 / (h * ga)
            v0 = vm + h * am + 0.5 * h * h * ((1.0 - be) * jm + be * j0)
            cv = 0.5 * h * h * be * cj
            d0 = h * v0 + h**3 / 6.0 * (al * j0 + (1.0 - al) * jm)
            return d0, h * cv + 0.5 * h * h + h**3 / 6.0 * al * cj, v0, cv
        vm, am, jm, sm = hist[:4]
        s0, cs = self._snap(h, am, jm, sm)
        j0, cj = jm + h * ((1.0 - ze) * sm + ze * s0), h * ze * cs
        v0 = vm + h * am + 0.5 * h * h * jm + h**3 / 6.0 * ((1.0 - be) * sm + be * s0)
        cv = h**3 / 6.0 * be * cs
        d0 = h * v0 + h**3 / 6.0 * j0 + h**4 / 24.0 * ((1.0 - al) * sm + al * s0)
        cx = h * cv + 0.5 * h * h + h**3 / 6.0 * cj + h**4 / 24.0 * al * cs
        return d0, cx, v0, cv

    def _snap(self, h, am, jm, sm):
        """``x⁗ = s₀ + c_s ẍ`` from eq. 9.160."""
        ga = self.gamma
        cs = 2.0 / (h * h * ga)
        return -(am + h * jm + 0.5 * h * h * (1.0 - ga) * sm) * cs, cs

    def history(self, h: float, hist: tuple, v, a) -> tuple:
        """The history at t from the one at t − h, the new ``ẋ(t)`` and ``ẍ(t)``."""
        if self.extra == 0:
            return (v, a)
        if self.extra == 1:
            _, am, jm = hist[:3]
            j = (a - am - h * (1.0 - self.gamma) * jm) / (h * self.gamma)
            return (v, a, j)
        _, am, jm, sm = hist[:4]
        s0, cs = self._snap(h, am, jm, sm)
        s = s0 + cs * a
        j = jm + h * ((1.0 - self.zeta) * sm + self.zeta * s)
        return (v, a, j, s)

    def first_history(self, v, a) -> tuple:
        """The history at t = 0 (higher derivatives zero)."""
        zero = 0.0 * a
        return (v, a) + (zero,) * self.extra


def first_coefficients(h: float, v0):
    """``(d₀, c_x, v₀, c_v)`` of the first step (ẋ(0) known)."""
    return h * v0, 0.5 * h * h, v0, 0.0


# ---- stability -----------------------------------------------------------------------------
def amplification_matrix(scheme: Scheme, h_omega: float) -> np.ndarray:
    """The step map of ``ẍ = −x`` (ω = 1, Δt = ``h_omega``) on ``[x, ẋ⁻, ẍ⁻, …]``."""
    h = float(h_omega)
    size = 3 + scheme.extra
    out = np.empty((size, size))
    for k in range(size):
        state = np.zeros(size)
        state[k] = 1.0
        x, hist = state[0], tuple(state[1:])
        d0, cx, v0, cv = scheme.coefficients(h, hist)
        a = -x  # g does not depend on ẋ: a is explicit
        v = v0 + cv * a
        new = scheme.history(h, hist, v, a)
        out[:, k] = [x + d0 + cx * a, *new]
    return out


def spectral_radius(scheme: Scheme, h_omega: float) -> float:
    return float(np.abs(np.linalg.eigvals(amplification_matrix(scheme, h_omega))).max())


def stability_constant(scheme: Scheme, upper: float = 10.0) -> float:
    """The largest ``c`` with spectral radius ≤ 1 (+ ``RHO_TOLERANCE``) for all ``Δtω ≤ c``.

    Scanned in steps of 0.01 and refined by bisection to 1e-10; ``0`` when even the smallest
    steps are unstable, ``inf`` when no limit is found below ``upper``.
    """
    key = (scheme.variant, scheme.alpha, scheme.beta, scheme.gamma, scheme.zeta)
    if key in _CACHE:
        return _CACHE[key]

    def stable(x: float) -> bool:
        return spectral_radius(scheme, x) <= 1.0 + RHO_TOLERANCE

    grid = np.arange(1, int(upper / 0.01) + 1) * 0.01
    lo, hi = 0.0, math.inf
    for x in grid:
        if not stable(x):
            hi = x
            break
        lo = x
    if hi == math.inf:
        _CACHE[key] = math.inf
        return math.inf
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
    _CACHE[key] = lo
    return lo


_CACHE: dict[tuple, float] = {}


def dt_max(scheme: Scheme, omega_max: float) -> float:
    """Largest stable step for the highest frequency ``omega_max`` (rad/s)."""
    if not omega_max > 0.0:
        return math.inf
    return stability_constant(scheme) / omega_max


# ---- the ODE case --------------------------------------------------------------------------
@dataclass
class OdeSolution:
    t: np.ndarray
    x: np.ndarray
    v: np.ndarray
    a: np.ndarray


def integrate_ode(
    accel,
    x0,
    v0,
    h: float,
    steps: int,
    scheme: Scheme,
    accel_dv=None,
    tol: float = 1e-13,
    max_iterations: int = 50,
) -> OdeSolution:
    """Integrate ``ẍ = accel(t, x, ẋ)`` (arrays of any shape) for ``steps`` steps of ``h``.

    ``accel_dv(t, x, ẋ)`` (∂ẍ/∂ẋ, a matrix over the flattened state) makes the implicit
    velocity dependence converge by Newton's method; without it fixed-point iteration is
    used (enough for weak damping). Returns x, ẋ, ẍ at t = 0, h, …, steps·h.
    """
    x = np.array(x0, float)
    v = np.array(v0, float)
    ts = h * np.arange(steps + 1)
    xs, vs, accs = (np.empty((steps + 1,) + x.shape) for _ in range(3))

    def solve(t, xt, v0_, cv):
        a = accel(t, xt, v0_)
        a = float(a) if scalar else np.asarray(a, float)
        if cv == 0.0:
            return a, v0_
        for _ in range(max_iterations):
            vt = v0_ + cv * a
            r = a - accel(t, xt, vt)
            if accel_dv is not None:
                rr = np.atleast_1d(r)
                jac = np.eye(rr.size) - cv * np.asarray(accel_dv(t, xt, vt)).reshape(rr.size, -1)
                da = -np.linalg.solve(jac, rr.ravel()).reshape(np.shape(r))
            else:
                da = -r
            a = a + (float(da) if scalar else da)
            if np.abs(da).max() <= tol * max(1.0, float(np.abs(a).max())):
                break
        return a, v0_ + cv * a

    scalar = x.ndim == 0
    if scalar:  # plain floats: several times faster than 0-d arrays
        x, v = float(x), float(v)

    a, _ = solve(0.0, x, v, 0.0)
    xs[0], vs[0], accs[0] = x, v, a
    if scheme.variant == "standard":
        x_prev = None
        x_next = x + h * v + 0.5 * h * h * a
        for k in range(1, steps + 1):
            x_prev, x = x, x_next
            # a(t) with ẋ = (x⁺ − x⁻)/2h = (2x − 2x⁻ + h² a)/2h
            a, v = solve(ts[k], x, (x - x_prev) / h, 0.5 * h)
            x_next = 2.0 * x - x_prev + h * h * a
            xs[k], vs[k], accs[k] = x, v, a
        return OdeSolution(ts, xs, vs, accs)
    hist = scheme.first_history(v, a)
    x_next = x + h * v + 0.5 * h * h * a
    for k in range(1, steps + 1):
        x = x_next
        d0, cx, v0_, cv = scheme.coefficients(h, hist)
        a, v = solve(ts[k], x, v0_, cv)
        x_next = x + (d0 + cx * a)
        hist = scheme.history(h, hist, v, a)
        xs[k], vs[k], accs[k] = x, v, a
    return OdeSolution(ts, xs, vs, accs)
