"""The reverse Cuthill–McKee renumbering of the iteration matrices' patterns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee as scipy_rcm

from solver.analysis.compiled_steps import _union
from solver.analysis.reordering import reverse_cuthill_mckee
from solver.analysis.warmup import chain_data
from solver.mechanics.system import MultibodySystem
from solver.model import load_model, model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _symmetric(rows, cols, n):
    """The pattern, its transpose and the diagonal, row by row: ``(ptr, r, c)``."""
    diag = np.arange(n)
    keys = np.unique(np.concatenate([rows * n + cols, cols * n + rows, diag * (n + 1)]))
    r, c = np.divmod(keys, n)
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=ptr[1:])
    return ptr, r, c


def _half_bandwidth(perm, r, c):
    inv = np.empty(len(perm), np.int64)
    inv[perm] = np.arange(len(perm))
    return int(np.abs(inv[r] - inv[c]).max())


def _models():
    for path in sorted(EXAMPLES.glob("*.json")):
        yield path.stem, load_model(path)
    for n in (16, 64):
        yield f"chain of {n}", model_from_data(chain_data(n))


@pytest.mark.parametrize(
    "name, model", list(_models()), ids=lambda x: x if isinstance(x, str) else ""
)
def test_every_models_band_is_as_narrow_as_scipys_renumbering_gives(name, model):
    system = MultibodySystem(model)
    rows, cols = _union(system.packed_patterns, system.m)[:2]
    n = system.n
    ptr, r, c = _symmetric(rows, cols, n)
    perm = reverse_cuthill_mckee(ptr, c)
    assert sorted(perm.tolist()) == list(range(n))
    reference = scipy_rcm(sp.csr_matrix((np.ones(len(r)), c, ptr), shape=(n, n)), True)
    assert _half_bandwidth(perm, r, c) <= _half_bandwidth(reference, r, c)


def test_a_shuffled_path_is_numbered_along_it_and_parts_each_in_turn():
    rng = np.random.default_rng(3)
    n = 40
    label = rng.permutation(n)  # node i of the path is called label[i]
    a, b = label[:-1], label[1:]
    # two paths: 0..39 and a second one of 5 nodes, plus an isolated node
    extra_a, extra_b = np.arange(n, n + 4), np.arange(n + 1, n + 5)
    rows = np.concatenate([a, extra_a])
    cols = np.concatenate([b, extra_b])
    ptr, r, c = _symmetric(rows, cols, n + 6)
    perm = reverse_cuthill_mckee(ptr, c)
    assert sorted(perm.tolist()) == list(range(n + 6))
    assert _half_bandwidth(perm, r, c) == 1


def test_no_coordinates():
    assert reverse_cuthill_mckee(np.zeros(1, np.int64), np.zeros(0, np.int64)).shape == (0,)
