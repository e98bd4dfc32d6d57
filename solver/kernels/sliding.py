"""ANCF sliding joints: a point of body 2 slides along the centreline of a flexible beam
(García Vallejo (2006) §4.6, "sliding spherical": the three relative rotations stay free).

The arc length ``s`` (m) on the *undeformed* beam, measured from its first point, is one
extra coordinate of the system (no inertia, no applied force; García Vallejo (2006) eq.
(4.101)). With ``l`` the element length, the point is on element ``j = ⌊s/l⌋`` (clipped to
the beam) at ``ξ = s/l − j``, where the centreline is the cubic Hermite interpolation of
the element's four nodal vectors ``E_i`` (``r`` and ``r_x`` of its two nodes; the other
slopes of a continuum element do not enter it): ``r(s) = Σ_i h_i(ξ) E_i``, and
``r' = ∂r/∂s``, ``r''``, ``r'''`` with the x-derivatives of the ``h_i``. The joint reads
(4.102)–(4.104)

    Φ_a = u_a − r_a(s, E) = 0      (a < d; a planar beam's z row is u_z − z₀),

``u`` the point marker of body 2, so the contact element changes as ``s`` crosses a node
(the centreline is C¹ there). ``rotation = "locked"`` (planar beams, rigid body 2; the
fixed-angle slider of García Vallejo (2006) §5.1.2, the tangent-triad angle constraint of
§4.6) adds the row

    Φ₃ = l v·r' = v·∂r/∂ξ = 0        (m),

``v`` the direction marker of body 2 that is normal to the tangent at t = 0: homogeneous in
``r'`` (no normalisation), not degenerate (v is perpendicular to r', not parallel), and,
through the factor l, of the size of the point rows (the gradient of ``v·r'`` with respect to
the nodal positions is O(1/l), which would make a penalty on it, the augmented Lagrangian's
``α Φ_qᵀΦ_q``, much stiffer than on the others).

Each function here works on the joint's *local* variables: its marker values (slot 0 the
point, slot 1 the locked direction), the element's nodal vectors ``E_i`` and ``s``. The
system (``solver.kernels.system``) maps them to q through the markers' Jacobians and the
beam's columns, like a constraint primitive's blocks: ``Φ_q = Σ_slots blocks J +
∂Φ/∂E + ∂Φ/∂s``, ``γ = −Σ blocks J̇q̇ − quad``, ``∂(Φ_qᵀλ)/∂q`` from the second
derivatives of ``λ·Φ`` over (v, E, s) (the point rows are linear in u) plus the rigid
markers' own terms, and each row of ``∂(Φ_q q̇)/∂q`` from its second derivatives contracted
with the local rates. The reaction ``−Φ_qᵀλ`` on s is ``λ·r'``: the constraint force is
normal to the centreline (frictionless).

Leaving the beam by more than half an element (:func:`on_beam`) stops a run (the Python
side names the joint); inside that margin the end element is extrapolated.
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.jit import kernel

#: rows 0–2 read the point marker (slot 0), row 3 (locked rotation) the direction (slot 1)
POINT_ROWS = 3
#: rows of ``centreline``'s output: r, r', r'', r''' of the positions, then S_x ė, S_xx ė
R0, R1, R2, R3, V1, V2 = 0, 1, 2, 3, 4, 5


@kernel(full_optimisation=True)
def on_beam(s, length, n_elements):
    """Whether ``s`` is on a beam of ``n_elements`` elements of ``length`` (m), give or
    take half an element (false for NaN)."""
    return -0.5 * length <= s <= (n_elements + 0.5) * length


@kernel(full_optimisation=True)
def locate(s, length, n_elements):
    """``(j, ξ)``: the element of arc length ``s`` (clipped to the beam) and the local
    coordinate there (outside [0, 1] past the beam's ends)."""
    x = s / length
    if x >= n_elements:
        j = n_elements - 1
    elif x >= 0.0:
        j = int(math.floor(x))
    else:  # also NaN
        j = 0
    return j, x - j


@kernel(full_optimisation=True)
def centreline(h, e, ed, d, c):
    """``c[k, :d]``: ``r``, ``r'``, ``r''``, ``r'''`` (rows ``R0``…``R3``) from the Hermite
    jet ``h`` and the nodal vectors ``e`` ``(4, 3)``, then ``S_x ė`` and ``S_xx ė`` (rows
    ``V1``, ``V2``) from their rates ``ed``."""
    for a in range(d):
        for k in range(4):
            acc = 0.0
            for i in range(4):
                acc += h[k, i] * e[i, a]
            c[k, a] = acc
        for k in range(2):
            acc = 0.0
            for i in range(4):
                acc += h[k + 1, i] * ed[i, a]
            c[V1 + k, a] = acc


@kernel(full_optimisation=True)
def evaluate(d, length, z0, locked, u, ud, kp, kl, h, c, sd, phi, blk, eblk, sblk, quad):
    """The joint at a state: its row count, and per row r ``phi[r]``, the marker blocks
    ``blk[slot, r, :] = ∂Φ_r/∂u_slot``, ``eblk[r, i, b] = ∂Φ_r/∂E_ib``, ``sblk[r] = ∂Φ_r/∂s``
    and ``quad[r]``, the part of ``Φ̈_r`` quadratic in the rates not carried by the markers'
    ``J̇q̇`` (``γ = −Σ blk J̇q̇ − quad``). ``u``, ``ud``: the marker values and rates (the
    point is marker ``kp``, the locked direction ``v`` marker ``kl``, read when
    ``locked``), ``h``, ``c`` (``hermite.hermite_jet``, :func:`centreline`) at the joint's ξ,
    ``sd`` = ṡ. Every output is overwritten."""
    blk[:] = 0.0
    eblk[:] = 0.0
    for a in range(3):
        if a < d:
            phi[a] = u[kp, a] - c[R0, a]
            quad[a] = -2.0 * sd * c[V1, a] - sd * sd * c[R2, a]
            sblk[a] = -c[R1, a]
            for i in range(4):
                eblk[a, i, a] = -h[0, i]
        else:  # the z row of a planar beam
            phi[a] = u[kp, a] - z0
            quad[a] = 0.0
            sblk[a] = 0.0
        blk[0, a, a] = 1.0
    if not locked:
        return POINT_ROWS
    r = POINT_ROWS
    acc = 0.0
    qq = 0.0
    ss = 0.0
    for a in range(d):
        v = u[kl, a]
        acc += v * c[R1, a]
        rd = c[V1, a] + sd * c[R2, a]  # ṙ'
        qq += 2.0 * ud[kl, a] * rd + v * (2.0 * sd * c[V2, a] + sd * sd * c[R3, a])
        ss += v * c[R2, a]
        blk[1, r, a] = length * c[R1, a]
        for i in range(4):
            eblk[r, i, a] = length * h[1, i] * v
    phi[r] = length * acc
    quad[r] = length * qq
    sblk[r] = length * ss
    return POINT_ROWS + 1


@kernel(full_optimisation=True)
def hessian(d, length, locked, u, kl, lam, h, c, hve, hvs, hes):
    """The second derivatives of ``λ·Φ`` over the local variables that are not zero:
    ``hve[a, i, b]`` over (v_a, E_ib), ``hvs[a]`` over (v_a, s), ``hes[i, b]`` over (E_ib, s)
    (each overwritten); returns the one over (s, s). The point rows are linear in u and
    in E; ``lam`` holds the multipliers of the joint's rows, ``v`` is marker ``kl`` of the
    values ``u``."""
    hve[:] = 0.0
    hvs[:] = 0.0
    hss = 0.0
    for b in range(d):
        hss -= lam[b] * c[R2, b]
        for i in range(4):
            hes[i, b] = -lam[b] * h[1, i]
    for b in range(d, 3):
        for i in range(4):
            hes[i, b] = 0.0
    if not locked:
        return hss
    mu = length * lam[POINT_ROWS]
    for a in range(d):
        v = u[kl, a]
        hvs[a] = mu * c[R2, a]
        hss += mu * v * c[R3, a]
        for i in range(4):
            hve[a, i, a] = mu * h[1, i]
            hes[i, a] += mu * v * h[2, i]
    return hss


@kernel(full_optimisation=True)
def rate_terms(d, hve, hvs, hes, hss, ud, kl, ed, sd, wv, we):
    """One row's second derivatives (:func:`hessian` with a unit multiplier on it)
    contracted with the local rates (``v̇``: marker ``kl`` of the rates ``ud``; ``ė``
    ``(4, 3)``, ṡ): that row of ``∂(Φ_q q̇)/∂q`` over v (``wv``), E (``we``) and s
    (returned), before the markers' ``∂u̇/∂q``."""
    ws = hss * sd
    for a in range(3):
        acc = hvs[a] * sd
        for i in range(4):
            for b in range(d):
                acc += hve[a, i, b] * ed[i, b]
        wv[a] = acc
        ws += hvs[a] * ud[kl, a]
    for i in range(4):
        for b in range(3):
            acc = hes[i, b] * sd
            for a in range(3):
                acc += hve[a, i, b] * ud[kl, a]
            we[i, b] = acc
            ws += hes[i, b] * ed[i, b]
    return ws


@kernel(inline="always")
def scratch():
    """Work arrays of one joint, views of one allocation: ``(h, e, ė, c, phi, blk, eblk,
    sblk, quad)`` (``hermite.hermite_jet``, :func:`centreline`, :func:`evaluate`)."""
    w = np.zeros(142)
    return (
        w[0:16].reshape((4, 4)),
        w[16:28].reshape((4, 3)),
        w[28:40].reshape((4, 3)),
        w[40:58].reshape((6, 3)),
        w[58:62],
        w[62:86].reshape((2, 4, 3)),
        w[86:134].reshape((4, 4, 3)),
        w[134:138],
        w[138:142],
    )


@kernel(inline="always")
def second_scratch():
    """Work arrays of :func:`hessian` and :func:`rate_terms`, views of one allocation:
    ``(hve, hvs, hes, multipliers, wv, we, a 3-vector)``."""
    w = np.zeros(73)
    return (
        w[0:36].reshape((3, 4, 3)),
        w[36:39],
        w[39:51].reshape((4, 3)),
        w[51:55],
        w[55:58],
        w[58:70].reshape((4, 3)),
        w[70:73],
    )
