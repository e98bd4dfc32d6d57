"""Models from other programs: ``import_model(path)`` → ``Imported`` (a Biela ``Model``, the
warnings naming what was left out, and extra files such as meshes).

* a folder (or one of its ``in*.m`` files): a MUBODYNA model (``mubodyna``);
* ``.xml`` (MJCF) and ``.urdf``: through MuJoCo (``mujoco_model``; needs the ``mujoco``
  package, the ``import`` extra).

Nothing in an imported file is executed: MUBODYNA's MATLAB is parsed, MJCF and URDF are
compiled by MuJoCo.
"""

from __future__ import annotations

import os
from pathlib import Path

from solver.importers.common import Imported, ImportError_

__all__ = ["ImportError_", "Imported", "import_model", "write_imported"]


def import_model(path: str | os.PathLike, mesh_dir: str = "meshes") -> Imported:
    """Import the model at ``path`` (a MUBODYNA folder, an MJCF or a URDF file)."""
    path = Path(path)
    if path.is_dir() or (path.suffix.lower() == ".m" and path.name.lower().startswith("in")):
        from solver.importers.mubodyna import load_mubodyna

        return load_mubodyna(path if path.is_dir() else path.parent)
    if not path.exists():
        raise ImportError_(path.name, "does not exist")
    if path.suffix.lower() in (".xml", ".mjcf", ".urdf"):
        from solver.importers.mujoco_model import load_mujoco

        return load_mujoco(path, mesh_dir)
    raise ImportError_(
        path.name,
        "is not a model Biela imports (a MUBODYNA folder of in*.m files, an MJCF .xml or a "
        "URDF .urdf file)",
    )


def write_imported(imported: Imported, out: str | os.PathLike) -> list[Path]:
    """Save the model to ``out`` (JSON) and its extra files beside it; the paths written."""
    from solver.model import save_model

    out = Path(out)
    written = []
    for rel, data in imported.files.items():
        target = out.parent / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(target)
    save_model(imported.model, out)
    return [out, *written]
