"""MUBODYNA model folders (S. Villar Alegría, *Dinámica por ordenador con Matlab*, 2018):
the nine ``in*.m`` files, parsed (``matlab``, never evaluated) and mapped (``mapping``)."""

from __future__ import annotations

from pathlib import Path

from solver.importers.common import Imported


def load_mubodyna(folder: str | Path) -> Imported:
    """Import the MUBODYNA model in ``folder``."""
    from solver.importers.mubodyna.folder import read_folder
    from solver.importers.mubodyna.mapping import build_model

    files = read_folder(Path(folder))
    return build_model(files)
