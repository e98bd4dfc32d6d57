"""Time functions f(t) of a model: drivers, actuators and force components.

Time ``t`` is in seconds; the unit of f is that of the field using it (rad, m, N, ...).
Every function returns its value and its exact first and second time derivatives
(``derivatives(t) -> (f, df/dt, d2f/dt2)``; never finite differences), for a float ``t``
(floats out) or a numpy array ``t`` (arrays of the same shape out).

JSON forms accepted by :func:`parse_function` (exactly one kind per object):

* a number: a constant;
* ``{"expression": "0.5*(1-cos(pi*t/3.5))"}``: see :mod:`solver.model.expression`;
* ``{"polynomial": [c0, c1, c2, ...]}``: ``f = sum c_k t**k``;
* ``{"smooth_step": {"t0", "f0", "t1", "f1"}}``: ``f0`` until ``t0``, ``f1`` from ``t1``,
  in between ``f0 + (f1 - f0) (10 s^3 - 15 s^4 + 6 s^5)``, ``s = (t - t0)/(t1 - t0)``;
  C2 continuous (f' and f'' vanish at both ends);
* ``{"smooth_bump": {"t0", "f0", "tmax", "fmax", "t1", "f1"}}`` (MUBODYNA's "c"
  function): with ``x = t - t0``, ``f = f0 + c1 x^3 + c2 x^4 + c3 x^5 + c4 x^6 + c5 x^7``
  whose coefficients give ``f(tmax) = fmax``, ``f'(tmax) = 0``, ``f(t1) = f1``,
  ``f'(t1) = f''(t1) = 0``; ``f0`` before ``t0`` and ``f1`` after ``t1`` (C2 continuous);
* ``{"table": [[t, f], ...], "interpolation": "cubic" | "linear"}``: at least two rows,
  strictly increasing ``t``. ``cubic`` (default) is scipy's C2 ``CubicSpline`` with
  "not-a-knot" ends; with 3 rows this is the parabola and with 2 rows the straight line
  through the points. ``linear`` is piecewise linear: f' is piecewise constant (the slope
  of the segment to the right at an interior row, of the last segment at the last row)
  and f'' is 0. Outside the table f holds the end value with zero derivatives.

Every kind is evaluated by the compiled kernel :mod:`solver.kernels.time_functions` (the
only implementation): :meth:`TimeFunction.encode` gives its ``(kind, data, ops)``, and
``derivatives`` evaluates a one-function table built on first use and kept on the
instance (never pickled or copied: reading and checking a model does not import Numba).

Functions are immutable and compare equal when their JSON forms (:meth:`to_json`, which
returns the form that was read) are equal, so a load -> save -> load round trip is exact.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solver.model.errors import ModelError
from solver.model.expression import Expression, evaluate_alone, parse_expression
from solver.model.fields import number_problem

__all__ = [
    "Constant",
    "Expression",
    "ExpressionFunction",
    "Polynomial",
    "SmoothBump",
    "SmoothStep",
    "Table",
    "TimeFunction",
    "parse_expression",
    "parse_function",
]

KINDS = ("expression", "polynomial", "smooth_step", "smooth_bump", "table")
INTERPOLATIONS = ("cubic", "linear")
_STEP_KEYS = ("t0", "f0", "t1", "f1")
_BUMP_KEYS = ("t0", "f0", "tmax", "fmax", "t1", "f1")

Number = int | float
_TABLE = "_kernel_table"  # the instance's cached one-function table


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


class TimeFunction:
    """A function of time ``t`` (s) with exact first and second derivatives."""

    __slots__ = ()

    def __call__(self, t: Any) -> Any:
        """f(t): a float for a scalar ``t``, an array of the shape of ``t`` otherwise."""
        return self.derivatives(t)[0]

    def encode(self) -> Any:
        """This function as the compiled kernel reads it: ``(kind, data, ops)``, an
        ``Encoded`` of :mod:`solver.kernels.time_functions`."""
        raise NotImplementedError

    def kernel_table(self) -> Any:
        """A ``FunctionTable`` of this function alone (built on first use and kept; not
        pickled or copied with the function)."""
        table = self.__dict__.get(_TABLE)
        if table is None:
            from solver.kernels.time_functions import function_table

            table = function_table([self.encode()])
            object.__setattr__(self, _TABLE, table)
        return table

    def derivatives(self, t: Any) -> tuple[Any, Any, Any]:
        """``(f, df/dt, d2f/dt2)`` at ``t`` (exact), evaluated by the compiled kernel of
        :mod:`solver.kernels.time_functions`."""
        return evaluate_alone(self.__dict__.get(_TABLE) or self.kernel_table(), t)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop(_TABLE, None)
        return state

    def to_json(self) -> Any:
        """The JSON form (a number or a dict) this function was read from."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TimeFunction):
            return NotImplemented
        return self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(_freeze(self.to_json()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_json()!r})"


@dataclass(frozen=True, eq=False, repr=False)
class Constant(TimeFunction):
    """f(t) = value."""

    value: Number

    def encode(self) -> Any:
        from solver.kernels import time_functions as kernel

        return kernel.encoded(kernel.CONSTANT, [self.value])

    def to_json(self) -> Number:
        return self.value


@dataclass(frozen=True, eq=False, repr=False)
class ExpressionFunction(TimeFunction):
    """f(t) given by a parsed expression (see :mod:`solver.model.expression`)."""

    expression: Expression

    @classmethod
    def from_text(cls, text: str, where: str = "", field: str = "expression") -> ExpressionFunction:
        return cls(parse_expression(text, where, field))

    @property
    def text(self) -> str:
        return self.expression.text

    def encode(self) -> Any:
        return self.expression.encode()

    def kernel_table(self) -> Any:
        return self.expression.kernel_table()

    def to_json(self) -> dict[str, Any]:
        return {"expression": self.expression.text}


@dataclass(frozen=True, eq=False, repr=False)
class Polynomial(TimeFunction):
    """f(t) = sum of ``coefficients[k] * t**k`` (at least one coefficient)."""

    coefficients: tuple[Number, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "coefficients", tuple(self.coefficients))
        if not self.coefficients:
            raise ModelError("", "needs at least one coefficient", "polynomial")

    def encode(self) -> Any:
        from solver.kernels import time_functions as kernel

        return kernel.encoded(kernel.POLYNOMIAL, self.coefficients)

    def to_json(self) -> dict[str, Any]:
        return {"polynomial": list(self.coefficients)}


@dataclass(frozen=True, eq=False, repr=False)
class SmoothStep(TimeFunction):
    """C2 quintic step from ``f0`` at ``t0`` to ``f1`` at ``t1`` (t1 > t0)."""

    t0: Number
    f0: Number
    t1: Number
    f1: Number

    def __post_init__(self) -> None:
        if not self.t1 > self.t0:
            raise ModelError(
                "", f"t1 ({self.t1}) must be greater than t0 ({self.t0})", "smooth_step"
            )

    def encode(self) -> Any:
        from solver.kernels import time_functions as kernel

        return kernel.encoded(kernel.SMOOTH_STEP, [self.t0, self.f0, self.t1, self.f1])

    def to_json(self) -> dict[str, Any]:
        return {"smooth_step": {k: getattr(self, k) for k in _STEP_KEYS}}


def _bump_coefficients(
    t0: float, f0: float, tmax: float, fmax: float, t1: float, f1: float
) -> tuple[float, ...]:
    """c1..c5 of ``f0 + c1 x^3 + ... + c5 x^7`` (x = t - t0), solved in u = x/(t1 - t0)."""
    length = t1 - t0
    m = (tmax - t0) / length
    powers = np.arange(3, 8)  # u^3 .. u^7
    matrix = np.array(
        [
            m**powers,
            powers * m ** (powers - 1),
            np.ones(5),
            powers.astype(float),
            (powers * (powers - 1)).astype(float),
        ]
    )
    rhs = np.array([fmax - f0, 0.0, f1 - f0, 0.0, 0.0])
    if not np.linalg.cond(matrix) < 1e12:
        raise np.linalg.LinAlgError("singular")
    d = np.linalg.solve(matrix, rhs)
    return tuple(float(x) for x in d / length**powers)


@dataclass(frozen=True, eq=False, repr=False)
class SmoothBump(TimeFunction):
    """MUBODYNA's "c" function: from ``f0`` at ``t0`` up (or down) to the extremum
    ``fmax`` at ``tmax`` and on to ``f1`` at ``t1`` (t0 < tmax < t1), C2 continuous."""

    t0: Number
    f0: Number
    tmax: Number
    fmax: Number
    t1: Number
    f1: Number
    coefficients: tuple[float, ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if not self.t0 < self.tmax < self.t1:
            raise ModelError(
                "",
                f"needs t0 < tmax < t1 (got t0 = {self.t0}, tmax = {self.tmax}, t1 = {self.t1})",
                "smooth_bump",
            )
        try:
            c = _bump_coefficients(
                *(float(getattr(self, k)) for k in ("t0", "f0", "tmax", "fmax", "t1", "f1"))
            )
        except np.linalg.LinAlgError:
            raise ModelError(
                "", "has no solution for these times (tmax too close to t0 or t1)", "smooth_bump"
            ) from None
        object.__setattr__(self, "coefficients", c)

    def encode(self) -> Any:
        from solver.kernels import time_functions as kernel

        ends = [self.t0, self.f0, self.t1, self.f1]
        return kernel.encoded(kernel.SMOOTH_BUMP, [*ends, *self.coefficients])

    def to_json(self) -> dict[str, Any]:
        return {"smooth_bump": {k: getattr(self, k) for k in _BUMP_KEYS}}


@dataclass(frozen=True, eq=False, repr=False)
class Table(TimeFunction):
    """Interpolated ``[[t, f], ...]`` rows; ``interpolation`` None means the default
    (cubic) and is kept so that :meth:`to_json` returns the form that was read."""

    points: tuple[tuple[Number, Number], ...]
    interpolation: str | None = None

    def __post_init__(self) -> None:
        points = tuple((row[0], row[1]) for row in self.points)
        object.__setattr__(self, "points", points)
        if self.interpolation not in (None, *INTERPOLATIONS):
            raise ModelError(
                "", f'must be "cubic" or "linear", not {self.interpolation!r}', "interpolation"
            )
        if len(points) < 2:
            raise ModelError("", f"needs at least 2 rows, got {len(points)}", "table")
        ts = np.array([p[0] for p in points], dtype=float)
        if not np.all(np.diff(ts) > 0):
            raise ModelError("", "times must be strictly increasing", "table")

    @property
    def kind(self) -> str:
        """``"cubic"`` or ``"linear"``."""
        return self.interpolation or "cubic"

    def encode(self) -> Any:
        """Times, values and, for ``cubic``, scipy's not-a-knot ``CubicSpline``
        coefficients per interval (highest power first, in ``t - t_j``)."""
        from scipy.interpolate import CubicSpline  # a heavy import: only for cubic tables

        from solver.kernels import time_functions as kernel

        ts, fs = np.array(self.points, dtype=float).T
        if self.kind == "linear":
            return kernel.encoded(kernel.TABLE_LINEAR, [ts, fs])
        coefficients = CubicSpline(ts, fs).c.T  # (rows - 1, 4)
        return kernel.encoded(kernel.TABLE_CUBIC, np.concatenate([ts, fs, coefficients.ravel()]))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"table": [list(p) for p in self.points]}
        if self.interpolation is not None:
            data["interpolation"] = self.interpolation
        return data


# -- reading ---------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:27] + "..."
        return f'the string "{shown}"'
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    return "an object" if isinstance(value, dict) else type(value).__name__


def _number(value: Any, where: str, field: str) -> Number:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ModelError(where, f"must be a number, not {_type_name(value)}", field)
    problem = number_problem(value.item() if isinstance(value, np.generic) else value)
    if problem:
        raise ModelError(where, problem, field)
    return int(value) if isinstance(value, int | np.integer) else float(value)


def _unknown_key(key: Any, allowed: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(str(key), allowed, n=1)
    hint = f'; did you mean "{close[0]}"?' if close else ""
    return f'has unknown key "{key}"{hint} (allowed: {", ".join(allowed)})'


def _object(value: Any, keys: tuple[str, ...], where: str, field: str) -> dict[str, Number]:
    """An object with exactly ``keys``, all numbers."""
    if not isinstance(value, dict):
        raise ModelError(
            where, f"must be an object with {', '.join(keys)}, not {_type_name(value)}", field
        )
    for key in value:
        if key not in keys:
            raise ModelError(where, _unknown_key(key, keys), field)
    missing = [k for k in keys if k not in value]
    if missing:
        raise ModelError(where, f"is missing {', '.join(missing)} (needs {', '.join(keys)})", field)
    return {k: _number(value[k], where, f"{field}.{k}") for k in keys}


def _located(error: ModelError, where: str, field: str) -> ModelError:
    return ModelError(where, error.reason, f"{field}.{error.field}" if error.field else field)


def parse_function(data: Any, where: str = "", field: str = "function") -> TimeFunction:
    """Read a time function from its JSON form (see the module docstring).

    ``where`` names the item (e.g. ``drivers[0] "motor"``) and ``field`` the field
    (e.g. ``function`` or ``vector[1]``); every ``ModelError`` raised names both.
    An existing :class:`TimeFunction` is returned unchanged.
    """
    if isinstance(data, TimeFunction):
        return data
    if isinstance(data, int | float | np.integer | np.floating) and not isinstance(data, bool):
        return Constant(_number(data, where, field))
    if not isinstance(data, dict):
        raise ModelError(
            where,
            f"must be a number or an object with one of {', '.join(KINDS)}, not {_type_name(data)}",
            field,
        )
    allowed = (*KINDS, "interpolation")
    for key in data:
        if key not in allowed:
            raise ModelError(where, _unknown_key(key, allowed), field)
    kinds = [k for k in KINDS if k in data]
    if len(kinds) != 1:
        given = f"gives {' and '.join(kinds)}" if kinds else "is empty"
        raise ModelError(where, f"{given}; give exactly one of {', '.join(KINDS)}", field)
    kind = kinds[0]
    value = data[kind]
    sub = f"{field}.{kind}"
    if "interpolation" in data and kind != "table":
        raise ModelError(
            where, f'"interpolation" is only allowed with "table", not "{kind}"', field
        )
    try:
        if kind == "expression":
            return ExpressionFunction(parse_expression(value, where, field))
        if kind == "polynomial":
            if not isinstance(value, list) or not value:
                raise ModelError(
                    where,
                    f"must be a non-empty list of numbers [c0, c1, ...], not {_type_name(value)}",
                    sub,
                )
            return Polynomial(tuple(_number(c, where, f"{sub}[{i}]") for i, c in enumerate(value)))
        if kind == "smooth_step":
            return SmoothStep(**_object(value, _STEP_KEYS, where, sub))
        if kind == "smooth_bump":
            return SmoothBump(**_object(value, _BUMP_KEYS, where, sub))
        return _table(value, data.get("interpolation"), where, field)
    except ModelError as error:
        if error.location:
            raise
        raise _located(error, where, field) from None


def _table(value: Any, interpolation: Any, where: str, field: str) -> Table:
    sub = f"{field}.table"
    if not isinstance(value, list) or len(value) < 2:
        shown = f"{len(value)} row(s)" if isinstance(value, list) else _type_name(value)
        raise ModelError(where, f"must be a list of at least 2 rows [t, f], not {shown}", sub)
    rows = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != 2:
            raise ModelError(
                where, f"must be a row [t, f] of two numbers, not {_type_name(row)}", f"{sub}[{i}]"
            )
        rows.append(
            (_number(row[0], where, f"{sub}[{i}][0]"), _number(row[1], where, f"{sub}[{i}][1]"))
        )
        if i and not rows[i][0] > rows[i - 1][0]:
            raise ModelError(
                where,
                f"time {rows[i][0]} must be greater than the previous row's {rows[i - 1][0]} "
                f"(times must be strictly increasing)",
                f"{sub}[{i}][0]",
            )
    if interpolation is not None and interpolation not in INTERPOLATIONS:
        raise ModelError(
            where,
            f'must be "cubic" or "linear", not {_type_name(interpolation)}',
            f"{field}.interpolation",
        )
    return Table(tuple(rows), interpolation)
