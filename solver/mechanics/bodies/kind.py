"""The seam for further coordinate representations (natural coordinates, ANCF elements).

Rigid bodies (reference point + Euler parameters) and point masses are built into
``MultibodySystem``. Any other representation is a ``BodyKind``: it takes the model
bodies it represents, lays out their coordinates from ``offset``, and provides the
same quantities the system assembles for the built-in kinds. Matrices it returns are
``scipy.sparse`` over the whole system (``n × n``) or ``None`` for "zero".

Kinds are looked up by name in ``KIND_MODULES`` and imported lazily, so a missing
representation is reported as ``UnsupportedFeature`` naming the body.
"""

from __future__ import annotations

import importlib

import numpy as np

from solver.model.errors import UnsupportedFeature

#: representation name → "module:Class"
KIND_MODULES = {
    "natural": "solver.mechanics.bodies.natural:NaturalBodies",
    "natural_planar": "solver.mechanics.bodies.natural:PlanarNaturalBodies",
    "ancf_beam2d": "solver.mechanics.bodies.ancf:AncfBodies",
    "ancf_cable": "solver.mechanics.bodies.ancf:AncfBodies",
    "ancf_beam3d": "solver.mechanics.bodies.ancf:AncfBodies",
}


def kind_class(name: str, where: str):
    """The class implementing representation ``name`` (``UnsupportedFeature`` if absent)."""
    module, _, cls = KIND_MODULES[name].partition(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ModuleNotFoundError, AttributeError):
        label = "natural coordinates are" if name.startswith("natural") else f"{name} bodies are"
        raise UnsupportedFeature(
            where, f"{label} not available in this version of the solver", "type"
        ) from None


class BodyKind:
    """Interface of a coordinate representation (see the module docstring).

    Construction: ``Kind(system, bodies, offset)`` with ``bodies`` a list of
    ``(model_index, model_body)``; it sets ``size`` (coordinates it uses),
    ``q0``/``qd0`` (its initial values) and adds one ``BodySlot`` per body to
    ``system.slots``. Methods taking ``q``/``qd`` receive the whole system vectors.
    """

    kind = ""
    size = 0
    q0: np.ndarray
    qd0: np.ndarray

    # markers -------------------------------------------------------------------------
    def point(self, slot, xyz, where: str, field: str) -> int:
        """A marker (``system.markers.add_linear`` or ``add``) at global ``xyz`` at t = 0."""
        raise NotImplementedError

    def vector(self, slot, xyz) -> int:
        raise NotImplementedError

    def build_constraints(self, ctx) -> dict[str, list]:
        """Internal constraints (e.g. rigid-body conditions), added through ``ctx.group``;
        returns ``{item key: [(group, instance), ...]}`` for row bookkeeping."""
        return {}

    def constraint_blocks(self) -> list:
        """Constraint rows a kind adds besides its primitives (ANCF sliding joints, which
        the kernels evaluate: ``ancf.sliding.SlidingJoints``, laid out by ``packing``):
        objects with ``rows``, ``row0`` (set by the system), ``items()`` and ``check(q, t)``
        (the run's ``SimulationError`` for a state they cannot take); built in
        ``build_constraints``."""
        return []

    # dynamics ------------------------------------------------------------------------
    def mass(self, q):
        """This kind's part of ``M(q)`` (sparse, ``n × n``)."""
        raise NotImplementedError

    def mass_times_jacobian(self, q, a):
        """``∂(M(q) a)/∂q`` or ``None`` when M is constant."""
        return None

    def gravity_forces(self, gravity: np.ndarray) -> np.ndarray:
        """Generalised gravity force (``n``); constant."""
        raise NotImplementedError

    def kinetic_energy(self, q, qd) -> float:
        raise NotImplementedError

    def gravitational_energy(self, q, gravity: np.ndarray) -> float:
        raise NotImplementedError

    # output --------------------------------------------------------------------------
    def state_fields(self, slot) -> tuple[str, ...]:
        """CSV column suffixes of a body (``B.<field>``)."""
        raise NotImplementedError

    def state(self, slot, q, qd) -> np.ndarray:
        """The body's state columns at ``(q, q̇)`` (those of a kind whose
        :meth:`state_table` is ``None``)."""
        raise NotImplementedError

    def state_table(self, slot):
        """``(code, entity columns (4), fixed entities (4 × 3), coefficients (16), Euler
        parameters at t = 0)``: the body's row of the compiled state tables
        (:mod:`solver.kernels.states`), or ``None`` when :meth:`state` writes its state."""
        return None
