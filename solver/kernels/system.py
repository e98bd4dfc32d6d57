"""The whole multibody system from flat arrays: M, Q, Φ and their derivatives, energies.

:class:`SystemArrays` lays a system out (built by ``solver.mechanics.packing``):
coordinates ``q`` (per rigid body ``[x, y, z, e0, e1, e2, e3]``, per point mass ``[x, y, z]``,
then the linear coordinates of natural-coordinate bodies), the marker table
(:mod:`solver.kernels.markers`), the constraint primitives (:mod:`solver.kernels.primitives`)
with their rows, the Euler-parameter norm rows ``pᵀp − 1`` (one per rigid body, from
``norm_row0``), the masses, the force elements (:mod:`solver.kernels.loads`; body-axes
loads on natural-coordinate bodies: :mod:`solver.kernels.natural_loads`), the flexible
elements and the time functions (:mod:`solver.kernels.time_functions`; index −1: none).

Matrices come as *entries*: values in a fixed order with their rows and columns given
once by the matching ``*_pattern`` function (repeated positions add up), so that callers
build dense arrays or sparse matrices from the same evaluation. Conventions: equations of
motion ``M q̈ = Q − Φ_qᵀ λ``, ``Φ_q q̈ = γ``; SI units.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.kernels import contact as cn
from solver.kernels import loads, rolling
from solver.kernels import natural_loads as nl
from solver.kernels import primitives as prim
from solver.kernels import pulley as pl
from solver.kernels import sliding as sl
from solver.kernels.belt import BELT_WORK, belt_element
from solver.kernels.cable import cable_element, cable_work
from solver.kernels.contact import SLOTS as CONTACT_SLOTS
from solver.kernels.continuum import continuum_element
from solver.kernels.elastic_line import frame_element, line_element, line_work
from solver.kernels.hermite import hermite_jet
from solver.kernels.jit import NO, YES, kernel
from solver.kernels.markers import RIGID, MarkerValues, evaluate_markers
from solver.kernels.primitives import MAX_SLOTS
from solver.kernels.pulley import INPUTS as PULLEY_INPUTS
from solver.kernels.pulley import OUTPUTS as PULLEY_OUTPUTS
from solver.kernels.pulley import SLOTS as PULLEY_SLOTS
from solver.kernels.rotations import (
    force_hessian,
    force_hessian_into,
    g_into,
    g_matrix,
    gjg_into,
    h_into,
    h_matrix,
    l_matrix,
    s_matrix,
)
from solver.kernels.scratch import local, local_int, local_int_zeros, local_zeros
from solver.kernels.small import dot, mat_vec
from solver.kernels.time_functions import FunctionTable, jet


class SystemArrays(NamedTuple):
    """A system as flat arrays (see the module docstring); every field is present, with
    zero rows where a model has none, so that one compiled signature serves all models."""

    n: int
    m: int
    # markers
    mk_kind: np.ndarray  # (nk,) int64
    mk_cols: np.ndarray  # (nk, K) int64, −1 padded
    mk_ncols: np.ndarray  # (nk,) int64: columns in use (7 rigid, 3 point mass, 0 ground)
    mk_local: np.ndarray  # (nk, 3)
    mk_point: np.ndarray  # (nk,) int64
    mk_coef: np.ndarray  # (nk, 3, K)
    # constraint primitives
    pr_type: np.ndarray  # (ni,) int64
    pr_mk: np.ndarray  # (ni, 4) int64 slot markers (−1 padded)
    pr_const: np.ndarray  # (ni,)
    pr_func: np.ndarray  # (ni,) int64
    pr_row: np.ndarray  # (ni,) int64 first row
    # no-slip rows of rolling discs (``solver.kernels.rolling``; B q̇ = 0, their own
    # numbering): markers (centre, ground normal, axle), the disc's first Euler-parameter
    # column, radius, lateral (else longitudinal) direction
    rl_mk: np.ndarray  # (nh, 3) int64
    rl_pcol: np.ndarray  # (nh,) int64
    rl_radius: np.ndarray  # (nh,)
    rl_lateral: np.ndarray  # (nh,) bool
    # rigid bodies and point masses
    rig_off: np.ndarray  # (nr,) int64
    rig_mass: np.ndarray  # (nr,)
    rig_inertia: np.ndarray  # (nr, 3, 3) about the centre of mass, body axes
    norm_row0: int
    pm_off: np.ndarray  # (npm,) int64
    pm_mass: np.ndarray  # (npm,)
    # constant mass entries (natural coordinates) and the weights
    cm_row: np.ndarray  # (nc,) int64
    cm_col: np.ndarray  # (nc,) int64
    cm_val: np.ndarray  # (nc,)
    gravity_q: np.ndarray  # (n,)
    # time functions
    fn: FunctionTable
    # spring-damper-actuators: markers (p1, p2), [k, c, l0], actuator function
    sp_mk: np.ndarray  # (ns, 2) int64
    sp_par: np.ndarray  # (ns, 3)
    sp_func: np.ndarray  # (ns,) int64
    # joint torques: markers (u1, w1, u2), [k, c, θ0], torque function, last angle (state)
    jt_mk: np.ndarray  # (nt, 3) int64
    jt_par: np.ndarray  # (nt, 3)
    jt_func: np.ndarray  # (nt,) int64
    jt_last: np.ndarray  # (nt,) continuous angle of the last evaluation (rad)
    # joint forces: markers (p1, p2, axis), force function
    jf_mk: np.ndarray  # (nf, 3) int64
    jf_func: np.ndarray  # (nf,) int64
    # point forces: marker, body axes (1) or global (0), component functions
    pf_mk: np.ndarray  # (np,) int64
    pf_body: np.ndarray  # (np,) int64
    pf_func: np.ndarray  # (np, 3) int64
    # torques on rigid bodies: first column, body axes (1) or global (0), components
    bt_off: np.ndarray  # (nb,) int64
    bt_body: np.ndarray  # (nb,) int64
    bt_func: np.ndarray  # (nb, 3) int64
    # distributed loads on flexible bodies (dead loads): load d acts on the q columns
    # ``dl_cols[dl_ptr[d]:dl_ptr[d + 1]]``, whose rows of ``dl_unit`` are their generalised
    # forces per unit load along the global axes; component functions
    dl_ptr: np.ndarray  # (nd + 1,) int64
    dl_cols: np.ndarray  # (sum of the loads' columns,) int64
    dl_unit: np.ndarray  # (sum of the loads' columns, 3)
    dl_func: np.ndarray  # (nd, 3) int64
    # body-axes forces and torques on natural-coordinate bodies
    # (``solver.kernels.natural_loads``): type, the q columns of the body's four entities
    # (−1: fixed) and the fixed entities' values, axes and point coefficients, components
    nl_type: np.ndarray  # (nl,) int64: FORCE, TORQUE, BODY_TORQUE
    nl_cols: np.ndarray  # (nl, 12) int64
    nl_fixed: np.ndarray  # (nl, 4, 3) m, 1
    nl_axes: np.ndarray  # (nl, 3, 4)
    nl_c: np.ndarray  # (nl, 4)
    nl_func: np.ndarray  # (nl, 3) int64
    # flexible elements with an elastic line (``solver.kernels.elastic_line``): the q
    # columns of each element and its set; per set the Gauss rows, the node-m slope's rows
    # and whether the strains are those of its frame, weights, damping γ
    ln_cols: np.ndarray  # (ne, k) int64
    ln_set: np.ndarray  # (ne,) int64
    ln_B: np.ndarray  # (nsets, G, 4, k)
    ln_Sg: np.ndarray  # (nsets, 2, k)
    ln_frame: np.ndarray  # (nsets,) bool
    ln_coef: np.ndarray  # (nsets, 2G)
    ln_gamma: np.ndarray  # (nsets,) s
    # continuum flexible elements (``solver.kernels.continuum``): q columns (−1 padded to
    # 24) and set of each element; per set m, d, the invariant tensors and reference
    ct_cols: np.ndarray  # (ne, 24) int64
    ct_set: np.ndarray  # (ne,) int64
    ct_md: np.ndarray  # (nsets, 2) int64: m, d
    ct_T: np.ndarray  # (nsets, 8, 8, 8, 8)
    ct_P0: np.ndarray  # (nsets, 8, 8)
    ct_Tv: np.ndarray  # (nsets, 8, 8, 8, 8) (zero: no damping)
    ct_damped: np.ndarray  # (nsets,) bool
    # cable elements (``solver.kernels.cable``): the columns of each element and its set;
    # per set the Gauss rows (r_x, r_xx), the axial and bending weights, damping γ
    cb_cols: np.ndarray  # (ne, 12) int64
    cb_set: np.ndarray  # (ne,) int64
    cb_B: np.ndarray  # (nsets, G, 6, 12)
    cb_coef: np.ndarray  # (nsets, 2, G)
    cb_gamma: np.ndarray  # (nsets,) s
    # belt elements (``solver.kernels.belt``): q columns and set of each element; per set
    # the Gauss rows (r_c,x, r_c,xx), the coefficients of W and the length, ξ and weights
    bl_cols: np.ndarray  # (ne, 12) int64
    bl_set: np.ndarray  # (ne,) int64
    bl_B: np.ndarray  # (nsets, G, 4, 12)
    bl_par: np.ndarray  # (nsets, 7)
    bl_xw: np.ndarray  # (nsets, 2, G)
    # contacts (``solver.kernels.contact``): the 8 markers, PLANE or SPHERE, parameters,
    # committed onset speed (state: written between steps by the time loop)
    cn_mk: np.ndarray  # (nn, 8) int64
    cn_kind: np.ndarray  # (nn,) int64
    cn_par: np.ndarray  # (nn, contact.PARAMETERS)
    cn_onset: np.ndarray  # (nn,) m/s
    # the rest of the committed state (``solver.kernels.contact_record``): touching (1.0),
    # the speed last reported, the last accepted points and the count of events, events
    cn_active: np.ndarray  # (nn,)
    cn_reported: np.ndarray  # (nn,) m/s
    cn_history: np.ndarray  # (contact_record.HISTORY,)
    cn_events: np.ndarray  # (rows, contact_record.EVENT_FIELDS)
    # belts on pulleys (``solver.kernels.pulley``): per point its 5 markers (the belt's
    # point, the pulley's centre and axes) and parameters; the points in groups of one
    # element and one pulley (first point, count), whose entries are summed
    pc_mk: np.ndarray  # (npc, 5) int64
    pc_par: np.ndarray  # (npc, pulley.PARAMETERS)
    pc_group: np.ndarray  # (ngroups, 2) int64
    # ANCF sliding joints (``solver.kernels.sliding``): point and locked-direction markers
    # (−1: rotation free), the column of s, the first row; per joint its beam's first row
    # in ``sl_nodes``, nodes, elements and d; the element length (m) and a planar beam's z
    sl_mk: np.ndarray  # (nsl, 2) int64
    sl_col: np.ndarray  # (nsl,) int64
    sl_row: np.ndarray  # (nsl,) int64
    sl_geo: np.ndarray  # (nsl, 4) int64: first node, nodes, elements, d
    sl_par: np.ndarray  # (nsl, 2): l, z₀
    # the columns of every node's r and r_x (d each, −1 padded), the beams one after another
    sl_nodes: np.ndarray  # (nodes, 6) int64
    # eliminated ANCF coordinates (``solver/mechanics/bodies/ancf/columns.py``): a flexible
    # element's column ``c ≥ n`` is ``x_c = Σ_j xe_w[j] q[xe_col[j]] + xe_const[c − n]``,
    # ``j`` in ``xe_ptr[c − n]:xe_ptr[c − n + 1]``; its forces and Jacobian entries go back
    # to those columns with the same weights (``Tᵀ f``, ``Tᵀ K T``)
    xe_ptr: np.ndarray  # (count + 1,) int64
    xe_col: np.ndarray  # (nnz,) int64
    xe_w: np.ndarray  # (nnz,)
    xe_const: np.ndarray  # (count,)


#: what an entries function does with its output arrays
COUNT, PATTERN, VALUES = np.int64(0), np.int64(1), np.int64(2)
#: what a force element gives besides its forces (``_marker_loads``): ∂F/∂u, ∂F/∂u̇, ∂F/∂p
WITH_DU, WITH_DV, WITH_DP = np.int64(1), np.int64(2), np.int64(4)
WITH_DU_DV = np.int64(3)
NOTHING = np.int64(0)
ONE, TWO, THREE = np.int64(1), np.int64(2), np.int64(3)
#: the columns of a marker (the coordinates its position depends on) that the kernels' work
#: arrays per marker hold on the stack; markers of more columns take them from the heap
LOCAL_COLUMNS = 48


@kernel(inline="always")
def markers(P, q, qd, velocity):
    """The marker table at ``(q, q̇)`` (``solver.kernels.markers.MarkerValues``)."""
    return evaluate_markers(
        P.mk_kind, P.mk_cols, P.mk_local, P.mk_point, P.mk_coef, q, qd, velocity
    )


@kernel(inline="always")
def value(P, f, t):
    """Function ``f`` at ``t`` (0 for f = −1)."""
    if f < 0:
        return 0.0
    return jet(P.fn, f, t)[0]


@kernel(inline="always")
def _target(pr_const, pr_func, fn, i, t):
    """``(c, ċ, c̈)`` of primitive instance ``i`` at t: its constant plus its function."""
    f = pr_func[i]
    if f < 0:
        return pr_const[i], 0.0, 0.0
    v, v1, v2 = jet(fn, f, t)
    return pr_const[i] + v, v1, v2


# ---- constraints ----------------------------------------------------------------------


@kernel(refcounted=False)
def _put(mode, e, rows, cols, vals, r, c, v):
    if mode == PATTERN:
        rows[e] = r
        cols[e] = c
    if mode != COUNT:
        vals[e] = v
    return e + 1


@kernel
def _jacobian_entries(P, mk, t, phi, phit, gamma, mode, rows, cols, vals, q, qd):
    """Φ, Φ_t, γ at t (when ``phi`` has m entries) and the entries of Φ_q; returns their
    count."""
    values = mode == VALUES  # the evaluation pass writes its entries directly
    blk = local_zeros((MAX_SLOTS, 3, 3))
    ph = local_zeros(3)
    quad = local_zeros(3)
    want = phi.shape[0] > 0
    e = np.int64(0)  # not a literal: one compiled signature for every callee
    # the arrays the loop reads, taken once (each reading of a field counts a reference)
    pr_type, pr_mk, pr_const, pr_row = P.pr_type, P.pr_mk, P.pr_const, P.pr_row
    mk_ncols, mk_cols = P.mk_ncols, P.mk_cols
    u, ud, jac, jdq = mk.u, mk.ud, mk.jac, mk.jdq
    pr_func, fn = P.pr_func, P.fn
    for i in range(pr_type.shape[0]):
        typ = pr_type[i]
        target, rate, accel = _target(pr_const, pr_func, fn, i, t)
        nr = prim.evaluate(typ, pr_mk, i, pr_const[i], target, u, ud, ph, blk, quad)
        r0 = pr_row[i]
        if want:
            for r in range(nr):
                phi[r0 + r] = ph[r]
                phit[r0 + r] = -rate
                gamma[r0 + r] = -quad[r] + accel
        for s in range(prim.SLOTS[typ]):
            k = pr_mk[i, s]
            nc = mk_ncols[k]
            for r in range(nr):
                if want:
                    g = 0.0
                    for j in range(3):
                        g += blk[s, r, j] * jdq[k, j]
                    gamma[r0 + r] -= g
                for a in range(nc):
                    acc = 0.0
                    for j in range(3):
                        acc += blk[s, r, j] * jac[k, j, a]
                    if values:
                        vals[e] = acc
                        e += 1
                    else:
                        e = _put(mode, e, rows, cols, vals, r0 + r, mk_cols[k, a], acc)
    if P.sl_col.shape[0]:  # a call counts each array it passes: none without sliders
        e = _slider_entries(P, mk, q, qd, want, phi, phit, gamma, mode, rows, cols, vals, e)
    for b in range(P.rig_off.shape[0]):
        o = P.rig_off[b]
        row = P.norm_row0 + b
        pp = 0.0
        vv = 0.0
        for j in range(4):
            pp += q[o + 3 + j] * q[o + 3 + j]
            vv += qd[o + 3 + j] * qd[o + 3 + j]
            if values:
                vals[e] = 2.0 * q[o + 3 + j]
                e += 1
            else:
                e = _put(mode, e, rows, cols, vals, row, o + 3 + j, 2.0 * q[o + 3 + j])
        if want:
            phi[row] = pp - 1.0
            phit[row] = 0.0
            gamma[row] = -2.0 * vv
    return e


@kernel
def _slider_element(P, i, q, qd, h, e, ed, c):
    """Sliding joint i's element at q: its nodal vectors and their rates into ``e``, ``ed``
    ``(4, 3)``, the Hermite jet and the centreline there into ``h`` and ``c``
    (:mod:`solver.kernels.sliding`); returns ``(j, j + 1 (its second node), d, nodes, first
    node)`` (sliding joints run along open beams)."""
    first, nn, ne, d = P.sl_geo[i, 0], P.sl_geo[i, 1], P.sl_geo[i, 2], P.sl_geo[i, 3]
    length = P.sl_par[i, 0]
    j, xi = sl.locate(q[P.sl_col[i]], length, ne)
    jn = j + 1
    for k in range(4):
        node = first + (j if k < 2 else jn)
        vec = k % 2
        for b in range(3):
            if b < d:
                col = P.sl_nodes[node, vec * d + b]
                e[k, b] = q[col]
                ed[k, b] = qd[col]
            else:
                e[k, b] = 0.0
                ed[k, b] = 0.0
    hermite_jet(xi, length, h)
    sl.centreline(h, e, ed, d, c)
    return j, jn, d, nn, first


@kernel(inline="always")
def _row_components(r, d):
    """The components ``[lo, hi)`` of the nodal vectors that row r of a sliding joint
    reads: its own for a point row (none for a planar beam's z row), all for the locked
    rotation's."""
    if r < sl.POINT_ROWS:
        return (r, r + 1) if r < d else (r, r)
    return 0, d


@kernel
def _slider_entries(P, mk, q, qd, want, phi, phit, gamma, mode, rows, cols, vals, e):
    """The sliding joints' Φ, Φ_t and γ (with ``want``) and their entries of Φ_q after the
    count ``e`` (the new count): each row over its markers' columns, every node of its beam
    (zero off the element the point is on: the pattern is the run's) and s."""
    ns = P.sl_col.shape[0]
    if ns == 0:
        return e
    values = mode == VALUES  # the evaluation pass writes its entries directly
    h, ev, evd, c, ph, blk, eblk, sblk, quad = sl.scratch()
    for i in range(ns):
        j, jn, d, nn, first = _slider_element(P, i, q, qd, h, ev, evd, c)
        col = P.sl_col[i]
        kp = P.sl_mk[i, 0]
        locked = P.sl_mk[i, 1] >= 0
        kl = P.sl_mk[i, 1] if locked else kp
        nr = sl.evaluate(
            d, P.sl_par[i, 0], P.sl_par[i, 1], locked, mk.u, mk.ud, kp, kl, h, c, qd[col], ph,
            blk, eblk, sblk, quad,
        )  # fmt: skip
        r0 = P.sl_row[i]
        for r in range(nr):
            slot = 0 if r < sl.POINT_ROWS else 1
            k = kp if slot == 0 else kl
            if want:
                g = 0.0
                for a in range(3):
                    g += blk[slot, r, a] * mk.jdq[k, a]
                phi[r0 + r] = ph[r]
                phit[r0 + r] = 0.0
                gamma[r0 + r] = -quad[r] - g
            for x in range(P.mk_ncols[k]):
                acc = 0.0
                for a in range(3):
                    acc += blk[slot, r, a] * mk.jac[k, a, x]
                if values:
                    vals[e] = acc
                    e += 1
                else:
                    e = _put(mode, e, rows, cols, vals, r0 + r, P.mk_cols[k, x], acc)
            lo, hi = _row_components(r, d)
            if lo == hi:
                continue
            for p in range(nn):
                for vec in range(2):
                    for b in range(lo, hi):
                        acc = 0.0
                        if p == j:
                            acc += eblk[r, vec, b]
                        if p == jn:
                            acc += eblk[r, 2 + vec, b]
                        if values:
                            vals[e] = acc
                            e += 1
                        else:
                            node_col = P.sl_nodes[first + p, vec * d + b]
                            e = _put(mode, e, rows, cols, vals, r0 + r, node_col, acc)
            if values:
                vals[e] = sblk[r]
                e += 1
            else:
                e = _put(mode, e, rows, cols, vals, r0 + r, col, sblk[r])
    return e


@kernel
def slider_off_beam(P, q):
    """The first sliding joint whose point has left its beam at q (:func:`sliding.on_beam`),
    or −1."""
    for i in range(P.sl_col.shape[0]):
        if not sl.on_beam(q[P.sl_col[i]], P.sl_par[i, 0], P.sl_geo[i, 2]):
            return i
    return -1


def constraint_pattern(P, q, mk):
    """``(rows, cols)`` of the entries of :func:`constraints` (evaluated at q, markers ``mk``
    there: the positions of the entries do not depend on them; from Python)."""
    count = constraint_evaluation(P, mk, q, q, 0.0, COUNT, 0)[6]
    return constraint_evaluation(P, mk, q, q, 0.0, PATTERN, count)[3:5]


@kernel(inline="always")
def constraints(P, mk, q, qd, t, count):
    """``(Φ, Φ_t, γ, entries of Φ_q)`` at ``(q, q̇, t)`` from the markers ``mk`` (evaluated
    with velocities); ``count`` entries (:func:`constraint_pattern`)."""
    phi = np.zeros(P.m)
    phit = np.zeros(P.m)
    gamma = np.zeros(P.m)
    vals = np.zeros(count)
    idx = local_int_zeros(0)
    _jacobian_entries(P, mk, t, phi, phit, gamma, VALUES, idx, idx, vals, q, qd)
    return phi, phit, gamma, vals


@kernel
def constraint_evaluation(P, mk, q, qd, t, mode, count):
    """The constraints from Python, one compiled entry for all three passes: ``mode``
    ``COUNT`` gives the number of entries of Φ_q; ``PATTERN`` their ``(rows, cols)``
    (``count`` of them); ``VALUES`` ``(Φ, Φ_t, γ)`` and their values (:func:`constraints`).
    Returns ``(Φ, Φ_t, γ, rows, cols, values, count)`` with empty arrays where the pass
    gives none."""
    idx = np.zeros(0, np.int64)
    if mode == VALUES:
        phi, phit, gamma, vals = constraints(P, mk, q, qd, t, count)
        return phi, phit, gamma, idx, idx, vals, count
    none = np.zeros(0)
    if mode == COUNT:
        count = _jacobian_entries(P, mk, 0.0, none, none, none, COUNT, idx, idx, none, q, q)
        return none, none, none, idx, idx, none, count
    rows = np.zeros(count, np.int64)
    cols = np.zeros(count, np.int64)
    vals = np.zeros(count)
    _jacobian_entries(P, mk, 0.0, none, none, none, PATTERN, rows, cols, vals, q, q)
    return none, none, none, rows, cols, none, count


@kernel(inline="always")
def position_constraints(P, mk, q, t, count):
    """``(Φ, entries of Φ_q)`` at ``(q, t)`` (markers evaluated without velocities)."""
    phi, _, _, vals = constraints(P, mk, q, q, t, count)
    return phi, vals


# ---- rolling without slip ------------------------------------------------------------------


@kernel
def _no_slip_entries(P, mk, q, qd, mode, rows, cols, vals, gamma, speed):
    """The entries of the no-slip rows ``B`` (row k: its centre marker's columns, then its
    disc's Euler parameters; ``solver.kernels.rolling``; none written by a ``VALUES`` pass
    with empty ``vals``) and, into ``gamma`` and ``speed`` when they have a place per row,
    ``γ`` (``B q̈ = γ``) and ``B q̇``; returns the number of entries."""
    values = mode == VALUES
    entries = not values or vals.shape[0] > 0
    want = gamma.shape[0] > 0
    bp = local_zeros(4)
    e = np.int64(0)
    for k in range(P.rl_mk.shape[0]):
        ic, inn, ia = P.rl_mk[k, 0], P.rl_mk[k, 1], P.rl_mk[k, 2]
        o = P.rl_pcol[k]
        ev, g, v = rolling.row(
            mk.u, mk.ud, mk.jdq, ic, inn, ia, P.rl_lateral[k], P.rl_radius[k],
            q[o : o + 4], qd[o : o + 4], bp,
        )  # fmt: skip
        if want:
            gamma[k] = g
            speed[k] = v
        if not entries:
            continue
        for a in range(P.mk_ncols[ic]):
            acc = ev[0] * mk.jac[ic, 0, a] + ev[1] * mk.jac[ic, 1, a] + ev[2] * mk.jac[ic, 2, a]
            if values:
                vals[e] = acc
                e += 1
            else:
                e = _put(mode, e, rows, cols, vals, k, P.mk_cols[ic, a], acc)
        for j in range(4):
            if values:
                vals[e] = bp[j]
                e += 1
            else:
                e = _put(mode, e, rows, cols, vals, k, o + j, bp[j])
    return e


@kernel
def _no_slip_second_entries(P, mk, q, qd, mu, mode, kr, kc, kv, dr, dc, dv):
    """Entries of ``∂(Bᵀμ)/∂q`` (n×n, multipliers ``mu``) and ``∂(B q̇)/∂q`` (m_nh×n) of
    the no-slip rows (``rolling.row_derivatives`` times the markers' Jacobians); returns
    their counts."""
    values = mode == VALUES
    hca = local_zeros((3, 3))
    kpp = local_zeros((4, 4))
    kpa = local_zeros((4, 3))
    da = local_zeros(3)
    dp = local_zeros(4)
    f = local_zeros(3)
    if P.mk_cols.shape[1] <= LOCAL_COLUMNS:
        w = local_zeros((4, LOCAL_COLUMNS))
    else:
        w = np.zeros((4, P.mk_cols.shape[1]))
    ek = np.int64(0)
    ed = np.int64(0)
    for k in range(P.rl_mk.shape[0]):
        ic, inn, ia = P.rl_mk[k, 0], P.rl_mk[k, 1], P.rl_mk[k, 2]
        o = P.rl_pcol[k]
        ev = rolling.row_derivatives(
            mk.u, mk.ud, ic, inn, ia, P.rl_lateral[k], P.rl_radius[k], q[o : o + 4],
            qd[o : o + 4], mu[k], hca, kpp, kpa, da, dp,
        )  # fmt: skip
        nc = P.mk_ncols[ic]
        na = P.mk_ncols[ia]
        rigid_c = P.mk_kind[ic] == RIGID
        oc = P.mk_cols[ic, 0] + 3
        if rigid_c:  # ∂(J_cᵀ μe)/∂q: the centre marker's own term
            for j in range(3):
                f[j] = mu[k] * ev[j]
            hf = force_hessian(P.mk_local[ic], f)
            for x in range(4):
                for y in range(4):
                    if values:
                        kv[ek] = hf[x, y]
                        ek += 1
                    else:
                        ek = _put(mode, ek, kr, kc, kv, oc + x, oc + y, hf[x, y])
        for x in range(3):  # J_cᵀ (μ ∂e/∂a) J_a
            for b in range(na):
                w[x, b] = hca[x, 0] * mk.jac[ia, 0, b] + hca[x, 1] * mk.jac[ia, 1, b]
                w[x, b] += hca[x, 2] * mk.jac[ia, 2, b]
        for a in range(nc):
            for b in range(na):
                acc = mk.jac[ic, 0, a] * w[0, b] + mk.jac[ic, 1, a] * w[1, b]
                acc += mk.jac[ic, 2, a] * w[2, b]
                if values:
                    kv[ek] = acc
                    ek += 1
                else:
                    ek = _put(mode, ek, kr, kc, kv, P.mk_cols[ic, a], P.mk_cols[ia, b], acc)
        for x in range(4):  # 2Rμ L(k), 2Rμ E(p)ᵀ ∂k/∂a J_a
            for y in range(4):
                if values:
                    kv[ek] = kpp[x, y]
                    ek += 1
                else:
                    ek = _put(mode, ek, kr, kc, kv, o + x, o + y, kpp[x, y])
            for b in range(na):
                acc = kpa[x, 0] * mk.jac[ia, 0, b] + kpa[x, 1] * mk.jac[ia, 1, b]
                acc += kpa[x, 2] * mk.jac[ia, 2, b]
                if values:
                    kv[ek] = acc
                    ek += 1
                else:
                    ek = _put(mode, ek, kr, kc, kv, o + x, P.mk_cols[ia, b], acc)
        if rigid_c:  # eᵀ ∂u̇_c/∂q: S(ṗ, s̄) in the centre marker's Euler-parameter columns
            for b in range(4):
                acc = ev[0] * mk.sjd[ic, 0, b] + ev[1] * mk.sjd[ic, 1, b]
                acc += ev[2] * mk.sjd[ic, 2, b]
                if values:
                    dv[ed] = acc
                    ed += 1
                else:
                    ed = _put(mode, ed, dr, dc, dv, k, oc + b, acc)
        for b in range(na):
            acc = da[0] * mk.jac[ia, 0, b] + da[1] * mk.jac[ia, 1, b] + da[2] * mk.jac[ia, 2, b]
            if values:
                dv[ed] = acc
                ed += 1
            else:
                ed = _put(mode, ed, dr, dc, dv, k, P.mk_cols[ia, b], acc)
        for b in range(4):
            if values:
                dv[ed] = dp[b]
                ed += 1
            else:
                ed = _put(mode, ed, dr, dc, dv, k, o + b, dp[b])
    return ek, ed


@kernel(inline="always")
def no_slip_rows(P, mk, q, qd, count):
    """``(entries of B, γ, B q̇)`` of the no-slip rows at ``(q, q̇)`` (markers ``mk`` with
    velocities; ``count`` entries, none for 0)."""
    nh = P.rl_mk.shape[0]
    vals = np.zeros(count)
    gamma = np.zeros(nh)
    speed = np.zeros(nh)
    idx = local_int_zeros(0)
    _no_slip_entries(P, mk, q, qd, VALUES, idx, idx, vals, gamma, speed)
    return vals, gamma, speed


@kernel
def no_slip_matrix(P, mk, q, qd):
    """``(B, γ, B q̇)`` of the no-slip rows at ``(q, q̇)``, ``B`` dense ``m_nh × n``
    (markers ``mk`` with velocities; B itself depends on q only)."""
    nh = P.rl_mk.shape[0]
    count = 0
    for k in range(nh):  # the centre marker's columns and the disc's Euler parameters
        count += P.mk_ncols[P.rl_mk[k, 0]] + 4
    rows = np.zeros(count, np.int64)
    cols = np.zeros(count, np.int64)
    vals = np.zeros(count)
    gamma = np.zeros(nh)
    speed = np.zeros(nh)
    _no_slip_entries(P, mk, q, qd, PATTERN, rows, cols, vals, gamma, speed)
    return scatter(rows, cols, vals, nh, P.n), gamma, speed


@kernel
def no_slip_second_matrices(P, mk, q, qd, mu):
    """``(∂(Bᵀμ)/∂q, ∂(B q̇)/∂q)`` of the no-slip rows, dense ``n × n`` and ``m_nh × n``
    (markers ``mk`` at ``(q, q̇)``; the first at fixed μ, the second at fixed q̇)."""
    i0 = local_int_zeros(0)
    v0 = local_zeros(0)
    n1, n2 = _no_slip_second_entries(P, mk, q, qd, mu, COUNT, i0, i0, v0, i0, i0, v0)
    kr, kc, kv = np.zeros(n1, np.int64), np.zeros(n1, np.int64), np.zeros(n1)
    dr, dc, dv = np.zeros(n2, np.int64), np.zeros(n2, np.int64), np.zeros(n2)
    _no_slip_second_entries(P, mk, q, qd, mu, PATTERN, kr, kc, kv, dr, dc, dv)
    return scatter(kr, kc, kv, P.n, P.n), scatter(dr, dc, dv, P.rl_mk.shape[0], P.n)


@kernel
def no_slip_second_values(P, mk, q, qd, mu, n1, n2):
    """The entry values of ``∂(Bᵀμ)/∂q`` (``n1``) and ``∂(B q̇)/∂q`` (``n2``) of the no-slip
    rows, in their patterns' order (markers ``mk`` at ``(q, q̇)``)."""
    i0 = local_int_zeros(0)
    kv = np.zeros(n1)
    dv = np.zeros(n2)
    _no_slip_second_entries(P, mk, q, qd, mu, VALUES, i0, i0, kv, i0, i0, dv)
    return kv, dv


@kernel
def no_slip_evaluation(P, mk, q, qd, mu, second, mode, n1, n2):
    """The no-slip rows from Python, one compiled entry for the three passes (``mode``
    ``COUNT``, ``PATTERN`` or ``VALUES``; markers ``mk`` at ``(q, q̇)``). Without
    ``second``: the ``n1`` entries of ``B`` and, by a ``VALUES`` pass, ``γ`` and ``B q̇``;
    with it: the ``n1`` entries of ``∂(Bᵀμ)/∂q`` and the ``n2`` of ``∂(B q̇)/∂q``.
    Returns ``(γ, B q̇, rows, cols, values, rows, cols, values, n1, n2)``, empty arrays
    where the pass gives none."""
    idx = np.zeros(0, np.int64)
    none = np.zeros(0)
    nh = P.rl_mk.shape[0]
    r1 = np.zeros(n1 if mode == PATTERN else 0, np.int64)
    c1 = np.zeros(r1.shape[0], np.int64)
    r2 = np.zeros(n2 if mode == PATTERN else 0, np.int64)
    c2 = np.zeros(r2.shape[0], np.int64)
    v1 = np.zeros(n1 if mode != COUNT else 0)
    v2 = np.zeros(n2 if mode != COUNT else 0)
    if not second:
        gamma = np.zeros(nh if mode == VALUES else 0)
        speed = np.zeros(gamma.shape[0])
        n1 = _no_slip_entries(P, mk, q, qd, mode, r1, c1, v1, gamma, speed)
        return gamma, speed, r1, c1, v1, idx, idx, none, n1, np.int64(0)
    if mode != VALUES:
        mu = np.ones(nh)
    n1, n2 = _no_slip_second_entries(P, mk, q, qd, mu, mode, r1, c1, v1, r2, c2, v2)
    return none, none, r1, c1, v1, r2, c2, v2, n1, n2


@kernel
def _pairs(typ, i, j):
    """Whether slots (i, j) of a primitive type have a non-zero second derivative."""
    if typ == prim.COINCIDENT:
        return False
    if typ == prim.DOT:
        return i != j
    if typ == prim.POINT_PLANE:
        return (i == 2) != (j == 2)
    if typ == prim.DISTANCE or typ == prim.ANGLE:
        return True
    # DISC_ON_PLANE
    if (i == 2) != (j == 2) and i < 3 and j < 3:
        return True
    return i >= 2 and j >= 2


@kernel
def _second_entries(P, mk, t, lam, velocity, mode, kr, kc, kv, dr, dc, dv, q, qd):
    """Entries of ``∂(Φ_qᵀλ)/∂q`` (n×n) and, with ``velocity``, ``∂(Φ_q q̇)/∂q`` (m×n);
    returns their counts ``(nk, nd)``."""
    values = mode == VALUES  # the evaluation pass writes its entries directly
    blk = local_zeros((MAX_SLOTS, 3, 3))
    ph = local_zeros(3)
    quad = local_zeros(3)
    hs = local_zeros((MAX_SLOTS, MAX_SLOTS, 3, 3))
    h1 = local_zeros((MAX_SLOTS, MAX_SLOTS, 3, 3))
    lr = local_zeros(3)
    one = local(1)
    one[0] = 1.0
    f = local_zeros(3)
    if P.mk_cols.shape[1] <= LOCAL_COLUMNS:
        w = local_zeros((3, LOCAL_COLUMNS))
    else:
        w = np.zeros((3, P.mk_cols.shape[1]))
    hf = local((4, 4))
    ek = np.int64(0)
    ed = np.int64(0)
    # the arrays the loops read, taken once (each reading of a field counts a reference)
    pr_type, pr_mk, pr_const, pr_row = P.pr_type, P.pr_mk, P.pr_const, P.pr_row
    mk_ncols, mk_cols, mk_kind, mk_local = P.mk_ncols, P.mk_cols, P.mk_kind, P.mk_local
    u, ud, jac, sjd = mk.u, mk.ud, mk.jac, mk.sjd
    pr_func, fn = P.pr_func, P.fn
    rig_off = P.rig_off
    for i in range(pr_type.shape[0]):
        typ = pr_type[i]
        target = _target(pr_const, pr_func, fn, i, t)[0]
        nr = prim.evaluate(typ, pr_mk, i, pr_const[i], target, u, ud, ph, blk, quad)
        r0 = pr_row[i]
        for r in range(nr):
            lr[r] = lam[r0 + r]
        ns = prim.SLOTS[typ]
        prim.hessian(typ, pr_mk, i, pr_const[i], u, lr, hs)
        if velocity and nr == 1:
            prim.hessian(typ, pr_mk, i, pr_const[i], u, one, h1)
        for si in range(ns):
            ki = pr_mk[i, si]
            ni_ = mk_ncols[ki]
            if ni_ == 0:
                continue
            for sj in range(ns):
                kj = pr_mk[i, sj]
                nj = mk_ncols[kj]
                if nj == 0 or not _pairs(typ, si, sj):
                    continue
                # w = H_ij J_j (3 × nj), then J_iᵀ w
                for a in range(3):
                    for b in range(nj):
                        acc = 0.0
                        for l in range(3):
                            acc += hs[si, sj, a, l] * jac[kj, l, b]
                        w[a, b] = acc
                for a in range(ni_):
                    for b in range(nj):
                        acc = 0.0
                        for l in range(3):
                            acc += jac[ki, l, a] * w[l, b]
                        if values:
                            kv[ek] = acc
                            ek += 1
                        else:
                            ek = _put(mode, ek, kr, kc, kv, mk_cols[ki, a], mk_cols[kj, b], acc)
                if velocity and nr == 1:  # row r0: u̇_iᵀ f_ij J_j
                    for b in range(nj):
                        acc = 0.0
                        for a in range(3):
                            for l in range(3):
                                acc += ud[ki, a] * h1[si, sj, a, l] * jac[kj, l, b]
                        if values:
                            dv[ed] = acc
                            ed += 1
                        else:
                            ed = _put(mode, ed, dr, dc, dv, r0, mk_cols[kj, b], acc)
        for si in range(ns):  # ∂(J_iᵀ f_i)/∂q of rigid markers, f_i = Σ_r λ_r ∂f_r/∂u_i
            ki = pr_mk[i, si]
            if mk_kind[ki] != RIGID:
                continue
            o = mk_cols[ki, 0] + 3
            for j in range(3):
                acc = 0.0
                for r in range(nr):
                    acc += lr[r] * blk[si, r, j]
                f[j] = acc
            force_hessian_into(
                mk_local[ki, 0], mk_local[ki, 1], mk_local[ki, 2], f[0], f[1], f[2], hf
            )
            for a in range(4):
                for b in range(4):
                    if values:
                        kv[ek] = hf[a, b]
                        ek += 1
                    else:
                        ek = _put(mode, ek, kr, kc, kv, o + a, o + b, hf[a, b])
            if velocity:  # blocks_i ∂u̇_i/∂q: S(ṗ, s̄) in the Euler-parameter columns
                for r in range(nr):
                    for b in range(4):
                        acc = 0.0
                        for j in range(3):
                            acc += blk[si, r, j] * sjd[ki, j, b]
                        if values:
                            dv[ed] = acc
                            ed += 1
                        else:
                            ed = _put(mode, ed, dr, dc, dv, r0 + r, o + b, acc)
    if P.sl_col.shape[0]:
        ek, ed = _slider_second(P, mk, q, qd, lam, velocity, mode, kr, kc, kv, dr, dc, dv, ek, ed)
    for b in range(rig_off.shape[0]):
        o = rig_off[b] + 3
        ln = lam[P.norm_row0 + b]
        for j in range(4):
            if values:
                kv[ek] = 2.0 * ln
                ek += 1
            else:
                ek = _put(mode, ek, kr, kc, kv, o + j, o + j, 2.0 * ln)
            if velocity:
                if values:
                    dv[ed] = 2.0 * qd[o + j]
                    ed += 1
                else:
                    ed = _put(mode, ed, dr, dc, dv, P.norm_row0 + b, o + j, 2.0 * qd[o + j])
    return ek, ed


@kernel
def _slider_second(P, mk, q, qd, lam, velocity, mode, kr, kc, kv, dr, dc, dv, ek, ed):
    """The sliding joints' entries of ``∂(Φ_qᵀλ)/∂q`` and (``velocity``) ``∂(Φ_q q̇)/∂q``
    after the counts ``(ek, ed)`` (the new counts): the second derivatives over the local
    variables (:func:`sliding.hessian`) through the direction marker's Jacobian and the
    beam's columns, the rigid markers' own terms; every node of the beam, as in Φ_q."""
    ns = P.sl_col.shape[0]
    if ns == 0:
        return ek, ed
    values = mode == VALUES  # the evaluation pass writes its entries directly
    h, ev, evd, c, ph, blk, eblk, sblk, quad = sl.scratch()
    hve, hvs, hes, lr, wv, we, f = sl.second_scratch()
    for i in range(ns):
        j, jn, d, nn, first = _slider_element(P, i, q, qd, h, ev, evd, c)
        col = P.sl_col[i]
        length = P.sl_par[i, 0]
        kp = P.sl_mk[i, 0]
        locked = P.sl_mk[i, 1] >= 0
        kl = P.sl_mk[i, 1] if locked else kp
        nr = sl.evaluate(
            d, length, P.sl_par[i, 1], locked, mk.u, mk.ud, kp, kl, h, c, qd[col], ph, blk,
            eblk, sblk, quad,
        )  # fmt: skip
        r0 = P.sl_row[i]
        for r in range(4):
            lr[r] = lam[r0 + r] if r < nr else 0.0
        hss = sl.hessian(d, length, locked, mk.u, kl, lr, h, c, hve, hvs, hes)
        for slot in range(2 if locked else 1):  # ∂(J_slotᵀ f_slot)/∂q of rigid markers
            k = kp if slot == 0 else kl
            if P.mk_kind[k] != RIGID:
                continue
            for a in range(3):
                acc = 0.0
                for r in range(nr):
                    acc += lr[r] * blk[slot, r, a]
                f[a] = acc
            hf = force_hessian(P.mk_local[k], f)
            o = P.mk_cols[k, 0] + 3
            for a in range(4):
                for b in range(4):
                    if values:
                        kv[ek] = hf[a, b]
                        ek += 1
                    else:
                        ek = _put(mode, ek, kr, kc, kv, o + a, o + b, hf[a, b])
        # (v, E) and (v, s) through the direction's Jacobian, (E, s) and (s, s); each
        # mixed term with its mirror
        for x in range(P.mk_ncols[kl] if locked else 0):
            mc = P.mk_cols[kl, x]
            for p in range(nn):
                for vec in range(2):
                    for b in range(d):
                        acc = 0.0
                        for a in range(3):
                            w = 0.0
                            if p == j:
                                w += hve[a, vec, b]
                            if p == jn:
                                w += hve[a, 2 + vec, b]
                            acc += mk.jac[kl, a, x] * w
                        if values:
                            kv[ek] = acc
                            kv[ek + 1] = acc
                            ek += 2
                        else:
                            node_col = P.sl_nodes[first + p, vec * d + b]
                            ek = _put(mode, ek, kr, kc, kv, mc, node_col, acc)
                            ek = _put(mode, ek, kr, kc, kv, node_col, mc, acc)
            acc = 0.0
            for a in range(3):
                acc += mk.jac[kl, a, x] * hvs[a]
            if values:
                kv[ek] = acc
                kv[ek + 1] = acc
                ek += 2
            else:
                ek = _put(mode, ek, kr, kc, kv, mc, col, acc)
                ek = _put(mode, ek, kr, kc, kv, col, mc, acc)
        for p in range(nn):
            for vec in range(2):
                for b in range(d):
                    acc = 0.0
                    if p == j:
                        acc += hes[vec, b]
                    if p == jn:
                        acc += hes[2 + vec, b]
                    if values:
                        kv[ek] = acc
                        kv[ek + 1] = acc
                        ek += 2
                    else:
                        node_col = P.sl_nodes[first + p, vec * d + b]
                        ek = _put(mode, ek, kr, kc, kv, node_col, col, acc)
                        ek = _put(mode, ek, kr, kc, kv, col, node_col, acc)
        if values:
            kv[ek] = hss
            ek += 1
        else:
            ek = _put(mode, ek, kr, kc, kv, col, col, hss)
        if not velocity:
            continue
        for r in range(nr):  # row r: its second derivatives times the rates
            lr[:] = 0.0
            lr[r] = 1.0
            h1 = sl.hessian(d, length, locked, mk.u, kl, lr, h, c, hve, hvs, hes)
            ws = sl.rate_terms(d, hve, hvs, hes, h1, mk.ud, kl, evd, qd[col], wv, we)
            slot = 0 if r < sl.POINT_ROWS else 1
            k = kp if slot == 0 else kl
            for x in range(P.mk_ncols[kl] if slot == 1 else 0):
                acc = 0.0
                for a in range(3):
                    acc += wv[a] * mk.jac[kl, a, x]
                if values:
                    dv[ed] = acc
                    ed += 1
                else:
                    ed = _put(mode, ed, dr, dc, dv, r0 + r, P.mk_cols[kl, x], acc)
            if P.mk_kind[k] == RIGID:  # blocks ∂u̇/∂q: S(ṗ, s̄) in the Euler-parameter columns
                o = P.mk_cols[k, 0] + 3
                for b in range(4):
                    acc = 0.0
                    for a in range(3):
                        acc += blk[slot, r, a] * mk.sjd[k, a, b]
                    if values:
                        dv[ed] = acc
                        ed += 1
                    else:
                        ed = _put(mode, ed, dr, dc, dv, r0 + r, o + b, acc)
            lo, hi = _row_components(r, d)
            if lo == hi:
                continue
            for p in range(nn):
                for vec in range(2):
                    for b in range(lo, hi):
                        acc = 0.0
                        if p == j:
                            acc += we[vec, b]
                        if p == jn:
                            acc += we[2 + vec, b]
                        if values:
                            dv[ed] = acc
                            ed += 1
                        else:
                            node_col = P.sl_nodes[first + p, vec * d + b]
                            ed = _put(mode, ed, dr, dc, dv, r0 + r, node_col, acc)
            if values:
                dv[ed] = ws
                ed += 1
            else:
                ed = _put(mode, ed, dr, dc, dv, r0 + r, col, ws)
    return ek, ed


def second_order_pattern(P, q, mk):
    """``((rows, cols) of ∂(Φ_qᵀλ)/∂q, (rows, cols) of ∂(Φ_q q̇)/∂q)`` (from Python)."""
    lam = np.zeros(0)  # the passes take λ = 1
    nk, nd = second_order_evaluation(P, mk, q, q, 0.0, lam, YES, COUNT, 0, 0)[6:]
    kr, kc, _, dr, dc, _, _, _ = second_order_evaluation(
        P, mk, q, q, 0.0, lam, YES, PATTERN, nk, nd
    )
    return kr, kc, dr, dc


@kernel(inline="always")
def second_order(P, mk, q, qd, t, lam, velocity, nk, nd):
    """Entries of ``∂(Φ_qᵀλ)/∂q`` and (``velocity``) ``∂(Φ_q q̇)/∂q`` (else an empty array)
    at q with the rates ``qd`` (markers ``mk`` at ``(q, q̇)``)."""
    kv = np.zeros(nk)
    dv = np.zeros(nd if velocity else 0)
    idx = local_int_zeros(0)
    _second_entries(P, mk, t, lam, velocity, VALUES, idx, idx, kv, idx, idx, dv, q, qd)
    return kv, dv


@kernel
def second_order_evaluation(P, mk, q, qd, t, lam, velocity, mode, nk, nd):
    """The second derivatives of the constraints from Python, one compiled entry for all
    three passes (``mode`` ``COUNT``, ``PATTERN`` (both with ``λ = 1`` and velocities), or
    ``VALUES``: :func:`second_order`). Returns ``(kr, kc, kv, dr, dc, dv, nk, nd)``, the
    rows, columns and values of ``∂(Φ_qᵀλ)/∂q`` and ``∂(Φ_q q̇)/∂q``, with empty arrays
    where the pass gives none."""
    idx = np.zeros(0, np.int64)
    if mode == VALUES:
        kv, dv = second_order(P, mk, q, qd, t, lam, velocity, nk, nd)
        return idx, idx, kv, idx, idx, dv, nk, nd
    none = np.zeros(0)
    lam = np.ones(P.m)
    if mode == COUNT:
        nk, nd = _second_entries(P, mk, 0.0, lam, YES, COUNT, idx, idx, none, idx, idx, none, q, qd)
        return idx, idx, none, idx, idx, none, nk, nd
    kr, kc, kv = np.zeros(nk, np.int64), np.zeros(nk, np.int64), np.zeros(nk)
    dr, dc, dv = np.zeros(nd, np.int64), np.zeros(nd, np.int64), np.zeros(nd)
    _second_entries(P, mk, 0.0, lam, YES, PATTERN, kr, kc, kv, dr, dc, dv, q, qd)
    return kr, kc, none, dr, dc, none, nk, nd


# ---- mass ---------------------------------------------------------------------------------


@kernel
def _mass_entries(P, q, mode, rows, cols, vals):
    values = mode == VALUES  # the evaluation pass writes its entries directly
    e = np.int64(0)
    g, jg, blk = local((3, 4)), local((3, 4)), local((4, 4))  # every body's
    for b in range(P.rig_off.shape[0]):
        o = P.rig_off[b]
        for i in range(3):
            if values:
                vals[e] = P.rig_mass[b]
                e += 1
            else:
                e = _put(mode, e, rows, cols, vals, o + i, o + i, P.rig_mass[b])
        g_into(q, o + 3, g)
        gjg_into(g, P.rig_inertia[b], g, jg, blk)
        for i in range(4):
            for j in range(4):
                if values:
                    vals[e] = 4.0 * blk[i, j]
                    e += 1
                else:
                    e = _put(mode, e, rows, cols, vals, o + 3 + i, o + 3 + j, 4.0 * blk[i, j])
    for b in range(P.pm_off.shape[0]):
        o = P.pm_off[b]
        for i in range(3):
            if values:
                vals[e] = P.pm_mass[b]
                e += 1
            else:
                e = _put(mode, e, rows, cols, vals, o + i, o + i, P.pm_mass[b])
    for k in range(P.cm_row.shape[0]):
        if values:
            vals[e] = P.cm_val[k]
            e += 1
        else:
            e = _put(mode, e, rows, cols, vals, P.cm_row[k], P.cm_col[k], P.cm_val[k])
    return e


@kernel(inline="always")
def mass_pattern(P, q):
    none = local_zeros(0)
    idx = local_int_zeros(0)
    count = _mass_entries(P, q, COUNT, idx, idx, none)
    rows, cols, vals = np.zeros(count, np.int64), np.zeros(count, np.int64), np.zeros(count)
    _mass_entries(P, q, PATTERN, rows, cols, vals)
    return rows, cols


@kernel(inline="always")
def mass(P, q, count):
    """Entries of ``M(q)``: ``m I₃`` and ``4 GᵀJG`` per rigid body, ``m I₃`` per point
    mass, the constant entries of linear bodies."""
    vals = np.zeros(count)
    idx = local_int_zeros(0)
    _mass_entries(P, q, VALUES, idx, idx, vals)
    return vals


@kernel
def mass_times_jacobian(P, q, a):
    """``∂(M(q) a)/∂q`` (a fixed) as 16 entries per rigid body, in the order of
    :func:`rigid_block_pattern`: ``4 (H(J G(p) a_p) − G(p)ᵀ J G(a_p))``."""
    rig_off, rig_inertia = P.rig_off, P.rig_inertia
    nr = rig_off.shape[0]
    vals = np.zeros(16 * nr)
    g, ga, jg = local((3, 4)), local((3, 4)), local((3, 4))
    blk, hm = local((4, 4)), local((4, 4))
    gap, jga = local(3), local(3)
    for b in range(nr):
        o = rig_off[b]
        g_into(q, o + 3, g)
        g_into(a, o + 3, ga)
        inertia = rig_inertia[b]
        for i in range(3):
            gap[i] = (
                g[i, 0] * a[o + 3] + g[i, 1] * a[o + 4] + g[i, 2] * a[o + 5] + g[i, 3] * a[o + 6]
            )
        for i in range(3):
            jga[i] = inertia[i, 0] * gap[0] + inertia[i, 1] * gap[1] + inertia[i, 2] * gap[2]
        h_into(jga, hm)
        gjg_into(g, inertia, ga, jg, blk)
        for i in range(4):
            for j in range(4):
                vals[16 * b + 4 * i + j] = 4.0 * (hm[i, j] - blk[i, j])
    return vals


@kernel(inline="always")
def rigid_block_pattern(P):
    """``(rows, cols)`` of the 4×4 Euler-parameter block of every rigid body."""
    nr = P.rig_off.shape[0]
    rows = np.zeros(16 * nr, np.int64)
    cols = np.zeros(16 * nr, np.int64)
    for b in range(nr):
        o = P.rig_off[b] + 3
        for i in range(4):
            for j in range(4):
                rows[16 * b + 4 * i + j] = o + i
                cols[16 * b + 4 * i + j] = o + j
    return rows, cols


#: what :func:`mass_evaluation` gives
MASS_PATTERN, MASS_VALUES, RIGID_PATTERN, MASS_TIMES_JACOBIAN = (
    np.int64(0),
    np.int64(1),
    np.int64(2),
    np.int64(3),
)


@kernel
def mass_evaluation(P, q, a, what, count):
    """The mass matrix from Python, one compiled entry: ``what`` ``MASS_PATTERN`` gives the
    ``(rows, cols)`` of ``M``'s entries, ``MASS_VALUES`` their ``count`` values at q
    (:func:`mass`), ``RIGID_PATTERN`` the ``(rows, cols)`` of the rigid bodies'
    Euler-parameter blocks and ``MASS_TIMES_JACOBIAN`` the values of ``∂(M(q) a)/∂q`` there
    (:func:`mass_times_jacobian`). Returns ``(rows, cols, values)``, empty where the pass
    gives none."""
    idx = np.zeros(0, np.int64)
    none = np.zeros(0)
    if what == MASS_PATTERN:
        rows, cols = mass_pattern(P, q)
        return rows, cols, none
    if what == MASS_VALUES:
        return idx, idx, mass(P, q, count)
    if what == RIGID_PATTERN:
        rows, cols = rigid_block_pattern(P)
        return rows, cols, none
    return idx, idx, mass_times_jacobian(P, q, a)


# ---- forces -------------------------------------------------------------------------------


@kernel(inline="always")
def _marker_table(P, mk, inner, innerv, hf):
    """What :func:`_marker_loads` reads of the markers ``mk`` (evaluated at q) and of the
    marker table, with its scratch ``inner``, ``innerv`` (3 × the markers' columns at
    least) and ``hf`` (4 × 4): made once per evaluation, passed to every call."""
    return P.mk_ncols, P.mk_cols, P.mk_kind, P.mk_local, mk.jac, mk.sjd, inner, innerv, hf


@kernel(refcounted=False)
def _marker_loads(tab, slots, ns, flags, load, mode, sink, e, ed):
    """``Q += Σ_a J_aᵀ F_a`` for one element with ``ns`` marker ``slots``, its loads
    ``load = (F, ∂F/∂u, ∂F/∂u̇, ∂F/∂p)`` (per slot; ``force, du, dv, dp``), into ``sink =
    (kr, kc, kv, cr, cc, cv, out)`` (:func:`_force_entries`' entry lists of ∂Q/∂q and
    ∂Q/∂q̇, and Q) and, unless ``mode`` is ``VALUES`` with empty ``kv``, the entries of its
    Jacobians:
    ``J_aᵀ (∂F_a/∂u_b J_b + ∂F_a/∂u̇_b ∂u̇_b/∂q)`` (``flags & 1``: ∂F/∂u given, ``& 2``:
    ∂F/∂u̇ given), the own term ``∂(J_aᵀ F_a)/∂q`` of rigid markers and, with ``flags & 4``,
    ``J_aᵀ ∂F_a/∂p`` (a force in body axes) into ∂Q/∂q; ``J_aᵀ ∂F_a/∂u̇_b J_b`` into
    ∂Q/∂q̇. ``tab``: :func:`_marker_table`. Returns the new counts ``(e, ed)``."""
    # compiled without reference counting (it makes and keeps no array): a call in a loop
    # does not count the arrays of ``tab`` and its other arguments in and out
    mk_ncols, mk_cols, mk_kind, mk_local, jac, sjd, inner, innerv, hf = tab
    force, du, dv, dp = load
    kr, kc, kv, cr, cc, cv, out = sink
    values = mode == VALUES  # the evaluation pass writes its entries directly
    for a in range(ns):
        ka = slots[a]
        for x in range(mk_ncols[ka]):
            acc = 0.0
            for j in range(3):
                acc += jac[ka, j, x] * force[a, j]
            out[mk_cols[ka, x]] += acc
    if mode == VALUES and kv.shape[0] == 0:
        return e, ed
    with_du = (flags & 1) != 0
    with_dv = (flags & 2) != 0
    # per pair of slots, ``inner`` = ∂F_a/∂u_b J_b + ∂F_a/∂u̇_b ∂u̇_b/∂q and ``innerv`` =
    # ∂F_a/∂u̇_b J_b (every entry of the first nb columns written before it is read)
    for a in range(ns):
        ka = slots[a]
        na = mk_ncols[ka]
        if na == 0:
            continue
        if with_du or with_dv:
            for b in range(ns):
                kb = slots[b]
                nb = mk_ncols[kb]
                if nb == 0:
                    continue
                rigid_b = mk_kind[kb] == RIGID
                for i in range(3):
                    for y in range(nb):
                        s = 0.0
                        sv = 0.0
                        for j in range(3):
                            s += du[a, b, i, j] * jac[kb, j, y]
                            sv += dv[a, b, i, j] * jac[kb, j, y]
                        if with_dv and rigid_b and 3 <= y < 7:
                            for j in range(3):
                                s += dv[a, b, i, j] * sjd[kb, j, y - 3]
                        inner[i, y] = s
                        innerv[i, y] = sv
                for x in range(na):
                    for y in range(nb):
                        s = 0.0
                        sv = 0.0
                        for i in range(3):
                            s += jac[ka, i, x] * inner[i, y]
                            sv += jac[ka, i, x] * innerv[i, y]
                        r, c = mk_cols[ka, x], mk_cols[kb, y]
                        if values:
                            kv[e] = s
                            e += 1
                        else:
                            e = _put(mode, e, kr, kc, kv, r, c, s)
                        if with_dv:
                            if values:
                                cv[ed] = sv
                                ed += 1
                            else:
                                ed = _put(mode, ed, cr, cc, cv, r, c, sv)
        if mk_kind[ka] == RIGID:  # own terms over the Euler parameters of slot a's body
            o = mk_cols[ka, 0] + 3
            loc = (mk_local[ka, 0], mk_local[ka, 1], mk_local[ka, 2])
            force_hessian_into(loc[0], loc[1], loc[2], force[a, 0], force[a, 1], force[a, 2], hf)
            for x in range(4):
                for y in range(4):
                    if values:
                        kv[e] = hf[x, y]
                        e += 1
                    else:
                        e = _put(mode, e, kr, kc, kv, o + x, o + y, hf[x, y])
            if flags & 4:
                for x in range(na):
                    for y in range(4):
                        s = 0.0
                        for i in range(3):
                            s += jac[ka, i, x] * dp[a, i, y]
                        if values:
                            kv[e] = s
                            e += 1
                        else:
                            e = _put(mode, e, kr, kc, kv, mk_cols[ka, x], o + y, s)
    return e, ed


@kernel
def _point_force(P, s, q, t, force, dp):
    """The global force of point force ``s`` into ``force[0]`` and, in body axes,
    ``∂f/∂p = S(p, f̄)`` into ``dp[0]``: ``f = A(p) f̄ = ½ S(p, f̄) p``."""
    fv = local_zeros(3)
    for j in range(3):
        fv[j] = value(P, P.pf_func[s, j], t)
    if P.pf_body[s]:
        o = P.mk_cols[P.pf_mk[s], 0]
        p = q[o + 3 : o + 7]
        sp = s_matrix(p, fv)
        for i in range(3):
            acc = 0.0
            for j in range(4):
                acc += sp[i, j] * p[j]
                dp[0, i, j] = sp[i, j]
            force[0, i] = 0.5 * acc
    else:
        for i in range(3):
            force[0, i] = fv[i]


@kernel
def _distributed_load(P, d, t, out, qd):
    """Distributed load ``d``: its generalised forces ``Q = U f(t)`` (``U`` its rows of
    ``dl_unit``, f the line load, N/m of undeformed beam) added into ``out`` when it has
    room, and their power ``Q·q̇`` returned when ``qd`` has (else 0). A dead load: no
    Jacobian."""
    f0 = value(P, P.dl_func[d, 0], t)
    f1 = value(P, P.dl_func[d, 1], t)
    f2 = value(P, P.dl_func[d, 2], t)
    power = 0.0
    for r in range(P.dl_ptr[d], P.dl_ptr[d + 1]):
        c = P.dl_cols[r]
        g = P.dl_unit[r, 0] * f0 + P.dl_unit[r, 1] * f1 + P.dl_unit[r, 2] * f2
        if out.shape[0]:
            out[c] += g
        if qd.shape[0]:
            power += g * qd[c]
    return power


@kernel
def _natural_loads(P, q, qd, t, mode, e, kr, kc, kv, out, jac):
    """The natural-body loads' generalised forces into ``out`` (when it has room) and the
    entries of ``∂Q/∂q`` (with ``jac``; over the free entities' columns, 48 per force and
    144 per torque less those of fixed entities); returns ``(e, Q·q̇)`` (0 when ``qd`` is
    empty)."""
    x = local_zeros((4, 3))
    xd = local_zeros((4, 3))
    load = local_zeros((4, 3))
    blocks = local_zeros((4, 3, 4, 3))
    u = local_zeros(3)
    power = 0.0
    for s in range(P.nl_type.shape[0]):
        cols = P.nl_cols[s]
        typ = P.nl_type[s]
        for j in range(3):
            u[j] = value(P, P.nl_func[s, j], t)
        nl.entities(q, cols, P.nl_fixed[s], NO, x)
        nl.natural_load(typ, P.nl_axes[s], P.nl_c[s], u, x, load, blocks, jac)
        if qd.shape[0]:
            nl.entities(qd, cols, P.nl_fixed[s], YES, xd)
            for i in range(4):
                power += load[i, 0] * xd[i, 0] + load[i, 1] * xd[i, 1] + load[i, 2] * xd[i, 2]
        for r in range(12):
            c = cols[r]
            if c < 0:
                continue
            if out.shape[0]:
                out[c] += load[r // 3, r % 3]
            if not jac:
                continue
            for k in range(12):
                # a force's blocks are diagonal in the components
                if cols[k] >= 0 and (typ != nl.FORCE or k % 3 == r % 3):
                    e = _put(mode, e, kr, kc, kv, c, cols[k], blocks[r // 3, r % 3, k // 3, k % 3])
    return e, power


@kernel
def _torque_matrix(P, s, t):
    """``∂Q_p/∂p`` of torque ``s`` (``Q_p`` is this times p): ``2 H(n̄)`` in body axes
    (``2 G(p)ᵀ n̄``), ``2 L(n)`` for a global torque (``2 E(p)ᵀ n``)."""
    nv = np.zeros(3)
    for j in range(3):
        nv[j] = value(P, P.bt_func[s, j], t)
    return 2.0 * (h_matrix(nv) if P.bt_body[s] else l_matrix(nv))


@kernel
def _force_entries(P, mk, q, qd, t, inertial, mode, kr, kc, kv, cr, cc, cv, out):
    """``Q`` into ``out`` (gravity, force elements and, if ``inertial``, the rigid bodies'
    quadratic-velocity forces) and the entries of ``∂Q/∂q`` and ``∂Q/∂q̇`` (the same
    entries either way); returns their counts."""
    if P.mk_cols.shape[1] <= LOCAL_COLUMNS:  # the scratch of the marker loads
        inner, innerv = local((3, LOCAL_COLUMNS)), local((3, LOCAL_COLUMNS))
    else:
        inner, innerv = np.empty((3, P.mk_cols.shape[1])), np.empty((3, P.mk_cols.shape[1]))
    tab = _marker_table(P, mk, inner, innerv, local((4, 4)))
    values = mode == VALUES  # the evaluation pass writes its entries directly
    gravity_q = P.gravity_q
    for i in range(P.n):
        out[i] += gravity_q[i]
    e = np.int64(0)  # not a literal: one compiled signature for every callee
    ed = np.int64(0)
    force = local_zeros((3, 3))
    du = local_zeros((3, 3, 3, 3))
    dv = local_zeros((3, 3, 3, 3))
    dp = local_zeros((3, 3, 4))
    load = (force, du, dv, dp)  # what _marker_loads reads and writes, for every element
    sink = (kr, kc, kv, cr, cc, cv, out)
    jac = mode != VALUES or kv.shape[0] > 0
    # rigid bodies: Q_v = 8 G(ṗ)ᵀ J G(ṗ) p, its Jacobians (G(ṗ), G(ṗ) p, J G(ṗ) p: every
    # body's arrays)
    gd, gp, jw = local((3, 4)), local(3), local(3)
    gq, jg = local((3, 4)), local((3, 4))
    dq, dqd, hm = local((4, 4)), local((4, 4)), local((4, 4))
    rig_off, rig_inertia = P.rig_off, P.rig_inertia
    for b in range(rig_off.shape[0]):
        o = rig_off[b]
        g_into(qd, o + 3, gd)
        inertia = rig_inertia[b]
        w = 8.0 if inertial else 0.0
        for i in range(3):
            acc = 0.0
            for j in range(4):
                acc += gd[i, j] * q[o + 3 + j]
            gp[i] = acc
        for i in range(3):
            jw[i] = inertia[i, 0] * gp[0] + inertia[i, 1] * gp[1] + inertia[i, 2] * gp[2]
        for i in range(4):
            out[o + 3 + i] += w * (gd[0, i] * jw[0] + gd[1, i] * jw[1] + gd[2, i] * jw[2])
        if jac:  # w G(ṗ)ᵀ J G(ṗ) and w (H(J G(ṗ) p) − G(ṗ)ᵀ J G(p))
            gjg_into(gd, inertia, gd, jg, dq)
            g_into(q, o + 3, gq)
            gjg_into(gd, inertia, gq, jg, dqd)
            h_into(jw, hm)
            for i in range(4):
                for j in range(4):
                    kq = w * dq[i, j]
                    if values:
                        kv[e] = kq
                        e += 1
                    else:
                        e = _put(mode, e, kr, kc, kv, o + 3 + i, o + 3 + j, kq)
                    cq = w * (hm[i, j] - dqd[i, j])
                    if values:
                        cv[ed] = cq
                        ed += 1
                    else:
                        ed = _put(mode, ed, cr, cc, cv, o + 3 + i, o + 3 + j, cq)
    slots = local_int_zeros(3)
    sp_mk, sp_par, sp_func = P.sp_mk, P.sp_par, P.sp_func  # read once, not per element
    u, ud = mk.u, mk.ud
    for s in range(sp_mk.shape[0]):
        du[:] = 0.0
        dv[:] = 0.0
        dp[:] = 0.0
        slots[0], slots[1] = sp_mk[s, 0], sp_mk[s, 1]
        k, c, l0 = sp_par[s, 0], sp_par[s, 1], sp_par[s, 2]
        loads.spring(
            u, ud, slots[0], slots[1], k, c, l0, value(P, sp_func[s], t), force, du, dv, jac
        )
        e, ed = _marker_loads(tab, slots, TWO, WITH_DU_DV, load, mode, sink, e, ed)
    for s in range(P.jt_mk.shape[0]):
        du[:] = 0.0
        dv[:] = 0.0
        dp[:] = 0.0
        slots[:] = P.jt_mk[s]
        theta = _joint_theta(P, mk, s)
        k, c, th0 = P.jt_par[s, 0], P.jt_par[s, 1], P.jt_par[s, 2]
        tau_t = value(P, P.jt_func[s], t)
        loads.joint_torque(
            mk.u, mk.ud, slots[0], slots[1], slots[2], theta, k, c, th0, tau_t, force, du, dv, jac
        )
        e, ed = _marker_loads(tab, slots, THREE, WITH_DU_DV, load, mode, sink, e, ed)
    for s in range(P.jf_mk.shape[0]):
        du[:] = 0.0
        dv[:] = 0.0
        dp[:] = 0.0
        slots[:] = P.jf_mk[s]
        loads.joint_force(
            mk.u, mk.ud, slots[0], slots[1], slots[2], value(P, P.jf_func[s], t), force, du
        )
        e, ed = _marker_loads(tab, slots, THREE, WITH_DU, load, mode, sink, e, ed)
    for s in range(P.pf_mk.shape[0]):
        du[:] = 0.0
        dv[:] = 0.0
        dp[:] = 0.0
        slots[0] = P.pf_mk[s]
        _point_force(P, s, q, t, force, dp)
        flags = WITH_DP if P.pf_body[s] else NOTHING
        e, ed = _marker_loads(tab, slots, ONE, flags, load, mode, sink, e, ed)
    for s in range(P.bt_off.shape[0]):
        o = P.bt_off[s] + 3
        mat = _torque_matrix(P, s, t)
        for i in range(4):
            acc = 0.0
            for j in range(4):
                acc += mat[i, j] * q[o + j]
                if jac:
                    if values:
                        kv[e] = mat[i, j]
                        e += 1
                    else:
                        e = _put(mode, e, kr, kc, kv, o + i, o + j, mat[i, j])
            out[o + i] += acc
    if P.dl_func.shape[0]:
        none = local_zeros(0)
        for d in range(P.dl_func.shape[0]):
            _distributed_load(P, d, t, out, none)
    if P.nl_type.shape[0]:
        e, _ = _natural_loads(P, q, np.zeros(0), t, mode, e, kr, kc, kv, out, jac)
    # a call counts each array it passes in and out: none for the kinds a model lacks
    if P.cn_kind.shape[0]:
        e, ed = _contact_entries(P, mk, tab, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac)
    if P.ln_cols.shape[0]:
        e, ed = _line_entries(P, q, qd, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac)
    if P.ct_cols.shape[0]:
        e, ed = _continuum_entries(P, q, qd, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac)
    if P.cb_cols.shape[0]:
        e, ed = _cable_entries(P, q, qd, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac)
    if P.bl_cols.shape[0]:
        e = _belt_entries(P, q, mode, e, kr, kc, kv, out, jac)
    if P.pc_group.shape[0]:
        e, ed = _pulley_entries(P, mk, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac)
    return e, ed


@kernel
def _contact_entries(P, mk, tab, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac):
    """The contacts' forces into ``out`` and their Jacobian entries (as
    :func:`_force_entries`, whose marker table ``tab`` they load through); the slots a
    contact's law can load: the sphere's centre and the second side's origin, the plane's
    axes (its normal turns with them) and, with friction, every axis."""
    nn = P.cn_kind.shape[0]
    if nn == 0:
        return e, ed
    width = np.int64(cn.WIDTH) if jac else np.int64(1)
    law = np.empty((cn.SLOTS, 3, width))
    used = local_int(CONTACT_SLOTS)
    slots = local_int(CONTACT_SLOTS)
    force = local_zeros((CONTACT_SLOTS, 3))
    du = local_zeros((CONTACT_SLOTS, CONTACT_SLOTS, 3, 3))
    dv = local_zeros((CONTACT_SLOTS, CONTACT_SLOTS, 3, 3))
    dp = local_zeros((CONTACT_SLOTS, 3, 4))
    load = (force, du, dv, dp)
    sink = (kr, kc, kv, cr, cc, cv, out)
    for c in range(nn):
        kind = P.cn_kind[c]
        rough = P.cn_par[c, cn.MU] > 0.0
        cn.contact_law(mk.u, mk.ud, P.cn_mk[c], kind, P.cn_par[c], P.cn_onset[c], width, law)
        ns = 0
        for s in range(cn.SLOTS):
            if s == 0 or s == 4 or rough or (kind == cn.PLANE and s > 4):
                used[ns] = s
                ns += 1
        for a in range(ns):
            sa = used[a]
            slots[a] = P.cn_mk[c, sa]
            for i in range(3):
                force[a, i] = law[sa, i, 0]
                if jac:
                    for b in range(ns):
                        col = 1 + 3 * used[b]
                        for j in range(3):
                            du[a, b, i, j] = law[sa, i, col + j]
                            dv[a, b, i, j] = law[sa, i, col + 3 * cn.SLOTS + j]
        e, ed = _marker_loads(tab, slots, np.int64(ns), WITH_DU_DV, load, mode, sink, e, ed)
    return e, ed


@kernel
def contact_elastic_energy(P, mk):
    """``Σ K δⁿ⁺¹/(n + 1)`` over the contacts (J; markers ``mk`` at q)."""
    law = local((CONTACT_SLOTS, 3, 1))
    out = 0.0
    for c in range(P.cn_kind.shape[0]):
        r = cn.contact_law(
            mk.u, mk.ud, P.cn_mk[c], P.cn_kind[c], P.cn_par[c], P.cn_onset[c], np.int64(1), law
        )
        if r[cn.PENETRATION] > 0.0:
            out += r[cn.ELASTIC_FORCE] * r[cn.PENETRATION] / (P.cn_par[c, cn.EXPONENT] + 1.0)
    return out


@kernel(inline="always")
def _eliminated(P):
    """``(n, (xe_ptr, xe_col, xe_w, xe_const))``: what :func:`_gather`, :func:`_scatter`
    and :func:`_element_entries` read of the eliminated coordinates (taken once per loop:
    each reading of a field counts a reference)."""
    return P.n, (P.xe_ptr, P.xe_col, P.xe_w, P.xe_const)


@kernel(inline="always")
def _gather(n, xe, q, qd, cols, k, x, xd):
    """An element's coordinates and rates: ``x[:k] = q[cols[:k]]``, ``xd[:k] = q̇[cols[:k]]``,
    an eliminated column (``≥ n``) its combination ``D q + c`` and ``D q̇``."""
    ptr, col, w, const = xe
    for j in range(k):
        c = cols[j]
        if c < n:
            x[j] = q[c]
            xd[j] = qd[c]
            continue
        r = c - n
        a = const[r]
        b = 0.0
        for i in range(ptr[r], ptr[r + 1]):
            a += w[i] * q[col[i]]
            b += w[i] * qd[col[i]]
        x[j] = a
        xd[j] = b


@kernel(inline="always")
def _scatter(n, xe, f, cols, k, out):
    """``out[cols[:k]] += f[:k]``, an eliminated column's share spread over the columns it
    combines (``Tᵀ f``)."""
    ptr, col, w, _ = xe
    for j in range(k):
        c = cols[j]
        if c < n:
            out[c] += f[j]
            continue
        r = c - n
        for i in range(ptr[r], ptr[r + 1]):
            out[col[i]] += w[i] * f[j]


@kernel(inline="always")
def _plain(n, cols, k):
    """Whether none of an element's ``k`` columns is eliminated."""
    plain = True
    for j in range(k):
        plain = plain and cols[j] < n
    return plain


@kernel(inline="always")
def _support(n, xe, c, i):
    """Term ``i`` of extended column ``c``'s row of ``T = [I; D]``: ``(q column, weight)``."""
    if c < n:
        return c, 1.0
    j = xe[0][c - n] + i
    return xe[1][j], xe[2][j]


@kernel(inline="always")
def _support_size(n, xe, c):
    """The number of terms of extended column ``c``'s row of ``T``."""
    if c < n:
        return 1
    return xe[0][c - n + 1] - xe[0][c - n]


@kernel(inline="always")
def _element_entries(n, xe, mode, e, rows, cols, vals, ecols, k, w, plain):
    """The entries of an element's ``k × k`` matrix ``w`` over its columns ``ecols`` after
    the count ``e``; the new count. With an eliminated column (not ``plain``) each entry is
    spread over the products of its row's and column's terms (``Tᵀ w T``), in the same order
    in every pass."""
    if plain:
        if mode == VALUES:  # the evaluation pass writes its entries directly
            for a in range(k):
                for b in range(k):
                    vals[e] = w[a, b]
                    e += 1
        else:
            for a in range(k):
                for b in range(k):
                    e = _put(mode, e, rows, cols, vals, ecols[a], ecols[b], w[a, b])
        return e
    for a in range(k):
        for ia in range(_support_size(n, xe, ecols[a])):
            ra, wa = _support(n, xe, ecols[a], ia)
            for b in range(k):
                for ib in range(_support_size(n, xe, ecols[b])):
                    cb, wb = _support(n, xe, ecols[b], ib)
                    e = _put(mode, e, rows, cols, vals, ra, cb, wa * wb * w[a, b])
    return e


@kernel
def _continuum_entries(P, q, qd, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac):
    """The continuum elements' forces into ``out`` and their Jacobian entries (as
    :func:`_line_entries`)."""
    ne = P.ct_cols.shape[0]
    if ne == 0:
        return e, ed
    w = P.ct_cols.shape[1]
    x = np.zeros(w)
    xd = np.zeros(w)
    f = np.zeros(w)
    wq = np.zeros((w, w))
    wqd = np.zeros((w, w))
    want = jac and mode == VALUES
    n, xe = _eliminated(P)
    for i in range(ne):
        s = P.ct_set[i]
        m, d = P.ct_md[s, 0], P.ct_md[s, 1]
        k = m * d
        cols = P.ct_cols[i]
        _gather(n, xe, q, qd, cols, k, x, xd)
        damped = P.ct_damped[s]
        continuum_element(P.ct_T[s], P.ct_P0[s], P.ct_Tv[s], m, d, x, xd, damped, want, f, wq, wqd)
        _scatter(n, xe, f, cols, k, out)
        if jac:
            plain = _plain(n, cols, k)
            e = _element_entries(n, xe, mode, e, kr, kc, kv, cols, k, wq, plain)
            if damped:
                ed = _element_entries(n, xe, mode, ed, cr, cc, cv, cols, k, wqd, plain)
    return e, ed


@kernel
def _belt_entries(P, q, mode, e, kr, kc, kv, out, jac):
    """The belt elements' elastic forces into ``out`` and their Jacobian entries after the
    count ``e`` (∂F/∂q; no damping); the new count."""
    ne = P.bl_cols.shape[0]
    x = local_zeros(12)
    xd = local_zeros(12)  # not read: belts have no damping
    f = local_zeros(12)
    wq = local_zeros((12, 12))
    work = local_zeros(BELT_WORK)
    want = jac and mode == VALUES
    n, xe = _eliminated(P)
    for i in range(ne):
        s = P.bl_set[i]
        cols = P.bl_cols[i]
        _gather(n, xe, q, q, cols, 12, x, xd)
        belt_element(P.bl_B[s], P.bl_par[s], P.bl_xw[s], x, want, f, wq, work)
        _scatter(n, xe, f, cols, 12, out)
        if jac:
            e = _element_entries(n, xe, mode, e, kr, kc, kv, cols, 12, wq, _plain(n, cols, 12))
    return e


@kernel
def _pulley_seed(P, mk, i, n0, nc, x, dx, jm):
    """Point ``i``'s markers as :func:`pulley.pulley_law` takes them: in-plane values and
    velocities into ``x`` and, when ``dx`` has room (``2 nc`` columns), their derivatives
    over the point's group's ``nc`` columns (the belt's ``n0``, then the pulley's) and
    rates; ``∂u/∂q`` into ``jm`` ``(5, 2, nc)``."""
    jm[:] = 0.0
    dx[:] = 0.0
    seed = dx.shape[2] > 0
    for s in range(pl.SLOTS):
        ks = P.pc_mk[i, s]
        off = 0 if s == 0 else n0
        for a in range(2):
            x[s, a] = mk.u[ks, a]
            x[pl.SLOTS + s, a] = mk.ud[ks, a]
            for y in range(P.mk_ncols[ks]):
                jm[s, a, off + y] = mk.jac[ks, a, y]
            if seed:
                for y in range(nc):
                    dx[s, a, y] = jm[s, a, y]
                    dx[pl.SLOTS + s, a, nc + y] = jm[s, a, y]
                if P.mk_kind[ks] == RIGID:  # ∂u̇/∂q in the Euler-parameter columns
                    for y in range(4):
                        dx[pl.SLOTS + s, a, off + 3 + y] = mk.sjd[ks, a, y]


@kernel
def _pulley_entries(P, mk, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac):
    """The pulley contacts' forces into ``out`` and their Jacobian entries (as
    :func:`_force_entries`), summed over each group of points (one belt element on one
    pulley: the belt point's columns, then the pulley's): ``Q = Σ_s J_sᵀ F_s``, ``∂Q/∂q =
    Σ_s J_sᵀ ∂F_s/∂q`` plus the own terms of rigid markers, ``∂Q/∂q̇ = Σ_s J_sᵀ ∂F_s/∂q̇``.
    The pulley's markers are the same at every point of a group: their loads are summed
    over the group's points first. Every group has its entries (zero out of contact): the
    pattern is the run's."""
    values = mode == VALUES
    want = jac and values
    span = 2 * P.mk_cols.shape[1]
    x = local((PULLEY_INPUTS, 2))
    lv = local((PULLEY_SLOTS, 2))
    state = local(PULLEY_OUTPUTS)
    cf = local(6)
    f3 = local_zeros(3)
    cols = np.empty(span, np.int64)
    fq = np.empty(span)
    # scratch for the largest group, shaped for each group (allocated once per call)
    dxs = np.empty(pl.INPUTS * 4 * span)  # (INPUTS, 2, 2 nc) at most
    dls = np.empty(pl.SLOTS * 4 * span)
    jms = np.empty(pl.SLOTS * 2 * span)
    gds = np.empty(pl.SLOTS * 4 * span)
    blks = np.empty(span * span)
    blkds = np.empty(span * span)
    gl = local((PULLEY_SLOTS, 2))  # the pulley's loads summed over the group
    for grp in range(P.pc_group.shape[0]):
        first, count = P.pc_group[grp, 0], P.pc_group[grp, 1]
        k0, k1 = P.pc_mk[first, 0], P.pc_mk[first, 1]
        n0, n1 = P.mk_ncols[k0], P.mk_ncols[k1]
        nc = n0 + n1
        for y in range(n0):
            cols[y] = P.mk_cols[k0, y]
        for y in range(n1):
            cols[n0 + y] = P.mk_cols[k1, y]
        width = 2 * nc if want else 0
        dx = dxs[: pl.INPUTS * 2 * width].reshape((pl.INPUTS, 2, width))
        dl = dls[: pl.SLOTS * 2 * width].reshape((pl.SLOTS, 2, width))
        jm = jms[: pl.SLOTS * 2 * nc].reshape((pl.SLOTS, 2, nc))
        gd = gds[: pl.SLOTS * 2 * width].reshape((pl.SLOTS, 2, width))  # … their derivatives
        blk = blks[: nc * nc].reshape((nc, nc))
        blkd = blkds[: nc * nc].reshape((nc, nc))
        gl[:] = 0.0
        gd[:] = 0.0  # (empty without the Jacobian)
        fq[:] = 0.0
        touched = False
        for i in range(first, first + count if values else first):
            if pl.depth_of(mk.u, P.pc_mk, i, P.pc_par[i, pl.RADIUS]) <= 0.0:
                continue  # no load: the usual case
            if want and not touched:  # the group's blocks: zero until a point loads them
                blk[:] = 0.0
                blkd[:] = 0.0
            touched = True
            _pulley_seed(P, mk, i, n0, nc, x, dx, jm)
            pl.pulley_law(x, dx, P.pc_par[i], lv, dl, state, cf)
            for a in range(2):  # the belt's point: its own Jacobian
                load = lv[0, a]
                for y in range(n0):
                    j = jm[0, a, y]
                    if j != 0.0:
                        fq[y] += j * load
                        if want:
                            for z in range(nc):
                                blk[y, z] += j * dl[0, a, z]
                                blkd[y, z] += j * dl[0, a, nc + z]
            for s in range(1, pl.SLOTS):
                for a in range(2):
                    gl[s, a] += lv[s, a]
                    for z in range(width):
                        gd[s, a, z] += dl[s, a, z]
        if touched:  # the pulley's markers (jm of the group's last point in contact)
            for s in range(1, pl.SLOTS):
                for a in range(2):
                    load = gl[s, a]
                    for y in range(n0, nc):
                        j = jm[s, a, y]
                        if j != 0.0:
                            fq[y] += j * load
                            if want:
                                for z in range(nc):
                                    blk[y, z] += j * gd[s, a, z]
                                    blkd[y, z] += j * gd[s, a, nc + z]
                ks = P.pc_mk[first, s]
                if want and P.mk_kind[ks] == RIGID:  # J_sᵀ F_s's own derivative
                    f3[0], f3[1] = gl[s, 0], gl[s, 1]
                    hf = force_hessian(P.mk_local[ks], f3)
                    for a in range(4):
                        for b in range(4):
                            blk[n0 + 3 + a, n0 + 3 + b] += hf[a, b]
        for y in range(nc):
            out[cols[y]] += fq[y]
        if want:
            for y in range(nc):
                for z in range(nc):
                    kv[e] = blk[y, z] if touched else 0.0
                    e += 1
                    cv[ed] = blkd[y, z] if touched else 0.0
                    ed += 1
        elif jac:
            for y in range(nc):
                for z in range(nc):
                    e = _put(mode, e, kr, kc, kv, cols[y], cols[z], 0.0)
                    ed = _put(mode, ed, cr, cc, cv, cols[y], cols[z], 0.0)
    return e, ed


@kernel
def pulley_energy_power(P, mk, power):
    """``Σ W k_p d²/2`` over the pulley contacts' points in contact (J) or, with ``power``,
    the power of their damping and friction (W, ≤ 0; markers ``mk`` at ``(q, q̇)``)."""
    out = 0.0
    x = local_zeros((PULLEY_INPUTS, 2))
    dx = local_zeros((PULLEY_INPUTS, 2, 0))
    lv = local((PULLEY_SLOTS, 2))
    dl = local((PULLEY_SLOTS, 2, 0))
    state = local(PULLEY_OUTPUTS)
    cf = local(6)
    for i in range(P.pc_mk.shape[0]):
        depth = pl.depth_of(mk.u, P.pc_mk, i, P.pc_par[i, pl.RADIUS])
        if depth <= 0.0:
            continue
        if not power:
            out += 0.5 * P.pc_par[i, pl.WEIGHT] * P.pc_par[i, pl.STIFFNESS] * depth * depth
            continue
        for s in range(pl.SLOTS):
            for a in range(2):
                x[s, a] = mk.u[P.pc_mk[i, s], a]
                x[pl.SLOTS + s, a] = mk.ud[P.pc_mk[i, s], a]
        pl.pulley_law(x, dx, P.pc_par[i], lv, dl, state, cf)
        out += state[pl.POWER]
    return out


@kernel
def _line_entries(P, q, qd, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac):
    """The elastic-line elements' forces into ``out`` and their Jacobian entries after the
    counts ``e`` (∂F/∂q) and ``ed`` (∂F/∂q̇, damped elements only); the new counts."""
    ne = P.ln_cols.shape[0]
    if ne == 0:
        return e, ed
    k = P.ln_cols.shape[1]
    x = np.zeros(k)
    xd = np.zeros(k)
    f = np.zeros(k)
    wq = np.zeros((k, k))
    wqd = np.zeros((k, k))
    grad = np.zeros((2, k))
    work = np.zeros(line_work(k))
    want = jac and mode == VALUES
    n, xe = _eliminated(P)
    ln_set, ln_cols, ln_gamma, ln_frame = P.ln_set, P.ln_cols, P.ln_gamma, P.ln_frame
    for i in range(ne):
        s = ln_set[i]
        cols = ln_cols[i]
        _gather(n, xe, q, qd, cols, k, x, xd)
        gamma = ln_gamma[s]
        if ln_frame[s]:
            frame_element(
                P.ln_B[s], P.ln_Sg[s], P.ln_coef[s], gamma, x, xd, want, f, wq, wqd, grad, work
            )
        else:
            line_element(P.ln_B[s], P.ln_coef[s], gamma, x, xd, want, f, wq, wqd, grad, work)
        _scatter(n, xe, f, cols, k, out)
        if jac:
            plain = _plain(n, cols, k)
            e = _element_entries(n, xe, mode, e, kr, kc, kv, cols, k, wq, plain)
            if gamma > 0.0:
                ed = _element_entries(n, xe, mode, ed, cr, cc, cv, cols, k, wqd, plain)
    return e, ed


@kernel
def _cable_entries(P, q, qd, mode, e, kr, kc, kv, ed, cr, cc, cv, out, jac):
    """The cable elements' forces into ``out`` and their Jacobian entries (as
    :func:`_line_entries`)."""
    ne = P.cb_cols.shape[0]
    x = local_zeros(12)
    xd = local_zeros(12)
    f = local_zeros(12)
    wq = local_zeros((12, 12))
    wqd = local_zeros((12, 12))
    grad = local_zeros((4, 12))
    work = np.zeros(cable_work(12))
    want = jac and mode == VALUES
    n, xe = _eliminated(P)
    for i in range(ne):
        s = P.cb_set[i]
        cols = P.cb_cols[i]
        _gather(n, xe, q, qd, cols, 12, x, xd)
        gamma = P.cb_gamma[s]
        cable_element(P.cb_B[s], P.cb_coef[s], gamma, x, xd, want, f, wq, wqd, grad, work)
        _scatter(n, xe, f, cols, 12, out)
        if jac:
            plain = _plain(n, cols, 12)
            e = _element_entries(n, xe, mode, e, kr, kc, kv, cols, 12, wq, plain)
            if gamma > 0.0:
                ed = _element_entries(n, xe, mode, ed, cr, cc, cv, cols, 12, wqd, plain)
    return e, ed


@kernel
def _flexible_energy_power(P, q, qd, damping):
    """Strain energy of the flexible elements the kernels evaluate (J) or, with
    ``damping``, their damping power at ``(q, q̇)`` (W)."""
    out = 0.0
    k = P.ln_cols.shape[1]
    w = max(k, P.ct_cols.shape[1])
    x = np.zeros(w)
    xd = np.zeros(w)
    f = np.zeros(w)
    wk = np.zeros((w, w))
    grad = np.zeros((2, k))
    work = np.zeros(line_work(k))
    n, xe = _eliminated(P)
    for i in range(P.ln_cols.shape[0]):
        s = P.ln_set[i]
        gamma = P.ln_gamma[s] if damping else 0.0
        if damping and gamma == 0.0:
            continue
        _gather(n, xe, q, qd, P.ln_cols[i], k, x, xd)
        # the element kernels read the first k entries (k = the B rows' width)
        if P.ln_frame[s]:
            u, pw = frame_element(
                P.ln_B[s], P.ln_Sg[s], P.ln_coef[s], gamma, x, xd, NO, f, wk, wk, grad, work
            )
        else:
            u, pw = line_element(P.ln_B[s], P.ln_coef[s], gamma, x, xd, NO, f, wk, wk, grad, work)
        out += pw if damping else u
    for i in range(P.ct_cols.shape[0]):
        s = P.ct_set[i]
        if damping and not P.ct_damped[s]:
            continue
        m, d = P.ct_md[s, 0], P.ct_md[s, 1]
        _gather(n, xe, q, qd, P.ct_cols[i], m * d, x, xd)
        u, pw = continuum_element(
            P.ct_T[s], P.ct_P0[s], P.ct_Tv[s], m, d, x, xd, damping, NO, f, wk, wk
        )
        out += pw if damping else u
    if P.cb_cols.shape[0]:
        xc = local_zeros(12)
        xcd = local_zeros(12)
        fc = local_zeros(12)
        kc = local_zeros((12, 12))
        gc = local_zeros((4, 12))
        wc = np.zeros(cable_work(12))
        for i in range(P.cb_cols.shape[0]):
            s = P.cb_set[i]
            gamma = P.cb_gamma[s] if damping else 0.0
            if damping and gamma == 0.0:
                continue
            _gather(n, xe, q, qd, P.cb_cols[i], 12, xc, xcd)
            u, pw = cable_element(P.cb_B[s], P.cb_coef[s], gamma, xc, xcd, NO, fc, kc, kc, gc, wc)
            out += pw if damping else u
    if not damping:  # belt elements: no damping
        xb = local_zeros(12)
        xbd = local_zeros(12)
        fb = local_zeros(12)
        kb = local_zeros((12, 12))
        wb = local_zeros(BELT_WORK)
        for i in range(P.bl_cols.shape[0]):
            s = P.bl_set[i]
            _gather(n, xe, q, q, P.bl_cols[i], 12, xb, xbd)
            out += belt_element(P.bl_B[s], P.bl_par[s], P.bl_xw[s], xb, NO, fb, kb, wb)
    return out


@kernel
def _joint_theta(P, mk, s):
    """The continuous angle of joint torque ``s`` (unwrapped against its last evaluation,
    which it replaces)."""
    grad = local_zeros(9)
    hess = local_zeros((1, 1))
    raw, _ = loads.joint_angle(
        mk.u, mk.ud, P.jt_mk[s, 0], P.jt_mk[s, 1], P.jt_mk[s, 2], grad, hess, NO
    )
    theta = loads.unwrap(P.jt_last[s], raw)
    P.jt_last[s] = theta
    return theta


@kernel
def joint_angles(P, mk):
    """The continuous angles of the joint torques (rad), as :func:`forces` sees them."""
    out = np.zeros(P.jt_mk.shape[0])
    for s in range(out.shape[0]):
        out[s] = _joint_theta(P, mk, s)
    return out


@kernel
def force_evaluation(P, mk, q, qd, t, inertial, mode, nk, nc):
    """The force elements from Python, one compiled entry for all three passes: ``mode``
    ``COUNT`` gives ``(nk, nc)``, the numbers of entries of ∂Q/∂q and ∂Q/∂q̇; ``PATTERN``
    their ``(rows, cols)`` (``nk``, ``nc`` the counts); ``VALUES`` ``Q`` and the values
    of ``nk``/``nc`` entries (0: Q alone). Returns ``(Q, kr, kc, kv, cr, cc, cv, nk, nc)``
    with empty arrays where the pass gives none. A counting or pattern pass is not an
    evaluation: the joint torques' last angles are kept."""
    out = np.zeros(P.n)
    idx = np.zeros(0, np.int64)
    none = np.zeros(0)
    if mode == VALUES:
        kv = np.zeros(nk)
        cv = np.zeros(nc)
        _force_entries(P, mk, q, qd, t, inertial, VALUES, idx, idx, kv, idx, idx, cv, out)
        return out, idx, idx, kv, idx, idx, cv, nk, nc
    last = P.jt_last.copy()
    kr, kc = np.zeros(nk, np.int64), np.zeros(nk, np.int64)
    cr, cc = np.zeros(nc, np.int64), np.zeros(nc, np.int64)
    if mode == COUNT:
        nk, nc = _force_entries(P, mk, q, qd, t, inertial, COUNT, idx, idx, none, idx, idx,
                                none, out)  # fmt: skip
    else:
        kv, cv = np.zeros(nk), np.zeros(nc)
        _force_entries(P, mk, q, qd, t, inertial, PATTERN, kr, kc, kv, cr, cc, cv, out)
    P.jt_last[:] = last
    return out, kr, kc, none, cr, cc, none, nk, nc


def force_pattern(P, q, mk):
    """``((rows, cols) of ∂Q/∂q, (rows, cols) of ∂Q/∂q̇)`` (from Python)."""
    nk, nc = force_evaluation(P, mk, q, q, 0.0, YES, COUNT, 0, 0)[7:]
    _, kr, kc, _, cr, cc, _, _, _ = force_evaluation(P, mk, q, q, 0.0, YES, PATTERN, nk, nc)
    return kr, kc, cr, cc


@kernel(inline="always")
def forces(P, mk, q, qd, t, inertial, nk, nc):
    """``(Q, entries of ∂Q/∂q, entries of ∂Q/∂q̇)`` (``nk = nc = 0``: Q alone; without
    ``inertial`` the rigid bodies' quadratic-velocity forces are left out)."""
    out = np.zeros(P.n)
    kv = np.zeros(nk)
    cv = np.zeros(nc)
    idx = local_int_zeros(0)
    _force_entries(P, mk, q, qd, t, inertial, VALUES, idx, idx, kv, idx, idx, cv, out)
    return out, kv, cv


# ---- energies -----------------------------------------------------------------------------


@kernel
def kinetic_energy(P, q, qd):
    """``T = ½ Σ m ṙ·ṙ + ½ Σ ω̄ᵀ J ω̄ + ½ q̇ᵀ M_c q̇`` (J)."""
    t = 0.0
    for b in range(P.rig_off.shape[0]):
        o = P.rig_off[b]
        v = qd[o : o + 3]
        w = 2.0 * mat_vec(g_matrix(q[o + 3 : o + 7]), qd[o + 3 : o + 7])
        t += 0.5 * P.rig_mass[b] * dot(v, v) + 0.5 * dot(w, mat_vec(P.rig_inertia[b], w))
    for b in range(P.pm_off.shape[0]):
        o = P.pm_off[b]
        v = qd[o : o + 3]
        t += 0.5 * P.pm_mass[b] * dot(v, v)
    for k in range(P.cm_row.shape[0]):
        t += 0.5 * P.cm_val[k] * qd[P.cm_row[k]] * qd[P.cm_col[k]]
    return t


@kernel
def potential_energy(P, q):
    """Gravitational energy ``−g_q·q`` (J; the weights are constant generalised forces of
    coordinates in which the centres of mass are linear)."""
    return -dot(P.gravity_q, q)


@kernel
def elastic_energy(P, mk, q):
    """``Σ ½ k (l − l0)²`` of springs, ``Σ ½ k (θ − θ0)²`` of rotational springs,
    ``Σ K δⁿ⁺¹/(n + 1)`` of contacts, ``Σ W k_p d²/2`` of pulley contacts and the strain
    energy of the flexible elements (J)."""
    out = 0.0
    if P.ln_cols.shape[0] or P.ct_cols.shape[0] or P.cb_cols.shape[0] or P.bl_cols.shape[0]:
        out += _flexible_energy_power(P, q, q, NO)
    if P.cn_kind.shape[0]:
        out += contact_elastic_energy(P, mk)
    if P.pc_mk.shape[0]:
        out += pulley_energy_power(P, mk, NO)
    force = local_zeros((3, 3))
    dummy = local_zeros((3, 3, 3, 3))
    for s in range(P.sp_mk.shape[0]):
        length, _ = loads.spring(
            mk.u, mk.ud, P.sp_mk[s, 0], P.sp_mk[s, 1], 0.0, 0.0, 0.0, 0.0, force, dummy, dummy, NO
        )
        out += 0.5 * P.sp_par[s, 0] * (length - P.sp_par[s, 2]) ** 2
    for s in range(P.jt_mk.shape[0]):
        theta = _joint_theta(P, mk, s)
        out += 0.5 * P.jt_par[s, 0] * (theta - P.jt_par[s, 2]) ** 2
    return out


@kernel
def nonconservative_power(P, mk, q, qd, t):
    """Power (W) of dampers, actuators, joint loads, applied forces and torques (on
    natural-coordinate bodies too), distributed loads, of the flexible elements' internal
    damping and of the pulley contacts' damping and friction; not of contacts, which
    integrate their own work over the accepted states (``solver.mechanics.forces.contact``)."""
    out = 0.0
    if P.ln_cols.shape[0] or P.ct_cols.shape[0] or P.cb_cols.shape[0]:
        out += _flexible_energy_power(P, q, qd, YES)
    if P.pc_mk.shape[0]:
        out += pulley_energy_power(P, mk, YES)
    # the scratch arrays only for the elements there are (the steppers call this every step)
    n_sp, n_jt, n_jf, n_pf = P.sp_mk.shape[0], P.jt_mk.shape[0], P.jf_mk.shape[0], P.pf_mk.shape[0]
    force = np.zeros((3, 3)) if n_sp or n_jf or n_pf else np.zeros((0, 0))
    dummy = np.zeros((3, 3, 3, 3)) if n_sp or n_jf else np.zeros((0, 0, 0, 0))
    u, ud = mk.u, mk.ud
    sp_mk, sp_par, sp_func = P.sp_mk, P.sp_par, P.sp_func  # read once, not per element
    for s in range(n_sp):
        if sp_func[s] < 0 and sp_par[s, 1] == 0.0:
            continue  # a spring alone: no power
        _, ldot = loads.spring(
            u, ud, sp_mk[s, 0], sp_mk[s, 1], 0.0, 0.0, 0.0, 0.0, force, dummy, dummy, NO
        )
        out += (value(P, sp_func[s], t) - sp_par[s, 1] * ldot) * ldot
    if n_jt:
        grad = local_zeros(9)
        hess = local_zeros((1, 1))
        jt_mk, jt_par, jt_func = P.jt_mk, P.jt_par, P.jt_func
        for s in range(n_jt):
            if jt_func[s] < 0 and jt_par[s, 1] == 0.0:
                continue  # a joint spring alone: no power
            _, rate = loads.joint_angle(
                u, ud, jt_mk[s, 0], jt_mk[s, 1], jt_mk[s, 2], grad, hess, NO
            )
            out += (value(P, jt_func[s], t) - jt_par[s, 1] * rate) * rate
    if n_jf:
        jf_mk, jf_func = P.jf_mk, P.jf_func
        for s in range(n_jf):
            sdot = loads.joint_force(
                u, ud, jf_mk[s, 0], jf_mk[s, 1], jf_mk[s, 2], 0.0, force, dummy
            )
            out += value(P, jf_func[s], t) * sdot
    if n_pf:
        dp = local_zeros((3, 3, 4))
        for s in range(n_pf):
            _point_force(P, s, q, t, force, dp)
            k = P.pf_mk[s]
            out += force[0, 0] * ud[k, 0] + force[0, 1] * ud[k, 1] + force[0, 2] * ud[k, 2]
    for s in range(P.bt_off.shape[0]):
        o = P.bt_off[s] + 3
        mat = _torque_matrix(P, s, t)
        out += dot(qd[o : o + 4], mat_vec(mat, q[o : o + 4]))
    if P.dl_func.shape[0]:
        none = local_zeros(0)
        for d in range(P.dl_func.shape[0]):
            out += _distributed_load(P, d, t, none, qd)
    if P.nl_type.shape[0]:
        none = local_zeros(0)
        idx = local_int_zeros(0)
        out += _natural_loads(P, q, qd, t, VALUES, np.int64(0), idx, idx, none, none, NO)[1]
    return out


#: what :func:`state_evaluation` gives
KINETIC, GRAVITATIONAL, ELASTIC, POWER, FRAME = (np.int64(i) for i in range(5))


@kernel
def state_evaluation(P, pt, mk, q, qd, t, what):
    """The energies, the power and what the time loop records of a state, one compiled entry
    from Python (one library to load): five floats, for ``what`` ``KINETIC``
    (:func:`kinetic_energy`, J), ``GRAVITATIONAL`` (:func:`potential_energy`, J), ``ELASTIC``
    (:func:`elastic_energy`, J; markers ``mk`` at q) or ``POWER``
    (:func:`nonconservative_power`, W; markers ``mk`` at ``(q, q̇)``) that value and zeros;
    for ``FRAME`` the kinetic, gravitational and elastic energy (J), ``max |Φ|`` and the
    largest of ``|Φ_q q̇ + Φ_t|`` and the no-slip rows' ``|B q̇|`` (markers at ``(q, q̇)``)."""
    if what == KINETIC:
        return kinetic_energy(P, q, qd), 0.0, 0.0, 0.0, 0.0
    if what == GRAVITATIONAL:
        return potential_energy(P, q), 0.0, 0.0, 0.0, 0.0
    if what == ELASTIC:
        return elastic_energy(P, mk, q), 0.0, 0.0, 0.0, 0.0
    if what == POWER:
        return nonconservative_power(P, mk, q, qd, t), 0.0, 0.0, 0.0, 0.0
    phi, phit, _, jvals = constraints(P, mk, q, qd, t, pt.phi_r.shape[0])
    phiv = phit.copy()
    for e in range(jvals.shape[0]):
        phiv[pt.phi_r[e]] += jvals[e] * qd[pt.phi_c[e]]
    err = 0.0
    verr = 0.0
    for i in range(phi.shape[0]):
        err = max(err, abs(phi[i]))
        verr = max(verr, abs(phiv[i]))
    if P.rl_mk.shape[0]:  # the no-slip rows' B q̇
        speed = no_slip_rows(P, mk, q, qd, np.int64(0))[2]
        for i in range(speed.shape[0]):
            verr = max(verr, abs(speed[i]))
    kin = kinetic_energy(P, q, qd)
    return kin, potential_energy(P, q), elastic_energy(P, mk, q), err, verr


@kernel
def scatter(rows, cols, vals, shape0, shape1):
    """The dense ``shape0 × shape1`` matrix of entries (repeated positions add up)."""
    out = np.zeros((shape0, shape1))
    for k in range(vals.shape[0]):
        out[rows[k], cols[k]] += vals[k]
    return out


# ---- work of forces and drivers -----------------------------------------------------------


@kernel
def driver_power(P, lam, phit):
    """``Σ λ_r Φ_t,r`` over the rows of driven primitives (W): the drivers' power with the
    multipliers ``lam`` (``M q̈ = Q − Φ_qᵀ λ``)."""
    out = 0.0
    for i in range(P.pr_type.shape[0]):
        if P.pr_func[i] >= 0:
            r0 = P.pr_row[i]
            for r in range(prim.ROWS[P.pr_type[i]]):
                out += lam[r0 + r] * phit[r0 + r]
    return out


@kernel
def normalise_parameters(P, x):
    """Every rigid body's Euler parameters in ``x`` to unit length, in place."""
    for b in range(P.rig_off.shape[0]):
        o = P.rig_off[b] + 3
        s = 0.0
        for j in range(4):
            s += x[o + j] * x[o + j]
        s = np.sqrt(s)
        for j in range(4):
            x[o + j] /= s


@kernel
def renormalise_parameters(P, q, qd, qdd):
    """In place, for every rigid body's Euler parameters: ``p ← p/|p|``, ``ṗ ← ṗ − p(pᵀṗ)``,
    ``p̈ ← p̈ − p(ṗᵀṗ + pᵀp̈)`` (the minimum-norm corrections
    that put ``p`` back on the unit sphere and keep ``pᵀṗ = 0``, ``ṗᵀṗ + pᵀp̈ = 0``)."""
    normalise_parameters(P, q)
    for b in range(P.rig_off.shape[0]):
        o = P.rig_off[b] + 3
        pd = 0.0
        for j in range(4):
            pd += q[o + j] * qd[o + j]
        for j in range(4):
            qd[o + j] -= q[o + j] * pd
        dd = 0.0
        pa = 0.0
        for j in range(4):
            dd += qd[o + j] * qd[o + j]
            pa += q[o + j] * qdd[o + j]
        for j in range(4):
            qdd[o + j] -= q[o + j] * (dd + pa)


@kernel
def arc_increment(P, q0, q1):
    """``q1 − q0`` with each rigid body's Euler-parameter part scaled by ``θ / sin θ``, θ half
    the angle turned (``|p1 − p0| = 2 sin(θ/2)``): over a rotation Δβ about a fixed axis u,
    ``2 E(p)(s Δp) = u Δβ``, so a torque does τ·u Δβ along the increment (not the chord)."""
    dq = q1 - q0
    for b in range(P.rig_off.shape[0]):
        o = P.rig_off[b] + 3
        chord = 0.0
        for j in range(4):
            chord += dq[o + j] * dq[o + j]
        theta = 2.0 * np.arcsin(min(0.5 * np.sqrt(chord), 1.0))
        if theta > 1e-6:  # below: θ/sin θ − 1 < 2e-13
            s = theta / np.sin(theta)
            for j in range(4):
                dq[o + j] *= s
    return dq


@kernel
def polarised_work(dt, prev, cur):
    """``½ (Q_n + Q_n+1)·Δq − ½ Δt (Q_n·q̇_n + Q_n+1·q̇_n+1)`` of forces affine in the
    velocities, from their power ``P(v) = Q(q, v)·v`` at each end state: ``(P(v), P(q̇),
    P(−w))`` with ``v = Δq/Δt`` and ``w = v − q̇`` (``Q·w = ½ [P(q̇ + w) − P(q̇) − P(−w)]``)."""
    out = 0.5 * (prev[0] - prev[1] - prev[2]) + 0.5 * (cur[0] - cur[1] - cur[2])
    return 0.5 * dt * out


@kernel(inline="always")
def state_power(P, mk, q, qd, t, lam, phit):
    """Power (W) of the force elements and the drivers at a state (markers ``mk`` at
    ``(q, q̇)``; ``λ`` and ``Φ_t`` there)."""
    return nonconservative_power(P, mk, q, qd, t) + driver_power(P, lam, phit)


@kernel(inline="always")
def secant_work_at(P, read, mk0, q0, qd0, t0, mk1, q1, qd1, t1, dt, p0, p1):
    """The work of the force elements over a step beyond the trapezoidal rule on their
    power (:func:`polarised_work` along :func:`arc_increment`); ``read`` the markers whose
    velocities the power reads (:func:`power_markers`: the steppers make it once per
    call), ``p0``, ``p1`` the power at each end with its own velocities
    (:func:`nonconservative_power` at ``(q0, q̇0, t0)`` and ``(q1, q̇1, t1)``: the steppers'
    record of the power has them), ``mk0``, ``mk1`` the marker tables at each end's
    positions (with any velocities: the powers read the positions and Jacobians; the
    steppers keep each step's end's)."""
    v = arc_increment(P, q0, q1) / dt
    ends = np.zeros((2, 3))
    ends[0, 1] = p0
    ends[1, 1] = p1
    for e in range(2):
        q = q0 if e == 0 else q1
        qd = qd0 if e == 0 else qd1
        t = t0 if e == 0 else t1
        mk = mk0 if e == 0 else mk1
        w = v - qd
        ends[e, 0] = nonconservative_power(P, with_velocities(P, mk, v, read), q, v, t)
        ends[e, 2] = nonconservative_power(P, with_velocities(P, mk, -w, read), q, -w, t)
    return polarised_work(dt, ends[0], ends[1])


@kernel
def power_markers(P):
    """The markers whose velocities :func:`nonconservative_power` reads (those of the
    spring-damper-actuators, joint torques and forces, point forces and pulley contacts),
    each once, in increasing order; the other terms read q and q̇."""
    used = np.zeros(P.mk_cols.shape[0], np.int64)
    for s in range(P.sp_mk.shape[0]):
        used[P.sp_mk[s, 0]] = 1
        used[P.sp_mk[s, 1]] = 1
    for s in range(P.jt_mk.shape[0]):
        for a in range(3):
            used[P.jt_mk[s, a]] = 1
    for s in range(P.jf_mk.shape[0]):
        for a in range(3):
            used[P.jf_mk[s, a]] = 1
    for s in range(P.pf_mk.shape[0]):
        used[P.pf_mk[s]] = 1
    for i in range(P.pc_mk.shape[0]):
        for a in range(P.pc_mk.shape[1]):
            used[P.pc_mk[i, a]] = 1
    # a counting loop, not np.flatnonzero: Numba's form of that loads SciPy's BLAS
    count = 0
    for k in range(used.shape[0]):
        count += used[k]
    out = np.empty(count, np.int64)
    count = 0
    for k in range(used.shape[0]):
        if used[k] != 0:
            out[count] = k
            count += 1
    return out


@kernel(inline="always")
def with_velocities(P, mk, vel, read):
    """The marker table ``mk`` with the velocities ``u̇ = J q̇`` of ``q̇ = vel`` at the
    markers ``read`` (:func:`power_markers`; zero at the others), its positions and
    Jacobians kept (``J̇q̇`` and ``S(ṗ, s̄)`` still those of ``mk``): what the powers of the
    force elements read."""
    nk = mk.u.shape[0]
    ud = np.zeros((nk, 3))
    for r in range(read.shape[0]):
        k = read[r]
        for a in range(P.mk_ncols[k]):
            x = vel[P.mk_cols[k, a]]
            for j in range(3):
                ud[k, j] += mk.jac[k, j, a] * x
    return MarkerValues(mk.u, ud, mk.jac, mk.jdq, mk.sjd)


# ---- dense matrices (small systems, compiled steppers) --------------------------------------


class Patterns(NamedTuple):
    """The entry positions of every matrix of a system (``*_pattern`` functions)."""

    phi_r: np.ndarray
    phi_c: np.ndarray
    hk_r: np.ndarray
    hk_c: np.ndarray
    hd_r: np.ndarray
    hd_c: np.ndarray
    mass_r: np.ndarray
    mass_c: np.ndarray
    fk_r: np.ndarray
    fk_c: np.ndarray
    fc_r: np.ndarray
    fc_c: np.ndarray
    rb_r: np.ndarray
    rb_c: np.ndarray


def patterns(P, q, mk) -> Patterns:
    """Every pattern of ``P``, evaluated at a valid q with its markers ``mk`` (at ``(q, q)``
    with velocities; from Python: through the evaluation entries, not one more compiled
    function)."""
    pr, pc = constraint_pattern(P, q, mk)
    kr, kc, dr, dc = second_order_pattern(P, q, mk)
    mr, mc, _ = mass_evaluation(P, q, q, MASS_PATTERN, 0)
    fr, fc, cr, cc = force_pattern(P, q, mk)
    br, bc, _ = mass_evaluation(P, q, q, RIGID_PATTERN, 0)
    return Patterns(pr, pc, kr, kc, dr, dc, mr, mc, fr, fc, cr, cc, br, bc)


@kernel(inline="always")
def dense_constraints(P, pt, mk, q, qd, t):
    """``(Φ, Φ_q, Φ_t, γ)``, Φ_q dense (markers ``mk`` at ``(q, q̇)``)."""
    phi, phit, gamma, vals = constraints(P, mk, q, qd, t, pt.phi_r.shape[0])
    return phi, scatter(pt.phi_r, pt.phi_c, vals, P.m, P.n), phit, gamma


@kernel(inline="always")
def dense_mass(P, pt, q):
    return scatter(pt.mass_r, pt.mass_c, mass(P, q, pt.mass_r.shape[0]), P.n, P.n)


@kernel(inline="always")
def dense_forces(P, pt, mk, q, qd, t, inertial, jacobians):
    """``(Q, ∂Q/∂q, ∂Q/∂q̇)``, dense (empty matrices without ``jacobians``)."""
    nk = pt.fk_r.shape[0] if jacobians else 0
    nc = pt.fc_r.shape[0] if jacobians else 0
    out, kv, cv = forces(P, mk, q, qd, t, inertial, nk, nc)
    if not jacobians:
        return out, np.zeros((0, 0)), np.zeros((0, 0))
    kq = scatter(pt.fk_r, pt.fk_c, kv, P.n, P.n)
    kqd = scatter(pt.fc_r, pt.fc_c, cv, P.n, P.n)
    return out, kq, kqd


@kernel(inline="always")
def dense_hessian(P, pt, mk, q, qd, t, lam):
    """``∂(Φ_qᵀλ)/∂q``, dense n×n."""
    kv, _ = second_order(P, mk, q, qd, t, lam, NO, pt.hk_r.shape[0], np.int64(0))
    return scatter(pt.hk_r, pt.hk_c, kv, P.n, P.n)


@kernel(inline="always")
def dense_mass_times_jacobian(P, pt, q, a):
    return scatter(pt.rb_r, pt.rb_c, mass_times_jacobian(P, q, a), P.n, P.n)
