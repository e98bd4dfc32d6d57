"""The compiled Runge–Kutta integrator of ``lagrange_baumgarte`` (RK45, RK23, DOP853).

:class:`CompiledRungeKutta` keeps the integrator's state between the formulation's output
steps and advances it with :func:`solver.compiled.lagrange_baumgarte.rk_advance`: the
explicit embedded pair (Dormand–Prince 5(4) for ``RK45``, Bogacki–Shampine 3(2) for
``RK23``, Dormand–Prince 8(5,3) for ``DOP853``; the tableaux and continuous extensions
SciPy defines for its integrators of those names), its standard step size control and its
dense output, on the compiled accelerations; :meth:`CompiledRungeKutta.evaluate` gives
those accelerations alone.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from solver.analysis.compiled_steps import CHUNK, RCOND, _CompiledStepper, saddle_layout
from solver.analysis.formulations import DynamicState


def tableau(integrator: str):
    """The ``RKTableau`` of SciPy's explicit integrator ``integrator`` (``RK45``, ``RK23``,
    ``DOP853``), read from SciPy once per SciPy version and then from a file beside the
    compiled kernels' markers (``solver.kernels.cache.marker_dir``): importing
    ``scipy.integrate`` takes 0.2–0.5 s, more than the rest of a short run's start-up."""
    from solver.compiled.lagrange_baumgarte import RKTableau
    from solver.kernels.cache import marker_dir, package_version

    try:
        path = marker_dir() / f"biela-tableau-{integrator}-{package_version('scipy')}.npz"
    except OSError:
        return _from_scipy(integrator)
    try:
        with np.load(path, allow_pickle=False) as kept:
            return RKTableau(*(kept[name] for name in RKTableau._fields[:-1]), int(kept["order"]))
    except (OSError, ValueError, KeyError):  # none yet, or unreadable: SciPy's, kept
        tab = _from_scipy(integrator)
        with contextlib.suppress(OSError):
            part = path.with_suffix(f".{os.getpid()}.npz")
            np.savez(part, **tab._asdict())
            os.replace(part, path)
        return tab


def _from_scipy(integrator: str):
    """The ``RKTableau`` of SciPy's integrator class ``integrator``."""
    from scipy.integrate import DOP853, RK23, RK45

    from solver.compiled.lagrange_baumgarte import RKTableau

    cls = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}[integrator]

    def own(x):
        return np.array(x, dtype=np.float64, order="C", copy=True)

    s = len(cls.B)
    extra = cls is DOP853  # its dense output's three extra stages
    rows = s + 1 + (len(cls.C_EXTRA) if extra else 0)
    a, c = np.zeros((rows, rows)), np.zeros(rows)
    a[:s, : np.shape(cls.A)[1]] = cls.A
    c[:s], c[s] = cls.C, 1.0
    if extra:
        a[s + 1 :, : np.shape(cls.A_EXTRA)[1]] = cls.A_EXTRA
        c[s + 1 :] = cls.C_EXTRA
    none = np.zeros((0, 0))
    return RKTableau(
        own(a), own(cls.B), own(c), own(cls.E5 if extra else cls.E),
        own(cls.E3 if extra else np.zeros(0)), none if extra else own(cls.P),
        own(cls.D) if extra else none, int(cls.error_estimator_order),
    )  # fmt: skip


class CompiledRungeKutta:
    """The integrator of ``y = [q, q̇(, W)]`` for one run, and its accelerations:
    ``start(t, y)``, then ``advance(target)``; ``state``
    (``solver.compiled.lagrange_baumgarte.RKState``: ``y``, its derivative ``f``, the
    ``clock``, the last step's stages) holds the last accepted step's, ``out``
    (``RKOutput``) the state at the last target. :meth:`evaluate` works on a state of
    its own."""

    def __init__(self, system, tab, cfg) -> None:
        """``tab`` from :func:`tableau`, ``cfg`` the ``RKSettings`` of the run (its
        ``rcond`` replaced by the saddle-point solve's)."""
        from solver.compiled.lagrange_baumgarte import CLOCK, H_ABS, RKOutput, RKState

        self.system, self.tab = system, tab
        self.layout = saddle_layout(system)
        self.cfg = cfg._replace(rcond=RCOND)
        self.clock = np.zeros(CLOCK)
        self.state = None
        n, m = system.n, system.m + system.m_nh
        ny = 2 * n + (1 if cfg.work else 0)
        self.out = RKOutput(np.zeros((1, ny)), np.zeros((1, n)), np.zeros((1, m)), np.zeros(1))
        self.target = np.zeros(1)
        y, clock = np.zeros(ny), np.zeros(CLOCK)
        clock[H_ABS] = 1.0  # (started: no step size to estimate)
        self._scratch = RKState(y, y.copy(), clock, np.zeros((1, ny)), y.copy())

    @property
    def y(self) -> np.ndarray:
        return self.state.y

    def start(self, t: float, y: np.ndarray) -> None:
        """From ``(t, y)``: the next :meth:`advance` starts the integrator there."""
        from solver.compiled.lagrange_baumgarte import RKState, T

        y = np.array(y, dtype=np.float64, order="C", copy=True)
        k = np.zeros((self.tab.a.shape[0], y.size))
        self.state = RKState(y, np.zeros_like(y), self.clock, k, y.copy())
        self.clock[:] = 0.0
        self.clock[T] = float(t)

    def evaluate(self, t: float, q: np.ndarray, qd: np.ndarray):
        """``(q̈, λ, P)`` at ``(t, q, q̇)`` (copies), without a step: the state at an output
        time that is its own. An ANCF sliding joint off its beam there is the run's
        ``SimulationError`` (``MultibodySystem.check_blocks``)."""
        from solver.compiled.lagrange_baumgarte import T, rk_advance

        s, st, out = self.system, self._scratch, self.out
        if s.blocks:
            s.check_blocks(q, t)
        st.y[: s.n] = q
        st.y[s.n : 2 * s.n] = qd
        st.clock[T] = t
        self.target[0] = t
        rk_advance(s.arrays, s.patterns, self.layout, self.tab, self.cfg, st, self.target, out)
        return out.qdd[0].copy(), out.lam[0].copy(), float(out.power[0])

    def advance(self, target: float) -> tuple[int, int]:
        """``rk_advance`` towards ``target``: ``(status, 1 if the state at target is in
        self.out else 0)``."""
        from solver.compiled.lagrange_baumgarte import rk_advance

        s = self.system
        self.target[0] = target
        status, done = rk_advance(
            s.arrays, s.patterns, self.layout, self.tab, self.cfg, self.state, self.target,
            self.out,
        )  # fmt: skip
        return int(status), int(done)


class CompiledRungeKuttaSteps(_CompiledStepper):
    """The output steps of ``lagrange_baumgarte`` by its compiled integrator: one compiled
    call (``rk_advance``, the states at the steps' end times written; the integrator's own
    steps do not depend on those times) up to each step whose frame
    :meth:`_CompiledStepper.thin` asks for, at most ``CHUNK`` steps, and the frame of that
    step alone (its energies and constraint errors, ``MultibodySystem.frame_values``).

    Where a call stops early (a singular position, a step size below the floating-point
    spacing) or a state is not finite, the formulation takes the next step itself, and
    keeps taking them while it bridges a singular position with the augmented Lagrangian;
    both share the one integrator, so the compiled calls go on from where its steps end.
    Contacts: the calls commit them at every step they accept (onsets, releases and the
    contact work, ``solver.kernels.contact_record``), and stop early only to hand their
    events over (``Contacts.drain``)."""

    def frames(self, state, steps: int):
        from solver.analysis.dynamic import numpy_frames, state_frame
        from solver.analysis.formulations.lagrange_baumgarte import LBCarry
        from solver.compiled.lagrange_baumgarte import (
            STATUS_CONTACT,
            STATUS_OK,
            STATUS_SINGULAR,
            RKOutput,
            rk_advance,
        )

        s, f, h = self.system, self.formulation, self.settings.dt
        n, m = s.n, s.m + s.m_nh
        works = f._power is not None
        contacts = s.force_set.contacts

        def own_steps(last, k: int, end: int, until=None):
            """The formulation's steps k+1… (to ``end``, or to the first state where
            ``until`` holds); returns ``(state, step)`` reached."""
            ended: list = []
            yield from numpy_frames(s, self.settings, f, last, k, end, False, 0.0, ended, until)
            return ended[0], ended[2]

        k, last = 0, state
        while k < steps:
            if f._bridging:  # the formulation's steps until the singular position is passed
                last, k = yield from own_steps(last, k, steps, lambda _: not f._bridging)
                continue
            rk = f._rk
            # up to the next step whose frame is wanted: its energies are evaluated right
            # after the accelerations at its end (a joint torque's angle is unwrapped
            # against the last evaluation, that of the integrator's last right-hand side)
            todo = int(np.argmax(self._wanted(k, min(CHUNK, steps - k), steps))) + 1
            targets = np.empty(todo)
            t = float(last.t)
            for i in range(todo):  # the time loop's own sums: t + h, step by step
                t = t + h
                targets[i] = t
            ny = rk.state.y.shape[0]
            out = RKOutput(
                np.zeros((todo, ny)), np.zeros((todo, n)), np.zeros((todo, m)), np.zeros(todo)
            )
            status, done = rk_advance(
                s.arrays, s.patterns, rk.layout, rk.tab, rk.cfg, rk.state, targets, out
            )
            if len(contacts):  # the onsets and releases the call committed
                contacts.drain()
            finite = np.isfinite(out.y[:done, : 2 * n]).all(axis=1)
            if not finite.all():
                done, status = int(np.argmin(finite)), -1
            if done:
                k += done
                y = out.y[done - 1]
                work = float(y[2 * n]) if works else 0.0
                last = DynamicState(
                    float(targets[done - 1]), y[:n].copy(), y[n : 2 * n].copy(),
                    out.qdd[done - 1].copy(), out.lam[done - 1].copy(), 0,
                    LBCarry(work=work if works else None),
                )  # fmt: skip
                if len(contacts):
                    work += contacts.work(last.t)
                yield state_frame(s, last, s.marker_state(last.q, last.qd), work), k
            if status == STATUS_SINGULAR:  # the next step bridged, as the formulation does
                f._bridging = True
            elif status not in (STATUS_OK, STATUS_CONTACT):  # the formulation's own step
                last, k = yield from own_steps(last, k, k + 1)  # (and its error)
