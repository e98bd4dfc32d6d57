"""What every importer shares: the result of an import, its error, and Biela names made from
foreign ones (indices, empty names, characters the model format refuses)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from solver.model import description as d
from solver.model.errors import ModelError

#: Names the results CSV uses for itself (``solver.model.validation.RESERVED``).
_RESERVED = {"t", "energy", "constraint", d.GROUND}


class ImportError_(ModelError):  # noqa: N801 - not the builtin ImportError
    """A file that cannot be imported: the message names the file, the element and the
    field (``ModelError``'s location, field and reason)."""


@dataclass
class Imported:
    """An imported model, the warnings (one line each: what was left out and why) and
    extra files the model refers to (mesh files: relative path → bytes)."""

    model: d.Model
    warnings: list[str] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)


class Names:
    """Unique Biela names in one namespace, made from foreign names."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def make(self, wanted: str, fallback: str) -> str:
        name = re.sub(r"[.,;\"'\x00-\x1f]", "_", (wanted or "").strip()) or fallback
        if name in _RESERVED:
            name = f"{name}_"
        base, k = name, 2
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name


def vec(v) -> d.Vec3:
    """A plain 3-tuple of floats, with rounding noise below 1e-15 set to zero."""
    return tuple(0.0 if abs(float(x)) < 1e-15 else float(x) for x in np.asarray(v, float)[:3])


def quat(q) -> d.Quat:
    q = np.asarray(q, float)
    q = q / math.sqrt(float(q @ q))
    if q[0] < 0:
        q = -q
    return tuple(float(x) for x in q)


def color(rgba) -> str:
    r, g, b = (min(255, max(0, round(255 * float(c)))) for c in list(rgba)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"
