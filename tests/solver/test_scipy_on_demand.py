"""SciPy's sparse and linear-algebra modules are imported when first used: a small model
stepping compiled loads neither (a tenth of a second of its start-up)."""

from __future__ import annotations

import numpy as np
import pytest

from solver import lazy_scipy
from tests.solver.test_no_qt_import import imported_after


def test_a_short_compiled_run_imports_none_of_scipys_linear_algebra():
    got = imported_after(
        """
        import json, sys
        from solver import load_model, simulate
        from solver.analysis import blas_threads
        result = simulate(load_model("examples/four_bar_spatial.json"), t_end=0.01)
        print(json.dumps({"status": result.status, "dof": result.summary["dof"],
                          "passive": result.summary["passive_freedoms"],
                          "scipy": sorted(m for m in sys.modules
                                          if m in ("scipy.sparse", "scipy.linalg")),
                          "searches": blas_threads._controller.cache_info().misses}))
        """
    )
    assert got["status"] == "ok"
    assert got["dof"] == 1 and got["passive"] == ["coupler spin about J1–J2"]
    assert got["scipy"] == []
    assert got["searches"] == 0  # nor the BLAS libraries searched (15–25 ms)


@pytest.mark.parametrize(
    "example, formulation",
    [("pendulum", "central_differences"), ("andrews_squeezer", "null_space")],
)
def test_short_compiled_runs_of_the_other_formulations_import_no_scipy_linear_algebra(
    example, formulation
):
    """Their compiled steps call LAPACK only on rank-deficient paths, their start's SVD and
    minimum-norm solves are NumPy's, and their kernels make Numba load nothing that imports
    SciPy (its array-math module does)."""
    got = imported_after(
        f"""
        import json, sys
        from solver import load_model, simulate
        model = load_model("examples/{example}.json")
        result = simulate(model, t_end=20 * model.solver.dt)
        print(json.dumps({{"status": result.status, "formulation": model.solver.formulation,
                          "scipy": "scipy.linalg" in sys.modules}}))
        """
    )
    assert got == {"status": "ok", "formulation": formulation, "scipy": False}


def test_nothing_is_sparse_before_scipys_sparse_module_is_imported():
    got = imported_after(
        """
        import json, sys
        import numpy as np
        from solver import lazy_scipy
        before = lazy_scipy.issparse(np.eye(2)), "scipy.sparse" in sys.modules
        matrix = lazy_scipy.sparse.csr_matrix(np.eye(2))
        after = lazy_scipy.issparse(matrix), lazy_scipy.issparse(np.eye(2))
        print(json.dumps({"before": before, "after": after}))
        """
    )
    assert got["before"] == [False, False]
    assert got["after"] == [True, False]


def test_a_stand_in_reads_the_module_and_keeps_what_it_read():
    import scipy.linalg

    assert lazy_scipy.linalg.get_lapack_funcs is scipy.linalg.get_lapack_funcs
    assert "get_lapack_funcs" in vars(lazy_scipy.linalg)  # kept: no second lookup
    assert "imported on first use" in repr(lazy_scipy.sparse)
    assert np.allclose(lazy_scipy.sparse.identity(2).toarray(), np.eye(2))
