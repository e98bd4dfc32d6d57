"""A safe parser for scalar expressions of time ``t`` (s), with exact derivatives.

The grammar is a small subset of Python's arithmetic, read by a hand-written tokenizer
and recursive-descent parser (user text is never evaluated by Python)::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom ("**" unary)?          # right associative: 2**3**2 == 2**9
    atom   := number | "t" | "pi" | "e" | function "(" expr ("," expr)* ")" | "(" expr ")"

so ``-t**2`` is ``-(t**2)``, as in Python. Numbers may use scientific notation (``1e-3``).
Functions: sin cos tan asin acos atan sinh cosh tanh exp log (natural) sqrt abs, and
min max with two or more arguments. ``^`` is refused (write ``**``).

Evaluation uses second-order forward-mode differentiation: every intermediate value
carries ``(v, v', v'')`` with respect to ``t``, so ``derivatives(t)`` returns the exact
first and second derivatives (no finite differences). ``abs``, ``min`` and ``max`` use the
derivatives of the active branch (``abs(x)`` is ``x`` at ``x == 0``; ties of ``min``/``max``
take the first argument). Arithmetic follows IEEE rules: a domain error such as
``log(-1)`` or ``sqrt(-1)`` gives ``nan``, a pole gives ``inf`` (e.g. the derivative of
``sqrt(t)`` at ``t = 0``); no exception or warning is raised during evaluation.
``t`` may be a float (floats out) or a numpy array (arrays of the same shape out).

Inputs are limited to 2000 characters and 100 levels of nesting so that a malicious model
file cannot exhaust memory or the stack.
"""

from __future__ import annotations

import math
import re
from typing import Any

from solver.model.errors import ModelError

MAX_LENGTH = 2000
MAX_DEPTH = 100

VARIABLES = ("t",)
CONSTANTS = {"pi": math.pi, "e": math.e}
#: function name -> (minimum, maximum) number of arguments (``None``: unbounded)
FUNCTIONS: dict[str, tuple[int, int | None]] = {
    "sin": (1, 1),
    "cos": (1, 1),
    "tan": (1, 1),
    "asin": (1, 1),
    "acos": (1, 1),
    "atan": (1, 1),
    "sinh": (1, 1),
    "cosh": (1, 1),
    "tanh": (1, 1),
    "exp": (1, 1),
    "log": (1, 1),
    "sqrt": (1, 1),
    "abs": (1, 1),
    "min": (2, None),
    "max": (2, None),
}
ALLOWED_NAMES = (*VARIABLES, *CONSTANTS, *FUNCTIONS)
_ALLOWED_TEXT = "allowed: " + ", ".join(ALLOWED_NAMES)
_ALLOWED_SYNTAX = (
    "allowed: numbers, t, pi, e, + - * / **, parentheses, commas between function "
    "arguments, and the functions " + ", ".join(FUNCTIONS)
)

# ASCII digits only: Python's \d (and float()) would also read "١٢" (Arabic-Indic) or
# full-width digits, which look like other characters or like nothing in many fonts
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPACE = " \t\r\n"
_OPERATORS = ("**", "+", "-", "*", "/", "(", ")", ",")


def _show(text: str, limit: int = 60) -> str:
    """The expression quoted on one line for an error message (shortened if long)."""
    flat = " ".join(text.split())
    flat = "".join(c if c.isprintable() else repr(c)[1:-1] for c in flat)
    if len(flat) > limit:
        flat = flat[: limit - 3] + "..."
    return f'"{flat}"'


class _Token:
    __slots__ = ("kind", "text", "pos", "value")

    def __init__(self, kind: str, text: str, pos: int, value: float = 0.0) -> None:
        self.kind = kind  # "num", "name", "op", "end"
        self.text = text
        self.pos = pos  # 0-based index in the source
        self.value = value

    def describe(self) -> str:
        if self.kind == "end":
            return "the end of the expression"
        kind = {"num": "number", "name": "name", "op": ""}[self.kind]
        return f'{kind} "{self.text}"'.strip() + f" at position {self.pos + 1}"


class _Parser:
    """Tokenizes and parses one expression into postfix instructions."""

    def __init__(self, text: str, where: str, field: str) -> None:
        self.text = text
        self.where = where
        self.field = field
        self.code: list[tuple[Any, ...]] = []
        self.depth = 0
        self.tokens = self._tokenize()
        self.index = 0

    def error(self, reason: str) -> ModelError:
        return ModelError(self.where, reason, self.field)

    def _in(self) -> str:
        return f"in expression {_show(self.text)}"

    # -- tokenizer -------------------------------------------------------------------

    def _tokenize(self) -> list[_Token]:
        text = self.text
        tokens: list[_Token] = []
        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c in _SPACE:
                i += 1
                continue
            m = _NUMBER.match(text, i)
            if m:
                value = float(m.group())
                if not math.isfinite(value):
                    raise self.error(f'number "{m.group()}" is too large {self._in()}')
                tokens.append(_Token("num", m.group(), i, value))
                i = m.end()
                continue
            m = _NAME.match(text, i)
            if m:
                name = m.group()
                if name not in ALLOWED_NAMES:
                    raise self.error(f'unknown name "{name}" {self._in()} ({_ALLOWED_TEXT})')
                tokens.append(_Token("name", name, i))
                i = m.end()
                continue
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is not None:
                tokens.append(_Token("op", op, i))
                i += len(op)
                continue
            raise self.error(self._bad_character(c, i))
        tokens.append(_Token("end", "", n))
        return tokens

    def _bad_character(self, c: str, i: int) -> str:
        at = f"at position {i + 1} {self._in()}"
        if c == "^":
            return f'"^" {at} is not allowed; write powers with ** (e.g. t**2)'
        if c == ".":
            return (
                f'"." {at} is not allowed: a dot may only appear inside a number such '
                f"as 0.5 (attribute access is not supported)"
            )
        if c in "'\"":
            return f"quote {at} is not allowed: strings are not supported ({_ALLOWED_SYNTAX})"
        if c.isnumeric():
            return f'"{c}" {at} is not an ASCII digit; write numbers with the digits 0-9'
        if c in "[]{}":
            return f'"{c}" {at} is not allowed; group with parentheses ( ) instead'
        shown = c if c.isprintable() and not c.isspace() else repr(c)[1:-1]
        return f'character "{shown}" {at} is not allowed ({_ALLOWED_SYNTAX})'

    # -- parser ----------------------------------------------------------------------

    @property
    def token(self) -> _Token:
        return self.tokens[self.index]

    def _advance(self) -> _Token:
        tok = self.tokens[self.index]
        self.index += 1
        return tok

    def _is(self, op: str) -> bool:
        tok = self.token
        return tok.kind == "op" and tok.text == op

    def parse(self) -> list[tuple[Any, ...]]:
        if self.token.kind == "end":
            raise self.error('is empty; write an expression of time t such as "2*pi*t"')
        self._expr()
        tok = self.token
        if tok.kind != "end":
            if tok.kind == "op" and tok.text == ")":
                raise self.error(f'has an unmatched ")" at position {tok.pos + 1} {self._in()}')
            hint = ""
            if tok.kind == "name" or (tok.kind == "op" and tok.text == "("):
                hint = " (implicit multiplication is not supported: write 2*t, not 2t)"
            raise self.error(
                f"has unexpected {tok.describe()} {self._in()}; expected an operator "
                f"+ - * / ** or the end{hint}"
            )
        return self.code

    def _expr(self) -> None:
        self._term()
        while self._is("+") or self._is("-"):
            op = self._advance().text
            self._term()
            self.code.append(("add",) if op == "+" else ("sub",))

    def _term(self) -> None:
        self._unary()
        while self._is("*") or self._is("/"):
            op = self._advance().text
            self._unary()
            self.code.append(("mul",) if op == "*" else ("div",))

    def _unary(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(
                f"is nested too deeply (more than {MAX_DEPTH} levels of parentheses, "
                f"signs or powers) {self._in()}"
            )
        if self._is("-"):
            self._advance()
            self._unary()
            self.code.append(("neg",))
        elif self._is("+"):
            self._advance()
            self._unary()
        else:
            self._power()
        self.depth -= 1

    def _power(self) -> None:
        self._atom()
        if self._is("**"):
            self._advance()
            self._unary()
            self.code.append(("pow",))

    def _atom(self) -> None:
        tok = self._advance()
        if tok.kind == "num":
            self.code.append(("const", tok.value))
        elif tok.kind == "name":
            self._name(tok)
        elif tok.kind == "op" and tok.text == "(":
            self._expr()
            if not self._is(")"):
                raise self._missing_close(tok)
            self._advance()
        else:
            if tok.kind == "end":
                before = self.tokens[self.index - 2].text if self.index >= 2 else ""
                after = f' after "{before}"' if before else ""
                raise self.error(
                    f"ends unexpectedly{after} {self._in()}; expected a number, t, pi, e, "
                    f'a function call or "("'
                )
            raise self.error(
                f"has unexpected {tok.describe()} {self._in()}; expected a number, t, pi, "
                f'e, a function call or "("'
            )

    def _missing_close(self, opening: _Token) -> ModelError:
        return self.error(f'is missing ")" for the "(" at position {opening.pos + 1} {self._in()}')

    def _name(self, tok: _Token) -> None:
        name = tok.text
        if name in FUNCTIONS:
            if not self._is("("):
                example = f"{name}(t)" if FUNCTIONS[name][0] == 1 else f"{name}(t, 1)"
                raise self.error(
                    f'uses function "{name}" without arguments {self._in()}; call it with '
                    f"parentheses, e.g. {example}"
                )
            opening = self._advance()
            count = 0
            if not self._is(")"):
                while True:
                    self._expr()
                    count += 1
                    if self._is(","):
                        self._advance()
                        continue
                    break
            if not self._is(")"):
                if self.token.kind == "end":
                    raise self._missing_close(opening)
                raise self.error(
                    f"has unexpected {self.token.describe()} {self._in()}; expected "
                    f'"," or ")" in the arguments of {name}'
                )
            self._advance()
            low, high = FUNCTIONS[name]
            if high is not None and count != low:
                plural = "argument" if low == 1 else "arguments"
                raise self.error(f"{name} takes {low} {plural}, got {count} {self._in()}")
            if count < low:
                raise self.error(f"{name} takes at least {low} arguments, got {count} {self._in()}")
            self.code.append(("call", name, count))
            return
        if self._is("("):
            raise self.error(
                f'calls "{name}", which is not a function, at position {tok.pos + 1} '
                f"{self._in()} (functions: {', '.join(FUNCTIONS)})"
            )
        if name in CONSTANTS:
            self.code.append(("const", CONSTANTS[name]))
        else:
            self.code.append(("t",))


class Expression:
    """A parsed expression of time ``t`` (s); immutable, compared by its text. Evaluated
    by the compiled kernel :mod:`solver.kernels.time_functions` (:meth:`encode`)."""

    __slots__ = ("_code", "_table", "_text")

    def __init__(self, text: str, code: list[tuple[Any, ...]]) -> None:
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_code", tuple(code))
        object.__setattr__(self, "_table", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Expression is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its text and parsed again when loaded (models cross to other
        processes, e.g. the workbench's solver process)."""
        return (parse_expression, (self._text,))

    @property
    def text(self) -> str:
        """The source text, exactly as given."""
        return self._text

    def encode(self) -> Any:
        """The postfix code as the compiled kernel reads it: an ``Encoded`` expression
        of :mod:`solver.kernels.time_functions` (its constants and ``(opcode, argument)``
        rows: a data index for a constant, an argument count for a function)."""
        from solver.kernels import time_functions as kernel

        data: list[float] = []
        ops: list[tuple[int, int]] = []
        for ins in self._code:
            if ins[0] == "const":
                ops.append((kernel.OP_CONST, len(data)))
                data.append(ins[1])
            elif ins[0] == "call":
                ops.append((kernel.OPCODES[ins[1]], ins[2]))
            else:
                ops.append((kernel.OPCODES[ins[0]], 0))
        return kernel.encoded(kernel.EXPRESSION, data, ops)

    def kernel_table(self) -> Any:
        """A ``FunctionTable`` of this expression alone (built on first use and kept; a
        pickled or copied expression is parsed again, without it)."""
        if self._table is None:
            from solver.kernels.time_functions import function_table

            object.__setattr__(self, "_table", function_table([self.encode()]))
        return self._table

    def derivatives(self, t: Any) -> tuple[Any, Any, Any]:
        """``(f, df/dt, d2f/dt2)`` at ``t``: floats for a scalar ``t``, else arrays of the
        shape of ``t`` (evaluated by :mod:`solver.kernels.time_functions`)."""
        return evaluate_alone(self.kernel_table(), t)

    def __call__(self, t: Any) -> Any:
        return self.derivatives(t)[0]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expression):
            return NotImplemented
        return self._text == other._text

    def __hash__(self) -> int:
        return hash(self._text)

    def __repr__(self) -> str:
        return f"Expression({self._text!r})"


_EVALUATE: Any = None  # solver.kernels.time_functions.evaluate, imported on first use


def evaluate_alone(table: Any, t: Any) -> tuple[Any, Any, Any]:
    """The jet of the one function of ``table`` at ``t`` by the compiled kernel (imported
    on the first evaluation, so that reading and checking a model never imports Numba)."""
    global _EVALUATE
    if _EVALUATE is None:
        from solver.kernels.time_functions import evaluate

        _EVALUATE = evaluate
    return _EVALUATE(table, 0, t)


def parse_expression(text: Any, where: str = "", field: str = "expression") -> Expression:
    """Parse ``text`` into an :class:`Expression`; raise ``ModelError(where, ..., field)``
    naming what is wrong and what is allowed."""
    if not isinstance(text, str):
        kind = "a list" if isinstance(text, list) else type(text).__name__
        raise ModelError(where, f"expression must be a string, not {kind}", field)
    if len(text) > MAX_LENGTH:
        raise ModelError(
            where,
            f"expression is too long ({len(text)} characters; at most {MAX_LENGTH} allowed)",
            field,
        )
    try:
        code = _Parser(text, where, field).parse()
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps well below the limit
        raise ModelError(where, f"expression is nested too deeply {_show(text)}", field) from None
    return Expression(text, code)
