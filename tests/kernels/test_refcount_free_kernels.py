"""Kernels compiled without reference counting (``kernel(refcounted=False)``)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.kernels import jit

pytestmark = pytest.mark.skipif(
    not jit.ENABLED or jit._NO_REFCOUNT is None,
    reason="compiled kernels with Numba's option to leave out reference counting",
)


def test_a_kernel_without_reference_counting_works_on_the_arrays_it_is_given():
    @jit.kernel(refcounted=False, cache=False)
    def scaled_into(x, c, out):
        for i in range(x.shape[0]):
            out[i] = c * x[i]

    out = np.zeros(3)
    scaled_into(np.array([1.0, 2.0, 3.0]), 0.5, out)
    np.testing.assert_allclose(out, [0.5, 1.0, 1.5])


def test_the_option_reaches_numba_which_refuses_an_array_made_there():
    def makes(n):
        return np.zeros(n)

    assert jit.kernel(makes, cache=False)(3).shape == (3,)
    with pytest.raises(Exception):  # noqa: B017 - Numba's typing error, worded by version
        jit.kernel(makes, refcounted=False, cache=False)(3)
