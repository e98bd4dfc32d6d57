"""The subset of MATLAB that MUBODYNA's input files use, parsed and computed by our own code
(never evaluated by MATLAB or Python).

Statements, separated by new lines, ``;`` or ``,`` (``...`` continues a line, ``%`` starts a
comment): ``function …`` and ``include_global`` lines (skipped), ``name = expr`` and
``name.field = expr``. Expressions: numbers, ``pi``, ``true``/``false``, quoted strings,
names assigned before, ``+ - * / ^`` (and ``.* ./ .^``), unary minus, parentheses,
``sin cos tan asin acos atan atan2 sqrt exp log abs eye zeros ones``, transposes ``'`` and
matrices ``[1 0 0; 0 2 0]`` (rows by ``;`` or new lines, elements by spaces or commas, with
MATLAB's rule that ``[1 -2]`` holds two elements). A name that is a struct template
(``Body = Body_struct; B1 = Body;``) makes an element whose fields are then assigned.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from solver.importers.common import ImportError_


@dataclass
class Element:
    """An element of a model file (``B1 = Body``): its template and its assigned fields."""

    name: str
    template: str  # "Body", "Point", "Vector1", "Vector2", "Force", "Joint", "Funct"
    fields: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)  # field → line number


@dataclass
class ParsedFile:
    """The elements of one file, its other variables and its list assignments."""

    name: str
    elements: dict[str, Element] = field(default_factory=dict)
    variables: dict = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)  # variable → element names


_TOKEN = re.compile(
    r"""(?P<ws>[ \t]+)|(?P<nl>\n)|(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|
    (?P<name>[A-Za-z_]\w*)|(?P<str>'(?:[^'\n]|'')*'|"(?:[^"\n]|"")*")|(?P<op>\.\*|\./|\.\^|\.'|==|[-+*/^()\[\];,=.'])""",
    re.VERBOSE,
)
FUNCTIONS = {
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "sqrt": math.sqrt,
    "exp": math.exp,
    "log": math.log,
    "abs": abs,
}
TEMPLATES = ("Body", "Point", "Vector1", "Vector2", "Force", "Joint", "Funct")


@dataclass
class Tok:
    kind: str
    text: str
    line: int
    space_before: bool = False


def _strip_comments(text: str) -> str:
    """Drop ``%`` comments (outside strings) and join ``...`` continuations."""
    out = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        keep, quote, prev = [], None, ""
        for i, ch in enumerate(line):
            if quote:
                keep.append(ch)
                if ch == quote:
                    quote = None
            elif ch == "%":
                break
            elif ch == "." and line[i : i + 3] == "...":
                keep.append(" \x00")  # continuation: the line goes on
                break
            else:
                if ch in "'\"" and not (ch == "'" and (prev.isalnum() or prev in ")]_.'")):
                    quote = ch
                keep.append(ch)
            if not ch.isspace():
                prev = ch
        out.append("".join(keep))
    return "\n".join(out).replace(" \x00\n", " ")


def tokenize(text: str, filename: str) -> list[Tok]:
    text = _strip_comments(text)
    toks: list[Tok] = []
    pos, line, space = 0, 1, False
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ImportError_(filename, f"line {line}: unexpected character {text[pos]!r}")
        kind = m.lastgroup
        value = m.group()
        pos = m.end()
        if kind == "ws":
            space = True
            continue
        if kind == "nl":
            toks.append(Tok("nl", "\n", line))
            line += 1
            space = False
            continue
        if kind == "str":  # a quote after a value is a transpose, not a string
            prev = toks[-1] if toks else None
            if (
                value.startswith("'")
                and prev is not None
                and not space
                and (prev.kind in ("num", "name") or prev.text in (")", "]", "'"))
            ):
                pos = m.start() + 1
                toks.append(Tok("op", "'", line, space))
                continue
        toks.append(Tok(kind, value, line, space))
        space = False
    toks.append(Tok("nl", "\n", line))
    return toks


class _Parser:
    def __init__(self, toks: list[Tok], filename: str, env: dict) -> None:
        self.toks, self.i, self.filename, self.env = toks, 0, filename, env
        self.depth = 0  # inside [ ]: spaces separate elements

    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def error(self, text: str) -> ImportError_:
        return ImportError_(self.filename, f"line {self.tok.line}: {text}")

    def take(self, text: str | None = None) -> Tok:
        t = self.tok
        if text is not None and t.text != text:
            raise self.error(f"expected {text!r}, found {t.text.strip() or 'end of line'!r}")
        self.i += 1
        return t

    # expressions --------------------------------------------------------------------------
    def expr(self):
        left = self.term()
        while self.tok.text in "+-" and self.tok.kind == "op" and not self._new_element():
            op = self.take().text
            right = self.term()
            left = _arith(op, left, right, self)
        return left

    def _new_element(self) -> bool:
        """Inside brackets ``[1 -2]``: a sign after a space and before a non-space starts
        a new element."""
        if not self.depth:
            return False
        t, nxt = self.tok, self.toks[self.i + 1]
        return t.space_before and not nxt.space_before

    def term(self):
        left = self.unary()
        while self.tok.text in ("*", "/", ".*", "./"):
            op = self.take().text
            left = _arith(op, left, self.unary(), self)
        return left

    def unary(self):
        if self.tok.text in ("-", "+") and self.tok.kind == "op":
            op = self.take().text
            value = self.unary()
            return -_number(value, self) if op == "-" else value
        return self.power()

    def power(self):
        base = self.postfix()
        if self.tok.text in ("^", ".^"):
            op = self.take().text
            exponent = self.unary()
            return _arith(op, base, exponent, self)
        return base

    def postfix(self):
        value = self.atom()
        while self.tok.text in ("'", ".'") and not self.tok.space_before:
            self.take()
            value = np.asarray(value).T if isinstance(value, np.ndarray) else value
        return value

    def atom(self):
        t = self.tok
        if t.kind == "num":
            self.take()
            return float(t.text)
        if t.kind == "str":
            self.take()
            quote = t.text[0]
            return t.text[1:-1].replace(quote * 2, quote)
        if t.text == "(":
            self.take()
            saved, self.depth = self.depth, 0
            value = self.expr()
            self.depth = saved
            self.take(")")
            return value
        if t.text == "[":
            return self.matrix()
        if t.kind == "name":
            self.take()
            return self.name_value(t)
        raise self.error(f"unexpected {t.text.strip() or 'end of line'!r}")

    def name_value(self, t: Tok):
        name = t.text
        if self.tok.text == "(" and not (self.depth and self.tok.space_before):
            self.take()
            saved, self.depth = self.depth, 0
            args = [self.expr()]
            while self.tok.text == ",":
                self.take()
                args.append(self.expr())
            self.depth = saved
            self.take(")")
            return self.call(name, args)
        if name == "pi":
            return math.pi
        if name in ("true", "false"):
            return name == "true"
        if name in self.env:
            value = self.env[name]
            return value.copy() if isinstance(value, np.ndarray) else value
        raise ImportError_(self.filename, f"line {t.line}: {name!r} is not defined here")

    def call(self, name: str, args: list):
        if name in FUNCTIONS and len(args) == 1:
            arg = args[0]
            if isinstance(arg, np.ndarray):
                return np.vectorize(FUNCTIONS[name])(arg).astype(float)
            return float(FUNCTIONS[name](_number(arg, self)))
        if name == "atan2" and len(args) == 2:
            return math.atan2(_number(args[0], self), _number(args[1], self))
        if name in ("eye", "zeros", "ones") and 1 <= len(args) <= 2:
            shape = tuple(int(_number(a, self)) for a in args)
            shape = shape * 2 if len(shape) == 1 else shape
            return {"eye": lambda s: np.eye(*s), "zeros": np.zeros, "ones": np.ones}[name](shape)
        raise self.error(f"{name}(…) is not part of the MATLAB that MUBODYNA's files use")

    def matrix(self):
        self.take("[")
        self.depth += 1
        rows: list[list] = [[]]
        while True:
            t = self.tok
            if t.text == "]":
                self.take()
                break
            if t.kind == "nl" or t.text == ";":
                self.take()
                if rows[-1]:
                    rows.append([])
                continue
            if t.text == ",":
                self.take()
                continue
            if t.kind == "op" and t.text == "=":
                raise self.error("unbalanced [ ]")
            rows[-1].append(self.expr())
        self.depth -= 1
        rows = [r for r in rows if r]
        if not rows:
            return []
        if all(
            isinstance(x, str) and x in self.env.get("__elements__", ()) for r in rows for x in r
        ):
            return [x for r in rows for x in r]
        try:
            blocks = [np.hstack([np.atleast_2d(np.asarray(x, float)) for x in r]) for r in rows]
            return np.vstack(blocks)
        except (ValueError, TypeError):
            raise self.error("the rows of this matrix do not fit together") from None


def _number(value, parser) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, float | int):
        return float(value)
    if isinstance(value, np.ndarray) and value.size == 1:
        return float(value.ravel()[0])
    raise parser.error("a number is needed here")


def _arith(op: str, a, b, parser):
    for v in (a, b):
        if isinstance(v, str | list | Element):
            raise parser.error(f"cannot compute {op!r} with {v!r}")
    a = np.asarray(a, float) if isinstance(a, np.ndarray) else float(a)
    b = np.asarray(b, float) if isinstance(b, np.ndarray) else float(b)
    both = isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.size > 1 and b.size > 1
    try:
        if op in ("+", "-"):
            return a + b if op == "+" else a - b
        if op == "*" and both:
            return a @ b
        if op in ("*", ".*"):
            return a * b
        if op in ("/", "./"):
            if both and op == "/":
                raise parser.error("matrix division is not supported")
            return a / b
        if op in ("^", ".^"):
            return a**b
    except ValueError:
        raise parser.error(f"the sizes do not fit for {op!r}") from None
    raise parser.error(f"unknown operator {op!r}")


def parse_file(text: str, filename: str) -> ParsedFile:
    """Parse one ``in*.m`` file: its elements, variables and lists."""
    out = ParsedFile(filename)
    env: dict = {"__elements__": out.elements}
    toks = tokenize(text, filename)
    p = _Parser(toks, filename, env)
    while p.tok.kind != "nl" or p.i < len(toks) - 1:
        t = p.tok
        if t.kind == "nl" or t.text in (";", ","):
            p.take()
            continue
        if t.kind == "name" and t.text in ("function", "include_global", "end", "clear", "global"):
            while p.tok.kind != "nl":
                p.take()
            continue
        if t.kind != "name":
            raise p.error(f"a statement starts with a name, not {t.text!r}")
        target = [p.take().text]
        while p.tok.text == ".":
            p.take()
            if p.tok.kind != "name":
                raise p.error("a field name is needed after '.'")
            target.append(p.take().text)
        if p.tok.text != "=":
            raise p.error(f"expected '=' after {'.'.join(target)}")
        p.take()
        _assign(out, env, target, p, t.line)
        if p.tok.kind != "nl" and p.tok.text not in (";", ","):
            raise p.error(f"unexpected {p.tok.text!r} after the statement")
    return out


def _assign(out: ParsedFile, env: dict, target: list[str], p: _Parser, line: int) -> None:
    name = target[0]
    t = p.tok
    # templates: ``Body = Body_struct;`` and elements ``B1 = Body;``
    if len(target) == 1 and t.kind == "name" and p.toks[p.i + 1].text in (";", "\n", ","):
        word = t.text
        if word.endswith("_struct") and word[:-7] in TEMPLATES:
            p.take()
            env[name] = ("template", word[:-7])
            return
        if isinstance(env.get(word), tuple) and env[word][0] == "template":
            p.take()
            out.elements[name] = Element(name, env[word][1])
            env[name] = name
            return
    value = p.expr()
    if len(target) == 1:
        if isinstance(value, list):
            out.lists[name] = value
        env[name] = value
        out.variables[name] = value
        return
    if len(target) != 2 or name not in out.elements:
        raise ImportError_(
            out.name, f"line {line}: {'.'.join(target)}: {name} is not an element of this file"
        )
    element = out.elements[name]
    element.fields[target[1]] = value
    element.lines[target[1]] = line
