"""The time loop's frames from a compiled stepper, when the model and formulation allow.

The link between the analysis and the compiled steppers (``solver.compiled``, which import
only the kernels): which stepper a run takes, the formulation's parameters as the
steppers' tuples, their frames, and their status codes as the formulations' errors.

``compiled_stepper(system, settings, formulation)`` returns a stepper for:
``augmented_lagrangian`` on any system whose iteration matrices renumber into a band
(every small system; chains, trees and meshes of any size: :func:`band_layout`),
``central_differences`` (standard DIMCD with Euler parameters) and ``null_space`` (its
Newmark method) on dense ones, the no-slip rows of rolling discs included; else ``None``
(the formulation's own step then runs). With contacts the compiled steps commit their
state at every step (``solver.kernels.contact_record``) and stop after one whose commit
logged an onset or a growth, for the time loop's step check (:meth:`_CompiledStepper.
_committed`).

A stepper's ``frames(state, steps)`` takes the state the NumPy formulation's ``start``
returned and yields ``(Frame, k)`` for k = 1…steps, computing ``CHUNK`` steps per
compiled call. When a compiled step fails (no convergence, a singular matrix, non-finite
values) the time loop takes that step from the same state, its step control retrying it
in substeps (``solver.analysis.step_control``): the augmented Lagrangian with its compiled
step (``_CompiledALSteps``), the others with the NumPy formulation (the central
differences' steps one compiled step at a time until their look-ahead is for Δt again);
the compiled steps then go on. A step that fails even in the smallest substeps raises
the formulation's message.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.analysis.errors import SimulationError
from solver.analysis.formulations import DynamicState
from solver.analysis.formulations.augmented_lagrangian import (
    NEWTON_CONTRACTION,
    NEWTON_DAMPING,
    PENALTY_RATIO_FIRST,
    PENALTY_RATIO_GROWTH,
    PENALTY_RATIO_MAX,
    PROJECTION_PENALTY_RATIO,
    ALCarry,
)
from solver.analysis.formulations.trapezoidal import Newmark, newton_failure
from solver.analysis.kinematic import driver_rows
from solver.compiled.step_record import StepRecord
from solver.results import Frame

#: steps per compiled call (the frames of a call are yielded one by one)
CHUNK = 64
#: pivot ratio below which a saddle-point matrix counts as singular
#: (``solver.analysis.linalg.saddle_solve``'s LU test)
RCOND = 1e-13


def compiled_stepper(system, settings, formulation):
    """A compiled stepper for this run, or ``None`` (a sparse system outside the augmented
    Lagrangian, or one whose band would not pay; ``lagrange_baumgarte`` on SciPy's
    integrator)."""
    name = type(formulation).__name__
    if name == "LagrangeBaumgarte":
        if not formulation._integrates_compiled():
            return None  # SciPy's integrator (an ANCF sliding joint)
        from solver.analysis.compiled_runge_kutta import CompiledRungeKuttaSteps

        return CompiledRungeKuttaSteps(system, settings, formulation)
    if name not in ("CentralDifferences", "AugmentedLagrangian", "NullSpace"):
        return None
    if name == "CentralDifferences" and system.blocks:
        return None  # an ANCF sliding parameter has no mass: its own step (which fails)
    if name == "AugmentedLagrangian":
        layout = band_layout(system)
        if layout is None:
            return None
        return CompiledAugmentedLagrangian(system, settings, formulation, layout)
    if system.sparse:
        return None
    if name == "NullSpace":
        if type(formulation.stepper).__name__ != "NewmarkNullSpace":
            return None  # the R-matrix method
        return CompiledNullSpace(system, settings, formulation)
    if getattr(formulation, "chart", None) is not None:
        return None  # another orientation set (the central-difference family)
    return CompiledCentralDifferences(system, settings, formulation)


def _own(x) -> np.ndarray:
    """A writable C-contiguous float64 copy (one compiled signature for every call)."""
    return np.array(x, dtype=np.float64, order="C", copy=True)


class _CompiledStepper:
    """What both compiled steppers share: the run and, after a failed compiled step, the
    NumPy time loop from the last state."""

    def __init__(self, system, settings, formulation) -> None:
        self.system = system
        self.settings = settings
        self.formulation = formulation
        #: the steps whose frames are wanted: every ``every``-th and every ``sample``-th
        #: (0: none), the last of the run and of each compiled call (:meth:`thin`)
        self.every, self.sample = 1, 0

    def thin(self, every: int, sample: int = 0) -> None:
        """Yield the frames of every ``every``-th step only, and of every ``sample``-th
        (0: none), besides the last step of the run and of each compiled call (the state a
        failure or the NumPy steps go on from); a frame's ``iterations`` then counts those
        of the steps left out before it. ``every = 1``: every step's frame."""
        self.every, self.sample = max(1, int(every)), max(0, int(sample))

    def _wanted(self, k: int, todo: int, steps: int) -> np.ndarray:
        """Which of steps k+1…k+todo (one compiled call's) yield a frame (:meth:`thin`), if
        all of them are taken: a boolean per step. (A call that stops early yields its last
        step's frame too.)"""
        j = np.arange(k + 1, k + todo + 1)
        want = j % self.every == 0
        if self.sample:
            want |= j % self.sample == 0
        want |= j == steps
        want[-1] = True
        return want

    def _frames(self, rows, bq, bqd, bqdd, mod, k: int, want):
        """``(frame, step)`` of the wanted steps of one compiled call's rows (steps k+1…;
        ``want`` from :meth:`_wanted`, and the last row), each frame's ``iterations``
        those of the steps since the last frame."""
        last = len(rows) - 1
        its = 0
        for i, row in enumerate(rows):
            k += 1
            if self.every == 1:
                yield _frame(row, bq[i], bqd[i], bqdd[i], mod), k
                continue
            its += int(row[mod.OUT_ITS])
            if not want[i] and i != last:
                continue
            frame = _frame(row, bq[i], bqd[i], bqdd[i], mod)
            frame.iterations, its = its, 0
            yield frame, k

    def _thinned(self, out, done: int, bq, bqd, bqdd, mod, k: int, want):
        """:meth:`_frames` of the first ``done`` rows of one compiled call's ``out`` (a
        system without contacts): only the rows of wanted frames are read, the iterations
        of the others summed into the next wanted one's at once."""
        if self.every == 1 or not done:
            yield from self._frames(out[:done].tolist(), bq, bqd, bqdd, mod, k, want)
            return
        keep = want[:done].copy()
        keep[done - 1] = True
        at = np.flatnonzero(keep)
        its = np.diff(np.cumsum(out[:done, mod.OUT_ITS])[at], prepend=0.0)
        for i, row, count in zip(at.tolist(), out[at].tolist(), its.tolist(), strict=True):
            frame = _frame(row, bq[i], bqd[i], bqdd[i], mod)
            frame.iterations = int(count)
            yield frame, k + i + 1

    def _chunks(self, mod, steps: int, clock: dict, advance, last_state, resume, retry=None):
        """The frames of ``steps`` steps, run ``CHUNK`` at a time by
        ``advance(todo, out, bq, bqd, bqdd, want) -> (status, done)`` (``mod``'s stepper:
        rows of scalars ``mod.OUT_*`` and the states into the buffers; ``want`` the steps
        whose frames are read, :meth:`_wanted`: a stepper may leave the energies and
        constraint errors of the others out). ``clock`` holds the time,
        work and power reached (``t``, ``work``, ``power``) and the steps done (``k``) for
        the next chunk. A failed
        step is taken by the NumPy formulation from ``last_state()`` (retried in substeps
        there if need be, or by ``retry``, a formulation whose steps are the compiled
        ones); ``resume(state)`` then takes the stepper's state from the state reached,
        and the compiled steps go on after it. The steps commit the contacts themselves
        (:meth:`_committed`)."""
        n = self.system.n
        contacts = self.system.force_set.contacts
        k = 0
        while k < steps:
            clock["k"] = k  # the steps done (the steppers that put their steps on the grid)
            todo = min(CHUNK, steps - k)
            out = np.zeros((todo, mod.N_OUT))
            bq, bqd, bqdd = np.zeros((todo, n)), np.zeros((todo, n)), np.zeros((todo, n))
            want = self._wanted(k, todo, steps)
            status, done = advance(todo, out, bq, bqd, bqdd, want)
            if len(contacts):
                rows = out[:done].tolist()  # Python floats at once, not one scalar at a time
                touch = status == mod.STATUS_CONTACT
                yield from self._committed(mod, rows, bq, bqd, bqdd, k, want, touch)
            else:
                yield from self._thinned(out, done, bq, bqd, bqdd, mod, k, want)
            k += done
            if done:
                clock["t"] = float(out[done - 1, mod.OUT_T])
                clock["work"] = float(out[done - 1, mod.OUT_WORK])
                clock["power"] = float(out[done - 1, mod.OUT_POWER])
            if status not in (mod.STATUS_OK, mod.STATUS_CONTACT):  # the NumPy step from
                clock["k"] = k  # the same state (the step before the one to take)
                k = yield from self._numpy_steps(last_state(), k, clock, resume, retry)

    def _committed(self, mod, rows, bq, bqd, bqdd, k: int, want, touch: bool):
        """The frames of one compiled call's rows (steps k+1…) whose steps committed the
        contacts (their work at each step in ``OUT_CONTACT``, added to the frame's); with
        ``touch`` the last step's commit logged an onset or a growth, whose step check
        (``check_step``: a ``SimulationError`` after the frames before it) comes before
        that step's frame."""
        from solver.mechanics.forces.contact import check_step

        for row in rows:
            row[mod.OUT_WORK] += row[mod.OUT_CONTACT]
        onsets = self.system.force_set.contacts.drain()
        last = len(rows) - 1 if touch else len(rows)
        yield from self._frames(rows[:last], bq, bqd, bqdd, mod, k, want)
        check_step(onsets, self.settings.dt, self.settings.formulation)
        if touch:
            yield from self._frames(
                rows[last:], bq[last:], bqd[last:], bqdd[last:], mod, k + last, want[last:]
            )

    def _numpy_steps(self, state: DynamicState, k: int, clock: dict, resume, retry=None):
        """Step k+1 by the time loop from ``state`` (the state of step k) with the NumPy
        formulation or ``retry`` (its failures retried in substeps); then the compiled
        stepper's state, ``clock`` included, from the state reached. Returns the step
        reached."""
        from solver.analysis.dynamic import numpy_frames

        last: list = []
        yield from numpy_frames(
            self.system, self.settings, retry or self.formulation, state, k, k + 1, False,
            clock["work"], last,
        )  # fmt: skip
        new, work, reached = last
        resume(new)
        clock["t"] = float(new.t)
        clock["work"] = float(work)  # (the steppers' work leaves the contacts' out)
        return reached


class CompiledCentralDifferences(_CompiledStepper):
    """``CentralDifferences.step`` compiled (see ``solver.compiled.central_differences``)."""

    def frames(self, state: DynamicState, steps: int) -> Iterator[tuple[Frame, int]]:
        from solver.analysis.dynamic import numpy_frames
        from solver.analysis.formulations.central_differences import CDLookahead
        from solver.compiled import central_differences as ccd

        s = self.system
        P, pt = s.arrays, s.patterns
        n, m = s.n, s.m
        contacts = s.force_set.contacts
        one = _CompiledCDSteps(self)  # the steps after a failed one
        t = float(state.t)
        look = self.look_ahead(state)
        qd0 = _own(state.qd)
        # (the holonomic rows' multipliers: those of the no-slip rows follow them)
        lam = _own(state.lam[:m]) if state.lam is not None and len(state.lam) >= m else np.zeros(m)
        power = _state_power(s, look[0], qd0, t, lam)
        settings = self.cd_settings(True)
        no_lam, want_all = np.zeros((CHUNK, 0)), np.ones(CHUNK, np.bool_)  # not read
        work = 0.0
        last = state
        k = 0
        h = self.settings.dt

        def free(st: DynamicState) -> bool:
            """The look-ahead is for dt (not that of the last substep of a retried step; a
            chunk's state, without one, has it for dt): the compiled chunks, which commit
            the contacts, can go on."""
            return getattr(st.carry, "h", h) == h

        failed = False  # the last chunk stopped at a failed step: the time loop takes it
        while k < steps:
            if failed or not free(last):  # the time loop's steps
                failed = False
                ended: list = []
                own = isinstance(last.carry, CDLookahead)
                here = last if own else self._look_state(t, look, last.qd, last.qdd)
                yield from numpy_frames(
                    s, self.settings, one, here, k, steps, False, work, ended, free
                )
                last, work, k = ended
                t, qd0 = float(last.t), _own(last.qd)
                look = self.look_ahead(last)
                power = self._power(last)
                continue
            todo = min(CHUNK, steps - k)
            out = np.zeros((todo, ccd.N_OUT))
            bq, bqd, bqdd = np.zeros((todo, n)), np.zeros((todo, n)), np.zeros((todo, n))
            record = StepRecord(out, bq, bqd, bqdd, no_lam, want_all)
            res = ccd.cd_steps(P, pt, settings, t, look, qd0, work, power, todo, record)
            status, done, t, qm, q, qp, have_qp, su, ss, svt, have_svd = res[:11]
            # Numba's SVD returns Fortran-ordered factors: back to C order, or the next chunk
            # would compile cd_steps a second time, for that layout (half a minute)
            su, svt = np.ascontiguousarray(su), np.ascontiguousarray(svt)
            look = (qm, q, qp, have_qp, su, ss, svt, have_svd)
            work, power = float(res[13]), float(res[14])
            want = self._wanted(k, todo, steps)
            touch = len(contacts) > 0 and status == ccd.CONTACT
            if len(contacts):
                rows = out[:done].tolist()
                yield from self._committed(ccd, rows, bq, bqd, bqdd, k, want, touch)
            else:
                yield from self._thinned(out, done, bq, bqd, bqdd, ccd, k, want)
            k += done
            if done:
                qd0 = bqd[done - 1].copy()
                last = DynamicState(t, qm, qd0, bqdd[done - 1].copy())
            if touch:
                continue  # (the events read: the chunks go on)
            if status != ccd.OK:  # the time loop's step from the same look-ahead: the
                # formulation's (its error, or substeps), then the compiled steps again
                last = self._look_state(t, look, last.qd, last.qdd)
                failed = True

    def _look_state(self, t: float, look: tuple, qd, qdd) -> DynamicState:
        """The state at ``t`` with the look-ahead ``look`` (``cd_steps``') as its
        ``CDLookahead``, the velocities ``qd`` and accelerations ``qdd`` there."""
        from solver.analysis.formulations.central_differences import CDLookahead

        qm, q, qp, have_qp, su, ss, svt, have_svd = look
        carry = CDLookahead(
            q_next=q.copy(),
            q_prev=qp.copy() if have_qp else None,
            h=self.settings.dt,
            svd_next=(su, ss, svt) if have_svd else None,
        )
        return DynamicState(t, qm.copy(), qd, qdd, None, 0, carry)

    def _power(self, state: DynamicState) -> float:
        """The power of the force elements and drivers at a state the formulation's time
        loop reached (``PowerMeter``: the drivers' with the state's multipliers or, without
        them, those of its accelerations), where the compiled steps go on."""
        from solver.analysis.power import PowerMeter

        s = self.system
        meter = PowerMeter(s)
        ms = s.marker_state(state.q, state.qd)
        c = s.constraints(state.q, state.qd, state.t, ms) if len(meter.drows) else None
        return float(meter(state, ms, c))

    def cd_settings(self, secant: bool):
        """The run's ``CDSettings`` (``secant``: the steps integrate the work of forces and
        commit the contacts; else the time loop does both)."""
        from solver.compiled import central_differences as ccd

        f, s = self.formulation, self.system
        return ccd.CDSettings(
            self.settings.dt, float(f.rtol), f.predictor == "quadratic", float(f.tolerance),
            int(f.max_iterations), bool(len(s.force_set) > 0 or s.kernel_elements),
            bool(np.any(s.packed.pr_func >= 0)), s.nonconservative and secant,
            secant and len(s.force_set.contacts) > 0,
        )  # fmt: skip

    def look_ahead(self, state: DynamicState) -> tuple:
        """``cd_steps``' look-ahead tuple from a state and its ``CDLookahead``: ``(q_n,
        q_n+1, q_n−1, whether q_n−1 is known, the SVD of Φ_q at q_n+1 (three factors),
        whether it is known)``."""
        n, m = self.system.n, self.system.m
        look = state.carry
        qp, svd = look.q_prev, look.svd_next
        su, ss, svt = (
            tuple(_own(x) for x in svd)
            if svd is not None
            else (np.zeros((m, m)), np.zeros(min(m, n)), np.eye(n))
        )
        qm, q = _own(state.q), _own(look.q_next)
        return (
            qm,
            q,
            np.zeros(n) if qp is None else _own(qp),
            qp is not None,
            su,
            ss,
            svt,
            (svd is not None),
        )


class _CompiledCDSteps:
    """The compiled central-difference step as a formulation's ``step(state, h)``, one
    step per call: the steps the time loop takes one at a time
    (:meth:`CompiledCentralDifferences.frames`: those after a failed step until the
    look-ahead is for Δt again; the time loop commits their contacts).
    A step without a look-ahead for ``h`` (a substep after a failure) or one that fails
    compiled is the NumPy formulation's (which names what failed, and whose failure the
    step control retries in substeps)."""

    adaptive = False

    def __init__(self, stepper: CompiledCentralDifferences) -> None:
        from solver.compiled import central_differences as ccd

        self.mod, self.stepper, self.formulation = ccd, stepper, stepper.formulation
        self.h = stepper.settings.dt
        self.cd = stepper.cd_settings(False)
        n = stepper.system.n
        self.out = np.zeros((1, ccd.N_OUT))
        self.rows = tuple(np.zeros((1, n)) for _ in range(3))
        self.record = StepRecord(self.out, *self.rows, np.zeros((1, 0)), np.ones(1, np.bool_))

    def step(self, state: DynamicState, h: float) -> DynamicState:
        from solver.analysis.formulations.central_differences import CDLookahead

        look = state.carry
        ccd, st = self.mod, self.stepper
        mine = isinstance(look, CDLookahead) and look.q_next is not None and look.h is not None
        mine = mine and abs(look.h - h) <= 1e-12 * h  # (the formulation's test)
        if h != self.h or not mine:  # no look-ahead for h: the formulation's first step
            return self.formulation.step(state, h)
        s = st.system
        res = ccd.cd_steps(
            s.arrays, s.patterns, self.cd, float(state.t), st.look_ahead(state),
            _own(state.qd), 0.0, 0.0, 1, self.record,
        )  # fmt: skip
        status, done, t, qm, q, qp, have_qp, su, ss, svt, have_svd = res[:11]
        if status not in (ccd.OK, ccd.CONTACT) or not done:
            return self.formulation.step(state, h)
        _, bqd, bqdd = self.rows
        su, ss, svt = np.ascontiguousarray(su), ss.copy(), np.ascontiguousarray(svt)
        look = (qm, q, qp, have_qp, su, ss, svt, have_svd)
        new = st._look_state(float(t), look, bqd[0].copy(), bqdd[0].copy())
        new.iterations = int(self.out[0, ccd.OUT_ITS])
        return new


def _state_power(system, q, qd, t: float, lam) -> float:
    """The power (W) of the force elements and drivers at the start of a compiled run or
    where it resumes (what the steppers' ``state_power`` gives at each step's end)."""
    phit = system.constraints(q, qd, t).phi_t
    rows = driver_rows(system)
    power = system.element_power(q, qd, t, contacts=False)  # (contacts keep their own work)
    return power + float(lam[rows] @ phit[rows])


def _frame(row, q, qd, qdd, mod) -> Frame:
    """The frame of a row of a compiled stepper's scalars (a list of floats, columns
    ``mod.OUT_*``); ``q``, ``q̇``, ``q̈`` are views: every chunk has buffers of its own.
    (Positional arguments, in ``Frame``'s field order: one frame per step.)"""
    return Frame(
        row[mod.OUT_T],
        q,
        qd,
        row[mod.OUT_KIN],
        row[mod.OUT_POT],
        row[mod.OUT_ELA],
        row[mod.OUT_WORK],
        row[mod.OUT_PHI],
        row[mod.OUT_PHIV],
        int(row[mod.OUT_ITS]),
        qdd,
    )


def band_layout(system):
    """The band layout of the system's iteration matrices and its rows ``J = [Φ_q; B]``,
    ``(Band, Rows)`` of :func:`band_and_rows`, or ``None`` for a sparse system whose band
    would not pay (a general sparse LU serves it better); small (dense) systems always get
    one.

    An ANCF sliding joint's entries span its whole beam (its element changes during the
    run), of which only the element it is on holds values: the renumbering follows the
    entries that hold values at the start (``_entries_at_start``), which keeps the
    factorisations' fill, and so their work, to that of one element; the band holds them
    all."""
    pt = system.packed_patterns
    start = _entries_at_start(system) if system.blocks else None
    no_slip = None
    if system.m_nh:  # B, ∂(Bᵀμ)/∂q, ∂(B q̇)/∂q
        no_slip = tuple((p.rows, p.cols) for p in system.no_slip_patterns)
    return band_and_rows(
        pt, system.n, system.m, always=not system.sparse, order=start, no_slip=no_slip
    )


def _entries_at_start(system):
    """``system``'s patterns without the entries of ``Φ_q`` and ``∂(Φ_qᵀλ)/∂q`` (``λ = 1``)
    that are zero at ``(q0, q̇0)``."""
    from solver.kernels import system as ks
    from solver.kernels.jit import NO

    pt, P = system.packed_patterns, system.arrays
    q0, qd0 = _own(system.q0), _own(system.qd0)
    mk = system.markers.evaluate(q0, qd0).arrays
    jv = ks.constraint_evaluation(P, mk, q0, qd0, 0.0, ks.VALUES, len(pt.phi_r))[5]
    ones = np.ones(system.m)
    hv = ks.second_order_evaluation(P, mk, q0, qd0, 0.0, ones, NO, ks.VALUES, len(pt.hk_r), 0)[2]
    phi, hk = jv != 0.0, hv != 0.0
    return pt._replace(phi_r=pt.phi_r[phi], phi_c=pt.phi_c[phi], hk_r=pt.hk_r[hk], hk_c=pt.hk_c[hk])


def _union(pt, m: int):
    """The entries ``(rows, cols)`` of the matrices of ``pt`` and of ``Φ_qᵀΦ_q`` (the
    columns met in one row of Φ_q, pairwise), and ``(entry lists, Φ_q's rows: ptr,
    order)``."""
    phi_r = np.asarray(pt.phi_r, np.int64)
    phi_c = np.asarray(pt.phi_c, np.int64)
    order = np.argsort(phi_r, kind="stable").astype(np.int64)
    ptr = np.searchsorted(phi_r[order], np.arange(m + 1)).astype(np.int64)
    # the column pairs of each row of Φ_q: entry e of a row of k entries is paired with
    # the k entries of its row
    c = phi_c[order]
    count = np.diff(ptr)
    per = np.repeat(count, count)  # the length of each entry's row
    gram_r = np.repeat(c, per)
    start = np.repeat(np.repeat(ptr[:-1], count), per)
    gram_c = c[start + np.arange(len(gram_r)) - np.repeat(np.cumsum(per) - per, per)]
    lists = [(pt.mass_r, pt.mass_c), (pt.fk_r, pt.fk_c), (pt.fc_r, pt.fc_c)]
    lists += [(pt.hk_r, pt.hk_c), (pt.rb_r, pt.rb_c)]
    lists = [(np.asarray(r, np.int64), np.asarray(c, np.int64)) for r, c in lists]
    rows = np.concatenate([r for r, _ in lists] + [gram_r]).astype(np.int64)
    cols = np.concatenate([c for _, c in lists] + [gram_c]).astype(np.int64)
    return rows, cols, lists, ptr, order


def band_of_patterns(pt, n: int, m: int, always: bool = True, order=None):
    """:func:`band_and_rows`' band layout alone, for systems without no-slip rows."""
    out = band_and_rows(pt, n, m, always, order)
    return None if out is None else out[0]


def band_and_rows(pt, n: int, m: int, always: bool = True, order=None, no_slip=None):
    """The reverse Cuthill–McKee band layout of the union of the patterns ``pt``
    (``solver.kernels.system.Patterns``) of ``M``, ``∂Q/∂q``, ``∂Q/∂q̇``,
    ``∂(Φ_qᵀλ)/∂q``, ``∂(M a)/∂q`` and ``JᵀJ`` (``n`` coordinates, ``m`` rows of Φ_q), with
    the storage index of every entry; ``None`` when the band would not pay, unless
    ``always``. ``order``: other patterns (a part of ``pt``'s) to take the renumbering from;
    the band is still wide enough for every entry of ``pt``. ``no_slip``: the patterns
    ``(rows, cols)`` of the no-slip rows' ``B``, ``∂(Bᵀμ)/∂q`` and ``D = ∂(B q̇)/∂q``
    (``MultibodySystem.no_slip_patterns``), whose rows J stacks under Φ_q's and whose
    ``∂(Bᵀμ)/∂q`` and ``BᵀD`` the band holds too; ``None`` without rolling discs.
    Returns ``(Band, Rows)`` (``solver.compiled.band``) or ``None``."""
    from solver.analysis.banded import BandLayout
    from solver.compiled.band import Band, Rows

    i0 = np.zeros(0, np.int64)
    (b_r, b_c), (k_r, k_c), (d_r, d_c) = no_slip or ((i0, i0), (i0, i0), (i0, i0))
    b_r, b_c, k_r, k_c, d_r, d_c = (np.asarray(x, np.int64) for x in (b_r, b_c, k_r, k_c, d_r, d_c))
    nh = int(b_r.max()) + 1 if len(b_r) else 0
    if np.any(np.diff(b_r) < 0) or np.any(np.diff(d_r) < 0):
        raise ValueError("the no-slip rows' entries must come row by row")
    b_ptr = np.searchsorted(b_r, np.arange(nh + 1)).astype(np.int64)
    d_ptr = np.searchsorted(d_r, np.arange(nh + 1)).astype(np.int64)
    pairs = [
        (np.repeat(b_c[b_ptr[k] : b_ptr[k + 1]], d_ptr[k + 1] - d_ptr[k]),
         np.tile(d_c[d_ptr[k] : d_ptr[k + 1]], b_ptr[k + 1] - b_ptr[k]))
        for k in range(nh)
    ]  # fmt: skip
    bd_r = np.concatenate([r for r, _ in pairs] + [i0]).astype(np.int64)
    bd_c = np.concatenate([c for _, c in pairs] + [i0]).astype(np.int64)
    j_r = np.concatenate([np.asarray(pt.phi_r, np.int64), b_r + m])
    j_c = np.concatenate([np.asarray(pt.phi_c, np.int64), b_c])
    stacked = pt._replace(phi_r=j_r, phi_c=j_c)
    rows, cols, lists, ptr, order_phi = _union(stacked, m + nh)
    rows = np.concatenate([rows, k_r, bd_r])
    cols = np.concatenate([cols, k_c, bd_c])
    perm = None
    if order is not None:
        perm = BandLayout.build(*_union(order, m)[:2], n, always=True).perm
    layout = BandLayout.build(rows, cols, n, always=always, perm=perm)
    if layout is None:
        return None
    slots = [layout.slots(r, c).astype(np.int64) for r, c in lists]
    ic = layout.inv[j_c].astype(np.int64)
    nk_s = layout.slots(k_r, k_c).astype(np.int64)
    bd_s = layout.slots(bd_r, bd_c).astype(np.int64)
    band = Band(layout.perm, layout.b, layout.ldab, *slots, ic, ptr, order_phi)
    return band, Rows(j_r, j_c, nk_s, bd_s, b_ptr, d_ptr)


def _al_state(state: DynamicState, n: int, m: int, nh: int = 0):
    """The compiled augmented Lagrangian's state arrays from a ``DynamicState`` (its own
    copies): ``q, q̇, q̈, a, λ, λ*`` and the predictor's flag (one boolean in an array); with
    ``nh`` no-slip rows λ and λ* hold those of ``[Φ_q; B]``, ``[λ; μ]`` (the formulation's
    ``mu_star`` after its ``lam_star``)."""
    q, qd = _own(state.q), _own(state.qd)
    qdd = _own(state.qdd) if state.qdd is not None else np.zeros(n)
    carry = state.carry if isinstance(state.carry, ALCarry) else ALCarry()
    a = _own(qdd if carry.a is None else carry.a)
    lam = np.zeros(m + nh)
    if state.lam is not None and len(state.lam) == m + nh:
        lam[:] = state.lam
    star = state.lam if carry.lam_star is None else carry.lam_star
    lam_star = np.zeros(m + nh)
    if star is not None and len(star) >= m:
        lam_star[:m] = star[:m]
    if nh:  # the formulation's own rule for μ*
        mu = carry.mu_star
        if mu is None and state.lam is not None:
            mu = state.lam[m:]
        if mu is not None and len(mu) == nh:
            lam_star[m:] = mu
    extrap = np.array([bool(carry.extrapolate)])  # the predictor
    return q, qd, qdd, a, lam, lam_star, extrap


def _al_carry(a, lam_star, m: int, extrapolate: bool) -> ALCarry:
    """The formulation's ``ALCarry`` of the compiled state (λ* split into ``[λ*; μ*]``)."""
    mu = lam_star[m:].copy() if len(lam_star) > m else None
    return ALCarry(a=a, lam_star=lam_star[:m].copy(), mu_star=mu, extrapolate=extrapolate)


class CompiledAugmentedLagrangian(_CompiledStepper):
    """``AugmentedLagrangian.step`` compiled (see ``solver.compiled.augmented_lagrangian``),
    its matrices in the band ``layout`` (:func:`band_layout`)."""

    def __init__(self, system, settings, formulation, layout) -> None:
        super().__init__(system, settings, formulation)
        self.layout = layout

    def frames(self, state: DynamicState, steps: int) -> Iterator[tuple[Frame, int]]:
        from solver.compiled import augmented_lagrangian as cal

        f, s = self.formulation, self.system
        P, pt = s.arrays, s.patterns
        h = self.settings.dt
        n, m, nh = s.n, s.m, s.m_nh
        sch, pen = al_parameters(f.params)
        t = start = float(state.t)  # step k ends at start + k h (al_steps)
        q, qd, qdd, a, lam, lam_star, extrap = _al_state(state, n, m, nh)
        clock = {"t": t, "work": 0.0, "power": _state_power(s, q, qd, t, lam[:m])}
        # the chunks commit the contacts (a retried step's: the time loop, _CompiledALSteps)
        settings = cal.ALSettings(
            sch, pen, float(f.m_ref), float(f.tolerance), int(f.max_iterations), h,
            s.nonconservative, False, len(s.force_set.contacts) > 0,
        )  # fmt: skip
        arrays = cal.ALArrays(q, qd, qdd, a, lam_star, lam, extrap)

        retry = _CompiledALSteps(self, sch, pen)

        def advance(todo, out, bq, bqd, bqdd, want):
            status, done, t1, it, err = cal.al_steps(
                P, pt, self.layout, settings, start, clock["k"], todo, clock["work"],
                clock["power"], arrays,
                StepRecord(out, bq, bqd, bqdd, np.zeros((todo, m + nh)), want),
            )  # fmt: skip
            if status == cal.STATUS_NEWTON:  # the same step would fail again: not retried whole
                retry.failed = (
                    float(t1),
                    h,
                    al_failure(int(status), float(t1), h, int(it), float(err)),
                )
            return status, done

        def last_state():
            retry.end = start + (clock["k"] + 1) * h  # the step to take ends on the grid
            carry = _al_carry(a.copy(), lam_star, m, bool(extrap[0]))
            return DynamicState(clock["t"], q.copy(), qd.copy(), qdd.copy(), lam.copy(), 0, carry)

        def resume(state: DynamicState) -> None:
            mine = (q, qd, qdd, a, lam, lam_star, extrap)  # the arrays al_steps overwrites
            for own, new in zip(mine, _al_state(state, n, m, nh), strict=True):
                own[:] = new
            t1 = float(state.t)
            clock["power"] = _state_power(s, q, qd, t1, lam[:m])

        yield from self._chunks(cal, steps, clock, advance, last_state, resume, retry)


class _CompiledALSteps:
    """The compiled augmented-Lagrangian step as a formulation's ``step(state, h)`` (what
    the time loop's step control calls, with substeps after a failure); a step that fails
    otherwise than by the Newton iteration is the NumPy formulation's, which names the
    item that failed."""

    adaptive = False

    def __init__(self, stepper: CompiledAugmentedLagrangian, sch, pen) -> None:
        self.stepper, self.sch, self.pen = stepper, sch, pen
        #: ``(t, h, error)``: the step of size h to ``t`` whose Newton iteration the stepper
        #: has just seen fail (the step control's first try of it fails at once)
        self.failed = None
        #: the time on the stepper's grid where the step being taken ends: its last
        #: substep ends there exactly, as the stepper's steps do (not at the sum of the
        #: substeps, which may differ by rounding)
        self.end = None

    def step(self, state: DynamicState, h: float) -> DynamicState:
        from solver.compiled import augmented_lagrangian as cal

        if self.failed is not None:
            t1, h1, error = self.failed
            self.failed = None
            if h == h1 and abs(float(state.t) + h - t1) <= 1e-9 * h:
                raise error

        st = self.stepper
        f, s = st.formulation, st.system
        n, m, nh = s.n, s.m, s.m_nh
        q, qd, qdd, a, lam, lam_star, extrap = _al_state(state, n, m, nh)
        out = np.zeros((1, cal.N_OUT))
        z = np.zeros((1, n))
        t0, k0 = float(state.t), 0
        last = self.end is not None and abs(t0 + h - self.end) <= 1e-9 * h
        if last:
            t0, k0 = self.end, -1  # al_steps' step then ends at t0 + (k0 + 1) h = end
        settings = cal.ALSettings(
            self.sch, self.pen, float(f.m_ref), float(f.tolerance), int(f.max_iterations),
            float(h), False, False, False,
        )  # fmt: skip
        record = StepRecord(out, z, z.copy(), z.copy(), np.zeros((1, m + nh)), np.ones(1, np.bool_))
        arrays = cal.ALArrays(q, qd, qdd, a, lam_star, lam, extrap)
        status, _, t1, it, err = cal.al_steps(
            s.arrays, s.patterns, st.layout, settings, t0, k0, 1, 0.0, 0.0, arrays, record
        )
        if status == cal.STATUS_NEWTON:
            raise al_failure(int(status), float(t1), float(h), int(it), float(err))
        # a failed step is the NumPy step's, which names what failed (a slider's joint); a
        # step that ends with a contact in touch has not failed (the time loop commits it)
        if status not in (cal.STATUS_OK, cal.STATUS_CONTACT):
            if last:  # from a time that ends it on the grid too
                state = DynamicState(
                    _start_before(self.end, h), state.q, state.qd, state.qdd, state.lam,
                    state.iterations, state.carry,
                )  # fmt: skip
            return f.step(state, h)
        carry = _al_carry(a, lam_star, m, bool(extrap[0]))
        t = float(out[0, cal.OUT_T])
        return DynamicState(t, q, qd, qdd, lam, int(out[0, cal.OUT_ITS]), carry)


def _start_before(end: float, h: float) -> float:
    """A time ``t`` with ``t + h == end`` in floating point (``end − h`` or a neighbour)."""
    t = end - h
    for _ in range(4):
        if t + h == end:
            break
        t = float(np.nextafter(t, np.inf if t + h < end else -np.inf))
    return t


class CompiledNullSpace(_CompiledStepper):
    """``NewmarkNullSpace.step`` compiled (see ``solver.compiled.null_space``)."""

    def frames(self, state: DynamicState, steps: int) -> Iterator[tuple[Frame, int]]:
        clock, advance, last_state, resume = self.run_from(state)
        from solver.compiled import null_space as cns

        # with contacts a failed step is retried compiled first (without: the formulation)
        retry = _CompiledNSSteps(self, state) if len(self.system.force_set.contacts) else None
        yield from self._chunks(cns, steps, clock, advance, last_state, resume, retry)

    def run_from(self, state: DynamicState, secant: bool = True):
        """``(clock, advance, last_state, resume)`` of :meth:`_CompiledStepper._chunks` for
        a run from ``state`` (``secant``: the steps integrate the work of forces and commit
        the contacts; else the time loop does both)."""
        from solver.analysis.formulations.null_space_newmark import CONDITION_FLOOR
        from solver.compiled import null_space as cns

        stepper, s = self.formulation.stepper, self.system
        P, pt = s.arrays, s.patterns
        h = self.settings.dt
        n, m = s.n, s.m
        coef = tuple(float(c) for c in stepper.scheme.coefficients(h))
        w = np.ones(n) if stepper.weights is None else _own(stepper.weights)
        t = float(state.t)
        q, qd = _own(state.q), _own(state.qd)
        qdd = _own(state.qdd) if state.qdd is not None else np.zeros(n)
        lam = _own(state.lam[:m]) if state.lam is not None else np.zeros(m)
        rank = int(stepper.rank_at(q, t))
        clock = {"t": t, "work": 0.0, "power": _state_power(s, q, qd, t, lam)}
        settings = cns.NSSettings(
            coef, w, float(CONDITION_FLOOR), float(stepper.tol), int(stepper.max_iterations), h,
            s.nonconservative and secant, bool(np.any(s.packed.pr_func >= 0)),
            secant and len(s.force_set.contacts) > 0,
        )  # fmt: skip
        ranks = [rank]  # the rank reached, for the next chunk
        past, memo = np.zeros((4, n)), np.zeros(2, np.int64)  # the predictor's, carried over
        arrays = cns.NSArrays(q, qd, qdd, lam, past, memo)
        no_lam = np.zeros((CHUNK, 0))

        def advance(todo, out, bq, bqd, bqdd, want):
            record = StepRecord(out, bq, bqd, bqdd, no_lam, want)
            status, done, _, _, _, ranks[0] = cns.ns_steps(
                P, pt, settings, clock["t"], todo, clock["work"], clock["power"], ranks[0],
                arrays, record,
            )  # fmt: skip
            return status, done

        def last_state():
            stepper._rank = (q.copy(), int(ranks[0]))
            return DynamicState(clock["t"], q.copy(), qd.copy(), qdd.copy(), lam.copy(), 0)

        def resume(state: DynamicState) -> None:
            """The compiled steps go on from the state the NumPy step reached (the
            predictor's history starts again; the rank is the one that step found)."""
            t1 = float(state.t)
            q[:], qd[:] = state.q, state.qd
            qdd[:] = 0.0 if state.qdd is None else state.qdd
            lam[:] = 0.0 if state.lam is None else state.lam[:m]
            ranks[0] = int(stepper.rank_at(q, t1))
            past[:] = 0.0
            memo[:] = 0
            clock["power"] = _state_power(s, q, qd, t1, lam)
            clock["t"] = t1

        return clock, advance, last_state, resume


class _CompiledNSSteps:
    """The compiled null-space step as a formulation's ``step(state, h)``, one step per
    call: the step of a system with contacts that the time loop takes after a failed one
    (:meth:`_CompiledStepper._chunks`; the time loop commits its contacts). A step of
    another size (a substep after a failure) or one that fails compiled is the NumPy formulation's (which
    names what failed, and whose failure the step control retries in substeps); the
    compiled steps go on from the state it reached."""

    adaptive = False

    def __init__(self, stepper: CompiledNullSpace, state: DynamicState) -> None:
        from solver.compiled import null_space as cns

        self.mod, self.formulation = cns, stepper.formulation
        self.h = stepper.settings.dt
        self.clock, self.advance, self.last_state, self.resume = stepper.run_from(state, False)
        self.last = state  # the state the compiled arrays hold
        n = stepper.system.n
        self.out = np.zeros((1, cns.N_OUT))
        self.rows = (np.zeros((1, n)), np.zeros((1, n)), np.zeros((1, n)), np.ones(1, bool))

    def step(self, state: DynamicState, h: float) -> DynamicState:
        if h != self.h:
            return self.formulation.step(state, h)
        if state is not self.last:
            self.resume(state)
        self.clock["work"] = self.clock["power"] = 0.0  # the time loop keeps the work
        status, done = self.advance(1, self.out, *self.rows)
        if status not in (self.mod.STATUS_OK, self.mod.STATUS_CONTACT) or not done:
            return self.formulation.step(state, h)
        self.clock["t"] = float(self.out[0, self.mod.OUT_T])
        self.last = self.last_state()
        self.last.iterations = int(self.out[0, self.mod.OUT_ITS])
        return self.last


def saddle_layout(system):
    """The storage layout ``[b, perm, slots, dense]`` of the saddle-point matrix ``[[M, Φ_qᵀ,
    Bᵀ], [Φ_q, −μI, 0], [B, 0, −μI]]`` (``k = n + m + m_nh`` unknowns) for
    ``solver.compiled.lagrange_baumgarte.lb_accelerations``: band storage under the reverse
    Cuthill–McKee renumbering ``perm`` with half-bandwidth ``b``, the storage index of
    every entry (``slots``) and its index ``r k + c`` in the dense matrix (``dense``, for
    the least-squares solve of a singular one)."""
    from solver.analysis.banded import BandLayout

    pt = system.packed_patterns
    n, m, k = system.n, system.m, system.n + system.m + system.m_nh
    pairs = [(np.asarray(pt.mass_r, np.int64), np.asarray(pt.mass_c, np.int64))]
    phi_r, phi_c = np.asarray(pt.phi_r, np.int64), np.asarray(pt.phi_c, np.int64)
    pairs += [(phi_c, n + phi_r), (n + phi_r, phi_c)]
    if system.m_nh:
        b_pattern = system.no_slip_patterns[0]
        nh_r, nh_c = b_pattern.rows.astype(np.int64), b_pattern.cols.astype(np.int64)
        pairs += [(nh_c, n + m + nh_r), (n + m + nh_r, nh_c)]
    diag = np.arange(n, k, dtype=np.int64)
    pairs.append((diag, diag))
    rows = np.concatenate([r for r, _ in pairs])
    cols = np.concatenate([c for _, c in pairs])
    layout = BandLayout.build(rows, cols, k, always=True)
    parts = [[layout.b], layout.perm, layout.slots(rows, cols), rows * k + cols]
    return np.concatenate(parts).astype(np.int64)


def al_parameters(params: dict) -> tuple[tuple, tuple]:
    """``(sch, pen)`` for ``solver.compiled.augmented_lagrangian.al_steps`` from the formulation's parameters
    (``penalty``, ``rho_inf``) and constants."""
    s = Newmark.from_rho(params.get("rho_inf"))
    fixed = params.get("penalty")
    pen = (
        float(fixed) if fixed else 0.0,
        float(PENALTY_RATIO_FIRST),
        float(PENALTY_RATIO_GROWTH),
        float(PENALTY_RATIO_MAX),
        float(PROJECTION_PENALTY_RATIO),
        float(NEWTON_CONTRACTION),
        float(NEWTON_DAMPING),
    )
    return (float(s.alpha_m), float(s.alpha_f), float(s.beta), float(s.gamma)), pen


def al_failure(status: int, t: float, h: float, iterations: int, error: float) -> SimulationError:
    """The ``SimulationError`` the Python path raises for a failed step of status
    ``status`` at time ``t`` (``formulation`` named as there)."""
    from solver.compiled import augmented_lagrangian as cal

    if status == cal.STATUS_TANGENT:
        return SimulationError(
            t,
            "the augmented Lagrangian iteration matrix is singular or the iteration diverged "
            f"at dt = {h:g} s",
            cal.HINT,
        )
    if status == cal.STATUS_NEWTON:
        return newton_failure(
            "augmented Lagrangian",
            t,
            h,
            iterations,
            error,
            "last position correction / constraint violation",
        )
    if status == cal.STATUS_PROJECTOR:
        return SimulationError(
            t,
            "the projection matrix M + α Φ_qᵀΦ_q is singular (a body without mass or "
            "inertia in a direction no constraint fixes)",
            "give every body a mass and a positive-definite inertia",
        )
    if status == cal.STATUS_PROJECTION:
        return SimulationError(
            t,
            "the projection of velocities or accelerations failed (non-finite values)",
            cal.HINT,
        )
    if status == cal.STATUS_OFF_BEAM:
        return SimulationError(
            t,
            "the point of a sliding joint left its flexible body",
            "keep the slider on the beam (shorter run, stops or a longer beam)",
        )
    if status == cal.STATUS_NONFINITE:
        return SimulationError(
            t,
            f"the solution became non-finite with augmented_lagrangian at dt = {h:g} s",
            "reduce dt, or use an implicit formulation (augmented_lagrangian, null_space)",
        )
    raise ValueError(f"unknown status {status}")
