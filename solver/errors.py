"""Errors of a run of a valid model: the solver could not go on (``SimulationError``), a
driver's or force's time function is not finite (``NonFiniteFunction``). A leaf module:
every layer of the solver may raise them."""

from __future__ import annotations


class SimulationError(RuntimeError):
    """The solver could not go on at time ``t``: ``reason`` says why, ``hint`` what to try."""

    def __init__(self, t: float, reason: str, hint: str = "") -> None:
        self.t = t
        self.reason = reason
        self.hint = hint
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"solver stopped at t = {self.t:.6g} s: {self.reason}"
        return f"{text}; try: {self.hint}" if self.hint else text


class NonFiniteFunction(ArithmeticError):
    """A model item's time function is NaN or infinite at time ``t`` (s).

    ``item`` names the item (``drivers[0] "motor"``, ``forces[2] "push"``), ``field`` its
    field (``function``, ``actuator``, ``vector[1]``), ``text`` the function as written,
    ``order`` which value failed (0 the value, 1 the first, 2 the second derivative) and
    ``value`` what it was. Not a ``RuntimeError`` or ``ValueError``: the solver's
    ``except`` clauses for singular matrices must not take it for one.
    ``simulation_error()`` is the ``SimulationError`` a run stops with."""

    ORDERS = ("", "first derivative", "second derivative")

    def __init__(self, item: str, field: str, text: str, t: float, order: int, value) -> None:
        self.item = item
        self.field = field
        self.text = text
        self.t = t
        self.order = order
        self.value = value
        super().__init__(self.message)

    @property
    def message(self) -> str:
        from solver.model.fields import MAX_MAGNITUDE

        value = self.value
        what = "NaN (not a number)" if value != value else f"{value:.3g}"
        beyond = (
            f", beyond the {MAX_MAGNITUDE:g} a model's numbers may reach"
            if value == value and abs(value) != float("inf")
            else ""
        )
        of = f"the {self.ORDERS[self.order]} of " if self.order else ""
        return f"{self.item}: {of}{self.field} {self.text} is {what} at t = {self.t:.6g} s{beyond}"

    def simulation_error(self) -> SimulationError:
        needs = (
            "a finite value and finite first and second derivatives"
            if self.item.startswith("drivers")
            else "a finite value"
        )
        return SimulationError(
            self.t,
            self.message,
            f"give {self.item} a function with {needs} from t = 0 to t_end "
            "(a square root or a logarithm of a quantity that reaches zero, a division by t, "
            "a power that overflows)",
        )
