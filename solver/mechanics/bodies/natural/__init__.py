"""Rigid bodies in natural coordinates (basic points and unit vectors; 001 §2, §4;
003-004 Part B, §6.4): ``frame`` (one body's entities, its point and vector maps and
constant mass matrix), ``layout`` (which entities each body uses and shares), ``bodies``
(the ``BodyKind`` registered as ``"natural"``)."""

from solver.mechanics.bodies.natural.bodies import NaturalBodies

__all__ = ["NaturalBodies"]
