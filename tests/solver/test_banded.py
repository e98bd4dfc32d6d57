"""Band assembly and factorisation (solver.analysis.banded) against dense linear algebra,
and the augmented Lagrangian on a sparse chain with and without it."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from solver.analysis.banded import BandAssembler, BandLayout


def _banded_pattern(rng, n, half, density=0.6):
    """Random entries within ``half`` of the diagonal of a matrix whose coordinates are then
    shuffled (the band is only found again by renumbering)."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    keep = (np.abs(i - j) <= half) & (rng.random((n, n)) < density)
    return i[keep], j[keep]


@pytest.fixture
def parts():
    rng = np.random.default_rng(7)
    n, m = 120, 50
    shuffle = rng.permutation(n)
    r, c = _banded_pattern(rng, n, 4)
    a = sp.csr_matrix((rng.standard_normal(len(r)), (shuffle[r], shuffle[c])), shape=(n, n))
    # constraint-like rows: blocks of 3 rows sharing 6 columns near the "diagonal"
    rows, cols = [], []
    for k in range(m // 3):
        c0 = min(2 * k, n - 6)
        for row in range(3 * k, 3 * k + 3):
            rows += [row] * 6
            cols += list(range(c0, c0 + 6))
    phi = sp.csr_matrix(
        (rng.standard_normal(len(rows)), (rows, shuffle[np.array(cols)])), shape=(m, n)
    )
    mass = sp.diags(rng.uniform(1.0, 2.0, n)).tocsr()
    return rng, n, a, phi, mass


def test_assembly_equals_dense_sum(parts):
    """The band storage holds the dense sum's entries."""
    _, _, a, phi, mass = parts
    asm = BandAssembler(a.shape[0])
    flat = asm.assemble([(1.0, mass), (-0.3, a)], [(2.5, phi)])
    assert flat is not None
    expected = (mass - 0.3 * a + 2.5 * phi.T @ phi).toarray()
    np.testing.assert_allclose(asm.layout.dense(flat), expected, rtol=0, atol=1e-13)
    # the renumbering found a band much narrower than the shuffled coordinates'
    assert asm.layout.b < 20


def test_lu_and_cholesky_solves_match_dense(parts):
    rng, n, a, phi, mass = parts
    asm = BandAssembler(n)
    rhs = rng.standard_normal(n)
    general = (mass + 0.3 * a + 2.0 * phi.T @ phi).toarray()
    fac = asm.factor(asm.assemble([(1.0, mass), (0.3, a)], [(2.0, phi)]))
    assert not fac.cholesky
    np.testing.assert_allclose(fac.solve(rhs), np.linalg.solve(general, rhs), rtol=1e-10)
    spd = (mass + 1e6 * phi.T @ phi).toarray()
    fac = asm.factor(asm.assemble([(1.0, mass)], [(1e6, phi)]), spd=True)
    assert fac.cholesky
    np.testing.assert_allclose(fac.solve(rhs), np.linalg.solve(spd, rhs), rtol=1e-8)


def test_indefinite_matrix_falls_back_to_lu_and_singular_raises(parts):
    rng, n, _, phi, mass = parts
    asm = BandAssembler(n)
    rhs = rng.standard_normal(n)
    indefinite = (mass - 3.0 * phi.T @ phi).toarray()
    fac = asm.factor(asm.assemble([(1.0, mass)], [(-3.0, phi)]), spd=True)
    assert not fac.cholesky
    np.testing.assert_allclose(fac.solve(rhs), np.linalg.solve(indefinite, rhs), rtol=1e-9)
    with pytest.raises(np.linalg.LinAlgError):
        asm.factor(asm.assemble([(0.0, mass)], [(1.0, phi)]))  # rank of Φ < n


def test_compiled_constrained_solve_matches_the_numpy_iteration(parts):
    """The projection iteration run with the band Cholesky in one compiled call
    gives the x, σ and iteration count of ``trapezoidal.constrained_solve``
    (a mass-orthogonal projection onto Φ x = g: the constraints hold, and
    M (x − x0) + Φᵀ σ = 0)."""
    from solver.analysis.formulations.trapezoidal import Factorized, constrained_solve

    rng, n, _, phi, mass = parts
    alpha = 1e6
    asm = BandAssembler(n)
    fac = asm.factor(asm.assemble([(1.0, mass)], [(alpha, phi)]), spd=True)
    x0 = rng.standard_normal(n)
    g = phi @ rng.standard_normal(n)  # consistent (two rows of Φ are empty)
    f = mass @ x0
    x, sigma, its = fac.constrained_solve(mass, phi, f, g, alpha, 1e-12, x0)
    ref = constrained_solve(
        Factorized((mass + alpha * phi.T @ phi).tocsc()), mass, phi, f, g, alpha, 1e-12, x0=x0
    )
    assert its == ref[2] and its > 1
    np.testing.assert_allclose(x, ref[0], rtol=0, atol=1e-11)
    np.testing.assert_allclose(sigma, ref[1], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(phi @ x, g, atol=1e-11)
    np.testing.assert_allclose(mass @ (x - x0) + phi.T @ sigma, 0.0, atol=1e-7)


def test_new_pattern_outside_the_band_gets_a_new_layout(parts):
    _, n, _, _, mass = parts
    asm = BandAssembler(n)
    asm.assemble([(1.0, mass)])
    assert asm.layout.b == 0
    far = sp.csr_matrix(([1.0, 1.0], ([0, 5], [5, 0])), shape=(n, n))
    flat = asm.assemble([(1.0, mass), (1.0, far)])
    np.testing.assert_allclose(asm.layout.dense(flat), (mass + far).toarray(), atol=0)


def test_no_band_for_a_hub_coupled_to_everything():
    n = 400
    rows = np.concatenate([np.zeros(n, int), np.arange(n), np.arange(n)])
    cols = np.concatenate([np.arange(n), np.zeros(n, int), np.arange(n)])
    assert BandLayout.build(rows, cols, n) is None
    hub = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    asm = BandAssembler(n)
    assert asm.assemble([(1.0, hub)]) is None
    assert asm.assemble([(2.0, hub)]) is None  # the verdict is kept


def test_chain_dynamics_agree_with_the_general_sparse_solver():
    """The 64-bar chain (448 coordinates, sparse) for 20 ms with augmented_lagrangian:
    band assembly and factorisation give the trajectory of the general sparse path to
    round-off, with the same Newton iterations."""
    from benchmarks.chain import chain_model
    from solver.analysis.dynamic import dynamic_frames
    from solver.analysis.formulations.augmented_lagrangian import AugmentedLagrangian
    from solver.analysis.simulate import settings_with
    from solver.mechanics.system import MultibodySystem

    model = chain_model(64)
    settings = settings_with(
        model, analysis="dynamic", formulation="augmented_lagrangian", dt=1e-3, t_end=0.02
    )

    def run(banded: bool):
        system = MultibodySystem(model)
        assert system.sparse
        formulation = AugmentedLagrangian(system, settings)
        if not banded:
            formulation._band = None
        frames = [f for f, _ in dynamic_frames(system, settings, formulation)]
        return formulation, frames

    (fb, banded), (_, general) = run(True), run(False)
    assert fb._band.layout is not None and fb._band.layout.b < 20
    # the same Newton iteration; different pivot orders may cost one iteration more or less
    its = np.array([[f.iterations for f in banded], [f.iterations for f in general]])
    assert np.abs(its[0] - its[1]).max() <= 1
    for a, b in zip(banded, general, strict=True):
        np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-11)
        np.testing.assert_allclose(a.qd, b.qd, rtol=0, atol=1e-8)


def test_pulleys_touching_every_belt_element_go_last():
    """The belt drive (examples/belt_drive.json): each pulley's coordinates are coupled to
    every belt element (the contact is checked at every point). Renumbered after the belt,
    they make an arrow whose elimination keeps its fill in the arrow, estimated at less
    work than the reverse Cuthill–McKee band."""
    from pathlib import Path

    from scipy.sparse.csgraph import reverse_cuthill_mckee

    from solver.analysis.banded import _work
    from solver.analysis.compiled_steps import _union
    from solver.mechanics.system import MultibodySystem
    from solver.model import load_model

    path = Path(__file__).resolve().parents[2] / "examples" / "belt_drive.json"
    system = MultibodySystem(load_model(path))
    rows, cols = _union(system.packed_patterns, system.m)[:2]
    n = system.n
    layout = BandLayout.build(rows, cols, n, always=True)
    pulleys = [system.slots[b].offset + k for b in ("driver", "driven") for k in range(7)]
    assert sorted(layout.perm[-14:]) == pulleys
    diag = np.arange(n)
    pat = sp.csr_matrix(
        (np.ones(2 * len(rows) + n), (np.r_[rows, cols, diag], np.r_[cols, rows, diag])),
        shape=(n, n),
    ).tocoo()
    rcm = reverse_cuthill_mckee(pat.tocsr(), symmetric_mode=True)
    work = lambda perm: _work(pat.row, pat.col, n, perm)  # noqa: E731
    assert work(layout.perm) < 0.5 * work(rcm)
