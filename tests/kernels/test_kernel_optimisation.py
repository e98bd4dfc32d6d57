"""How hard each kernel's linked code is optimised: lightly unless marked
``kernel(full_optimisation=True)``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from solver.kernels import jit, optimisation

pytestmark = pytest.mark.skipif(not jit.ENABLED, reason="compiled kernels")


@jit.kernel(full_optimisation=True, cache=False)
def scaled_item(x, c):
    return c * x


@jit.kernel(cache=False)
def assembled_items(xs, c):
    total = 0.0
    for i in range(xs.shape[0]):
        total += scaled_item(xs[i], c)
    return total


def test_a_kernel_is_optimised_lightly_unless_marked_and_computes_the_same():
    if not optimisation.install():
        pytest.skip("this Numba has no hook for the optimisation of a linked module")
    before = len(optimisation.LIGHTLY_OPTIMISED)
    assert assembled_items(np.array([1.0, 2.0, 3.0]), 0.5) == pytest.approx(3.0)
    light = optimisation.LIGHTLY_OPTIMISED[before:]
    assert "assembled_items" in light  # the mangled name matched Numba's
    assert "scaled_item" not in light  # marked for the full optimisation


def _library(name, *symbols):
    functions = [SimpleNamespace(name=s, is_declaration=False) for s in symbols]
    return SimpleNamespace(name=name, _final_module=SimpleNamespace(functions=functions))


def test_a_kernel_of_the_same_name_in_another_module_keeps_its_own_level(monkeypatch):
    light = optimisation.mangled_prefix("solver.compiled.central_differences", "_residual")
    full = optimisation.mangled_prefix("solver.compiled.augmented_lagrangian", "_residual")
    assert light == "_ZN6solver8compiled19central_differences9_residual"
    monkeypatch.setattr(optimisation, "_LIGHT", {("_residual", light)})
    assert optimisation._is_light(_library("_residual", light + "B2v1Bxyz"))
    assert not optimisation._is_light(_library("_residual", full + "B2v1Bxyz"))
    assert not optimisation._is_light(_library("other", light + "B2v1Bxyz"))


def test_the_leaves_keep_the_full_optimisation_and_the_assembly_is_light():
    import solver.compiled.augmented_lagrangian  # noqa: F401
    import solver.compiled.band  # noqa: F401
    import solver.kernels.elastic_line  # noqa: F401
    import solver.kernels.system  # noqa: F401

    names = {name for name, _ in optimisation._LIGHT}
    assert {"al_steps", "force_evaluation", "_force_entries", "state_evaluation"} <= names
    leaves = {"line_element", "frame_element", "cholesky_factor", "evaluate", "spring"}
    assert not (leaves | {"contact_law", "mat_vec", "force_hessian_into"}) & names


def test_the_levels_belong_to_the_fingerprint_of_the_cached_code():
    from pathlib import Path

    from solver.kernels import cache

    assert Path(optimisation.__file__).resolve() in cache.sources()
