"""The example models shipped in ``examples/``, listed by their titles for the File menu.

A title is the model's ``name`` field, read with the JSON parser only (nothing in a model
file is executed); a file that cannot be read is listed by its file name.
"""

from __future__ import annotations

import json
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"


def model_title(path: Path) -> str:
    """The ``name`` of the model in ``path``, else the file name without ``.json``."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        name = data.get("name") if isinstance(data, dict) else None
    except (OSError, ValueError):
        name = None
    if isinstance(name, str) and name.strip():
        return " ".join(name.split())
    return path.stem.replace("_", " ")


def example_entries(folder: Path = EXAMPLES_DIR) -> list[tuple[str, Path]]:
    """``(title, path)`` of every example, sorted by title."""
    if not folder.is_dir():
        return []
    entries = [(model_title(p), p) for p in folder.glob("*.json")]
    return sorted(entries, key=lambda e: (e[0].lower(), e[1].name))
