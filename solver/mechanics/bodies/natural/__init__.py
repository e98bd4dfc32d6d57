"""Rigid bodies in natural coordinates (basic points and unit vectors; García Vallejo (2006) §2.3,
ch. 4; García de Jalón and Bayo (1994)): ``frame`` (one body's entities, its point and vector maps
and constant mass matrix), ``layout`` (which entities each body uses and shares), ``bodies``
(the ``BodyKind`` registered as ``"natural"``), and their planar versions ``planar`` and
``planar_bodies`` (``"natural_planar"``)."""

from solver.mechanics.bodies.natural.bodies import NaturalBodies
from solver.mechanics.bodies.natural.planar_bodies import PlanarNaturalBodies

__all__ = ["NaturalBodies", "PlanarNaturalBodies"]
