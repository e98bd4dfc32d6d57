"""``python -m solver.compiled``: compile (or load) every kernel of the solver
(:func:`solver.analysis.warmup.main`; ``--quiet`` prints nothing, ``--force`` runs the
warm-up even where the cache is warm, ``--jobs 1`` compiles in this process only (the default
is two processes where two cores are free), ``--parts a,b`` compiles those parts of
``solver.analysis.warmup.PARTS`` only)."""

import sys

from solver.analysis.warmup import main

sys.exit(main())
