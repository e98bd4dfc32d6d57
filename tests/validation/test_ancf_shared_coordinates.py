"""Shared coordinates between rigid bodies and flexible nodes give the motion of the same
model with its joints as equations (García Vallejo (2006) §4.2–4.5, Fig. 4.2).

The example ``ancf_shared_chain.json`` is the thesis's planar chain: rigid link, one Omar
element, rigid link, pinned together. Sharing the pins takes it from 20 coordinates to 16
and leaves only the links' rigid-body equations. Its motion is compared with the same model
whose joints are equations, at three step sizes: the difference between the two must be far
below the step-size error that the convergence study measures (both are the same discrete
equations), and each must converge. The kicked free chain also conserves momentum: after
the pulse its linear momentum is the impulse and its angular momentum is constant.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis.outputs.state import without_sharing
from solver.mechanics.system import MultibodySystem

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ancf_shared_chain.json"
BODIES = ("link1", "link2", "bar", "tip")


def chain(share: bool = True):
    m = load_model(EXAMPLE)
    m = replace(m, requests=[])
    return m if share else without_sharing(m)


def states(model, dt: float, t_end: float = 0.3, output_dt: float = 0.01, tolerance=None):
    r = simulate(model, dt=dt, t_end=t_end, output_dt=output_dt, tolerance=tolerance)
    assert r.status == "ok", r.message
    cols = [c for c in r.columns if c.split(".")[0] in BODIES]
    return np.array(r.rows)[:, [r.columns.index(c) for c in cols]]


def test_sharing_the_pins_takes_the_chain_from_20_to_16_coordinates():
    shared, joints = MultibodySystem(chain()), MultibodySystem(chain(False))
    assert (joints.n, shared.n) == (20, 16)
    # only the links' rigid-body equations remain (one each in the plane)
    assert {k: len(v) for k, v in shared.item_rows.items() if len(v)} == {
        "rigid:link1": 1,
        "rigid:link2": 1,
    }
    assert shared.m == 2
    assert len(joints.item_rows["joint:J1"]) == len(joints.item_rows["joint:J2"]) == 5
    # the bar's end nodes are the links' basic points: the same columns in both maps
    bar = shared.slots["bar"].owner.beam(shared.slots["bar"])
    link = shared.slots["link1"].owner
    info = link.infos[shared.slots["link1"].index]
    first = link._col(info.entities[0])
    assert list(bar.node_cols(0, 0)) == [first, first + 1]


def test_shared_chain_moves_as_the_chain_with_joints_as_equations():
    """Step-size study: both versions at Δt = 1, 0.5, 0.25 ms; the difference between them
    stays below 1e-3 of the smallest step-size error, while each converges (error ratio >
    2.5 per halving at the finest pair). The runs use a Newton tolerance of 1e-12: the
    whipping bar amplifies a difference of the tolerance's size (1e-10 gives 3e-8 after a
    few steps) by about 10³ over the 0.3 s, whichever version takes which rounding; at
    1e-12 the two versions differ by about 5e-10."""
    dts = (1e-3, 5e-4, 2.5e-4)
    shared = {dt: states(chain(), dt, tolerance=1e-12) for dt in dts}
    joints = {dt: states(chain(False), dt, tolerance=1e-12) for dt in dts}
    for runs in (shared, joints):
        coarse = np.abs(runs[dts[0]] - runs[dts[1]]).max()
        fine = np.abs(runs[dts[1]] - runs[dts[2]]).max()
        assert fine < coarse / 2.5
    tolerance = 1e-3 * np.abs(shared[dts[1]] - shared[dts[2]]).max()
    for dt in dts:
        assert np.abs(shared[dt] - joints[dt]).max() < tolerance


def test_null_space_converges_to_the_same_motion():
    """In the plane the joints as equations have identically zero rows (out of the plane),
    and the null-space method's local coordinates then differ between the two versions: they
    differ by O(Δt²), not by the tolerance; the gap shrinks ~4× per halving (measured 2.6e-4,
    6.3e-5, 1.6e-5 at 1, 0.5, 0.25 ms) and stays below each one's step-size error."""
    gaps, errors = [], []
    previous = None
    for dt in (1e-3, 5e-4):
        runs = [
            states(replace(m, solver=replace(m.solver, formulation="null_space")), dt)
            for m in (chain(), chain(False))
        ]
        gaps.append(np.abs(runs[0] - runs[1]).max())
        if previous is not None:
            errors.append(np.abs(runs[0] - previous).max())
        previous = runs[0]
    assert gaps[1] < gaps[0] / 3.0
    assert gaps[1] < 0.1 * errors[0]


def _momenta(system: MultibodySystem, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, float]:
    """Linear momentum ``(P_x, P_y)`` and angular momentum about the centre of mass ``H_z``.

    Every coordinate of the planar system is an in-plane vector (basic points, unit vectors,
    nodal positions and slopes), and every point is ``r = Σ A_k q_k`` with blocks that commute
    with the rotation Ĩ by 90° (no constant parts: nothing is fixed). So with ``w_e`` the
    generalised weight of a unit gravity along ``e``, ``Σ m r·e = w_e·q`` and
    ``P·e = w_e·q̇``; about the origin ``H_O = ∫ r × ṙ dm = −qᵀ M (I ⊗ Ĩ) q̇``, and
    ``H_G = H_O − R × P`` with ``R`` the centre of mass."""
    model = system.model
    total = sum(b.mass for b in model.bodies if b.type == "rigid")
    bar = model.body("bar")
    total += bar.material.density * bar.section.width * bar.section.height * 1.0
    w = [sum(k.gravity_forces(e) for k in system.kinds) for e in np.eye(3)[:2]]
    p = np.array([x @ qd for x in w])
    centre = np.array([x @ q for x in w]) / total
    rot = np.zeros_like(qd)
    rot[0::2], rot[1::2] = -qd[1::2], qd[0::2]
    h_origin = float(-q @ (system.mass(q) @ rot))
    return p, h_origin - float(centre[0] * p[1] - centre[1] * p[0])


@pytest.mark.parametrize("share", [True, False])
def test_kicked_chain_conserves_momentum(share):
    model = chain(share)
    run = simulate(model, dt=5e-4, t_end=0.2, output_dt=0.01, stream=True)
    frames = list(run)
    assert run.result.status == "ok", run.result.message
    system = run.system
    kick = model.forces[0].vector[1]
    ts = np.linspace(0.0, 0.05, 20001)
    impulse = float(np.trapezoid([kick(x) for x in ts], ts))
    after = [f for f in frames if f.t >= 0.06]
    h = []
    for f in after:
        p, hz = _momenta(system, f.q, f.qd)
        assert p == pytest.approx([0.0, impulse], abs=1e-6 * impulse)
        h.append(hz)
    assert len(after) > 10 and frames[-1].t == pytest.approx(0.2)
    # the scheme keeps H to O(Δt²) only: a drift of 1.4e-6 of H at 0.5 ms (5.5e-6 at 1 ms)
    assert np.ptp(h) < 1e-5 * abs(h[0])
    assert abs(h[0]) > 0.3  # the kick at the end leaves the chain spinning


def test_vibration_modes_are_those_of_the_chain_with_joints():
    """The linearised modes on the constraint manifold: five rigid-body modes (zero) and the
    same elastic frequencies (78.06 Hz, 1093.8 Hz, …) for both versions."""
    shared, joints = (simulate(m, analysis="modes") for m in (chain(), chain(False)))
    for r in (shared, joints):
        assert r.status == "ok", r.message
    f_sh = np.array([m["frequency_hz"] for m in shared.summary["modes"]])
    f_eq = np.array([m["frequency_hz"] for m in joints.summary["modes"]])
    assert np.abs(f_sh[:5]).max() < 0.01 and np.abs(f_eq[:5]).max() < 0.01
    assert len(f_sh) >= 8
    assert f_sh[5:8] == pytest.approx(f_eq[5:8], rel=1e-8)
    assert f_sh[5] == pytest.approx(78.06, abs=0.01)
