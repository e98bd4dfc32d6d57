"""Time functions f(t) (drivers, actuators, applied loads) as one compiled kernel.

Time ``t`` is in s; f is in the unit of the field using it. Every evaluation returns the
jet ``(f, df/dt, d2f/dt2)``, exact (never finite differences).

A :class:`FunctionTable` holds any number of functions as flat arrays with fixed dtypes and
dimensions, so that each kernel is compiled once for every model (the empty table
included). Function ``i`` has the kind ``kind[i]``, the numbers
``data[data_start[i]:data_start[i + 1]]`` and, for an expression, the postfix instructions
``ops[op_start[i]:op_start[i + 1]]``, rows ``(opcode, argument)``. Kinds and their data:

* ``CONSTANT``: ``[value]``;
* ``POLYNOMIAL``: ``[c0, c1, ..., cn]`` (n >= 0), ``f = sum c_k t**k`` (Horner);
* ``SMOOTH_STEP``: ``[t0, f0, t1, f1]`` (t1 > t0), the C2 quintic step
  ``f0 + (f1 - f0) (10 s^3 - 15 s^4 + 6 s^5)``, ``s = (t - t0)/(t1 - t0)`` clipped to [0, 1];
* ``SMOOTH_BUMP``: ``[t0, f0, t1, f1, c1, ..., c5]`` (t1 > t0),
  ``f0 + c1 x^3 + ... + c5 x^7`` with ``x = t - t0`` clipped at t0, ``f1`` after t1;
* ``TABLE_LINEAR``: ``[t_0..t_{n-1}, f_0..f_{n-1}]`` (n >= 2, t strictly increasing),
  piecewise linear; f' is the slope of the segment to the right (of the last segment at
  the last row), f'' = 0;
* ``TABLE_CUBIC``: the same ``2 n`` numbers followed by ``4 (n - 1)`` coefficients, per
  interval j ``[a3, a2, a1, a0]`` of ``f = a3 s^3 + a2 s^2 + a1 s + a0``, ``s = t - t_j``;
* ``EXPRESSION``: the constants of the expression; its ops (below).

Outside its rows a table holds the end value with zero derivatives; a ``nan`` time gives
``nan`` for both table kinds.

Expression opcodes (``OPCODES``, argument in brackets): ``OP_CONST`` [index of the constant
in the function's data], ``OP_T``, ``OP_NEG``, ``OP_ADD``, ``OP_SUB``, ``OP_MUL``, ``OP_DIV``,
``OP_POW``, ``OP_MIN`` / ``OP_MAX`` [number of arguments, >= 2], then one per unary function
``OP_SIN`` ... ``OP_ABS`` [1]. Evaluation is second-order forward mode on a stack of jets:

* IEEE results, never an exception: a domain error (``log(-1)``, ``sqrt(-1)``) gives
  ``nan``, a pole gives ``inf``;
* the chain rule ``g(a)' = g'(a) a'``, ``g(a)'' = g''(a) a'^2 + g'(a) a''`` where each product
  is exactly 0 when its derivative factor (a', a'^2, a'') is 0, even if g' or g'' is
  inf or nan (so ``sqrt(0) + t`` has the derivative 1); the same rule in the quotient;
* ``a**b`` with a locally constant exponent (b' = b'' = 0) uses the power rule, so a
  negative base works with an integer exponent and ``0**0`` is 1; otherwise
  ``a**b = exp(b log a)``, which needs a > 0;
* ``abs`` takes the derivatives of ``+a`` for a >= 0 and of ``-a`` otherwise; ``min`` and
  ``max`` those of the selected argument, the first of equal ones (a ``nan`` argument is
  never selected after the first).

:func:`jet` is for other kernels (the time loop): it allocates nothing and uses the
table's scratch stack ``stack`` (one row per stack level: :func:`function_table` sizes it
for the deepest expression), so one thread at a time may evaluate a given table with it.
:func:`jets` (arrays of t, e.g. for plots) uses a stack of its own, and so does
:func:`evaluate`, the front end for Python (a float or an array of t).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from solver.kernels.jit import ENABLED, kernel

# -- kinds ------------------------------------------------------------------------------
CONSTANT = 0
POLYNOMIAL = 1
SMOOTH_STEP = 2
SMOOTH_BUMP = 3
TABLE_LINEAR = 4
TABLE_CUBIC = 5
EXPRESSION = 6
#: kind name -> code
KINDS = {
    "constant": CONSTANT,
    "polynomial": POLYNOMIAL,
    "smooth_step": SMOOTH_STEP,
    "smooth_bump": SMOOTH_BUMP,
    "table_linear": TABLE_LINEAR,
    "table_cubic": TABLE_CUBIC,
    "expression": EXPRESSION,
}

# -- expression opcodes (the order matters: binary ops, then min/max, then unary) --------
OP_CONST = 0
OP_T = 1
OP_NEG = 2
OP_ADD = 3
OP_SUB = 4
OP_MUL = 5
OP_DIV = 6
OP_POW = 7
OP_MIN = 8
OP_MAX = 9
OP_SIN = 10
OP_COS = 11
OP_TAN = 12
OP_ASIN = 13
OP_ACOS = 14
OP_ATAN = 15
OP_SINH = 16
OP_COSH = 17
OP_TANH = 18
OP_EXP = 19
OP_LOG = 20
OP_SQRT = 21
OP_ABS = 22
#: instruction or function name (those of :mod:`solver.model.expression`) -> opcode
OPCODES = {
    "const": OP_CONST,
    "t": OP_T,
    "neg": OP_NEG,
    "add": OP_ADD,
    "sub": OP_SUB,
    "mul": OP_MUL,
    "div": OP_DIV,
    "pow": OP_POW,
    "min": OP_MIN,
    "max": OP_MAX,
    "sin": OP_SIN,
    "cos": OP_COS,
    "tan": OP_TAN,
    "asin": OP_ASIN,
    "acos": OP_ACOS,
    "atan": OP_ATAN,
    "sinh": OP_SINH,
    "cosh": OP_COSH,
    "tanh": OP_TANH,
    "exp": OP_EXP,
    "log": OP_LOG,
    "sqrt": OP_SQRT,
    "abs": OP_ABS,
}


class FunctionTable(NamedTuple):
    """Any number ``nf`` of time functions as flat arrays (see the module docstring)."""

    kind: np.ndarray  #: int64[nf]
    data_start: np.ndarray  #: int64[nf + 1]
    data: np.ndarray  #: float64[nd]
    op_start: np.ndarray  #: int64[nf + 1]
    ops: np.ndarray  #: int64[no, 2]: (opcode, argument)
    stack: np.ndarray  #: float64[depth, 3]: scratch jets of :func:`jet` (depth >= 1)


class Encoded(NamedTuple):
    """One function as :func:`function_table` reads it."""

    kind: int
    data: np.ndarray  #: float64[:]
    ops: np.ndarray  #: int64[:, 2] (empty unless ``kind`` is EXPRESSION)


def encoded(kind: int, data: Any, ops: Any = None) -> Encoded:
    """An :class:`Encoded` function with arrays of the table's dtypes (``ops`` None: none)."""
    return Encoded(
        int(kind),
        np.array(data, dtype=np.float64).reshape(-1),
        np.array(() if ops is None else ops, dtype=np.int64).reshape(-1, 2),
    )


# -- building a table (Python) -------------------------------------------------------------


def _check_data(i: int, kind: int, data: np.ndarray) -> None:
    n = len(data)
    if not np.all(np.isfinite(data)):
        raise ValueError(f"function {i}: data must be finite")
    if kind == CONSTANT:
        ok = n == 1
    elif kind == POLYNOMIAL:
        ok = n >= 1
    elif kind in (SMOOTH_STEP, SMOOTH_BUMP):
        ok = n == (4 if kind == SMOOTH_STEP else 9) and data[2] > data[0]
    elif kind in (TABLE_LINEAR, TABLE_CUBIC):
        rows = n // 2 if kind == TABLE_LINEAR else (n + 4) // 6
        size = 2 * rows if kind == TABLE_LINEAR else 6 * rows - 4
        ok = rows >= 2 and n == size and bool(np.all(np.diff(data[:rows]) > 0))
    else:
        ok = kind == EXPRESSION
    if not ok:
        raise ValueError(f"function {i}: invalid data of {n} number(s) for kind {kind}")


def _stack_depth(i: int, ops: np.ndarray, n_data: int) -> int:
    """The deepest stack level of an expression's ops (checked: they leave one jet)."""
    depth = deepest = 0
    for op, arg in ops:
        if op in (OP_CONST, OP_T):
            if op == OP_CONST and not 0 <= arg < n_data:
                raise ValueError(f"function {i}: constant index {arg} out of range")
            depth += 1
        elif OP_ADD <= op <= OP_POW:
            if depth < 2:
                raise ValueError(f"function {i}: binary opcode {op} needs two operands")
            depth -= 1
        elif op in (OP_MIN, OP_MAX):
            if not 2 <= arg <= depth:
                raise ValueError(f"function {i}: min/max of {arg} argument(s) invalid here")
            depth -= arg - 1
        elif op == OP_NEG or OP_SIN <= op <= OP_ABS:
            if depth < 1:
                raise ValueError(f"function {i}: opcode {op} needs an operand")
        else:
            raise ValueError(f"function {i}: unknown opcode {op}")
        deepest = max(deepest, depth)
    if depth != 1:
        raise ValueError(f"function {i}: the expression leaves {depth} values, not 1")
    return deepest


def function_table(items: Sequence[Encoded | tuple]) -> FunctionTable:
    """The table of ``items``, each ``(kind, data, ops)`` (see :func:`encoded`), in order:
    function ``i`` of the table is ``items[i]``. Checks every item (``ValueError``), so
    that the kernels never read outside the arrays."""
    kinds, data, ops = [], [], []
    data_start, op_start = [0], [0]
    depth = 1
    for i, item in enumerate(items):
        kind, values, code = encoded(*item)
        if kind not in KINDS.values():
            raise ValueError(f"function {i}: unknown kind {kind}")
        _check_data(i, kind, values)
        if kind == EXPRESSION:
            depth = max(depth, _stack_depth(i, code, len(values)))
        elif len(code):
            raise ValueError(f"function {i}: only an expression has ops")
        kinds.append(kind)
        data.append(values)
        ops.append(code)
        data_start.append(data_start[-1] + len(values))
        op_start.append(op_start[-1] + len(code))
    return FunctionTable(
        kind=np.array(kinds, dtype=np.int64),
        data_start=np.array(data_start, dtype=np.int64),
        data=np.concatenate([np.zeros(0), *data]),
        op_start=np.array(op_start, dtype=np.int64),
        ops=np.concatenate([np.zeros((0, 2), dtype=np.int64), *ops]),
        stack=np.zeros((depth, 3)),
    )


# -- kernels -------------------------------------------------------------------------------
#
# Cost per call from another kernel: the dispatch of ``jet`` and the closed forms of every
# kind but the expression are inlined into the caller (``inline="always"``, so they take the
# caller's error model: call ``jet`` from ``@kernel`` functions). A call that is not inlined
# and receives arrays keeps Numba from removing their reference counting (tens of ns per
# call); inlining the expression interpreter too would save little of that and multiply
# the compile time of every caller, so it is one function (``_expression``), compiled once,
# whose jet arithmetic is done by functions of floats only (``_unary``, ``_binary``).


@kernel(full_optimisation=True)
def _scaled(g, a):
    """``g * a``, but exactly 0 where ``a == 0`` even if ``g`` is inf or nan."""
    if a == 0.0:
        return 0.0
    return g * a


@kernel(full_optimisation=True)
def _chain(a1, a2, g0, g1, g2):
    """The jet of ``g(a)`` from ``a', a''`` and ``g(a), g'(a), g''(a)``."""
    return g0, _scaled(g1, a1), _scaled(g2, a1 * a1) + _scaled(g1, a2)


@kernel(full_optimisation=True)
def _unary(op, a, a1, a2):
    """The jet of the unary function ``op`` of the jet ``(a, a', a'')``."""
    if op == OP_SIN:
        s = np.sin(a)
        return _chain(a1, a2, s, np.cos(a), -s)
    if op == OP_COS:
        c = np.cos(a)
        return _chain(a1, a2, c, -np.sin(a), -c)
    if op == OP_TAN:
        v = np.tan(a)
        sec2 = 1.0 + v * v
        return _chain(a1, a2, v, sec2, 2.0 * v * sec2)
    if op in (OP_ASIN, OP_ACOS):
        w = 1.0 - a * a
        g1 = 1.0 / np.sqrt(w)
        g2 = a * g1 / w
        if op == OP_ASIN:
            return _chain(a1, a2, np.arcsin(a), g1, g2)
        return _chain(a1, a2, np.arccos(a), -g1, -g2)
    if op == OP_ATAN:
        w = 1.0 / (1.0 + a * a)
        return _chain(a1, a2, np.arctan(a), w, -2.0 * a * w * w)
    if op == OP_SINH:
        s = np.sinh(a)
        return _chain(a1, a2, s, np.cosh(a), s)
    if op == OP_COSH:
        c = np.cosh(a)
        return _chain(a1, a2, c, np.sinh(a), c)
    if op == OP_TANH:
        v = np.tanh(a)
        w = 1.0 - v * v
        return _chain(a1, a2, v, w, -2.0 * v * w)
    if op == OP_EXP:
        v = np.exp(a)
        return _chain(a1, a2, v, v, v)
    if op == OP_LOG:
        r = 1.0 / a
        return _chain(a1, a2, np.log(a), r, -r * r)
    if op == OP_SQRT:
        v = np.sqrt(a)
        g1 = 0.5 / v
        return _chain(a1, a2, v, g1, -0.5 * g1 / a)
    s = 1.0 if a >= 0.0 else -1.0  # OP_ABS: the active branch, +a at a == 0
    return s * a, s * a1, s * a2


@kernel(full_optimisation=True)
def _power(a, a1, a2, b, b1, b2):
    """The jet of ``a**b``."""
    v = np.power(a, b)
    if b1 == 0.0 and b2 == 0.0:
        # locally constant exponent: (a**b)' = b a**(b-1) a', (a**b)'' = b (b-1) ... ,
        # so negative bases work with integer exponents
        g1 = 0.0 if b == 0.0 else b * np.power(a, b - 1.0)
        bb = b * (b - 1.0)
        g2 = 0.0 if bb == 0.0 else bb * np.power(a, b - 2.0)
        return v, _scaled(g1, a1), _scaled(g2, a1 * a1) + _scaled(g1, a2)
    # a**b = exp(u), u = b log a: (a**b)' = v u', (a**b)'' = v (u'' + u'^2)
    log_a = np.log(a)
    r1 = a1 / a
    u1 = _scaled(log_a, b1) + _scaled(b, r1)
    u2 = _scaled(log_a, b2) + 2.0 * _scaled(r1, b1) + _scaled(b, a2 / a - r1 * r1)
    return v, v * u1, v * (u2 + u1 * u1)


@kernel(full_optimisation=True)
def _binary(op, a, a1, a2, b, b1, b2):
    """The jet of ``x op y`` from the jets x = ``(a, a', a'')`` and y = ``(b, b', b'')``."""
    if op == OP_ADD:
        return a + b, a1 + b1, a2 + b2
    if op == OP_SUB:
        return a - b, a1 - b1, a2 - b2
    if op == OP_MUL:
        return a * b, a1 * b + a * b1, a2 * b + 2.0 * a1 * b1 + a * b2
    if op == OP_DIV:
        q = a / b
        q1 = (a1 - _scaled(q, b1)) / b
        return q, q1, (a2 - 2.0 * _scaled(q1, b1) - _scaled(q, b2)) / b
    return _power(a, a1, a2, b, b1, b2)


@kernel(inline="always")
def _run(ops, first, last, data, base, t, stack):
    """Run the postfix instructions ``ops[first:last]`` (constants at ``data[base:]``)
    on the jets ``stack[level] = (v, v', v'')``."""
    top = 0  # number of jets on the stack
    for k in range(first, last):
        op = ops[k, 0]
        if op == OP_CONST:
            stack[top, 0] = data[base + ops[k, 1]]
            stack[top, 1] = 0.0
            stack[top, 2] = 0.0
            top += 1
        elif op == OP_T:
            stack[top, 0] = t
            stack[top, 1] = 1.0
            stack[top, 2] = 0.0
            top += 1
        elif op == OP_NEG:
            stack[top - 1, 0] = -stack[top - 1, 0]
            stack[top - 1, 1] = -stack[top - 1, 1]
            stack[top - 1, 2] = -stack[top - 1, 2]
        elif op <= OP_POW:
            top -= 1
            x = top - 1
            v, d1, d2 = _binary(
                op,
                stack[x, 0],
                stack[x, 1],
                stack[x, 2],
                stack[top, 0],
                stack[top, 1],
                stack[top, 2],
            )
            stack[x, 0] = v
            stack[x, 1] = d1
            stack[x, 2] = d2
        elif op <= OP_MAX:  # the smallest or largest value, the first of equal ones
            n = ops[k, 1]
            top -= n
            best = top
            for j in range(top + 1, top + n):
                if op == OP_MIN:
                    better = stack[j, 0] < stack[best, 0]
                else:
                    better = stack[j, 0] > stack[best, 0]
                if better:
                    best = j
            stack[top, 0] = stack[best, 0]
            stack[top, 1] = stack[best, 1]
            stack[top, 2] = stack[best, 2]
            top += 1
        else:
            x = top - 1
            v, d1, d2 = _unary(op, stack[x, 0], stack[x, 1], stack[x, 2])
            stack[x, 0] = v
            stack[x, 1] = d1
            stack[x, 2] = d2
    return stack[0, 0], stack[0, 1], stack[0, 2]


@kernel(inline="always")
def _polynomial(c, first, last, t):
    """Horner's scheme carrying the derivatives along."""
    p = c[last - 1] + 0.0 * t
    p1 = 0.0
    p2 = 0.0
    for k in range(last - 2, first - 1, -1):
        p2 = p2 * t + 2.0 * p1
        p1 = p1 * t + p
        p = p * t + c[k]
    return p, p1, p2


@kernel(inline="always")
def _smooth_step(d, i0, t):
    t0, f0, t1, f1 = d[i0], d[i0 + 1], d[i0 + 2], d[i0 + 3]
    h = t1 - t0
    delta = f1 - f0
    s = (t - t0) / h
    if s < 0.0:  # g, g', g'' all vanish at s = 0 and 1
        s = 0.0
    elif s > 1.0:
        s = 1.0
    g = s**3 * (10.0 - 15.0 * s + 6.0 * s * s)
    g1 = 30.0 * s * s * (1.0 - s) ** 2
    g2 = 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s)
    return f0 + delta * g, delta * g1 / h, delta * g2 / (h * h)


@kernel(inline="always")
def _smooth_bump(d, i0, t):
    t0, f0, t1, f1 = d[i0], d[i0 + 1], d[i0 + 2], d[i0 + 3]
    if t > t1:
        return f1, 0.0, 0.0
    x = t
    if x < t0:  # f' = f'' = 0 at x = 0
        x = t0
    x = x - t0
    f = f0 + 0.0 * x
    df = 0.0 * x
    ddf = 0.0 * x
    for k in range(3, 8):
        c = d[i0 + k + 1]
        f += c * x**k
        df += k * c * x ** (k - 1)
        ddf += k * (k - 1) * c * x ** (k - 2)
    return f, df, ddf


@kernel(inline="always")
def _interval(d, i0, n, t):
    """j with ``t_j <= t < t_{j+1}`` for rows ``t_0 <= t <= t_{n-1}`` at ``d[i0:]``,
    the last interval at ``t_{n-1}`` (bisection)."""
    lo = 0
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1  # (>>: no division that could raise)
        if d[i0 + mid] <= t:
            lo = mid
        else:
            hi = mid
    return lo


@kernel(inline="always")
def _table(d, i0, n, cubic, t):
    """A table of n rows at ``d[i0:]`` (times, values, then the cubic's coefficients)."""
    if t != t:
        return np.nan, np.nan, np.nan
    fs = i0 + n
    if t < d[i0]:
        return d[fs], 0.0, 0.0
    if t > d[i0 + n - 1]:
        return d[fs + n - 1], 0.0, 0.0
    j = _interval(d, i0, n, t)
    s = t - d[i0 + j]
    if cubic:
        c = fs + n + 4 * j
        a3, a2, a1, a0 = d[c], d[c + 1], d[c + 2], d[c + 3]
        return (
            ((a3 * s + a2) * s + a1) * s + a0,
            (3.0 * a3 * s + 2.0 * a2) * s + a1,
            6.0 * a3 * s + 2.0 * a2,
        )
    slope = (d[fs + j + 1] - d[fs + j]) / (d[i0 + j + 1] - d[i0 + j])
    if t == d[i0 + n - 1]:
        return d[fs + n - 1], slope, 0.0
    return slope * s + d[fs + j], slope, 0.0


@kernel(full_optimisation=True, refcounted=False)
def _expression(table, i, t, stack):
    """The jet of expression i at t, with ``stack`` as scratch."""
    first = table.op_start[i]
    last = table.op_start[i + 1]
    return _run(table.ops, first, last, table.data, table.data_start[i], t, stack)


@kernel(inline="always")
def _closed_form(table, i, t):
    """The jet of function i, of any kind but an expression, at t."""
    kind = table.kind[i]
    first = table.data_start[i]
    last = table.data_start[i + 1]
    d = table.data
    if kind == CONSTANT:
        return d[first], 0.0, 0.0
    if kind == POLYNOMIAL:
        return _polynomial(d, first, last, t)
    if kind == SMOOTH_STEP:
        return _smooth_step(d, first, t)
    if kind == SMOOTH_BUMP:
        return _smooth_bump(d, first, t)
    if kind == TABLE_LINEAR:
        return _table(d, first, (last - first) >> 1, False, t)
    if kind == TABLE_CUBIC:
        return _table(d, first, int((last - first + 4) / 6.0), True, t)
    return np.nan, np.nan, np.nan  # (function_table admits no other kind)


@kernel(full_optimisation=True, refcounted=False)
def _jet_with(table, i, t, stack):
    """The jet of function i at t (a float64), with ``stack`` as an expression's scratch:
    the one compiled evaluation every caller links. It makes no array, so it is compiled
    without reference counting: a call does not count the table's six arrays in and out."""
    if table.kind[i] == EXPRESSION:
        return _expression(table, i, t, stack)
    return _closed_form(table, i, t)


@kernel(inline="always")
def jet(table, i, t):
    """``(f, df/dt, d2f/dt2)`` of function ``i`` (0 <= i < nf, unchecked) at time ``t`` (s,
    a float), for other kernels. Allocates nothing: an expression uses ``table.stack``, so
    one thread at a time per table."""
    return _jet_with(table, i, np.float64(t), table.stack)


@kernel(full_optimisation=True)
def _jet_unpacked(kind, data_start, data, op_start, ops, stack, i, t):
    """:func:`jet` of the table given field by field (a call from Python unpacks six
    arrays faster than a named tuple), with a scratch stack of its own."""
    table = FunctionTable(kind, data_start, data, op_start, ops, stack)
    own = np.empty_like(stack) if kind[i] == EXPRESSION else stack
    return _jet_with(table, i, np.float64(t), own)


@kernel(full_optimisation=True)
def jets(table, i, ts):
    """``(f, df/dt, d2f/dt2)`` of function ``i`` at every time of the 1-D array ``ts``
    (three new arrays; a scratch stack of its own)."""
    n = ts.shape[0]
    f = np.empty(n)
    df = np.empty(n)
    ddf = np.empty(n)
    if table.kind[i] == EXPRESSION:
        stack = np.empty_like(table.stack)
        for k in range(n):
            f[k], df[k], ddf[k] = _expression(table, i, np.float64(ts[k]), stack)
    else:  # a loop without calls
        for k in range(n):
            f[k], df[k], ddf[k] = _closed_form(table, i, np.float64(ts[k]))
    return f, df, ddf


@kernel(full_optimisation=True)
def _jets_unpacked(kind, data_start, data, op_start, ops, stack, i, ts):
    """:func:`jets` of the table given field by field (faster to call from Python)."""
    return jets(FunctionTable(kind, data_start, data, op_start, ops, stack), i, ts)


def _evaluate_py(table: FunctionTable, i: int, t: Any) -> tuple[Any, Any, Any]:
    if not isinstance(t, float):  # (np.float64 is a float)
        t = np.asarray(t, dtype=np.float64)
        if t.ndim:
            f, df, ddf = _jets_unpacked(*table, i, np.ascontiguousarray(t).reshape(-1))
            return f.reshape(t.shape), df.reshape(t.shape), ddf.reshape(t.shape)
    f, df, ddf = _jet_unpacked(*table, i, float(t))
    return float(f), float(df), float(ddf)


def evaluate(table: FunctionTable, i: int, t: Any) -> tuple[Any, Any, Any]:
    """``(f, df/dt, d2f/dt2)`` of function ``i`` at ``t`` (s): floats for a scalar ``t``,
    else new float arrays of the shape of ``t``. No warning is raised; safe to call from
    several threads at once."""
    if not 0 <= i < len(table.kind):
        raise IndexError(f"function {i} of a table of {len(table.kind)}")
    if ENABLED:
        return _evaluate_py(table, i, t)
    with np.errstate(all="ignore"):  # plain Python: NumPy scalars warn instead
        return _evaluate_py(table, i, t)
