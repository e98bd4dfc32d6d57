"""Global angular velocity from Euler parameters (``solver.mechanics.rotations``)."""

from __future__ import annotations

import numpy as np

from solver.mechanics.rotations import angular_velocity, e_matrix


def test_angular_velocity_is_twice_e_times_pdot_for_any_leading_shape():
    rng = np.random.default_rng(5)
    p = rng.standard_normal((2, 3, 4))
    p /= np.linalg.norm(p, axis=-1, keepdims=True)
    pdot = rng.standard_normal((2, 3, 4))
    expected = 2.0 * np.einsum(
        "...ij,...j->...i", e_matrix(p.reshape(-1, 4)).reshape(2, 3, 3, 4), pdot
    )
    np.testing.assert_allclose(angular_velocity(p, pdot), expected, atol=1e-14)
    np.testing.assert_allclose(angular_velocity(p[0, 1], pdot[0, 1]), expected[0, 1], atol=1e-14)


def test_a_spin_about_z():
    # p = [cos(θ/2), 0, 0, sin(θ/2)] turning at θ̇ = 3 rad/s: ω = [0, 0, 3]
    theta, rate = 0.7, 3.0
    p = np.array([np.cos(theta / 2), 0.0, 0.0, np.sin(theta / 2)])
    pdot = 0.5 * rate * np.array([-np.sin(theta / 2), 0.0, 0.0, np.cos(theta / 2)])
    np.testing.assert_allclose(angular_velocity(p, pdot), [0.0, 0.0, rate], atol=1e-14)
