"""The time functions of a model's drivers and forces, checked where they are evaluated.

``checked_driver`` and ``checked_force`` return a copy of the description whose time
functions raise ``NonFiniteFunction`` naming the item, the field, the function and the
time when what the solver uses of them is NaN, infinite or beyond ``MAX_MAGNITUDE`` (the
bound of a model file's numbers: larger values overflow in the next products, e.g. a
driver's ``1e300*t``): for a driver the value and its
first and second derivatives (the constraint, its velocity and acceleration terms), for
a force, torque or actuator the value. Without this a ``sqrt(0.02 - t)`` or ``1/t`` would
only show later as a failed projection or Newton iteration with no word of its cause.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np

from solver.errors import NonFiniteFunction
from solver.model import description as d
from solver.model.fields import MAX_MAGNITUDE
from solver.model.functions import Constant, ExpressionFunction, TimeFunction


class ItemFunction(TimeFunction):
    """``function`` of model item ``item`` (field ``field``) whose first ``orders`` outputs
    of ``derivatives`` are checked to be finite."""

    def __init__(self, function: TimeFunction, item: str, field: str, orders: int) -> None:
        self.function = function
        self.item = item
        self.field = field
        self.orders = orders

    def derivatives(self, t: Any) -> tuple[Any, Any, Any]:
        values = self.function.derivatives(t)
        for order in range(self.orders):
            x = values[order]
            if type(x) is float:
                if not -MAX_MAGNITUDE <= x <= MAX_MAGNITUDE:  # also NaN
                    self._fail(t, order, x)
            else:
                a = np.asarray(x, float).ravel()
                bad = np.flatnonzero(~(np.abs(a) <= MAX_MAGNITUDE))
                if len(bad):
                    tt = np.broadcast_to(np.asarray(t, float), np.shape(x)).ravel()
                    self._fail(tt[bad[0]], order, a[bad[0]])
        return values

    def _fail(self, t: Any, order: int, value: Any) -> None:
        raise NonFiniteFunction(
            self.item, self.field, describe_function(self.function), float(t), order, float(value)
        )

    def encode(self) -> Any:
        """The wrapped function's encoding (a table of many functions evaluates it unchecked)."""
        return self.function.encode()

    def to_json(self) -> Any:
        return self.function.to_json()


def describe_function(function: TimeFunction, limit: int = 80) -> str:
    """The function as the model file gives it, quoted, on one line, at most ``limit``
    characters: ``"sqrt(0.02 - t)"`` or ``{"polynomial": [0, 1e+300]}``."""
    if isinstance(function, ExpressionFunction):
        text = '"' + " ".join(function.text.split()) + '"'
    else:
        text = json.dumps(function.to_json(), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _checked(function: TimeFunction | None, item: str, field: str, orders: int):
    if not isinstance(function, TimeFunction) or isinstance(function, Constant | ItemFunction):
        return function  # None, or a number read from a file: finite
    return ItemFunction(function, item, field, orders)


def checked_driver(index: int, driver: d.Driver) -> d.Driver:
    """``driver`` whose function is checked with its two derivatives."""
    item = f'drivers[{index}] "{driver.name}"'
    return replace(driver, function=_checked(driver.function, item, "function", 3))


def checked_force(index: int, force: d.Force) -> d.Force:
    """``force`` whose actuator, function and vector components are checked."""
    item = f'forces[{index}] "{force.name}"'
    changes: dict[str, Any] = {}
    for key in ("actuator", "function"):
        if getattr(force, key) is not None:
            changes[key] = _checked(getattr(force, key), item, key, 1)
    if force.vector is not None:
        changes["vector"] = tuple(
            _checked(c, item, f"vector[{k}]", 1) for k, c in enumerate(force.vector)
        )
    return replace(force, **changes) if changes else force


def model_functions(model: d.Model) -> list[ItemFunction]:
    """Every checked time function of ``model``'s drivers and forces."""
    out = []
    for i, driver in enumerate(model.drivers):
        out.append(checked_driver(i, driver).function)
    for i, force in enumerate(model.forces):
        f = checked_force(i, force)
        out += [f.actuator, f.function, *(f.vector or ())]
    return [f for f in out if isinstance(f, ItemFunction)]


def check_functions(functions: list[ItemFunction], t0: float, t1: float) -> None:
    """Raise ``NonFiniteFunction`` for the earliest instant in ``[t0, t1]`` where one of
    ``functions`` is not finite: on a uniform grid of 65 instants and at the substeps a
    retried step takes (``t0 + (t1 − t0)/2^k``). The compiled evaluation does not check
    the functions on every call; a step that fails is explained by this."""
    if not functions:
        return
    span = t1 - t0
    times = np.unique(
        np.concatenate([np.linspace(t0, t1, 65), t0 + span / 2.0 ** np.arange(1, 31)])
    )
    with np.errstate(all="ignore"):
        for t in times:
            for f in functions:
                f.derivatives(float(t))
