"""The public list of each dynamic formulation's own parameters (``solver.parameters`` keys).

``formulation_parameters(name)`` gives, for formulation ``name``, one ``Parameter`` per key it
reads: the default, a one-line description with the unit, and the allowed values for a
choice. A default of ``None`` means "chosen by the solver" (the description says how). The
defaults are those the formulation classes apply (``Formulation.defaults``; the tests hold the
two in step). Front-ends (the workbench's solver panel) build their forms from this list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solver.model.errors import UnsupportedFeature


@dataclass(frozen=True)
class Parameter:
    """One formulation parameter: key in ``solver.parameters``, default, meaning.

    ``kind`` is ``"float"`` or ``"choice"`` (then ``choices`` lists the allowed strings);
    ``unit`` is an SI unit string, empty when dimensionless."""

    name: str
    default: Any
    description: str
    unit: str = ""
    kind: str = "float"
    choices: tuple[str, ...] = ()


_CD_FAMILY = "central-difference family only (variant family, fourth_degree, fifth_degree)"

#: formulation name → its parameters, in the order a form shows them.
PARAMETERS: dict[str, tuple[Parameter, ...]] = {
    "lagrange_baumgarte": (
        Parameter("baumgarte_alpha", 5.0, "Baumgarte α: velocity feedback 2α Φ̇", "1/s"),
        Parameter("baumgarte_beta", 5.0, "Baumgarte β: position feedback β² Φ", "1/s"),
        Parameter(
            "integrator",
            "RK45",
            "adaptive Runge–Kutta integrator",
            kind="choice",
            choices=("RK45", "RK23", "DOP853"),
        ),
        Parameter("rtol", 1e-9, "relative tolerance of the integrator (at least 2.2e-14)"),
        Parameter("atol", 1e-11, "absolute tolerance of the integrator"),
        Parameter(
            "regularisation",
            1e-12,
            "Tikhonov μ of the saddle-point solve, times 1/(mass scale): bounds the "
            "accelerations at singular positions",
        ),
    ),
    "penalty": (
        Parameter("penalty", 1e7, "penalty factor α, times the model's mass scale"),
        Parameter("xi", 1.0, "damping ratio ξ of the constraint 'spring'"),
        Parameter("omega", 10.0, "natural frequency ω of the constraint 'spring'", "rad/s"),
    ),
    "augmented_lagrangian": (
        Parameter(
            "penalty",
            None,
            "penalty factor α (default: chosen from the mass matrix and the step)",
        ),
        Parameter(
            "rho_inf",
            None,
            "spectral radius ρ∞ ∈ [0, 1] of the generalized-α scheme "
            "(default: trapezoidal rule, no numerical damping)",
        ),
    ),
    "null_space": (
        Parameter(
            "method",
            "newmark",
            "null-space method: Newmark null space or R-matrix (Saura et al.)",
            kind="choice",
            choices=("newmark", "r_matrix"),
        ),
        Parameter(
            "scheme",
            "trapezoidal",
            "Newmark scheme (custom: the γ and β below)",
            kind="choice",
            choices=("trapezoidal", "fox_goodwin", "linear_acceleration", "custom"),
        ),
        Parameter("gamma", 0.5, "Newmark γ (scheme custom; ≥ 1/2)"),
        Parameter("beta", 0.25, "Newmark β (scheme custom; > 0)"),
        Parameter(
            "rotation_length",
            0.5,
            "method newmark: length a rotation of 1 rad counts as in the metric of the local "
            "minimal coordinates (0.5: Euler parameters as they are; 1: planar (x, y, θ))",
            "m",
        ),
    ),
    "central_differences": (
        Parameter(
            "rank_tolerance",
            1e-8,
            "singular values of Φ_q below this times the largest count as zero (DOF)",
        ),
        Parameter(
            "predictor",
            "quadratic",
            "Newton predictor of q(t+Δt): quadratic (3q − 3q⁻ + q⁻⁻) or linear (2q − q⁻)",
            kind="choice",
            choices=("quadratic", "linear"),
        ),
        Parameter(
            "variant",
            "standard",
            "central-difference scheme (the null-space Newmark thesis §9.2)",
            kind="choice",
            choices=("standard", "reformulated", "family", "fourth_degree", "fifth_degree"),
        ),
        Parameter("alpha", None, f"scheme parameter α; {_CD_FAMILY}"),
        Parameter("beta", None, f"scheme parameter β; {_CD_FAMILY}"),
        Parameter("gamma", None, "scheme parameter γ; fourth_degree and fifth_degree only"),
        Parameter("zeta", None, "scheme parameter ζ; fifth_degree only"),
    ),
    "index3_newmark": (
        Parameter(
            "scheme",
            "trapezoidal",
            "Newmark scheme (custom: the γ and β below); γ/2 > β fails with multipliers",
            kind="choice",
            choices=("trapezoidal", "fox_goodwin", "linear_acceleration", "custom"),
        ),
        Parameter("gamma", 0.5, "Newmark γ (scheme custom; ≥ 1/2)"),
        Parameter("beta", 0.25, "Newmark β (scheme custom; > 0)"),
    ),
}


def formulation_parameters(name: str) -> tuple[Parameter, ...]:
    """The parameters of dynamic formulation ``name`` (``UnsupportedFeature`` if unknown)."""
    try:
        return PARAMETERS[name]
    except KeyError:
        raise UnsupportedFeature(
            "solver",
            f'"{name}" is not a formulation of this version (available: {", ".join(PARAMETERS)})',
            "formulation",
        ) from None
