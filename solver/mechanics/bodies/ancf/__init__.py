"""ANCF flexible bodies (García Vallejo (2006)): shape functions, element types, invariant matrices,
damping, and the ``AncfBodies`` BodyKind registered for ``ancf_beam2d``, ``ancf_cable`` and
``ancf_beam3d`` (see ``kind``)."""

from solver.mechanics.bodies.ancf.kind import ELEMENTS, AncfBodies

__all__ = ["ELEMENTS", "AncfBodies"]
