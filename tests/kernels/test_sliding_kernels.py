"""The kernels of the ANCF sliding joints: the Hermite functions they read, and their
entries, whose pattern spans the whole beam so that the element the point is on may
change during a run (the derivatives against finite differences: tests/solver/
test_ancf_sliding.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.kernels import system as ks
from solver.kernels.hermite import hermite_jet
from solver.kernels.jit import NO, YES
from solver.mechanics.system import MultibodySystem
from solver.model import load_model
from tests.solver.test_ancf_sliding import slider_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _jet(xi, length):
    h = np.empty((4, 4))
    hermite_jet(float(xi), float(length), h)
    return h


def test_hermite_functions_interpolate_the_nodal_vectors_with_their_derivatives():
    """The cubic Hermite basis is fixed by its values and slopes at the nodes; each row of
    the jet is the x-derivative of the one above (x = l ξ), also outside [0, 1] (the end
    elements are extrapolated)."""
    length = 0.37
    np.testing.assert_array_equal(_jet(0.0, length)[0], [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(_jet(1.0, length)[0], [0.0, 0.0, 1.0, 0.0])
    assert np.allclose(_jet(0.0, length)[1], [0.0, 1.0, 0.0, 0.0], rtol=0, atol=1e-15)
    assert np.allclose(_jet(1.0, length)[1], [0.0, 0.0, 0.0, 1.0], rtol=0, atol=1e-15)
    step = 1e-6
    for xi in (-0.4, 0.0, 0.3, 0.8, 1.0, 1.45):
        up, down = _jet(xi + step / length, length), _jet(xi - step / length, length)
        derivative = (up - down) / (2 * step)
        scale = np.abs(_jet(xi, length)[1:]).max()
        assert np.abs(derivative[:3] - _jet(xi, length)[1:]).max() < 1e-7 * scale


def _systems():
    out = {
        name: MultibodySystem(load_model(EXAMPLES / f"{name}.json"))
        for name in ("ancf_sliding_ring", "ancf_fixed_angle_slider_e6")
    }
    out["beam3d, rigid body"] = MultibodySystem(slider_model("ancf_beam3d", "rigid", 4))
    out["cable, natural coordinates"] = MultibodySystem(
        slider_model("ancf_cable", "rigid", 4, "natural")
    )
    return out


SYSTEMS = _systems()


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_entries_are_the_same_on_every_element(name):
    """Wherever the point is (every element, and within the half element past either end),
    the patterns of Φ_q and of both second derivatives are the system's, and the evaluation
    pass writes as many entries as the counting pass counted."""
    s = SYSTEMS[name]
    block = s.blocks[0]
    rng = np.random.default_rng(7)
    for slider in block.sliders:
        beam = slider.beam
        places = [(k + 0.5) * slider.l for k in range(beam.n_elements)]
        places += [-0.4 * slider.l, beam.length + 0.4 * slider.l]
        for place in places:
            q = s.q0 + 1e-3 * rng.standard_normal(s.n)
            q[slider.col] = place
            qd = rng.standard_normal(s.n)
            mk = s.markers.evaluate(q, qd).arrays
            fresh = ks.patterns(s.arrays, q, mk)
            for a, b in zip(fresh, s.packed_patterns, strict=True):
                np.testing.assert_array_equal(a, b)
            pt = s.packed_patterns
            idx = np.zeros(0, np.int64)
            m, none = np.zeros(s.m), np.zeros(0)
            vals = np.zeros(len(pt.phi_r))
            count = ks._jacobian_entries(
                s.arrays, mk, 0.2, m, m.copy(), m.copy(), ks.VALUES, idx, idx, vals, q, qd
            )
            assert count == len(pt.phi_r)
            lam = rng.standard_normal(s.m)
            kv, dv = np.zeros(len(pt.hk_r)), np.zeros(len(pt.hd_r))
            for velocity in (YES, NO):
                counts = ks._second_entries(
                    s.arrays, mk, 0.2, lam, velocity, ks.VALUES, idx, idx, kv, idx, idx,
                    dv if velocity else none, q, qd,
                )  # fmt: skip
                assert counts == (len(pt.hk_r), len(pt.hd_r) if velocity else 0)


def test_the_values_move_with_the_element():
    """The joint's entries of Φ_q hold values on the element the point is on only (and the
    beam's other columns keep zeros)."""
    s = SYSTEMS["ancf_sliding_ring"]
    slider = s.blocks[0].sliders[0]
    beam = slider.beam
    rows = s.item_rows[slider.key]
    for k in (0, 3, beam.n_elements - 1):
        q = s.q0.copy()
        q[slider.col] = (k + 0.3) * slider.l
        jac = np.asarray(s.constraints(q, None, 0.0).phi_q)[rows]
        on = np.unique(beam.cols[k])
        off = np.setdiff1d(beam.all_cols, on)
        assert np.abs(jac[:2][:, on]).max() > 0.1
        assert not jac[:, off].any()
