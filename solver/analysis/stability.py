"""Time-step stability monitor (the null-space Newmark thesis ch. 6): the largest stable step of the
chosen scheme.

At sampled states of a dynamic run the equations of motion are linearised and reduced to
the local minimal coordinates of the constraint manifold (the null space ``N`` of Φ_q,
orthonormal from an SVD), as in the null-space Newmark method (the null-space Newmark thesis ch. 5):

    M_R = Nᵀ M N,   K_R = Nᵀ (K N + C V + M W₁),   V = −H⁺ Ḣ N,   W₁ = −H⁺(Ḧ N + 2Ḣ V),

with ``K = ∂(M q̈ − Q + Φ_qᵀλ)/∂q`` (λ from the unreduced equations by least squares),
``C = −∂Q/∂q̇``, ``H = Φ_q``. The highest frequency ``ω_max`` solves ``K_R φ = ω² M_R φ``
(undamped). The step limit is ``c/ω_max`` with ``c`` the scheme's constant:

* ``central_differences``: the CD family's constant (2 for CD, √(12/5) for α = 4/3, …;
  ``solver.analysis.cd_family.stability_constant``);
* ``null_space`` (Newmark): ``√(1/(γ/2 − β))`` (the null-space Newmark thesis eq. 6.6) for γ/2 > β,
  else no limit;
* ``augmented_lagrangian``, ``penalty`` (trapezoidal rule / generalized-α): no limit;
* ``lagrange_baumgarte`` (adaptive Runge–Kutta) chooses its own steps: not estimated.

``dt_max_estimate`` is the smallest limit over the samples, evenly spaced: ``SAMPLES`` per
run up to ``DENSE_SIZE`` coordinates, fewer above (the eigen-analysis is dense, O(n³):
``SAMPLES (DENSE_SIZE/n)²``, at least 3), so the estimate depends on the model and the
settings only, never on timing; systems with more than ``MAX_COORDINATES`` coordinates
are not monitored. Schemes without a limit are not sampled at all.
"""

from __future__ import annotations

import math

import numpy as np

from solver.analysis.linalg import min_norm_solve

SAMPLES = 25
#: larger systems are not monitored (dense eigen-analysis per sample)
MAX_COORDINATES = 400
#: above this many coordinates the number of samples falls like 1/n²
DENSE_SIZE = 100


def scheme_constant(settings) -> tuple[float | None, str]:
    """``(c, scheme label)`` of the settings' formulation; ``c`` = ``None`` if not estimated."""
    name = settings.formulation
    params = settings.parameters
    if name == "central_differences":
        from solver.analysis.cd_family import Scheme, stability_constant

        scheme = Scheme.from_parameters(params)
        return float(stability_constant(scheme)), scheme.label
    if name == "null_space":
        from solver.analysis.formulations.null_space import NullSpace
        from solver.analysis.formulations.null_space_common import NewmarkScheme

        sch = NewmarkScheme.from_parameters({**NullSpace.defaults, **params})
        margin = 0.5 * sch.gamma - sch.beta
        label = f"Newmark γ = {sch.gamma:.4g}, β = {sch.beta:.4g}"
        return (math.sqrt(1.0 / margin) if margin > 0.0 else math.inf), label
    if name in ("augmented_lagrangian", "penalty"):
        return math.inf, "trapezoidal rule / generalized-α (unconditionally stable)"
    return None, name


def omega_max(system, q, qd, qdd, t: float) -> float:
    """Highest undamped frequency (rad/s) of the reduced linearised system at a state."""
    from solver.analysis.formulations.null_space_common import Linearisation

    lin = Linearisation(system, q, qd, qdd, t)
    h = lin.H
    n = system.n
    lam = min_norm_solve(h.T, lin.Q - lin.M @ qdd) if len(lin.phi) else np.zeros(0)
    lin.derivatives(lam)
    if len(lin.phi):
        u, sv, vt = np.linalg.svd(h, full_matrices=True)
        tol = 1e3 * np.finfo(float).eps * max(h.shape) * (sv[0] if len(sv) else 0.0)
        rank = int(np.sum(sv > max(tol, 1e-10 * (sv[0] if len(sv) else 0.0))))
        nmat = vt[rank:].T
        pinv = vt[:rank].T @ np.diag(1.0 / sv[:rank]) @ u[:, :rank].T
        v = -pinv @ (lin.Hd @ nmat)
        w1 = -pinv @ (lin.Hdd @ nmat + 2.0 * lin.Hd @ v)
    else:
        nmat = np.eye(n)
        v = w1 = np.zeros((n, n))
    if not nmat.shape[1]:
        return 0.0
    mr = nmat.T @ lin.M @ nmat
    kr = nmat.T @ (lin.K @ nmat + lin.C @ v + lin.M @ w1)
    w2 = np.linalg.eigvals(np.linalg.solve(mr, kr))
    w2 = w2[np.isfinite(w2)].real
    return float(math.sqrt(max(float(w2.max()), 0.0))) if len(w2) else 0.0


class StabilityMonitor:
    """Samples ``ω_max`` during a run and keeps the smallest step limit."""

    def __init__(self, system, settings) -> None:
        self.system = system
        self.dt = settings.dt
        self.constant, self.label = scheme_constant(settings)
        steps = max(1, int(round(settings.t_end / settings.dt)))
        samples = SAMPLES
        if system.n > DENSE_SIZE:
            samples = max(3, int(SAMPLES * (DENSE_SIZE / system.n) ** 2))
        self.stride = max(1, math.ceil(steps / samples))
        self.dt_max: float | None = None
        self.omega_max: float | None = None
        self.t: float | None = None
        self.skipped = (
            "" if system.n <= MAX_COORDINATES else f"more than {MAX_COORDINATES} coordinates"
        )

    @property
    def active(self) -> bool:
        return self.constant is not None and not self.skipped

    def observe(self, frame, k: int) -> None:
        """Sample the state of step ``k`` (every ``stride`` steps)."""
        if not self.active or k % self.stride:
            return
        if math.isinf(self.constant):  # unconditionally stable: nothing to estimate
            self.dt_max = math.inf
            return
        q, qd = frame.q, frame.qd
        qdd = frame.qdd if frame.qdd is not None else np.zeros_like(q)
        if not (np.isfinite(q).all() and np.isfinite(qd).all() and np.isfinite(qdd).all()):
            return
        try:
            omega = omega_max(self.system, q, qd, qdd, frame.t)
        except (np.linalg.LinAlgError, ValueError, FloatingPointError):
            return
        except Exception as exc:  # the monitor must never stop a run
            self.skipped = f"not available for this model ({type(exc).__name__})"
            return
        limit = self.constant / omega if omega > 0.0 else math.inf
        if self.dt_max is None or limit < self.dt_max:
            self.dt_max, self.omega_max, self.t = limit, omega, frame.t

    def report(self) -> dict | None:
        """``{dt_max_estimate, omega_max, t, scheme, warning}`` or ``None``."""
        if self.dt_max is None:
            return None
        finite = math.isfinite(self.dt_max)
        return {
            "dt_max_estimate": self.dt_max if finite else None,
            "omega_max": self.omega_max,
            "t": self.t,
            "scheme": self.label,
            "warning": self.warning(),
        }

    def warning(self) -> str | None:
        """The warning when the step exceeds the estimate, else ``None``."""
        if self.dt_max is None or not self.dt > self.dt_max:
            return None
        return (
            f"dt = {self.dt:g} s exceeds the estimated stability limit dt_max ≈ "
            f"{self.dt_max:.4g} s of {self.label} (ω_max = {self.omega_max:.4g} rad/s at "
            f"t = {self.t:.4g} s); the results may be unstable: reduce dt below it"
        )
