"""The committed state of the contacts and their work, kept at the accepted states of a run.

What the kernels' force law (:mod:`solver.kernels.contact`) reads besides the state is
each contact's committed onset speed δ̇⁻ (``onset``); :func:`commit` changes it at an
accepted state, by the rule of :mod:`solver.mechanics.forces.contact` (``max(committed,
v*)`` in contact, zero out of it), keeps which contacts touch (``active``) and the speed
last reported to the step check (``reported``), logs every onset, growth by a quarter and
release in ``events``, and integrates the contacts' power (damping and friction, W) over
the accepted states: :func:`work_integral`, the parabola through the last three powers.
The time loop calls it through ``Contacts.accept``; the compiled steppers call it at
each step they accept (:func:`commit_step`, :func:`step_contacts`). SI units.

``history``: ``[count, t₀ P₀ W₀, t₁ P₁ W₁, t₂ P₂ W₂, events]``, the last ``count`` ≤ 3
accepted points (time s, power W, work J from the start), oldest first, and the number of
rows of ``events`` written since the time loop last read them. An ``events`` row:
``[kind, contact, t, δ̇⁻ (m/s), δ (m)]``, kind ``STARTED``, ``GROWN`` or ``RELEASED``.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.contact import (
    ONSET_ESTIMATE,
    PENETRATION,
    POWER,
    any_penetration,
    contact_states,
)
from solver.kernels.jit import kernel

#: fields of ``history``: the count of points, the first point's, the count of events
COUNT, POINTS, EVENTS = 0, 1, 10
HISTORY = 11
#: kinds of an ``events`` row, and its fields
STARTED, GROWN, RELEASED = 0, 1, 2
KIND, CONTACT, TIME, SPEED, DEPTH = 0, 1, 2, 3, 4
EVENT_FIELDS = 5
#: a reported speed grown by this factor is reported again (``GROWN``)
GROWTH = 1.25


def events_rows(contacts: int) -> int:
    """The rows of ``events`` for ``contacts`` contacts: a commit writes at most one per
    contact, and the compiled steps hand them over before fewer than that are free."""
    return 4 * max(contacts, 1)


@kernel
def work_integral(history, t, power, given):
    """The contact work at ``t`` (J): after the last-but-one point, the integral of the
    parabola through the last three points' powers (of the last two and ``(t, power)``
    when ``given``); the line through two, the work itself at one."""
    count = int(history[COUNT])
    ts = np.empty(3)
    ps = np.empty(3)
    ws = np.empty(3)
    first = count - min(count, 2) if given else 0
    n = 0
    for i in range(first, count):
        ts[n] = history[POINTS + 3 * i]
        ps[n] = history[POINTS + 3 * i + 1]
        ws[n] = history[POINTS + 3 * i + 2]
        n += 1
    if given:
        ts[n] = t
        ps[n] = power
        ws[n] = 0.0
        n += 1
    if n == 1:
        return ws[0]
    t1, p1, w1 = ts[n - 2], ps[n - 2], ws[n - 2]
    t2, p2 = ts[n - 1], ps[n - 1]
    h = t2 - t1
    x = t - t1
    slope = (p2 - p1) / h
    work = w1 + p1 * x + 0.5 * slope * x * x
    if n == 3 and (p1 != 0.0 or p2 != 0.0 or ps[0] != 0.0):
        t0, p0 = ts[0], ps[0]
        curve = (slope - (p1 - p0) / (t1 - t0)) / (t2 - t0)
        work += curve * (x**3.0 / 3.0 - 0.5 * h * x * x)
    return work


@kernel
def add_point(history, t, power, work):
    """``(t, power, work)`` as the newest point (the oldest of three dropped)."""
    count = int(history[COUNT])
    if count == 3:
        for i in range(POINTS, POINTS + 6):
            history[i] = history[i + 3]
        count = 2
    o = POINTS + 3 * count
    history[o] = t
    history[o + 1] = power
    history[o + 2] = work
    history[COUNT] = count + 1


@kernel(inline="always")
def _event(events, history, kind, c, t, speed, depth):
    e = int(history[EVENTS])
    if e < events.shape[0]:  # (the callers read them before it fills)
        events[e, KIND] = kind
        events[e, CONTACT] = c
        events[e, TIME] = t
        events[e, SPEED] = speed
        events[e, DEPTH] = depth
        history[EVENTS] = e + 1


@kernel
def commit(mk, kind, par, onset, active, reported, history, events, u, ud, t):
    """Commit the contacts' state at an accepted state at time ``t`` (marker values ``u``,
    ``ud``) and integrate their work to it; a state not later than the last point is
    ignored. Onsets (``STARTED``), speeds grown by ``GROWTH`` since last reported
    (``GROWN``) and releases are written to ``events``."""
    count = int(history[COUNT])
    if count > 0 and t <= history[POINTS + 3 * (count - 1)]:
        return
    values = contact_states(mk, kind, par, onset, u, ud)
    m = kind.shape[0]
    speed = np.empty(m)
    changed = False
    flipped = False
    for c in range(m):
        inside = values[c, PENETRATION] > 0.0
        speed[c] = np.maximum(onset[c], values[c, ONSET_ESTIMATE]) if inside else 0.0
        if speed[c] != onset[c]:
            changed = True
        if inside != (active[c] != 0.0):
            flipped = True
    if changed or flipped:
        for c in range(m):  # onsets, then growths, then releases, each by contact
            if values[c, PENETRATION] > 0.0 and active[c] == 0.0:
                _event(events, history, STARTED, c, t, speed[c], values[c, PENETRATION])
        for c in range(m):
            if (
                values[c, PENETRATION] > 0.0
                and active[c] != 0.0
                and speed[c] > GROWTH * reported[c]
            ):
                _event(events, history, GROWN, c, t, speed[c], values[c, PENETRATION])
                reported[c] = speed[c]
        for c in range(m):
            inside = values[c, PENETRATION] > 0.0
            if active[c] != 0.0 and not inside:
                _event(events, history, RELEASED, c, t, 0.0, values[c, PENETRATION])
            if inside and active[c] == 0.0:
                reported[c] = speed[c]
            active[c] = 1.0 if inside else 0.0
            onset[c] = speed[c]
    if changed:  # the power with the committed onset speeds
        values = contact_states(mk, kind, par, onset, u, ud)
    power = 0.0
    for c in range(m):
        power += values[c, POWER]
    work = work_integral(history, t, power, True) if count > 0 else 0.0
    add_point(history, t, power, work)


@kernel
def quiet(active, onset, history):
    """No contact touching or committed, and no contact power at the last points: a
    commit where no contact penetrates then changes nothing but the work's last points."""
    for c in range(active.shape[0]):
        if active[c] != 0.0 or onset[c] != 0.0:
            return False
    for i in range(int(history[COUNT])):  # noqa: SIM110 (a loop: no generator compiled)
        if history[POINTS + 3 * i + 1] != 0.0:
            return False
    return True


@kernel
def last_work(history):
    """The contact work at the last committed point (J; 0 before any)."""
    count = int(history[COUNT])
    return history[POINTS + 3 * count - 1] if count > 0 else 0.0


@kernel
def commit_step(P, u, ud, t, check):
    """:func:`commit` at a step a compiled stepper accepted (``P``: the system's arrays,
    ``u``, ``ud`` its marker values at time ``t``): ``(work, stop)``, the contact work at
    ``t`` (J) and whether the stepper must stop for the time loop to read the events: no
    room left for one more commit's, or (``check``) an onset or a growth logged here,
    which the step check reads."""
    first = int(P.cn_history[EVENTS])
    commit(
        P.cn_mk, P.cn_kind, P.cn_par, P.cn_onset, P.cn_active, P.cn_reported, P.cn_history,
        P.cn_events, u, ud, t,
    )  # fmt: skip
    count = int(P.cn_history[EVENTS])
    stop = P.cn_events.shape[0] - count < P.cn_kind.shape[0]
    if check:
        for e in range(first, count):
            stop = stop or P.cn_events[e, KIND] != RELEASED
    return last_work(P.cn_history), stop


@kernel
def step_contacts(P, u, ud, t, committing, row, column):
    """The contacts at a step a compiled stepper accepted (marker values ``u``, ``ud`` at
    time ``t``): whether the stepper must stop there. ``committing``: :func:`commit_step`
    with the step check, the contact work into ``row[column]``; else whether a contact
    penetrates (the time loop then commits the state itself)."""
    if not committing:
        return any_penetration(P.cn_mk, P.cn_kind, P.cn_par, P.cn_onset, u, ud)
    work, stop = commit_step(P, u, ud, t, True)
    row[column] = work
    return stop
