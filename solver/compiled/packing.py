"""A multibody system as flat arrays for the compiled kernels, when it can be compiled.

The compiled path covers small dense systems of rigid bodies in reference-point
coordinates (``[x, y, z, e0, e1, e2, e3]``) and point masses (``[x, y, z]``) under
gravity, whose joints are made of the primitives ``Coincident``, ``Dot``, ``PointPlane``
and ``Distance`` with constant targets. Anything else (drivers, force elements,
contacts, rolling discs, flexible or natural-coordinate bodies, more than
``SPARSE_THRESHOLD`` coordinates) runs the NumPy path; :func:`pack` says why.

Layout of :class:`Packed` (``nr`` rigid bodies, ``nk`` markers, ``ni`` primitive instances):

* ``rig_off (nr,)`` first column of each rigid body, ``rig_mass (nr,)``,
  ``rig_inertia (nr, 3, 3)`` about the centre of mass in body axes (kg m²);
* ``pm_off``, ``pm_mass``: the same for point masses;
* ``mk_kind (nk,)`` ``GROUND``/``RIGID``/``POINT_MASS`` (``solver.mechanics.markers``),
  ``mk_off (nk,)`` the first column of the marker's body (−1 on ground),
  ``mk_local (nk, 3)`` the body-frame vector (global on ground), ``mk_point (nk,)`` 1 for
  a point, 0 for a direction;
* ``pr_type (ni,)`` an index into :data:`TYPES`, ``pr_mk (ni, 3)`` its markers (slots in
  the primitive's order, −1 padded), ``pr_const (ni,)`` its target (``Distance``: the
  length), ``pr_row (ni,)`` its first constraint row;
* ``norm_row0``: the first Euler-parameter norm row (one per rigid body, body order);
* ``gravity_q (n,)`` the weights as generalised forces (N).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.mechanics.constraints.primitives import Coincident, Distance, Dot, PointPlane
from solver.mechanics.markers import GROUND, POINT_MASS, RIGID

#: primitive type codes of ``Packed.pr_type``
COINCIDENT, DOT, POINT_PLANE, DISTANCE = 0, 1, 2, 3
TYPES = {Coincident: COINCIDENT, Dot: DOT, PointPlane: POINT_PLANE, Distance: DISTANCE}


class Packed(NamedTuple):
    n: int
    m: int
    rig_off: np.ndarray
    rig_mass: np.ndarray
    rig_inertia: np.ndarray
    pm_off: np.ndarray
    pm_mass: np.ndarray
    mk_kind: np.ndarray
    mk_off: np.ndarray
    mk_local: np.ndarray
    mk_point: np.ndarray
    pr_type: np.ndarray
    pr_mk: np.ndarray
    pr_const: np.ndarray
    pr_row: np.ndarray
    norm_row0: int
    gravity_q: np.ndarray


def unsupported(system) -> str:
    """Why ``system`` cannot run compiled (``""`` when it can)."""
    if system.coordinates != "reference_point":
        return f"{system.coordinates} coordinates"
    if system.sparse:
        return f"{system.n} coordinates (sparse)"
    if system.kinds:
        return "flexible or natural-coordinate bodies"
    if system.blocks:
        return "constraint blocks of a body kind"
    if system.m_nh:
        return "rolling without slip"
    if len(system.force_set):
        return "force elements"
    for g in system.groups:
        if type(g) not in TYPES:
            return f"{type(g).__name__} constraints"
        if g.driven:
            return "drivers"
    kinds = system.markers.kind
    if np.any((kinds != GROUND) & (kinds != RIGID) & (kinds != POINT_MASS)):
        return "markers on linear bodies"
    return ""


def pack(system) -> Packed | str:
    """The arrays of ``system`` for the compiled kernels, or the reason it cannot be."""
    why = unsupported(system)
    if why:
        return why
    mk = system.markers
    cols = mk.cols
    mk_off = np.where(mk.kind == GROUND, -1, cols[:, 0]).astype(np.int64)
    types, marks, consts, rows = [], [], [], []
    for g, r0 in zip(system.groups, system.group_rows, strict=True):
        code = TYPES[type(g)]
        for k in range(len(g)):
            slots = [int(idx[k]) for idx in g.index]
            types.append(code)
            marks.append(slots + [-1] * (3 - len(slots)))
            consts.append(float(g.const[k]))
            rows.append(r0 + k * g.rows)
    return Packed(
        n=int(system.n),
        m=int(system.m),
        rig_off=np.asarray(system.rigid.offsets, np.int64),
        rig_mass=np.asarray(system.rigid.mass, float),
        rig_inertia=np.ascontiguousarray(system.rigid.inertia, float).reshape(-1, 3, 3),
        pm_off=np.asarray(system.point_masses.offsets, np.int64).reshape(-1),
        pm_mass=np.asarray(system.point_masses.mass, float).reshape(-1),
        mk_kind=np.asarray(mk.kind, np.int64),
        mk_off=mk_off,
        mk_local=np.ascontiguousarray(mk.local, float).reshape(-1, 3),
        mk_point=np.asarray(mk.is_point, np.int64),
        pr_type=np.asarray(types, np.int64),
        pr_mk=np.asarray(marks, np.int64).reshape(-1, 3),
        pr_const=np.asarray(consts, float),
        pr_row=np.asarray(rows, np.int64),
        norm_row0=int(system.norm_row0),
        gravity_q=system.gravity_forces(),
    )
