"""Euler-parameter kinematics of one body: the 3×4 and 4×4 matrices every rigid element uses.

Euler parameters ``p = [e0, e1, e2, e3]`` (scalar first) rotate body → global. Vectors are
rotated in the *homogeneous quadratic* form ``A(p) v = (e0² − e·e) v + 2 e (e·v) + 2 e0 e × v``
(the rotation on the unit sphere, quadratic in p off it), so that

* ``S(p, v) = ∂(A(p) v)/∂p`` (3×4) is bilinear in p and v and ``S(p, v) p = 2 A(p) v``;
* ``G(p) = [−e, e0 I − ẽ]`` (3×4) gives the body-axes angular velocity ``ω̄ = 2 G(p) ṗ``
  and ``E(p) = [−e, e0 I + ẽ]`` the global one ``ω = 2 E(p) ṗ``;
* ``H(c) = [[0, −cᵀ], [c, −c̃]]`` (4×4) satisfies ``G(x)ᵀ c = H(c) x`` for every x.
"""

from __future__ import annotations

import numpy as np

from solver.kernels import shepperd
from solver.kernels.jit import kernel


@kernel(full_optimisation=True)
def s_matrix(p, v):
    """``S(p, v) = ∂(A(p) v)/∂p``, 3×4."""
    a, b, c, d = s_entries(p[0], p[1], p[2], p[3], v[0], v[1], v[2])
    out = np.empty((3, 4))
    for i in range(3):
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = s_row(a, b, c, d, i)
    return out


@kernel(full_optimisation=True)
def s_entries(e0, e1, e2, e3, x, y, z):
    """The four distinct entries ``(a, b, c, d)`` of ``S(p, v)`` (:func:`s_row`), from the
    Euler parameters ``p = [e0, e1, e2, e3]`` and ``v = [x, y, z]``."""
    a = 2.0 * (e0 * x - e3 * y + e2 * z)
    b = 2.0 * (e1 * x + e2 * y + e3 * z)
    c = 2.0 * (-e2 * x + e1 * y + e0 * z)
    d = 2.0 * (-e3 * x - e0 * y + e1 * z)
    return a, b, c, d


@kernel(full_optimisation=True)
def s_row(a, b, c, d, i):
    """Row ``i`` of ``S(p, v)`` from its entries :func:`s_entries`: ``[a b c d]``,
    ``[−d −c b a]``, ``[c −d −a b]``."""
    if i == 0:
        return a, b, c, d
    if i == 1:
        return -d, -c, b, a
    return c, -d, -a, b


@kernel(full_optimisation=True)
def rotate(p, v):
    """``A(p) v`` (homogeneous quadratic form), a new 3-vector."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    ev = e1 * v[0] + e2 * v[1] + e3 * v[2]
    k = e0 * e0 - (e1 * e1 + e2 * e2 + e3 * e3)
    out = np.empty(3)
    out[0] = k * v[0] + 2.0 * e1 * ev + 2.0 * e0 * (e2 * v[2] - e3 * v[1])
    out[1] = k * v[1] + 2.0 * e2 * ev + 2.0 * e0 * (e3 * v[0] - e1 * v[2])
    out[2] = k * v[2] + 2.0 * e3 * ev + 2.0 * e0 * (e1 * v[1] - e2 * v[0])
    return out


@kernel(full_optimisation=True)
def g_matrix(p):
    """``G(p) = [−e, e0 I − ẽ]``, 3×4."""
    out = np.empty((3, 4))
    g_into(p, 0, out)
    return out


@kernel(inline="always")
def g_into(x, o, out):
    """:func:`g_matrix` of ``p = x[o : o + 4]`` into ``out`` (3×4; no array allocated)."""
    e0, e1, e2, e3 = x[o], x[o + 1], x[o + 2], x[o + 3]
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = -e1, e0, e3, -e2
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = -e2, -e3, e0, e1
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = -e3, e2, -e1, e0


@kernel(full_optimisation=True)
def e_matrix(p):
    """``E(p) = [−e, e0 I + ẽ]``, 3×4 (global angular velocity ``ω = 2 E(p) ṗ``)."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    out = np.empty((3, 4))
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = -e1, e0, -e3, e2
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = -e2, e3, e0, -e1
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = -e3, -e2, e1, e0
    return out


@kernel(inline="always")
def omega_into(x, o, xd, out, c):
    """The global angular velocity ``ω = 2 E(p) ṗ = 2 (p0 ė − ṗ0 e + e × ė)`` of the unit
    ``p = x[o : o + 4]`` and ``ṗ = xd[o : o + 4]`` into ``out[c : c + 3]`` (rad/s)."""
    p0, p1, p2, p3 = x[o], x[o + 1], x[o + 2], x[o + 3]
    d0, d1, d2, d3 = xd[o], xd[o + 1], xd[o + 2], xd[o + 3]
    out[c] = 2.0 * (p0 * d1 - d0 * p1 + p2 * d3 - p3 * d2)
    out[c + 1] = 2.0 * (p0 * d2 - d0 * p2 + p3 * d1 - p1 * d3)
    out[c + 2] = 2.0 * (p0 * d3 - d0 * p3 + p1 * d2 - p2 * d1)


@kernel(full_optimisation=True)
def angular_velocities(p, pd):
    """:func:`omega_into` of every row of ``p`` and ``ṗ`` (n × 4 each), flat (3n)."""
    n = p.shape[0]
    out = np.empty(3 * n)
    for i in range(n):
        omega_into(p[i], 0, pd[i], out, 3 * i)
    return out


@kernel(full_optimisation=True)
def h_matrix(c):
    """``H(c) = [[0, −cᵀ], [c, −c̃]]`` with ``G(x)ᵀ c = H(c) x``, 4×4."""
    out = np.empty((4, 4))
    h_into(c, out)
    return out


@kernel(inline="always")
def h_into(c, out):
    """:func:`h_matrix` into ``out`` (4×4; no array allocated)."""
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = 0.0, -c[0], -c[1], -c[2]
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = c[0], 0.0, c[2], -c[1]
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = c[1], -c[2], 0.0, c[0]
    out[3, 0], out[3, 1], out[3, 2], out[3, 3] = c[2], c[1], -c[0], 0.0


@kernel(full_optimisation=True)
def l_matrix(c):
    """``L(c) = [[0, −cᵀ], [c, c̃]]`` with ``E(x)ᵀ c = L(c) x``, 4×4."""
    out = np.zeros((4, 4))
    out[0, 1], out[0, 2], out[0, 3] = -c[0], -c[1], -c[2]
    out[1, 0], out[2, 0], out[3, 0] = c[0], c[1], c[2]
    out[1, 2], out[1, 3] = -c[2], c[1]
    out[2, 1], out[2, 3] = c[2], -c[0]
    out[3, 1], out[3, 2] = -c[1], c[0]
    return out


@kernel(full_optimisation=True)
def gjg(ga, inertia, gb):
    """``G_aᵀ J G_b`` (4×4) for 3×4 ``G_a``, ``G_b`` and a 3×3 ``J``."""
    out = np.empty((4, 4))
    gjg_into(ga, inertia, gb, np.empty((3, 4)), out)
    return out


@kernel(inline="always")
def gjg_into(ga, inertia, gb, jg, out):
    """:func:`gjg` into ``out`` (4×4), with ``jg`` (3×4) as scratch (no array allocated)."""
    jg[:] = 0.0
    for i in range(3):
        for k in range(3):
            c = inertia[i, k]
            for j in range(4):
                jg[i, j] += c * gb[k, j]
    out[:] = 0.0
    for k in range(3):
        for i in range(4):
            c = ga[k, i]
            for j in range(4):
                out[i, j] += c * jg[k, j]


@kernel(full_optimisation=True)
def force_hessian(s, f):
    """``∂(S(p, s̄)ᵀ f)/∂p`` for a body vector ``s̄`` and a fixed global ``f`` (constant in p):
    ``2 [[f·s̄, (s̄×f)ᵀ], [s̄×f, f s̄ᵀ + s̄ fᵀ − (f·s̄) I]]``, 4×4."""
    out = np.empty((4, 4))
    force_hessian_into(s[0], s[1], s[2], f[0], f[1], f[2], out)
    return out


@kernel(refcounted=False, full_optimisation=True)
def force_hessian_into(s0, s1, s2, f0, f1, f2, out):
    """:func:`force_hessian` of ``s̄ = (s0, s1, s2)``, ``f = (f0, f1, f2)`` into ``out``
    (4×4; no array made or referenced: compiled without reference counting)."""
    s = (s0, s1, s2)
    f = (f0, f1, f2)
    fs = f[0] * s[0] + f[1] * s[1] + f[2] * s[2]
    x = s[1] * f[2] - s[2] * f[1]
    y = s[2] * f[0] - s[0] * f[2]
    z = s[0] * f[1] - s[1] * f[0]
    out[0, 0] = 2.0 * fs
    out[0, 1], out[0, 2], out[0, 3] = 2.0 * x, 2.0 * y, 2.0 * z
    out[1, 0], out[2, 0], out[3, 0] = 2.0 * x, 2.0 * y, 2.0 * z
    for i in range(3):
        for j in range(3):
            v = f[i] * s[j] + s[i] * f[j]
            if i == j:
                v -= fs
            out[1 + i, 1 + j] = 2.0 * v


@kernel(full_optimisation=True)
def cross(a, b):
    """``a × b`` of 3-vectors."""
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@kernel(full_optimisation=True)
def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


#: Euler parameters of a rotation matrix into ``out[o : o + 4]`` (Shepperd's method; the
#: source, shared with the model building's plain Python: :mod:`solver.kernels.shepperd`)
quaternion_into = kernel(full_optimisation=True, refcounted=False)(shepperd.quaternion_into)
