"""Linearised stability of a steady motion, with or without rolling (no-slip) rows.

A steady motion is a state whose global velocities do not change: every body's centre of
mass moves at a constant velocity ``v`` and turns at a constant global angular velocity
``ω`` (``v̇ = 0``, ``ω̇ = 0``), e.g. a bicycle running straight and upright at speed v
with its wheels spinning at −v/r, a top sleeping upright, or a structure at rest. About
such a state the motion is linearised in *global increments*: per rigid body the
translation ``δr`` and the small rotation ``δθ`` (``p = exp(δθ) ⊗ p*``, global axes),
per point mass ``δr``, any other coordinate as itself, and the velocity increments
``δv``, ``δω`` (global). Along a steady motion these increments are the same at every
instant for a body that spins about an axis of symmetry of its mass and joints (a wheel
on its hub), so the linear equations have constant coefficients:

    δθ̇ = δω + ω* × δθ,   δṙ = δv,   [δv̇; δω̇] = ∂(v̇, ω̇)/∂(δr, δθ, δv, δω) · [...],

where the accelerations come from the equations of motion with every constraint row,
``[[M, Aᵀ], [A, 0]] [q̈; λ] = [Q; γ]``, ``A = [Φ_q; B]`` (joints, Euler-parameter norms,
no-slip rows B). Their derivatives are taken by fourth-order central differences along
the directions that keep the constraints to first order: the null space of the linearised
position constraints ``Φ_q T δz = 0`` and velocity constraints
``∂(A q̇)/∂z δz + A T δu = 0`` (``T`` maps increments to q), with the state scaled by a
length L (the spread of the bodies) and a time τ (from gravity, the speeds and the spins).

Directions that the accelerations never see (``C z = 0`` for the whole linear motion,
the largest invariant subspace in the kernel of the acceleration rows) are neutral: the
position along the road, the heading, the wheels' angles and the forward speed of a
bicycle are such; their eigenvalues are 0 (or ±i|ω*| for a rotation increment that a
spin carries round), they are counted in ``neutral`` and left out. The remaining
eigenvalues s (1/s, complex) are the modes: the motion is stable when every real part is
negative, and for a bicycle they are those of Meijaard et al. (2007) in roll and steer.

Before linearising, the state is checked to be steady (the largest acceleration below
``steady_tolerance``) and, after a time ``τ_s`` along the steady motion (every body
advanced at its own v and ω), the linearisation is checked to be the same: a body that
spins about an axis that is not one of symmetry (of its inertia or of its joints) makes
the coefficients periodic, and is refused with its name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.kinematics import accelerations, all_velocity_rows
from solver.analysis.linalg import dense
from solver.mechanics.rotations import angular_velocity, e_matrix
from solver.mechanics.system import MultibodySystem

#: the central-difference step in scaled units (length L, time τ)
FD_STEP = 2e-3
#: singular values below this fraction of the largest count as zero (tangent space,
#: observability): the finite differences are good to about 1e-10 of the scale
RANK_TOLERANCE = 1e-7
#: the largest relative change of the linear operator along the steady motion
INVARIANCE_TOLERANCE = 1e-5


@dataclass
class SteadyModes:
    """Eigenvalues ``s`` (complex, 1/s) of the linearised motion about a steady state,
    sorted by decreasing real part, with their shapes; ``neutral`` directions left out.
    ``position_dof`` and ``velocity_dof`` count the increments that keep the position and
    the velocity constraints (no-slip rows included); ``invariance_residual`` is the part
    of the linear rates that leaves that tangent space (relative; rounding when the
    linearisation is consistent)."""

    t: float
    q: np.ndarray
    qd: np.ndarray
    eigenvalues: np.ndarray
    shapes: np.ndarray  # (n, k) complex: δq of each mode (positions)
    neutral: int
    position_dof: int
    velocity_dof: int
    invariance_residual: float = 0.0

    @property
    def growth_tolerance(self) -> float:
        """Real parts up to this (1/s) are rounding: 1e-7 of the largest |s| (a conservative
        system's oscillations, e.g. a sleeping top's, have Re s = 0 up to it)."""
        return 1e-7 * max(1.0, float(np.abs(self.eigenvalues).max(initial=0.0)))

    @property
    def stable(self) -> bool:
        """No mode grows: every real part below ``growth_tolerance``."""
        return bool(np.all(self.eigenvalues.real < self.growth_tolerance))

    def __len__(self) -> int:
        return len(self.eigenvalues)

    def to_csv(self, path, system: MultibodySystem | None = None) -> None:
        """The table, then each mode's shape δq (largest entry 1): its real and imaginary
        parts per coordinate, columns ``<body>.<field>.re`` and ``.im`` (``q<i>`` without
        ``system``)."""
        import csv

        rows = self.table()
        head = list(rows[0]) if rows else ["mode", "real", "imag", "frequency_hz"]
        names = [f"q{i}" for i in range(len(self.q))]
        if system is not None:
            for body, slot in system.slots.items():
                fields = system.state_fields(body)
                if len(fields) >= slot.size:
                    for k in range(slot.size):
                        names[slot.offset + k] = f"{body}.{fields[k]}"
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(head + [f"{n}.{part}" for n in names for part in ("re", "im")])
            for i, row in enumerate(rows):
                shape = self.shapes[:, i]
                parts = np.column_stack([shape.real, shape.imag]).ravel()
                writer.writerow([repr(v) for v in row.values()] + [repr(float(v)) for v in parts])

    def table(self) -> list[dict]:
        """One row per mode: ``mode``, ``real`` (1/s), ``imag`` (rad/s), ``frequency_hz``
        (|imag|/2π), ``damping_ratio`` (−real/|s|) and ``stable`` (it does not grow)."""
        rows = []
        for i, s in enumerate(self.eigenvalues):
            mag = abs(s)
            rows.append(
                {
                    "mode": i + 1,
                    "real": float(s.real),
                    "imag": float(s.imag),
                    "frequency_hz": float(abs(s.imag) / (2.0 * np.pi)),
                    "damping_ratio": float(-s.real / mag) if mag > 0 else 0.0,
                    "stable": bool(s.real < self.growth_tolerance),
                }
            )
        return rows


class _Increments:
    """Global increments of a state: the layout, the map to q and the acceleration."""

    def __init__(self, system: MultibodySystem) -> None:
        self.system = system
        n = system.n
        self.pcols = system.rigid.cols[:, 3:] if len(system.rigid) else np.zeros((0, 4), int)
        rotation = np.zeros(n, bool)
        rotation[self.pcols.ravel()] = True
        self.plain = np.flatnonzero(~rotation)  # translations, point masses, other kinds
        self.nb = len(self.pcols)
        self.nz = len(self.plain) + 3 * self.nb
        # which plain columns are rigid-body centres (for the length scale)
        self.centres = system.rigid.cols[:, :3] if len(system.rigid) else np.zeros((0, 3), int)
        self.points = system.point_masses.cols if len(system.point_masses) else self.centres[:0]

    def rot(self, z: np.ndarray) -> np.ndarray:
        return z[len(self.plain) :].reshape(self.nb, 3)

    def position(self, q0: np.ndarray, zeta: np.ndarray) -> np.ndarray:
        """``q`` at the increment ``ζ`` from ``q0``: translations added, rotations
        composed on the left (global axes)."""
        q = np.array(q0, float)
        q[self.plain] += zeta[: len(self.plain)]
        if self.nb:
            th = self.rot(zeta)
            ang = np.linalg.norm(th, axis=1)
            half = 0.5 * ang
            # sin(½|θ|)/|θ| without dividing by zero
            k = np.where(ang > 1e-8, np.sin(half) / np.where(ang > 0, ang, 1.0), 0.5 - ang**2 / 48)
            dq = np.column_stack([np.cos(half), k[:, None] * th])
            p = q0[self.pcols]
            q[self.pcols] = quaternion_product(dq, p)
        return q

    def velocity(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """``q̇`` from the global velocities ``u`` = (plain rates, ω per body) at q."""
        qd = np.zeros(self.system.n)
        qd[self.plain] = u[: len(self.plain)]
        if self.nb:
            p = q[self.pcols]
            qd[self.pcols] = 0.5 * np.einsum("nij,ni->nj", e_matrix(p), self.rot(u))
        return qd

    def global_velocity(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        u = np.empty(self.nz)
        u[: len(self.plain)] = qd[self.plain]
        if self.nb:
            u[len(self.plain) :] = angular_velocity(q[self.pcols], qd[self.pcols]).ravel()
        return u

    def global_acceleration(self, q: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """``(plain q̈, ω̇ = 2E(p)p̈)`` (``E(ṗ)ṗ = 0`` identically)."""
        a = np.empty(self.nz)
        a[: len(self.plain)] = qdd[self.plain]
        if self.nb:
            p = q[self.pcols]
            a[len(self.plain) :] = (
                2.0 * np.einsum("nij,nj->ni", e_matrix(p), qdd[self.pcols])
            ).ravel()
        return a

    def map_matrix(self, q: np.ndarray) -> np.ndarray:
        """``T = ∂q/∂ζ`` at ζ = 0 (n × nz): identity on plain columns, ½E(p)ᵀ on rotations."""
        t = np.zeros((self.system.n, self.nz))
        t[self.plain, np.arange(len(self.plain))] = 1.0
        if self.nb:
            em = e_matrix(q[self.pcols])
            for b in range(self.nb):
                c0 = len(self.plain) + 3 * b
                t[self.pcols[b][:, None], np.arange(c0, c0 + 3)[None, :]] = 0.5 * em[b].T
        return t

    def advance(self, q: np.ndarray, u: np.ndarray, tau: float) -> np.ndarray:
        """The steady motion's positions after τ: plain rates and global spins held."""
        zeta = tau * u
        return self.position(q, zeta)


def quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise Hamilton product ``a ⊗ b`` of ``(n, 4)`` Euler parameters."""
    a0, av = a[:, :1], a[:, 1:]
    b0, bv = b[:, :1], b[:, 1:]
    return np.hstack(
        [a0 * b0 - np.sum(av * bv, axis=1, keepdims=True), a0 * bv + b0 * av + np.cross(av, bv)]
    )


def _null_space(a: np.ndarray, tol: float) -> np.ndarray:
    """Orthonormal basis of the null space of ``a``: rows below ``tol`` of the largest
    row are dropped (e.g. the Euler-parameter norms, which no increment changes), the
    others scaled to unit norm; singular values below ``tol`` of the largest count as 0."""
    if a.size:
        norms = np.linalg.norm(a, axis=1)
        big = norms > tol * norms.max()
        a = a[big] / norms[big, None]
    if a.shape[0] == 0:
        return np.eye(a.shape[1])
    _, s, vt = np.linalg.svd(a)
    rank = int(np.sum(s > tol * s[0])) if s[0] > 0 else 0
    return vt[rank:].T


def _null_space_abs(a: np.ndarray, tol: float) -> np.ndarray:
    """Null space of ``a`` with an absolute singular-value threshold."""
    if a.shape[0] == 0:
        return np.eye(a.shape[1])
    _, s, vt = np.linalg.svd(a)
    s = np.concatenate([s, np.zeros(vt.shape[0] - len(s))])
    return vt[s <= tol].T


def _derivative(f, direction: np.ndarray, h: float) -> np.ndarray:
    """Fourth-order central difference of ``f(ε·direction)`` at ε = 0."""
    f1, fm1 = f(h * direction), f(-h * direction)
    f2, fm2 = f(2.0 * h * direction), f(-2.0 * h * direction)
    return (8.0 * (f1 - fm1) - (f2 - fm2)) / (12.0 * h)


def steady_motion_modes(
    system: MultibodySystem,
    q: np.ndarray | None = None,
    qd: np.ndarray | None = None,
    t: float = 0.0,
    *,
    steady_tolerance: float = 1e-6,
    check_invariance: bool = True,
    tol: float = 1e-12,
    max_iterations: int = 50,
) -> SteadyModes:
    """The modes of the motion linearised about the steady state ``(q, q̇)`` at ``t``
    (default: the model's assembled initial state with consistent velocities).

    Raises ``SimulationError`` when the state is not steady (naming the body and its
    acceleration) or when the linearisation changes along the steady motion.
    """
    if q is None or qd is None:
        from solver.analysis.dynamic import initial_state

        state = initial_state(system, tol, max_iterations)
        q = state.q if q is None else q
        qd = state.qd if qd is None else qd
    q = np.array(q, float)
    qd = np.array(qd, float)
    inc = _Increments(system)
    nz, npl = inc.nz, len(inc.plain)
    u0 = inc.global_velocity(q, qd)
    acc0 = inc.global_acceleration(q, accelerations(system, q, qd, t)[0])
    _check_steady(system, inc, acc0, steady_tolerance, t)

    # scaled state z̃ = S⁻¹ z, z = (ζ, η): translations by L, rotations by 1, rates by 1/τ
    length, time = _scales(system, inc, q, u0)
    sz = np.ones(nz)
    sz[:npl] = length
    scale = np.concatenate([sz, sz / time])

    def state_at(zs, q_ref, u_ref):
        z = scale * zs
        qz = inc.position(q_ref, z[:nz])
        return qz, inc.velocity(qz, u_ref + z[nz:])

    def rates(zs, q_ref, u_ref, t_ref):
        """The rate of the scaled η: the global accelerations over S."""
        qz, qdz = state_at(zs, q_ref, u_ref)
        return inc.global_acceleration(qz, accelerations(system, qz, qdz, t_ref)[0]) / scale[nz:]

    def velocity_rows(zs):
        qz, qdz = state_at(zs, q, u0)
        a, v, _ = all_velocity_rows(system, qz, qdz, t)
        return dense(a) @ qdz - v

    # the tangent space of the constraint manifold {Φ = 0, A q̇ = v}, scaled coordinates
    tmat = inc.map_matrix(q)
    jh = (dense(system.constraints(q, qd, t).phi_q) @ tmat) * sz
    a_rows = dense(all_velocity_rows(system, q, qd, t)[0])
    k_eta = (a_rows @ tmat) * (sz / time)
    eye = np.eye(2 * nz)
    if len(a_rows):
        k_zeta = np.column_stack([_derivative(velocity_rows, eye[i], FD_STEP) for i in range(nz)])
    else:
        k_zeta = np.zeros((0, nz))
    rows = np.vstack([np.hstack([jh, np.zeros_like(jh)]), np.hstack([k_zeta, k_eta]) * time])
    basis = _null_space(rows, RANK_TOLERANCE)
    d = basis.shape[1]
    position_dof = _null_space(jh, RANK_TOLERANCE).shape[1]
    omega = inc.rot(u0)

    def operator(q_ref, u_ref, t_ref):
        """The linearised rates of the scaled (ζ, η) along each tangent basis vector."""
        cols = []
        for v in basis.T:
            dz = v[nz:] / time  # ζ̇ = η, scaled: η̃·(sz/τ)/sz
            if inc.nb:  # δθ̇ = δω + ω* × δθ (rotations are not scaled)
                dz[npl:] += np.cross(omega, v[npl:nz].reshape(inc.nb, 3)).ravel()
            deta = _derivative(lambda e, r=(q_ref, u_ref, t_ref): rates(e, *r), v, FD_STEP)
            cols.append(np.concatenate([dz, deta]))
        return np.column_stack(cols) if cols else np.zeros((2 * nz, 0))

    f_v = operator(q, u0, t)
    a_red = basis.T @ f_v
    residual = float(np.linalg.norm(f_v - basis @ a_red) / max(np.linalg.norm(f_v), 1e-300))

    if check_invariance and d:
        spin = float(np.abs(omega).max()) if inc.nb else 0.0
        tau = 0.5 / spin if spin > 0 else time
        q_tau = inc.advance(q, u0, tau)
        qd_tau = inc.velocity(q_tau, u0)
        acc = inc.global_acceleration(q_tau, accelerations(system, q_tau, qd_tau, t + tau)[0])
        _check_steady(system, inc, acc, steady_tolerance, t + tau, after=tau)
        change = float(
            np.abs(operator(q_tau, u0, t + tau) - f_v).max() / max(np.abs(f_v).max(), 1e-300)
        )
        if change > INVARIANCE_TOLERANCE:
            raise SimulationError(
                t,
                f"the linearised motion is not the same along the steady motion (it changes "
                f"by {change:.2g} relative after {tau:.3g} s): a body spins about an axis that "
                "is not an axis of symmetry of its inertia and joints, so the coefficients "
                "are periodic",
                "linearise about a state whose spinning bodies are symmetric about their spin axes",
            )

    # the neutral part: directions the accelerations never see
    unobservable = _unobservable(a_red, f_v[nz:, :])
    observable = _complement(unobservable, d)
    a_oo = observable.T @ a_red @ observable
    values, vectors = np.linalg.eig(a_oo)
    order = np.lexsort((-np.abs(values.imag), -values.real))
    values, vectors = values[order], vectors[:, order]
    shapes = _shapes(values, vectors, a_red, observable, unobservable, basis, scale, tmat, nz)
    return SteadyModes(
        t,
        q,
        qd,
        values,
        shapes,
        neutral=unobservable.shape[1],
        position_dof=position_dof,
        velocity_dof=d - position_dof,
        invariance_residual=residual,
    )


def _body_of_increment(system: MultibodySystem, inc: _Increments, k: int) -> str:
    """The body that increment ``k`` (of ζ or of the velocity increments) belongs to."""
    col = int(inc.pcols[(k - len(inc.plain)) // 3][0]) if k >= len(inc.plain) else int(inc.plain[k])
    for name, slot in system.slots.items():
        if slot.offset <= col < slot.offset + slot.size:
            return name
    return "?"


def _check_steady(system, inc, acc, tolerance, t, after=None) -> None:
    """Raise ``SimulationError`` naming the body with the largest global acceleration
    when it exceeds ``tolerance``."""
    k = int(np.argmax(np.abs(acc))) if len(acc) else 0
    if not len(acc) or abs(acc[k]) <= tolerance:
        return
    rotation = k >= len(inc.plain)
    kind, unit = ("angular acceleration", "rad/s²") if rotation else ("acceleration", "m/s²")
    when = f" {after:.3g} s along it" if after is not None else ""
    raise SimulationError(
        t,
        f'the state is not a steady motion{when}: body "{_body_of_increment(system, inc, k)}" '
        f"has an {kind} of {abs(acc[k]):.3g} {unit} (a steady motion keeps every velocity "
        "and angular velocity constant)",
        "start from a steady motion (a vehicle running straight at constant speed, a body "
        "spinning about an axis of symmetry), or from rest (every initial velocity zero) "
        "for the modes about the static equilibrium",
    )


def _scales(system, inc, q, u) -> tuple[float, float]:
    """A length L (the spread of the bodies' centres) and a time τ (from gravity, speeds
    and spins) that make the increments comparable."""
    cols = np.concatenate([inc.centres, inc.points])
    length = 0.0
    if len(cols):
        pos = q[cols]
        length = float(np.linalg.norm(pos - pos.mean(axis=0), axis=1).max())
    if length <= 1e-9:
        length = 1.0
    rates = [np.sqrt(np.linalg.norm(system.gravity) / length)]
    if len(cols):
        rates.append(float(np.abs(u[np.searchsorted(inc.plain, cols.ravel())]).max()) / length)
    if inc.nb:
        rates.append(float(np.abs(inc.rot(u)).max()))
    rate = max(rates)
    return length, (1.0 / rate if rate > 1e-12 else 1.0)


def _unobservable(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the largest ``a``-invariant subspace in the kernel of ``c``."""
    scale_a = max(float(np.abs(a).max()), 1e-300) if a.size else 1.0
    n = _null_space(c, RANK_TOLERANCE) if c.size else np.eye(a.shape[0])
    while n.shape[1]:
        leak = a @ n - n @ (n.T @ a @ n)  # the part of a·N outside span N
        keep = _null_space_abs(leak, RANK_TOLERANCE * scale_a)
        if keep.shape[1] == n.shape[1]:
            break
        n = n @ keep
    return n


def _complement(u: np.ndarray, d: int) -> np.ndarray:
    """Orthonormal basis of the orthogonal complement of span ``u`` in R^d."""
    if u.shape[1] == 0:
        return np.eye(d)
    full, _ = np.linalg.qr(u, mode="complete")
    return full[:, u.shape[1] :]


def _shapes(values, vectors, a_red, obs, unobs, basis, scale, tmat, nz) -> np.ndarray:
    """δq of each mode (complex, largest entry 1): the observable eigenvector completed
    with its neutral part."""
    out = []
    a_uu = unobs.T @ a_red @ unobs
    a_uo = unobs.T @ a_red @ obs
    for lam, y in zip(values, vectors.T, strict=True):
        x = obs @ y
        if unobs.shape[1]:
            lhs = lam * np.eye(unobs.shape[1]) - a_uu
            part, *_ = np.linalg.lstsq(lhs, a_uo @ y, rcond=1e-10)
            x = x + unobs @ part
        dq = tmat @ (scale * (basis @ x))[:nz]
        k = int(np.abs(dq).argmax()) if len(dq) else 0
        out.append(dq / dq[k] if len(dq) and abs(dq[k]) > 0 else dq)
    return np.column_stack(out) if out else np.zeros((tmat.shape[0], 0), complex)
