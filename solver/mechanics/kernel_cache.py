"""Whether the Numba kernels of large systems run in this process.

The kernels (:mod:`solver.mechanics.marker_kernels`, :mod:`solver.mechanics.bodies.rigid_kernels`,
:mod:`solver.analysis.band_kernels`) follow the policy of every compiled function of the
solver, :mod:`solver.compiled.warm`: ``BIELA_COMPILED=0`` never (NumPy paths), ``1``
always (compiling in the run if needed), unset or ``auto`` when the warm-up marker says
the compiled code is cached, else the NumPy paths while a detached process compiles it
(``python -m solver.compiled``); ``1`` with a cold cache warms it in the run (stale
code of an edited module is deleted first). The decision is taken once per process
(:func:`compiled_kernels`).
"""

from __future__ import annotations

from solver.compiled.warm import is_warm, mode, warm, warm_in_background, warming

_decision: bool | None = None


def compiled_kernels() -> bool:
    """Whether this process runs the compiled kernels (decided on the first call)."""
    global _decision
    if _decision is None:
        how = mode()
        if how == "off":
            _decision = False
        elif warming():
            return True  # the warm-up itself (not kept: the process decides afterwards)
        elif how == "on":
            if not is_warm():
                warm()  # from fresh cache files, as the compiled steppers do
            _decision = True
        else:
            _decision = is_warm()
            if not _decision:
                warm_in_background()
    return _decision
