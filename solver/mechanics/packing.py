"""A ``MultibodySystem`` as the flat arrays of the compiled kernels (``SystemArrays``).

:func:`pack` reads the system's coordinates, marker table, constraint primitives, rigid
bodies, point masses, the constant mass of natural-coordinate bodies, the weights and the
force elements the kernels evaluate (spring-dampers, joint torques and forces, point
forces, torques, distributed loads, body-axes loads on natural-coordinate bodies, contacts,
pulley contacts) with their time functions, the no-slip rows of rolling discs, the flexible
elements (elastic line, continuum, cable, belt; the eliminated coordinates some of them
read), the ANCF sliding joints, and lays them out as
:class:`solver.kernels.system.SystemArrays`: every part of a model. :func:`without_loads`
keeps the bodies' own forces of those arrays (for load stepping).
"""

from __future__ import annotations

import numpy as np

from solver.kernels import primitives as kp
from solver.kernels.markers import GROUND, LINEAR, POINT_MASS, RIGID
from solver.kernels.system import SystemArrays
from solver.kernels.time_functions import function_table
from solver.mechanics.constraints.primitives import Angle, Coincident, Distance, Dot, PointPlane
from solver.mechanics.constraints.rolling import DiscOnPlane

#: primitive class → kernel type code
PRIMITIVE_CODES = {
    Coincident: kp.COINCIDENT,
    Dot: kp.DOT,
    PointPlane: kp.POINT_PLANE,
    Distance: kp.DISTANCE,
    Angle: kp.ANGLE,
    DiscOnPlane: kp.DISC_ON_PLANE,
}


class _Functions:
    """The time functions of a system, each once (equal functions share an index)."""

    def __init__(self) -> None:
        self.items: list = []
        self._index: dict = {}

    def add(self, function) -> int:
        """Index of ``function`` in the table (−1 for ``None``: zero)."""
        if function is None:
            return -1
        if function not in self._index:
            self._index[function] = len(self.items)
            self.items.append(function)
        return self._index[function]

    def table(self):
        return function_table([f.encode() for f in self.items])


def _ints(rows, width=None) -> np.ndarray:
    a = np.asarray(rows, dtype=np.int64)
    return a.reshape(-1, width) if width else a.reshape(-1)


def _floats(rows, width=None) -> np.ndarray:
    a = np.ascontiguousarray(rows, dtype=np.float64)
    return a.reshape(-1, width) if width else a.reshape(-1)


def _markers(system) -> dict:
    mk = system.markers
    kind = np.asarray(mk.kind, np.int64)
    cols = np.ascontiguousarray(mk.cols, np.int64)
    ncols = np.zeros(len(kind), np.int64)
    ncols[kind == RIGID] = 7
    ncols[kind == POINT_MASS] = 3
    lin = kind == LINEAR
    ncols[lin] = (cols[lin] >= 0).sum(axis=1)
    ncols[kind == GROUND] = 0
    return {
        "mk_kind": kind,
        "mk_cols": cols,
        "mk_ncols": ncols,
        "mk_local": _floats(mk.local, 3),
        "mk_point": mk.point,
        "mk_coef": mk.coef,
    }


def _primitives(system, functions: _Functions) -> dict:
    types, marks, consts, funcs, rows = [], [], [], [], []
    for g, r0 in zip(system.groups, system.group_rows, strict=True):
        code = PRIMITIVE_CODES[type(g)]
        for k in range(len(g)):
            slots = [int(idx[k]) for idx in g.index]
            types.append(code)
            marks.append(slots + [-1] * (kp.MAX_SLOTS - len(slots)))
            consts.append(float(g.const[k]))
            funcs.append(functions.add(g._funcs[k]))
            rows.append(r0 + k * g.rows)
    return {
        "pr_type": _ints(types),
        "pr_mk": _ints(marks, kp.MAX_SLOTS),
        "pr_const": _floats(consts),
        "pr_func": _ints(funcs),
        "pr_row": _ints(rows),
    }


def _rolling(system) -> dict:
    """The no-slip rows of rolling discs (``constraints.rolling.RollingNoSlip``)."""
    rl = system.rolling
    return {
        "rl_mk": _ints(np.stack([rl.centre, rl.normal, rl.axle], axis=1), 3),
        "rl_pcol": _ints(rl.pcol),
        "rl_radius": _floats(rl.radius),
        "rl_lateral": np.asarray(rl.lateral, dtype=np.bool_),
    }


def _constant_mass(system) -> dict:
    """The mass entries of the body kinds (natural coordinates, ANCF elements), whose mass
    matrices are constant."""
    rows, cols, vals = [], [], []
    zero = np.zeros(system.n)
    for kind in system.kinds:  # natural coordinates and ANCF elements: constant
        m = kind.mass(zero).tocoo()
        rows.append(m.row), cols.append(m.col), vals.append(m.data)
    cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)  # noqa: E731
    return {
        "cm_row": cat(rows, np.int64),
        "cm_col": cat(cols, np.int64),
        "cm_val": cat(vals, np.float64),
    }


def _forces(system, functions: _Functions) -> dict:
    fs = system.force_set
    sp, jt, jf, pf, bt = fs.springs, fs.joint_torques, fs.joint_forces, fs.point_forces, fs.torques
    dl = fs.distributed
    sp_rows = [(r[0], r[1]) for r in sp._rows]
    jt_rows = [(r[0], r[1], r[2]) for r in jt._rows]
    return {
        "sp_mk": _ints(sp_rows, 2),
        "sp_par": _floats([r[2:5] for r in sp._rows], 3),
        "sp_func": _ints([functions.add(f) for f in sp._funcs]),
        "jt_mk": _ints(jt_rows, 3),
        "jt_par": _floats([r[3:6] for r in jt._rows], 3),
        "jt_func": _ints([functions.add(f) for f in jt._funcs]),
        "jt_last": jt.last,  # the same array: the kernels keep the angles in it
        "jf_mk": _ints(jf._rows, 3),
        "jf_func": _ints([functions.add(f) for f in jf._funcs]),
        "pf_mk": _ints([r[0] for r in pf._rows]),
        "pf_body": _ints([int(r[1]) for r in pf._rows]),
        "pf_func": _ints([[functions.add(c) for c in v] for v in pf._vectors], 3),
        "bt_off": _ints([r[0] for r in bt._rows]),
        "bt_body": _ints([int(r[1]) for r in bt._rows]),
        "bt_func": _ints([[functions.add(c) for c in v] for v in bt._vectors], 3),
        "dl_ptr": _ints(np.cumsum([0] + [len(c) for c in dl.cols])),
        "dl_cols": _ints(np.concatenate([np.zeros(0, np.int64), *dl.cols])),
        "dl_unit": _floats(np.concatenate([np.zeros((0, 3)), *(u.T for u in dl.unit)]), 3),
        "dl_func": _ints([[functions.add(c) for c in v] for v in dl.vectors], 3),
        **fs.natural_loads.arrays(functions.add),
        **fs.contacts.arrays(),
        **fs.pulley_contacts.arrays(),
    }


def _beams(system, kernel: str):
    """The beams that ``kernel`` evaluates: the columns of their element rows, the index of
    each row's beam and the beams' element models."""
    cols, sets, elements = [], [], []
    for kind in system.kinds:
        for c, element in _elements_of(kind, kernel):
            cols.append(c)
            sets.append(np.full(len(c), len(elements), np.int64))
            elements.append(element)
    return cols, np.concatenate(sets) if sets else np.zeros(0, np.int64), elements


def _stack(parts: list, shape: tuple) -> np.ndarray:
    """``parts`` (arrays of ``shape``, one per beam) stacked, as floats."""
    return np.ascontiguousarray(np.stack(parts) if parts else np.zeros((0, *shape)), float)


def _line_elements(system) -> dict:
    """The elastic-line elements the kernels evaluate (``AncfBodies.line_elements``): one
    set of Gauss rows, weights and damping per beam."""
    cols, sets, elements = _beams(system, "elastic_line")
    k = cols[0].shape[1] if cols else 8
    return {
        "ln_cols": np.ascontiguousarray(
            np.concatenate(cols) if cols else np.zeros((0, k)), np.int64
        ),
        "ln_set": sets,
        "ln_B": _stack([e.B for e in elements], (3, 4, k)),
        "ln_Sg": _stack([e.Sg for e in elements], (2, k)),
        "ln_frame": np.asarray([bool(e.frame) for e in elements], dtype=np.bool_),
        "ln_coef": _stack([e.coef for e in elements], (6,)),
        "ln_gamma": _floats([e.gamma if e.damped else 0.0 for e in elements]),
    }


def _cable_elements(system) -> dict:
    """The cable elements the kernels evaluate: one set of Gauss rows, weights and damping
    per beam (``ancf.cable.Cable3D``)."""
    cols, sets, elements = _beams(system, "cable")
    return {
        "cb_cols": np.ascontiguousarray(
            np.concatenate(cols) if cols else np.zeros((0, 12)), np.int64
        ),
        "cb_set": sets,
        "cb_B": _stack([e.B for e in elements], (5, 6, 12)),
        "cb_coef": _stack([e.coef for e in elements], (2, 5)),
        "cb_gamma": _floats([e.gamma if e.damped else 0.0 for e in elements]),
    }


def _belt_elements(system) -> dict:
    """The belt elements the kernels evaluate: one set of Gauss rows, coefficients and
    points per beam (``ancf.belt.Belt2D``)."""
    cols, sets, elements = _beams(system, "belt")
    return {
        "bl_cols": np.ascontiguousarray(
            np.concatenate(cols) if cols else np.zeros((0, 12)), np.int64
        ),
        "bl_set": sets,
        "bl_B": _stack([e.B for e in elements], (5, 4, 12)),
        "bl_par": _stack([e.par for e in elements], (7,)),
        "bl_xw": _stack([e.xw for e in elements], (2, 5)),
    }


def _eliminated(system) -> dict:
    """The eliminated coordinates the flexible elements' columns ``≥ n`` read
    (``ancf.columns.Eliminated``: ``x = [q; D q + c]``), as the CSR rows of ``D`` and ``c``."""
    views = [
        v for kind in system.kinds if hasattr(kind, "eliminated_view")
        for v in [kind.eliminated_view()] if v.count
    ]  # fmt: skip
    if len(views) > 1:  # their columns would both be numbered from n
        raise ValueError("eliminated coordinates of more than one body kind")
    if not views:
        return {
            "xe_ptr": np.zeros(1, np.int64),
            "xe_col": np.zeros(0, np.int64),
            "xe_w": np.zeros(0),
            "xe_const": np.zeros(0),
        }
    d = views[0].D
    return {
        "xe_ptr": np.ascontiguousarray(d.indptr, np.int64),
        "xe_col": np.ascontiguousarray(d.indices, np.int64),
        "xe_w": _floats(d.data),
        "xe_const": _floats(views[0].const),
    }


def _elements_of(kind, kernel: str) -> list:
    """``(columns, element model)`` of the beams of ``kind`` that ``kernel`` evaluates."""
    return kind.kernel_elements(kernel) if hasattr(kind, "kernel_elements") else []


#: the largest continuum element: 8 nodal vectors in 3D (Yakoub–Shabana)
CT_M, CT_K = 8, 24


def _continuum_elements(system) -> dict:
    """The continuum elements the kernels evaluate: one set of invariant tensors per beam,
    padded to the largest element."""
    cols, sets, elements = _beams(system, "continuum")
    padded_cols, T, P0, Tv = [], [], [], []
    for c, element in zip(cols, elements, strict=True):
        m, d = element.m, element.d
        padded = np.full((len(c), CT_K), -1, np.int64)
        padded[:, : m * d] = c
        padded_cols.append(padded)
        for out, tensor in ((T, element.tensor), (Tv, element.viscous)):
            big = np.zeros((CT_M,) * 4)
            big[:m, :m, :m, :m] = tensor
            out.append(big)
        ref = np.zeros((CT_M, CT_M))
        ref[:m, :m] = element.reference
        P0.append(ref)
    return {
        "ct_cols": np.concatenate(padded_cols) if cols else np.zeros((0, CT_K), np.int64),
        "ct_set": sets,
        "ct_md": _ints([(e.m, e.d) for e in elements], 2),
        "ct_T": _stack(T, (CT_M,) * 4),
        "ct_P0": _stack(P0, (CT_M, CT_M)),
        "ct_Tv": _stack(Tv, (CT_M,) * 4),
        "ct_damped": np.asarray([bool(e.damped) for e in elements], dtype=np.bool_),
    }


def _sliders(system) -> dict:
    """The ANCF sliding joints (``ancf.sliding.SlidingJoints``, the system's constraint
    blocks): markers, s column, first row, and the r and r_x columns of their beams' nodes
    (each beam once)."""
    mk, col, row, geo, par, nodes = [], [], [], [], [], []
    first: dict[int, int] = {}  # beam → its first row in ``nodes``
    count = 0
    for block in system.blocks:
        for r0, slider in zip(block.start, block.sliders, strict=True):
            beam = slider.beam
            if id(beam) not in first:
                first[id(beam)] = count
                vc = beam.vector_cols  # (nodes, vectors, d)
                table = np.full((beam.n_nodes, 6), -1, np.int64)
                table[:, : 2 * beam.d] = vc[:, :2].reshape(beam.n_nodes, -1)
                nodes.append(table)
                count += beam.n_nodes
            mk.append((slider.marker, -1 if slider.lock is None else slider.lock))
            col.append(slider.col)
            row.append(block.row0 + r0)
            geo.append((first[id(beam)], beam.n_nodes, beam.n_elements, beam.d))
            par.append((slider.l, slider.z0))
    return {
        "sl_mk": _ints(mk, 2),
        "sl_col": _ints(col),
        "sl_row": _ints(row),
        "sl_geo": _ints(geo, 4),
        "sl_par": _floats(par, 2),
        "sl_nodes": np.ascontiguousarray(
            np.concatenate(nodes) if nodes else np.zeros((0, 6)), np.int64
        ),
    }


#: the prefixes of the force elements' fields (contacts and pulley contacts included): with
#: the weights, the loads on a system, not its bodies' own forces
LOAD_PREFIXES = ("sp_", "jt_", "jf_", "pf_", "bt_", "dl_", "nl_", "cn_", "pc_")


def without_loads(packed: SystemArrays) -> SystemArrays:
    """``packed`` with no load (zero weights, no item in the :data:`LOAD_PREFIXES` fields):
    its forces are the flexible elements' own (elastic and damping; and the rigid bodies'
    quadratic-velocity terms, zero at rest). The arrays keep their types and dimensions,
    so the kernels take them as they are compiled."""
    empty = {"gravity_q": np.zeros_like(packed.gravity_q)}
    for name in SystemArrays._fields:
        if name.startswith(LOAD_PREFIXES):
            a = getattr(packed, name)
            empty[name] = np.zeros((0,) + a.shape[1:], a.dtype)
    empty["dl_ptr"] = np.zeros(1, np.int64)  # no distributed load: one pointer
    return packed._replace(**empty)


def pack(system) -> SystemArrays:
    """The kernel arrays of ``system`` (see the module docstring)."""
    functions = _Functions()
    fields = {
        "n": int(system.n),
        "m": int(system.m),
        **_markers(system),
        **_primitives(system, functions),
        **_rolling(system),
        "rig_off": _ints(system.rigid.offsets),
        "rig_mass": _floats(system.rigid.mass),
        "rig_inertia": np.ascontiguousarray(system.rigid.inertia, float).reshape(-1, 3, 3),
        "norm_row0": int(system.norm_row0),
        "pm_off": _ints(system.point_masses.offsets),
        "pm_mass": _floats(system.point_masses.mass),
        **_constant_mass(system),
        "gravity_q": _floats(system.gravity_forces()),
        **_forces(system, functions),
        **_line_elements(system),
        **_continuum_elements(system),
        **_cable_elements(system),
        **_eliminated(system),
        **_belt_elements(system),
        **_sliders(system),
    }
    fields["fn"] = functions.table()
    return SystemArrays(**fields)
