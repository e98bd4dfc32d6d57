"""The planar elastic line: strains, energy, forces and exact Jacobians of one element.

The element (García Vallejo (2006) eq. (2.32)–(2.34), the geometrically exact version of
``solver.mechanics.bodies.ancf.euler_bernoulli``) has ``k`` coordinates ``e``; at each
Gauss point g the rows of ``B[g]`` ``(4, k)`` give the slope ``p = r_x`` (rows 0–1) and the
second derivative ``q = r_xx`` (rows 2–3) as ``B[g] e``. The strains there are the stretch
and the material curvature

    ε = |p| − 1,        κ = (p × q)/|p|² ,

and with ``A = p·p``, ``J q = Ĩᵀ q`` (``Ĩ`` the rotation by +90°), ``t = p/|p|``:

    ∂ε/∂p = t,                 ∂²ε/∂p² = (I − t tᵀ)/|p|,
    ∂κ/∂p = (J q − 2κ p)/A,    ∂κ/∂q = Ĩ p/A,
    ∂²κ/∂p² = −2 [J q pᵀ + p (J q)ᵀ]/A² − 2κ I/A + 8κ p pᵀ/A²,
    ∂²κ/∂p∂q = Ĩᵀ/A − 2 p (Ĩ p)ᵀ/A²,      ∂²κ/∂q² = 0.

The energy is ``U = ½ Σ_g (c_ε,g ε_g² + c_κ,g κ_g²)`` (``coef`` = the axial weights
``EA w_g l`` of the G points, then the bending weights ``EI w_g l``), the elastic force
``F = −∂U/∂e``. Internal damping (``gamma`` = γ, s) adds the Rayleigh function
``P_d = ½ γ Σ c_s ε̇_s²`` with ``ε̇_s = ∇ε_s·ė``: ``F_d = −γ Σ c_s ε̇_s ∇ε_s``.

The "linear elasticity" element of García Vallejo (2006) App. A (``frame``: its strains
measured in the frame tangent at the element's node m, ``euler_bernoulli_linear``) shares
the rows ``B`` and adds ``S_g`` ``(2, k)``, the node-m slope ``g = S_g e``; with
``t = g/|g|``, ``ρ = |g|``, ``N = I − t tᵀ`` its strains (A.8)–(A.9) are

    ε = p·t − 1,        κ = (J q)·t,

both ``φ = u·t`` with ``u = p`` or ``u = J q``, so over ``z = (p, q, g)`` (:func:`frame_strains`)

    ∂φ/∂u = t,   ∂φ/∂g = N u/ρ,   ∂²φ/∂u∂g = N/ρ,
    ∂²φ/∂g² = −[(t·u) N + t (N u)ᵀ + (N u) tᵀ]/ρ²,

carried to ``e`` by the six rows ``R = [B[g]; S_g]``. The energy, damping and Jacobians
are those above with ``R`` in place of ``B[g]``.

One source for every caller: the element classes call :func:`line_internal` and
:func:`line_strains` over a beam's elements; the system kernels call :func:`line_element`
or :func:`frame_element` for each element they assemble (``frame`` chooses per beam).
"""

from __future__ import annotations

import math

import numpy as np

from solver.kernels.jit import kernel
from solver.kernels.scratch import local_zeros


@kernel(full_optimisation=True)
def strains_pq(Bg, e, gpq, hpq, hessian):
    """``(ε, κ)`` at one point (``Bg`` ``(4, k)``, ``e`` ``(k,)``), their gradients over
    ``(p, q)`` into ``gpq`` ``(2, 4)`` and, with ``hessian``, their Hessians over ``(p, q)``
    into ``hpq`` ``(2, 4, 4)``: the equations of the module docstring."""
    k = Bg.shape[1]
    p0 = p1 = q0 = q1 = 0.0
    for j in range(k):
        ej = e[j]
        p0 += Bg[0, j] * ej
        p1 += Bg[1, j] * ej
        q0 += Bg[2, j] * ej
        q1 += Bg[3, j] * ej
    a = p0 * p0 + p1 * p1
    norm = math.sqrt(a)
    ia = 1.0 / a
    t0, t1 = p0 / norm, p1 / norm
    jq0, jq1 = q1, -q0  # J q = Ĩᵀ q
    ip0, ip1 = -p1, p0  # Ĩ p
    kappa = (ip0 * q0 + ip1 * q1) * ia
    gpq[0, 0] = t0
    gpq[0, 1] = t1
    gpq[0, 2] = 0.0
    gpq[0, 3] = 0.0
    gpq[1, 0] = (jq0 - 2.0 * kappa * p0) * ia
    gpq[1, 1] = (jq1 - 2.0 * kappa * p1) * ia
    gpq[1, 2] = ip0 * ia
    gpq[1, 3] = ip1 * ia
    if hessian:
        hpq[:] = 0.0
        inorm = 1.0 / norm
        hpq[0, 0, 0] = (1.0 - t0 * t0) * inorm
        hpq[0, 0, 1] = -t0 * t1 * inorm
        hpq[0, 1, 0] = hpq[0, 0, 1]
        hpq[0, 1, 1] = (1.0 - t1 * t1) * inorm
        p = (p0, p1)
        jq = (jq0, jq1)
        ip = (ip0, ip1)
        ia2 = ia * ia
        for r in range(2):
            for c in range(2):
                v = -2.0 * (jq[r] * p[c] + p[r] * jq[c]) * ia2 + 8.0 * kappa * p[r] * p[c] * ia2
                if r == c:
                    v -= 2.0 * kappa * ia
                hpq[1, r, c] = v
        # ∂²κ/∂p∂q = Ĩᵀ/A − 2 p (Ĩ p)ᵀ/A²,  Ĩᵀ = [[0, 1], [−1, 0]]
        itt = ((0.0, 1.0), (-1.0, 0.0))
        for r in range(2):
            for c in range(2):
                v = itt[r][c] * ia - 2.0 * p[r] * ip[c] * ia2
                hpq[1, r, 2 + c] = v
                hpq[1, 2 + c, r] = v
    return norm - 1.0, kappa


@kernel(full_optimisation=True)
def frame_strains(R, e, gz, hz, hessian):
    """``(ε, κ)`` of the node-m frame at one point (``R`` ``(6, k)``: ``S_x``, ``S_xx`` and
    ``S_g`` rows), their gradients over ``z = (p, q, g)`` into ``gz`` ``(2, 6)`` and, with
    ``hessian``, their Hessians into ``hz`` ``(2, 6, 6)``: the equations of the module
    docstring."""
    k = R.shape[1]
    p0 = p1 = q0 = q1 = g0 = g1 = 0.0
    for j in range(k):
        ej = e[j]
        p0 += R[0, j] * ej
        p1 += R[1, j] * ej
        q0 += R[2, j] * ej
        q1 += R[3, j] * ej
        g0 += R[4, j] * ej
        g1 += R[5, j] * ej
    rho = math.sqrt(g0 * g0 + g1 * g1)
    t0, t1 = g0 / rho, g1 / rho
    irho = 1.0 / rho
    n00, n01, n11 = 1.0 - t0 * t0, -t0 * t1, 1.0 - t1 * t1
    gz[:] = 0.0
    if hessian:
        hz[:] = 0.0
    eps = kappa = 0.0
    for s in range(2):
        if s == 0:  # u = p
            u0, u1 = p0, p1
            o = 0  # the rows of u's variables
        else:  # u = J q = Ĩᵀ q
            u0, u1 = q1, -q0
            o = 2
        tu = u0 * t0 + u1 * t1
        if s == 0:
            eps = tu - 1.0
        else:
            kappa = tu
        nu0 = n00 * u0 + n01 * u1  # N u
        nu1 = n01 * u0 + n11 * u1
        gz[s, 4] = nu0 * irho
        gz[s, 5] = nu1 * irho
        if s == 0:
            gz[s, 0] = t0
            gz[s, 1] = t1
        else:  # ∂κ/∂q = Ĩ t
            gz[s, 2] = -t1
            gz[s, 3] = t0
        if not hessian:
            continue
        # ∂²φ/∂u∂g = N/ρ, carried to q through u = J q for κ (Jᵀ N/ρ)
        if s == 0:
            m00, m01, m10, m11 = n00, n01, n01, n11
        else:  # rows q: (Jᵀ N)_{a b} = Σ_i J_{ia} N_{ib}, J = [[0, 1], [−1, 0]]
            m00, m01, m10, m11 = -n01, -n11, n00, n01
        m = ((m00, m01), (m10, m11))
        for a in range(2):
            for b in range(2):
                hz[s, o + a, 4 + b] = m[a][b] * irho
                hz[s, 4 + b, o + a] = m[a][b] * irho
        ir2 = irho * irho
        t = (t0, t1)
        nu = (nu0, nu1)
        nn = ((n00, n01), (n01, n11))
        for a in range(2):
            for b in range(2):
                hz[s, 4 + a, 4 + b] = -(tu * nn[a][b] + t[a] * nu[b] + nu[a] * t[b]) * ir2
    return eps, kappa


@kernel(full_optimisation=True)
def point_strains(Bg, Sg, frame, e, grad, hess, hessian):
    """``(ε, κ)`` at one point (``Bg`` ``(4, k)``, ``Sg`` ``(2, k)`` read with ``frame``,
    ``e`` ``(k,)``); their gradients into ``grad`` ``(2, k)`` and, with ``hessian``, their
    Hessians into ``hess`` ``(2, k, k)`` (:func:`strains_pq` or :func:`frame_strains`
    carried to the coordinates: ``∇ = Rᵀ ∇_z``, ``H = Rᵀ H_z R``)."""
    k = Bg.shape[1]
    nr = 6 if frame else 4
    R = np.zeros((6, k))
    _rows(Bg, Sg, frame, R)
    gz = local_zeros((2, 6))
    hz = local_zeros((2, 6, 6))
    strains = frame_strains(R, e, gz, hz, hessian) if frame else strains_pq(Bg, e, gz, hz, hessian)
    for s in range(2):
        _gradient(gz, s, R, nr, grad)
    if hessian:
        hb = np.empty((6, k))
        for s in range(2):
            hess[s] = 0.0
            _sub_rt_x_r(R, nr, -hz[s], hb, hess[s])
    return strains


@kernel(inline="always")
def _rows(Bg, Sg, frame, R):
    """``R = [Bg; Sg]`` (``Sg`` only with ``frame``): the rows of the point's variables."""
    for j in range(Bg.shape[1]):
        for r in range(4):
            R[r, j] = Bg[r, j]
        if frame:
            R[4, j] = Sg[0, j]
            R[5, j] = Sg[1, j]


@kernel(inline="always")
def _gradient(gz, s, R, nr, grad):
    """``grad[s] = Rᵀ gz[s]`` over the first ``nr`` rows: strain ``s``'s gradient over the
    coordinates."""
    for j in range(R.shape[1]):
        acc = 0.0
        for r in range(nr):
            acc += gz[s, r] * R[r, j]
        grad[s, j] = acc


@kernel(inline="always")
def _h_times_b(h, Bg, out):
    """``out = h Bg`` (``h`` 4×4, ``Bg`` ``(4, k)``)."""
    for r in range(4):
        for j in range(Bg.shape[1]):
            out[r, j] = (
                h[r, 0] * Bg[0, j] + h[r, 1] * Bg[1, j] + h[r, 2] * Bg[2, j] + (h[r, 3] * Bg[3, j])
            )


@kernel(inline="always")
def line_work(k):
    """The length of :func:`line_element`'s work array for elements of ``k`` coordinates."""
    return 162 + 12 * k


@kernel(full_optimisation=True)
def line_element(B, coef, gamma, e, ed, jacobian, force, kq, kqd, grad, work):
    """One element with the exact strains: ``F = F_e + F_d`` into ``force`` ``(k,)`` and,
    with ``jacobian``, ``∂F/∂e`` into ``kq`` and ``∂F/∂ė`` into ``kqd`` ``(k, k)`` (all
    overwritten; ``kqd`` stays zero without damping). ``grad`` ``(2, k)`` and ``work``
    (:func:`line_work` values; passed rather than allocated per element) are work arrays.
    Returns ``(U, P_d)``: strain energy (J) and damping power ``F_d·ė`` (W). The terms of
    each point are :func:`point_terms`'s written out over the four rows of ``B[g]``: the
    shared form, with the rows' count a parameter, costs this element about 15% per
    step."""
    G = B.shape[0]
    k = B.shape[2]
    force[:] = 0.0
    if jacobian:
        kq[:] = 0.0
        kqd[:] = 0.0
    energy = 0.0
    power = 0.0
    gz = work[0:12].reshape((2, 6))
    hz = work[12:84].reshape((2, 6, 6))
    x = work[84:120].reshape((6, 6))
    y = work[120:156].reshape((6, 6))
    bed = work[156:162]
    xb = work[162 : 162 + 6 * k].reshape((6, k))
    damped = gamma > 0.0
    for g in range(G):
        Bg = B[g]
        strains = strains_pq(Bg, e, gz, hz, jacobian)
        if jacobian:
            x[:] = 0.0
            y[:] = 0.0
            if damped:
                for r in range(4):
                    acc = 0.0
                    for j in range(k):
                        acc += Bg[r, j] * ed[j]
                    bed[r] = acc
        for s in range(2):
            for j in range(k):  # ∇ε_s = Bgᵀ ∇_pq ε_s
                grad[s, j] = (
                    gz[s, 0] * Bg[0, j] + gz[s, 1] * Bg[1, j] + gz[s, 2] * Bg[2, j]
                    + gz[s, 3] * Bg[3, j]
                )  # fmt: skip
            c = coef[s * G + g]
            value = strains[s]
            cs = c * value
            energy += 0.5 * cs * value
            rate = 0.0
            if damped:
                for j in range(k):
                    rate += grad[s, j] * ed[j]
            cr = gamma * c * rate
            for i in range(k):
                force[i] -= (cs + cr) * grad[s, i]
            power -= cr * rate
            if jacobian:
                w = cs + cr
                for r in range(4):
                    for col in range(4):
                        x[r, col] += c * gz[s, r] * gz[s, col] + w * hz[s, r, col]
                if damped:  # ∂F_d/∂ė, and ∂ε̇_s/∂e = H_s ė = Bgᵀ H_pq (Bg ė) in ∂F_d/∂e
                    gc = gamma * c
                    for col in range(4):
                        hd = 0.0
                        for m in range(4):
                            hd += hz[s, col, m] * bed[m]
                        for r in range(4):
                            x[r, col] += gc * gz[s, r] * hd
                            y[r, col] += gc * gz[s, r] * gz[s, col]
        if jacobian:
            _sub_bt_x_b(Bg, x, xb, kq)
            if damped:
                _sub_bt_x_b(Bg, y, xb, kqd)
    return energy, power


@kernel(full_optimisation=True)
def frame_element(B, Sg, coef, gamma, e, ed, jacobian, force, kq, kqd, grad, work):
    """:func:`line_element` with the strains of the node-m frame (``Sg`` ``(2, k)``)."""
    G = B.shape[0]
    k = B.shape[2]
    force[:] = 0.0
    if jacobian:
        kq[:] = 0.0
        kqd[:] = 0.0
    energy = 0.0
    power = 0.0
    gz = work[0:12].reshape((2, 6))
    hz = work[12:84].reshape((2, 6, 6))
    x = work[84:120].reshape((6, 6))
    y = work[120:156].reshape((6, 6))
    bed = work[156:162]
    xb = work[162 : 162 + 6 * k].reshape((6, k))
    R = work[162 + 6 * k : 162 + 12 * k].reshape((6, k))
    sums, scratch = (force, kq, kqd), (grad, x, y, bed, xb)
    for g in range(G):
        _rows(B[g], Sg, True, R)
        strains = frame_strains(R, e, gz, hz, jacobian)
        weights = (coef[g], coef[G + g])
        u, p = point_terms(R, 6, strains, gz, hz, weights, gamma, ed, jacobian, sums, scratch)
        energy += u
        power += p
    return energy, power


@kernel(inline="always")
def point_terms(R, nr, strains, gz, hz, weights, gamma, ed, jacobian, sums, scratch):
    """One Gauss point's share of an element of energy ``½ Σ_s c_s s²`` and damping
    ``½ γ Σ_s c_s ṡ²``: the strains ``s`` (a tuple) with their gradients ``gz`` and Hessians
    ``hz`` over the point's variables ``z = R e`` (the first ``nr`` rows of ``R``), weighted
    by ``weights`` (the c_s, a tuple): into ``sums = (force, kq, kqd)``, forces added to
    ``force`` and, with ``jacobian``, ``−Rᵀ X R`` to ``kq`` and ``−Rᵀ Y R`` to ``kqd``
    (``X = Σ_s c_s (∇_z s ∇_z sᵀ) + (c_s s + damping) H_z s``, ``Y`` the damping's);
    ``scratch = (grad, x, y, bed, xb)`` work arrays (``grad`` a row per strain). Returns
    the point's energy and damping power."""
    force, kq, kqd = sums
    grad, x, y, bed, xb = scratch
    k = R.shape[1]
    damped = gamma > 0.0
    energy = 0.0
    power = 0.0
    if jacobian:
        x[:] = 0.0
        y[:] = 0.0
        if damped:
            for r in range(nr):
                acc = 0.0
                for j in range(k):
                    acc += R[r, j] * ed[j]
                bed[r] = acc
    for s in range(len(strains)):
        _gradient(gz, s, R, nr, grad)
        c = weights[s]
        value = strains[s]
        cs = c * value
        energy += 0.5 * cs * value
        rate = 0.0
        if damped:
            for j in range(k):
                rate += grad[s, j] * ed[j]
        cr = gamma * c * rate
        for i in range(k):
            force[i] -= (cs + cr) * grad[s, i]
        power -= cr * rate
        if jacobian:
            w = cs + cr
            for r in range(nr):
                for col in range(nr):
                    x[r, col] += c * gz[s, r] * gz[s, col] + w * hz[s, r, col]
            if damped:  # ∂F_d/∂ė, and ∂ε̇_s/∂e = H_s ė = Rᵀ H_z (R ė) in ∂F_d/∂e
                gc = gamma * c
                for col in range(nr):
                    hd = 0.0
                    for m in range(nr):
                        hd += hz[s, col, m] * bed[m]
                    for r in range(nr):
                        x[r, col] += gc * gz[s, r] * hd
                        y[r, col] += gc * gz[s, r] * gz[s, col]
    if jacobian:
        if nr == 4:
            _sub_bt_x_b(R, x, xb, kq)
            if damped:
                _sub_bt_x_b(R, y, xb, kqd)
        else:
            _sub_rt_x_r(R, nr, x, xb, kq)
            if damped:
                _sub_rt_x_r(R, nr, y, xb, kqd)
    return energy, power


@kernel(inline="always")
def _sub_bt_x_b(Bg, x, work, out):
    """``out −= Bgᵀ x Bg`` (the 4×4 block of ``x``; ``work`` ``(≥4, k)``)."""
    _h_times_b(x, Bg, work)
    k = Bg.shape[1]
    for i in range(k):
        for j in range(k):
            out[i, j] -= (
                Bg[0, i] * work[0, j] + Bg[1, i] * work[1, j] + Bg[2, i] * work[2, j]
                + Bg[3, i] * work[3, j]
            )  # fmt: skip


@kernel(inline="always")
def _sub_rt_x_r(R, nr, x, work, out):
    """``out −= Rᵀ x R`` over the first ``nr`` rows of ``R`` (``work`` ``(≥nr, k)``)."""
    k = R.shape[1]
    for r in range(nr):
        for j in range(k):
            acc = 0.0
            for m in range(nr):
                acc += x[r, m] * R[m, j]
            work[r, j] = acc
    for i in range(k):
        for j in range(k):
            acc = 0.0
            for r in range(nr):
                acc += R[r, i] * work[r, j]
            out[i, j] -= acc


@kernel(full_optimisation=True)
def line_internal(B, Sg, frame, coef, gamma, E, Ed, jacobian):
    """All elements of a beam (``E``, ``Ed`` ``(N, k)``; with ``frame`` the strains of the
    node-m frame, ``Sg`` its slope's rows): ``(force (N, k), ∂F/∂e (N, k, k), ∂F/∂ė (N, k, k), energy (N,),
    power)``; the Jacobians are empty ``(0, k, k)`` without ``jacobian``."""
    n, k = E.shape
    force = np.zeros((n, k))
    nj = n if jacobian else 0
    kq = np.zeros((nj, k, k))
    kqd = np.zeros((nj, k, k))
    energy = np.zeros(n)
    power = 0.0
    grad = np.zeros((2, k))
    work = np.zeros(line_work(k))
    wq = np.zeros((k, k))
    wqd = np.zeros((k, k))
    for i in range(n):
        if frame:
            u, p = frame_element(
                B, Sg, coef, gamma, E[i], Ed[i], jacobian, force[i], wq, wqd, grad, work
            )
        else:
            u, p = line_element(
                B, coef, gamma, E[i], Ed[i], jacobian, force[i], wq, wqd, grad, work
            )
        energy[i] = u
        power += p
        if jacobian:
            kq[i] = wq
            kqd[i] = wqd
    return force, kq, kqd, energy, power


@kernel(full_optimisation=True)
def line_strains(B, Sg, frame, E, hessian):
    """Strains of all elements ``E`` ``(N, k)`` (``frame``, ``Sg``: as :func:`line_internal`):
    values ``(N, 2G)`` (G stretches, then G curvatures), gradients ``(N, 2G, k)`` and
    Hessians ``(N, 2G, k, k)`` (``(N, 0, k, k)`` without ``hessian``)."""
    n, k = E.shape
    G = B.shape[0]
    phi = np.zeros((n, 2 * G))
    grads = np.zeros((n, 2 * G, k))
    hesses = np.zeros((n, 2 * G if hessian else 0, k, k))
    grad = np.zeros((2, k))
    hess = np.zeros((2, k, k))
    for i in range(n):
        for g in range(G):
            strains = point_strains(B[g], Sg, frame, E[i], grad, hess, hessian)
            for s in range(2):
                phi[i, s * G + g] = strains[s]
                grads[i, s * G + g] = grad[s]
                if hessian:
                    hesses[i, s * G + g] = hess[s]
    return phi, grads, hesses
