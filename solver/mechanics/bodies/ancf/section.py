"""Cross-section and material data of an ANCF beam, and its frame at t = 0.

Section axes (a convention of this solver, documented in ``docs/model_format.md``): the beam
axis ``x`` runs from ``points[0]`` to ``points[1]``; the section's ``z`` axis is global Z
projected onto the plane normal to the beam ("up"), and ``y = z × x``; for a vertical beam
(along ±Z) the section's ``y`` axis is global Y and ``z = x × y``. A planar beam
(``ancf_beam2d``, in the plane z = 0) therefore has ``y`` in the plane (``y = Z × x``) and
``z`` = global Z: a rectangle's ``width`` is its in-plane depth, ``height`` its thickness.

Second moments: ``Syy = ∫ y² dA`` (bending in the x–y plane; the file's ``Iz``) and
``Szz = ∫ z² dA`` (the file's ``Iy``). The continuum elements integrate over the section with
a rule exact for polynomials of degree ≤ 5 in (y, z), which is exact for their energy
(degree 4): 3 × 3 Gauss points on a rectangle, 3 radial × 6 angular points on a circle; a
``general`` section (area, Iy, Iz) is integrated as the rectangle with the same second-moment
ratios (``width = √(12 Iz/A)``, ``height = √(12 Iy/A)``), its weights scaled to the area A.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.model import description as d


@dataclass(frozen=True)
class SectionData:
    """Area, second moments and a quadrature ``(y, z, w)`` over the section."""

    area: float
    Syy: float  # ∫ y² dA
    Szz: float  # ∫ z² dA
    y: np.ndarray
    z: np.ndarray
    w: np.ndarray
    J: float | None = None

    def key(self) -> tuple:
        return (self.area, self.Syy, self.Szz, self.y.tobytes(), self.z.tobytes())


def _rectangle(width: float, height: float) -> SectionData:
    x, w = np.polynomial.legendre.leggauss(3)
    y, z = np.meshgrid(0.5 * width * x, 0.5 * height * x, indexing="ij")
    wt = np.outer(0.5 * width * w, 0.5 * height * w)
    return SectionData(
        width * height,
        height * width**3 / 12.0,
        width * height**3 / 12.0,
        y.ravel(),
        z.ravel(),
        wt.ravel(),
    )


def _circle(radius: float) -> SectionData:
    # ∫∫ f r dr dθ: Gauss–Legendre in r (weight r), 6 equally spaced angles (exact for
    # trigonometric polynomials of degree < 6, so for x^a y^b with a + b ≤ 5)
    x, w = np.polynomial.legendre.leggauss(3)
    r = 0.5 * radius * (x + 1.0)
    wr = 0.5 * radius * w * r
    th = 2.0 * np.pi * np.arange(6) / 6.0
    rr, tt = np.meshgrid(r, th, indexing="ij")
    wt = np.repeat(wr, 6) * (2.0 * np.pi / 6.0)
    second = np.pi * radius**4 / 4.0
    return SectionData(
        np.pi * radius**2,
        second,
        second,
        (rr * np.cos(tt)).ravel(),
        (rr * np.sin(tt)).ravel(),
        wt,
        J=2.0 * second,
    )


def section_data(section: d.Section) -> SectionData:
    """Quadrature and moments of a model ``Section``."""
    if section.shape == "rectangle":
        return _rectangle(section.width, section.height)
    if section.shape == "circle":
        return _circle(section.radius)
    width = float(np.sqrt(12.0 * section.Iz / section.area))
    height = float(np.sqrt(12.0 * section.Iy / section.area))
    rect = _rectangle(width, height)
    # a w × h rectangle has the given second moments; scaling its weights by A/(w h) gives
    # it the given area too without changing them (∫y² dA = A w²/12 = Iz, ∫z² dA = Iy)
    weights = rect.w * (section.area / rect.area)
    return SectionData(section.area, section.Iz, section.Iy, rect.y, rect.z, weights, J=section.J)


@dataclass(frozen=True)
class MaterialData:
    """Elastic constants and the internal damping factors of García Vallejo (2006) §3.3.

    ``gamma_s`` (volumetric) and ``gamma_d`` (deviatoric) define the viscous stress
    ``σ_v = 2G γ_d ε̇ + (K γ_s − 2G γ_d/3) tr(ε̇) I`` (3.56). The model file gives one
    factor ``damping`` = γ, used for both: then ``σ_v = γ C : ε̇`` (Kelvin–Voigt with the
    elastic tensor), and a bar in uniaxial stress has ``σ = E (ε + γ ε̇)`` (3.79)–(3.80).
    """

    E: float
    nu: float
    density: float
    gamma_s: float = 0.0
    gamma_d: float = 0.0

    @property
    def G(self) -> float:
        return self.E / (2.0 * (1.0 + self.nu))

    @property
    def lame(self) -> float:
        return self.E * self.nu / ((1.0 + self.nu) * (1.0 - 2.0 * self.nu))

    @property
    def bulk(self) -> float:
        return self.E / (3.0 * (1.0 - 2.0 * self.nu))

    @property
    def damping_lame(self) -> tuple[float, float]:
        """``(λ_v, G_v)``: the viscous stress is ``2 G_v ε̇ + λ_v tr(ε̇) I``."""
        g = self.G
        return self.bulk * self.gamma_s - 2.0 * g * self.gamma_d / 3.0, g * self.gamma_d

    @property
    def damping(self) -> float:
        """The uniaxial damping factor ``γ_xx = (γ_s + 2γ_d)/3`` (3.80)."""
        return (self.gamma_s + 2.0 * self.gamma_d) / 3.0

    def key(self) -> tuple:
        return (self.E, self.nu, self.density, self.gamma_s, self.gamma_d)


def material_data(material: d.Material) -> MaterialData:
    g = float(material.damping)
    return MaterialData(float(material.E), float(material.nu), float(material.density), g, g)


def beam_frame(start, end) -> np.ndarray:
    """``[x y z]`` (columns): the beam axis and the section axes at t = 0 (module docstring)."""
    a = np.asarray(start, float)
    b = np.asarray(end, float)
    x = (b - a) / np.linalg.norm(b - a)
    ez = np.array([0.0, 0.0, 1.0])
    up = ez - (ez @ x) * x
    if np.linalg.norm(up) < 1e-9:
        y = np.array([0.0, 1.0, 0.0])
        y = y - (y @ x) * x
        y /= np.linalg.norm(y)
        z = np.cross(x, y)
    else:
        z = up / np.linalg.norm(up)
        y = np.cross(z, x)
    return np.column_stack([x, y, z])
