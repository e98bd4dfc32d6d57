"""``python -m solver.compiled``: compile (or load) the solver's Numba code and mark it
cached (:func:`solver.compiled.warm.main`; ``--quiet`` prints nothing)."""

import sys

from solver.compiled.warm import main

sys.exit(main())
