"""The belt drive E11 (examples/belt_drive.json) and its variants, run once per session,
and what the belt-drive tests read from their results (García Vallejo (2006) ch. 7).

The thesis's results are figures (Figs. 7.5–7.10); what they show is checked against the
mechanics the thesis describes: the driven pulley follows the driver with a torsional
oscillation of the belt spans, the tension difference of the spans carries the driven
pulley's inertia or load torque, and the slip of the trilinear friction law makes the
driven pulley turn slower under load.
"""

from __future__ import annotations

import json
import math
import warnings
from functools import cache
from pathlib import Path

import numpy as np
from scipy.integrate import IntegrationWarning, quad
from scipy.optimize import brentq

from solver import simulate
from solver.model import model_from_data

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "belt_drive.json"

R = 0.08125  # pulley radius (m)
X = 0.191441  # half the centre distance (m)
SPAN = 2 * X  # span length (m)
INERTIA = 0.1  # driven pulley (kg·m²)
RAMP = (0.05, 0.6)  # the driver's speed ramp (7.29) (s)
AREA = 1e-4  # belt section (m²)


def example_data() -> dict:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def loaded_data(slope: float, elements: int = 30, dt: float = 2e-4, t_end: float = 1.0) -> dict:
    """The contact-force runs of Figs. 7.9–7.10: initial strain 2.5 %, α₂ = 0.001,
    E = 1 GPa, the driver ramped to 120 rad/s like (7.29), the resisting torque (7.30) on the
    driven pulley (45 N·m after 0.6 s), 30 elements, v_s = ``slope``."""
    data = example_data()
    belt = data["bodies"][2]
    belt["elements"] = elements
    belt["loop"]["strain"] = 0.025
    belt["material"]["E"] = 1e9
    belt["belt"]["bending_factor"] = 0.001
    data["drivers"][0]["function"] = {
        "expression": "60*min(max(t - 0.05, 0), 0.55)**2/0.55 + 120*(max(0.55, max(t - 0.05, 0)) - 0.55)"
    }
    data["forces"].append(
        {
            "name": "load",
            "type": "joint_torque",
            "joint": "driven_axle",
            "function": {"expression": "-22.5*(1 - cos(pi*min(max(t - 0.05, 0), 0.55)/0.55))"},
        }
    )
    for force in data["forces"][:2]:
        force["friction"]["slope"] = slope
    data["solver"].update(dt=dt, t_end=t_end, output_dt=0.005)
    return data


class Run:
    """The results of one run: columns, rows and what the tests derive from them."""

    def __init__(self, data: dict) -> None:
        self.data = data
        self.model = model_from_data(data)
        run = simulate(self.model, stream=True)
        last = None
        for frame in run:
            last = frame
        result = run.result
        self.summary = result.summary
        self.columns = list(result.columns)
        self.rows = np.array(result.rows, float)
        self.t = self.rows[:, 0]
        self.system = run.system  # with the state of the last frame:
        self.q, self.qd = last.q, last.qd

    def distribution(self, contact: str) -> dict[str, np.ndarray]:
        """The contact's values along the belt at the last frame (``PulleyContacts``)."""
        ms = self.system.marker_state(self.q, self.qd)
        return self.system.force_set.pulley_contacts.distribution(ms, contact)

    def column(self, name: str) -> np.ndarray:
        return self.rows[:, self.columns.index(name)]

    @property
    def omega1(self) -> np.ndarray:
        return self.column("joint.driver_axle.angle_rate")

    @property
    def omega2(self) -> np.ndarray:
        return self.column("joint.driven_axle.angle_rate")

    def window(self, lo: float, hi: float) -> np.ndarray:
        return (self.t >= lo - 1e-12) & (self.t <= hi + 1e-12)

    def span_tensions(self) -> tuple[np.ndarray, np.ndarray]:
        """Axial force (N) of the belt in the middle of the upper and the lower span at each
        output: the mean over the nodes within 0.15 m of x = 0 on each side (the nodes move
        with the belt; at 20 elements about two of them are there)."""
        nodes = self.model.body("belt").elements
        x = np.array([self.column(f"belt.n{k}.x") for k in range(nodes)])
        y = np.array([self.column(f"belt.n{k}.y") for k in range(nodes)])
        force = np.array([self.column(f"axial.belt.n{k}") for k in range(nodes)])
        middle = np.abs(x) < 0.15
        upper = np.where(middle & (y > 0), force, np.nan)
        lower = np.where(middle & (y < 0), force, np.nan)
        return np.nanmean(upper, axis=0), np.nanmean(lower, axis=0)


@cache
def e11(t_end: float = 1.0, elements: int = 20, young: float = 1e8) -> Run:
    """The example (E11) up to ``t_end``, with another mesh or Young's modulus if asked."""
    data = example_data()
    data["solver"]["t_end"] = t_end
    data["bodies"][2]["elements"] = elements
    data["bodies"][2]["material"]["E"] = young
    return Run(data)


@cache
def loaded(slope: float) -> Run:
    return Run(loaded_data(slope))


def string_tension(strain: float, young: float = 1e8, axial: float = 1.0, k: float = 1e7) -> float:
    """Tension (N) of a belt of negligible bending stiffness at rest on the two frictionless
    pulleys with the penalty contact: the natural length ``L₀ = L/(1 + strain)`` stretched
    by λ covers the spans and the arcs of radius ``R − d``, ``d = f_n/k_p``, ``f_n = T λ/(R − d)``
    per unit undeformed length, ``T = E α₁ A (λ² − 1) λ/2`` (the element's axial law)."""
    total = 2 * SPAN + 2 * math.pi * R
    length0 = total / (1 + strain)

    def law(lam):
        return young * axial * AREA * 0.5 * (lam * lam - 1) * lam

    def gap(lam):
        depth = brentq(lambda d: d - law(lam) * lam / ((R - d) * k), 0.0, R / 2)
        return lam * length0 - (2 * SPAN + 2 * math.pi * (R - depth))

    return law(brentq(gap, 1.0, 1.0 + 2 * strain))


def creep_speed(
    omega1: float,
    tight: float,
    slack: float,
    slope: float,
    length: float,
    young: float = 1e9,
    axial: float = 1.0,
) -> float:
    """ω₂ (rad/s) of the driven pulley in steady running with the friction law in its
    linear range on both arcs.

    The belt runs at V metres of undeformed belt per second, so at ``λ(T) V`` m/s where its
    tension is T (the element's law ``T = E α₁ A (λ² − 1) λ/2``). On an arc of
    ``length`` (m of undeformed belt) the friction per unit length is ``v_s (ωR − λ V)``
    forward, and the tangential balance (the belt's inertia along the arc neglected) is
    ``dT/dx = v_s (λ(T) V − ω R)``. The driver's arc takes the belt from ``tight`` to
    ``slack`` at ω₁, which fixes V; the driven arc takes it back from ``slack`` to ``tight``
    at ω₂. To first order ``ω₁ − ω₂ = 2 (T_tight − T_slack)/(v_s ℓ R)``."""

    stiffness = young * axial * AREA

    def stretch(tension):
        lam = 1.0 + tension / stiffness  # Newton on E α₁ A (λ³ − λ)/2 = T
        for _ in range(6):
            lam -= (0.5 * stiffness * (lam**3 - lam) - tension) / (
                0.5 * stiffness * (3 * lam**2 - 1)
            )
        return lam

    def arc(rate):
        """The arc length (m) over which dT/dx = ``rate(T)`` (of one sign) takes the
        tension between slack and tight: ``∫ dT/|rate(T)|``."""
        with warnings.catch_warnings():  # the integrand's log singularity at an end
            warnings.simplefilter("ignore", IntegrationWarning)
            return quad(lambda tn: 1.0 / abs(rate(tn)), slack, tight, limit=200)[0]

    # the driver: from tight to slack, λ(T) V < ω₁ R throughout
    top = omega1 * R / stretch(tight)
    speed = brentq(
        lambda v: arc(lambda tn: slope * (stretch(tn) * v - omega1 * R)) - length,
        0.9 * top,
        top * (1 - 1e-12),
        xtol=1e-14 * top,
    )
    # the driven pulley: from slack to tight, ω₂ R < λ(T) V throughout
    top = stretch(slack) * speed / R
    return brentq(
        lambda w: arc(lambda tn: slope * (stretch(tn) * speed - w * R)) - length,
        0.9 * top,
        top * (1 - 1e-12),
        xtol=1e-14 * top,
    )


def spring_frequency(young: float = 1e8) -> float:
    """ω_n (rad/s) of the driven pulley on the two spans as springs ``EA/L`` (the belt
    held on the arcs): ``√(2 R² EA / (L I))``."""
    return math.sqrt(2 * R**2 * young * AREA / (SPAN * INERTIA))


def zero_crossings(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Times where ``x`` changes sign (linear interpolation)."""
    k = np.flatnonzero(np.sign(x[:-1]) * np.sign(x[1:]) < 0)
    return t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])
