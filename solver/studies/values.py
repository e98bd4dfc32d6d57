"""Values and distributions of a study as written on a command line or given in Python.

``parse_values("1e-3,5e-4")`` gives ``[0.001, 0.0005]``; each item is read as JSON when it
is JSON (numbers, ``true``, ``"text"``, ``[1, 0, 0]``), otherwise as a bare word
(``penalty``); commas inside brackets do not split. A distribution is ``uniform(a, b)``
(a ≤ x < b) or ``normal(mu, sigma)``; it draws from a NumPy ``Generator``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver.studies.errors import StudyError

DISTRIBUTIONS = ("uniform", "normal")


def split_items(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes, items stripped."""
    items, depth, quote, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif not quote and ch in "[{(":
            depth += 1
        elif not quote and ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0 and not quote:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return items


def parse_value(text: str) -> Any:
    """One value: JSON when it parses (finite numbers only), else the bare word."""
    try:
        value = json.loads(text, parse_constant=_refuse)
    except ValueError:
        return text
    return value


def _refuse(name: str) -> Any:
    raise ValueError(name)


def parse_values(key: str, text: str) -> list[Any]:
    """The values of ``--vary KEY=V1,V2,...``; refuses an empty list or item."""
    items = split_items(text)
    if not text.strip() or any(not item for item in items):
        raise StudyError(key, f"has an empty value in {text!r} (write KEY=V1,V2,...)")
    return [parse_value(item) for item in items]


def split_assignment(text: str, option: str) -> tuple[str, str]:
    """``KEY=VALUE`` → ``(KEY, VALUE)``."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise StudyError(
            "", f"{option} {text!r} is not KEY=VALUES (e.g. {option} solver.dt=1e-3,5e-4)"
        )
    return key.strip(), value.strip()


@dataclass(frozen=True)
class Distribution:
    """``uniform(a, b)``: a ≤ x < b; ``normal(mu, sigma)``: mean mu, standard deviation sigma."""

    kind: str
    a: float
    b: float

    def draw(self, rng: np.random.Generator) -> float:
        if self.kind == "uniform":
            return float(rng.uniform(self.a, self.b))
        return float(rng.normal(self.a, self.b))

    def __str__(self) -> str:
        return f"{self.kind}({self.a:g}, {self.b:g})"


_DIST = re.compile(r"^\s*([a-z]+)\s*\((.*)\)\s*$")


def parse_distribution(key: str, spec: Any) -> Distribution:
    """``"uniform(0.5, 2)"``, ``("normal", 1.0, 0.1)`` or a ``Distribution``."""
    if isinstance(spec, Distribution):
        kind, args = spec.kind, [spec.a, spec.b]
    elif isinstance(spec, tuple | list) and len(spec) == 3 and isinstance(spec[0], str):
        kind, args = spec[0], list(spec[1:])
    elif isinstance(spec, str) and (m := _DIST.match(spec)):
        kind = m.group(1)
        try:
            args = [float(x) for x in split_items(m.group(2))]
        except ValueError:
            raise StudyError(key, f"{spec!r}: the arguments must be numbers") from None
    else:
        raise StudyError(
            key, f"{spec!r} is not a distribution (write uniform(a,b) or normal(mu,sigma))"
        )
    if kind not in DISTRIBUTIONS:
        raise StudyError(key, f'distribution "{kind}" is not one of {", ".join(DISTRIBUTIONS)}')
    if len(args) != 2:
        raise StudyError(key, f"{kind} takes two numbers, not {len(args)}")
    try:
        a, b = (float(x) for x in args)
    except (TypeError, ValueError):
        raise StudyError(key, f"{kind} takes two numbers, not {args!r}") from None
    if not (math.isfinite(a) and math.isfinite(b)):
        raise StudyError(key, f"{kind}({a}, {b}): the arguments must be finite")
    if kind == "uniform" and not b > a:
        raise StudyError(key, f"uniform({a:g}, {b:g}) needs a < b")
    if kind == "normal" and not b > 0:
        raise StudyError(key, f"normal({a:g}, {b:g}) needs sigma > 0")
    return Distribution(kind, a, b)
