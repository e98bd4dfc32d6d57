"""``python -m solver.compiled``: compile (or load) every kernel of the solver
(:func:`solver.analysis.warmup.main`; ``--quiet`` prints nothing, ``--force`` runs the
warm-up even where the cache is warm, ``--jobs 2`` compiles in two processes (with a second core to spare),
``--parts a,b`` compiles those parts of ``solver.analysis.warmup.PARTS`` only)."""

import sys

from solver.analysis.warmup import main

sys.exit(main())
