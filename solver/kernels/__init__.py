"""The solver's compiled kernels: every equation of the mechanics, written once.

A leaf layer: these modules import NumPy and Numba only (never the model description,
the mechanics or the analyses above them). Each function takes flat arrays (SI units,
Euler parameters ``[e0, e1, e2, e3]``, global right-handed frames) and is compiled by
:func:`solver.kernels.jit.kernel`, or runs as plain Python with ``BIELA_JIT=0``.
"""
