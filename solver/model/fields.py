"""Typed access to one JSON object of a model file, with errors naming item and field.

``Fields(data, where, allowed)`` refuses unknown keys at construction; each getter checks
the type and range of one field and raises ``ModelError(where, reason, field)``.
Nothing read from a file is ever executed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from solver.model.errors import ModelError, printable

_MISSING = object()
REQUIRED = _MISSING  # default meaning "the field must be given"

#: Largest magnitude of any number in a model (SI units). Beyond it a unit is surely wrong,
#: and products of a few such numbers (a moment of inertia times an angular velocity
#: squared, a length squared) would leave the range of double precision.
MAX_MAGNITUDE = 1e30
#: Smallest value of a quantity that must be positive (a mass, a length, a time step):
#: below it arithmetic with the quantity reaches the subnormal range and loses precision.
MIN_POSITIVE = 1e-30


def describe(value: Any) -> str:
    """A short, safe rendering of a JSON value for error messages (control characters
    escaped, long values shortened)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a whole number of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    text = printable(text)
    return text if len(text) <= 40 else text[:37] + "..."


def number_problem(value: Any, positive: bool = False) -> str | None:
    """Why ``value`` is not an acceptable number of a model, or ``None``: not a number,
    not finite, beyond ``MAX_MAGNITUDE``, or (``positive``) not positive or below
    ``MIN_POSITIVE``. The one rule for every number read from a model."""
    if not is_number(value):
        return f"must be a number, not {describe(value)}"
    limit = (
        f"numbers must be finite and at most {MAX_MAGNITUDE:g} in magnitude (SI units: "
        "check the unit)"
    )
    try:
        x = float(value)
    except OverflowError:  # a JSON integer literal with hundreds of digits
        return f"is too large ({describe(value)}); {limit}"
    if not math.isfinite(x):
        return f"must be a finite number, not {x}"
    if abs(x) > MAX_MAGNITUDE:
        return f"is too large ({x:g}); {limit}"
    if positive and x <= 0:
        return f"must be positive (got {x:g})"
    if positive and x < MIN_POSITIVE:
        return (
            f"is too small ({x:g}); a positive quantity must be at least {MIN_POSITIVE:g} "
            "(SI units: check the unit)"
        )
    return None


def text_problem(value: str) -> str | None:
    """Why the string ``value`` is not text that can be written back as UTF-8 (an unpaired
    UTF-16 surrogate from a ``\\ud800`` escape), or ``None``."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = printable(value[exc.start])
        return (
            f"contains an unpaired UTF-16 surrogate ({bad}), which is not a character; "
            "write the character itself"
        )
    return None


def fmt_vector(values) -> str:
    """``[1.3, 0, 3]``: a vector for messages, numbers in short ``g`` format."""
    return "[" + ", ".join(f"{float(v):.6g}" for v in values) + "]"


def suggest(key: str, allowed: Iterable[str]) -> str:
    """ ", did you mean "x"?" when a close allowed name exists, else the allowed list."""
    import difflib

    allowed = list(allowed)
    close = difflib.get_close_matches(key, allowed, n=1)
    if close:
        return f' (did you mean "{close[0]}"?)'
    return f" (allowed: {', '.join(allowed)})" if allowed else ""


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class Fields:
    """One JSON object being read; ``where`` names it, e.g. ``joints[2] "J3"``."""

    def __init__(self, data: Any, where: str, allowed: Iterable[str], prefix: str = "") -> None:
        self.where = where
        self.prefix = prefix
        if not isinstance(data, dict):
            kind = "a list" if isinstance(data, list) else describe(data)
            raise ModelError(where, f"must be an object {{...}}, not {kind}", prefix.rstrip("."))
        allowed = list(allowed)
        for key in data:
            if key not in allowed:
                raise ModelError(
                    where, f'unknown field "{self.prefix}{key}"' + suggest(key, allowed)
                )
        self.data = data

    def error(self, key: str, reason: str) -> ModelError:
        return ModelError(self.where, reason, self.prefix + key)

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        if key not in self.data:
            if default is _MISSING:
                raise self.error(key, "is missing")
            return default
        return self.data[key]

    def number(
        self,
        key: str,
        default: Any = _MISSING,
        *,
        positive: bool = False,
        nonnegative: bool = False,
        low: float | None = None,
        high: float | None = None,
    ) -> Any:
        if key not in self.data:
            return self.raw(key, default)
        return self.check_number(key, self.data[key], positive, nonnegative, low, high)

    def check_number(
        self,
        key: str,
        value: Any,
        positive: bool = False,
        nonnegative: bool = False,
        low: float | None = None,
        high: float | None = None,
    ) -> float:
        problem = number_problem(value, positive)
        if problem:
            raise self.error(key, problem)
        value = float(value)
        if nonnegative and value < 0:
            raise self.error(key, f"must not be negative (got {value:g})")
        if low is not None and value < low:
            raise self.error(key, f"must be at least {low:g} (got {value:g})")
        if high is not None and value > high:
            raise self.error(key, f"must be at most {high:g} (got {value:g})")
        return value

    def integer(
        self,
        key: str,
        default: Any = _MISSING,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> Any:
        if key not in self.data:
            return self.raw(key, default)
        value = self.data[key]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, f"must be a whole number, not {describe(value)}")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be at least {minimum} (got {describe(value)})")
        if maximum is not None and value > maximum:
            raise self.error(key, f"must be at most {maximum} (got {describe(value)})")
        return value

    def string(
        self, key: str, default: Any = _MISSING, *, choices: Iterable[str] | None = None
    ) -> Any:
        if key not in self.data:
            return self.raw(key, default)
        value = self.data[key]
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, not {describe(value)}")
        problem = text_problem(value)
        if problem:
            raise self.error(key, problem)
        if choices is not None:
            choices = list(choices)
            if value not in choices:
                raise self.error(key, f"{describe(value)} is not one of: {', '.join(choices)}")
        return value

    def boolean(self, key: str, default: Any = _MISSING) -> Any:
        if key not in self.data:
            return self.raw(key, default)
        value = self.data[key]
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, not {describe(value)}")
        return value

    def vector(
        self, key: str, default: Any = _MISSING, *, size: int = 3, nonzero: bool = False
    ) -> Any:
        if key not in self.data:
            return self.raw(key, default)
        value = self.data[key]
        return self.check_vector(key, value, size=size, nonzero=nonzero)

    def check_vector(self, key: str, value: Any, *, size: int = 3, nonzero: bool = False):
        if not isinstance(value, list) or len(value) != size:
            raise self.error(key, f"must be a list of {size} numbers, not {describe(value)}")
        out = []
        for i, v in enumerate(value):
            if not is_number(v):
                raise self.error(f"{key}[{i}]", f"must be a finite number, not {describe(v)}")
            problem = number_problem(v)
            if problem:
                raise self.error(f"{key}[{i}]", problem)
            out.append(float(v))
        if nonzero and math.sqrt(sum(v * v for v in out)) < 1e-12:
            raise self.error(key, "has zero length; give a direction such as [0, 0, 1]")
        return tuple(out)

    def object(self, key: str, allowed: Iterable[str], default: Any = _MISSING) -> Any:
        """A nested object as ``Fields`` (its errors name ``key.sub``)."""
        if key not in self.data:
            return self.raw(key, default)
        value = self.data[key]
        return Fields(value, self.where, allowed, prefix=f"{self.prefix}{key}.")

    def items(self, key: str, default: Any = _MISSING) -> Any:
        if key not in self.data:
            return self.raw(key, default)
        value = self.data[key]
        if not isinstance(value, list):
            raise self.error(key, f"must be a list [...], not {describe(value)}")
        return value
