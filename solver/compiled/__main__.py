"""``python -m solver.compiled``: compile (or load) every kernel of the solver
(:func:`solver.analysis.warmup.main`; ``--quiet`` prints nothing)."""

import sys

from solver.analysis.warmup import main

sys.exit(main())
