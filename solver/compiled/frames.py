"""The time loop's frames from a compiled stepper, when the model and formulation allow.

``compiled_stepper(system, settings, formulation)`` returns a stepper for
``central_differences`` (standard DIMCD with Euler parameters) and
``augmented_lagrangian`` on models :func:`solver.compiled.packing.pack` accepts, or
``None`` (the NumPy formulation then runs as before). The environment variable
``BIELA_COMPILED`` chooses (``solver.compiled.warm``): ``0`` off, ``1`` on, unset: on once
the compiled code is cached (a cold cache is warmed in the background meanwhile).

A stepper's ``frames(state, steps)`` takes the state the NumPy formulation's ``start``
returned and yields ``(Frame, k)`` for k = 1…steps, computing ``CHUNK`` steps per
compiled call. When a compiled step fails (no convergence, a singular matrix, non-finite
values) the NumPy formulation takes that step from the same state: it raises the
failure with its own message, or, if it succeeds, the run goes on with it.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.analysis.formulations import DynamicState
from solver.results import Frame

#: steps per compiled call (the frames of a call are yielded one by one)
CHUNK = 64


def compiled_stepper(system, settings, formulation):
    """A compiled stepper for this run, or ``None``."""
    from solver.compiled.warm import is_warm, mode, warm, warm_in_background, warming

    how = mode()
    if how == "off":
        return None
    name = type(formulation).__name__
    if name not in ("CentralDifferences", "AugmentedLagrangian"):
        return None
    from solver.compiled.packing import Packed, pack

    packed = pack(system)
    if not isinstance(packed, Packed):
        return None
    if not (warming() or is_warm()):
        if how == "auto":  # no compiling in a user's run: this one is NumPy's
            warm_in_background()
            return None
        warm()  # "on": compile here, from fresh cache files (and mark them)
    if name == "AugmentedLagrangian":
        return CompiledAugmentedLagrangian(system, settings, formulation, packed)
    return CompiledCentralDifferences(system, settings, formulation, packed)


def _own(x) -> np.ndarray:
    """A writable C-contiguous float64 copy (one compiled signature for every call)."""
    return np.array(x, dtype=np.float64, order="C", copy=True)


class _Buffers:
    """One row per step of a chunk: the arrays the compiled loops write."""

    def __init__(self, n: int, m: int = 0) -> None:
        self.lam = np.zeros((CHUNK, m))
        self.t = np.zeros(CHUNK)
        self.q = np.zeros((CHUNK, n))
        self.qd = np.zeros((CHUNK, n))
        self.qdd = np.zeros((CHUNK, n))
        self.its = np.zeros(CHUNK, np.int64)
        self.kinetic = np.zeros(CHUNK)
        self.potential = np.zeros(CHUNK)
        self.phi = np.zeros(CHUNK)
        self.phiv = np.zeros(CHUNK)

    def arrays(self) -> tuple:
        return (
            self.t,
            self.q,
            self.qd,
            self.qdd,
            self.its,
            self.kinetic,
            self.potential,
            self.phi,
            self.phiv,
        )

    def frame(self, i: int) -> Frame:
        return Frame(
            t=float(self.t[i]),
            q=self.q[i],  # views: every chunk has buffers of its own
            qd=self.qd[i],
            kinetic=float(self.kinetic[i]),
            potential=float(self.potential[i]),
            elastic=0.0,
            work=0.0,  # gravity only: no force does work outside the potential
            constraint_position=float(self.phi[i]),
            constraint_velocity=float(self.phiv[i]),
            iterations=int(self.its[i]),
            qdd=self.qdd[i],
        )


class _CompiledStepper:
    """What both compiled steppers share: the run and, after a failed compiled step, the
    NumPy time loop from the last state."""

    def __init__(self, system, settings, formulation, packed) -> None:
        self.system = system
        self.settings = settings
        self.formulation = formulation
        self.packed = packed

    def _numpy_rest(self, state: DynamicState, k: int, steps: int):
        """Steps k+1…steps by the NumPy formulation from ``state`` (the state of step k)."""
        from solver.analysis.dynamic import numpy_frames

        yield from numpy_frames(
            self.system, self.settings, self.formulation, state, k, steps, first=False
        )


class CompiledCentralDifferences(_CompiledStepper):
    """``CentralDifferences.step`` compiled (see ``solver.compiled.central_differences``)."""

    def frames(self, state: DynamicState, steps: int) -> Iterator[tuple[Frame, int]]:
        from solver.compiled.central_differences import OK, cd_steps

        f, P = self.formulation, self.packed
        h = self.settings.dt
        n, m = P.n, P.m
        extra = state.extra
        t, qm, q = float(state.t), _own(state.q), _own(extra["q_next"])
        qp = extra.get("q_prev")
        have_qp = qp is not None
        qp = np.zeros(n) if qp is None else _own(qp)
        svd = extra.get("svd_next")
        have_svd = svd is not None
        su, ss, svt = (
            tuple(_own(x) for x in svd)
            if have_svd
            else (np.zeros((m, m)), np.zeros(min(m, n)), np.eye(n))
        )
        k = 0
        last = state
        while k < steps:
            todo = min(CHUNK, steps - k)
            buf = _Buffers(n)
            status, done, t, qm, q, qp, have_qp, su, ss, svt, have_svd, _, _ = cd_steps(
                P,
                h,
                f.rtol,
                f.predictor == "quadratic",
                f.tolerance,
                f.max_iterations,
                t,
                qm,
                q,
                qp,
                have_qp,
                su,
                ss,
                svt,
                have_svd,
                todo,
                buf.arrays(),
            )
            for i in range(done):
                k += 1
                frame = buf.frame(i)
                yield frame, k
            if done:
                last = DynamicState(t, qm, buf.qd[done - 1].copy(), buf.qdd[done - 1].copy())
            if status != OK:  # the NumPy step from the same look-ahead: its error or its result
                look = DynamicState(
                    t,
                    qm.copy(),
                    last.qd,
                    last.qdd,
                    None,
                    0,
                    {
                        "q_next": q.copy(),
                        "q_prev": qp.copy() if have_qp else None,
                        "h": h,
                        "svd_next": (su, ss, svt) if have_svd else None,
                    },
                )
                yield from self._numpy_rest(look, k, steps)
                return


class CompiledAugmentedLagrangian(_CompiledStepper):
    """``AugmentedLagrangian.step`` compiled (see ``solver.compiled.augmented_lagrangian``)."""

    def frames(self, state: DynamicState, steps: int) -> Iterator[tuple[Frame, int]]:
        from solver.compiled import augmented_lagrangian as cal

        f, P = self.formulation, self.packed
        h = self.settings.dt
        n, m = P.n, P.m
        sch, pen = cal.parameters(f.params)
        t = float(state.t)
        q, qd = _own(state.q), _own(state.qd)
        qdd = _own(state.qdd) if state.qdd is not None else np.zeros(n)
        a = _own(state.extra.get("a", qdd))
        lam = _own(state.lam) if state.lam is not None else np.zeros(m)
        lam_star = state.extra.get("lam_star", state.lam)
        lam_star = np.zeros(m) if lam_star is None else _own(lam_star[:m])
        k = 0
        while k < steps:
            todo = min(CHUNK, steps - k)
            buf = _Buffers(n, m)
            status, done, t_fail, _, _ = cal.al_steps(
                P,
                sch,
                pen,
                float(f.m_ref),
                float(f.tolerance),
                int(f.max_iterations),
                h,
                t,
                q,
                qd,
                qdd,
                a,
                lam_star,
                lam,
                todo,
                buf.t,
                buf.q,
                buf.qd,
                buf.qdd,
                buf.lam,
                buf.its,
                buf.phi,
                buf.phiv,
                buf.kinetic,
                buf.potential,
            )
            for i in range(done):
                k += 1
                yield buf.frame(i), k
            if done:
                t = float(buf.t[done - 1])
            if status != cal.STATUS_OK:  # the NumPy step from the same state
                last = DynamicState(
                    t, q.copy(), qd.copy(), qdd.copy(), lam.copy(), 0,
                    {"a": a.copy(), "lam_star": lam_star.copy()},
                )  # fmt: skip
                yield from self._numpy_rest(last, k, steps)
                return
