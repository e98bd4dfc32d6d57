"""The Runge–Kutta tableaux of the compiled integrator: SciPy's, kept in a file so that a
run does not import ``scipy.integrate`` again."""

from __future__ import annotations

import numpy as np
import pytest

from solver.analysis import compiled_runge_kutta as crk
from tests.solver.test_no_qt_import import imported_after

NAMES = ("RK45", "RK23", "DOP853")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr("solver.kernels.cache.marker_dir", lambda: tmp_path)
    return tmp_path


def _same(a, b) -> None:
    assert a._fields == b._fields
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
        assert np.asarray(x).dtype == np.asarray(y).dtype


@pytest.mark.parametrize("name", NAMES)
def test_the_kept_tableau_is_scipys(folder, name):
    first = crk.tableau(name)  # from SciPy, then written
    assert len(list(folder.glob(f"biela-tableau-{name}-*.npz"))) == 1
    _same(first, crk._from_scipy(name))
    again = crk.tableau(name)  # from the file
    _same(again, first)
    assert isinstance(again.order, int)
    assert all(x.flags.c_contiguous for x in again[:-1])


def test_an_unreadable_file_is_replaced(folder):
    crk.tableau("RK45")
    (path,) = folder.glob("biela-tableau-RK45-*.npz")
    path.write_bytes(b"not a tableau")
    _same(crk.tableau("RK45"), crk._from_scipy("RK45"))
    _same(crk.tableau("RK45"), crk._from_scipy("RK45"))  # written again
    assert path.read_bytes()[:4] == b"PK\x03\x04"  # an .npz (a zip file) again


_IMPORTS = """
import json, sys
from solver.analysis.compiled_runge_kutta import tableau
tab = tableau("DOP853")
print(json.dumps({"integrate": "scipy.integrate" in sys.modules, "stages": len(tab.b)}))
"""


def test_a_run_with_the_file_does_not_import_scipys_integrators():
    crk.tableau("DOP853")  # the file exists (in the kernels' marker folder)
    got = imported_after(_IMPORTS)
    assert got == {"integrate": False, "stages": 12}
