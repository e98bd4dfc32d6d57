"""Compiled (Numba) time stepping for small dense rigid-body models.

:mod:`~solver.compiled.packing` decides whether a system can run compiled and lays it out
as flat arrays; :mod:`~solver.compiled.evaluate` evaluates it (mass matrix, forces,
constraints, their Jacobians and energies); the steppers advance many steps per call.
"""
