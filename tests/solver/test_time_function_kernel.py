"""The compiled time-function kernel (solver.kernels.time_functions): every kind and every
expression function against closed forms and finite differences, called from another
kernel, in tables of several functions and empty ones; the edge cases of the IEEE rules."""

from __future__ import annotations

import copy
import json
import math
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import numba
import numpy as np
import pytest

from solver.kernels import time_functions as tf
from solver.kernels.jit import ENABLED, kernel
from solver.model.errors import ModelError
from solver.model.expression import MAX_DEPTH
from solver.model.functions import parse_expression, parse_function


@kernel
def jets_from_a_kernel(table, ts):
    """``jet`` of every function of ``table`` at every time, called from a kernel."""
    out = np.empty((table.kind.shape[0], ts.shape[0], 3))
    for i in range(table.kind.shape[0]):
        for k in range(ts.shape[0]):
            f, df, ddf = tf.jet(table, i, ts[k])
            out[i, k, 0] = f
            out[i, k, 1] = df
            out[i, k, 2] = ddf
    return out


def kernel_jet(function, t: float) -> tuple[float, float, float]:
    """The jet of a TimeFunction at t through ``jet`` called from a kernel."""
    with np.errstate(all="ignore" if not ENABLED else "warn"):  # plain Python: NumPy scalars
        out = jets_from_a_kernel(function.kernel_table(), np.array([t], dtype=float))
    return tuple(float(x) for x in out[0, 0])


def fd(g, t: float, h: float) -> float:
    """Fourth-order central difference of g at t."""
    return (-g(t + 2 * h) + 8 * g(t + h) - 8 * g(t - h) + g(t - 2 * h)) / (12 * h)


def check_fd(function, times, h=1e-3, rel=1e-7):
    """f' against differences of f, f'' against differences of f' (both from the kernel)."""
    for t in times:
        _, d1, d2 = kernel_jet(function, t)
        scale1 = max(1.0, abs(d1))
        scale2 = max(1.0, abs(d2))
        assert abs(d1 - fd(lambda s: kernel_jet(function, s)[0], t, h)) < rel * scale1, t
        assert abs(d2 - fd(lambda s: kernel_jet(function, s)[1], t, h)) < rel * scale2, t


def close(got, expected, rel=1e-12, abs_=1e-12):
    return all(
        math.isclose(g, e, rel_tol=rel, abs_tol=abs_) for g, e in zip(got, expected, strict=True)
    )


# -- every unary function: g(u(t)) with u = 0.3 t^2 + 0.1 t (u' and u'' both non-zero) ------


def inner(t):
    return 0.3 * t * t + 0.1 * t, 0.6 * t + 0.1, 0.6


# name -> (g, g', g'') as closed forms
UNARY = {
    "sin": (math.sin, math.cos, lambda u: -math.sin(u)),
    "cos": (math.cos, lambda u: -math.sin(u), lambda u: -math.cos(u)),
    "tan": (math.tan, lambda u: 1 / math.cos(u) ** 2, lambda u: 2 * math.sin(u) / math.cos(u) ** 3),
    "asin": (math.asin, lambda u: (1 - u * u) ** -0.5, lambda u: u * (1 - u * u) ** -1.5),
    "acos": (math.acos, lambda u: -((1 - u * u) ** -0.5), lambda u: -u * (1 - u * u) ** -1.5),
    "atan": (math.atan, lambda u: 1 / (1 + u * u), lambda u: -2 * u / (1 + u * u) ** 2),
    "sinh": (math.sinh, math.cosh, math.sinh),
    "cosh": (math.cosh, math.sinh, math.cosh),
    "tanh": (
        math.tanh,
        lambda u: 1 / math.cosh(u) ** 2,
        lambda u: -2 * math.sinh(u) / math.cosh(u) ** 3,
    ),
    "exp": (math.exp, math.exp, math.exp),
    "log": (math.log, lambda u: 1 / u, lambda u: -1 / (u * u)),
    "sqrt": (math.sqrt, lambda u: 0.5 / math.sqrt(u), lambda u: -0.25 * u**-1.5),
    "abs": (abs, lambda u: math.copysign(1.0, u), lambda u: 0.0),
}
UNARY_TIMES = (0.2, 0.55, 0.9, 1.2)  # u in (0.03, 0.55): inside every domain


def test_the_kernel_has_an_opcode_for_every_function_of_the_parser():
    from solver.model.expression import FUNCTIONS

    assert set(FUNCTIONS) == set(UNARY) | {"min", "max"}
    assert set(FUNCTIONS) <= set(tf.OPCODES)
    assert len(set(tf.OPCODES.values())) == len(tf.OPCODES)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_function_matches_its_closed_form_chain_rule(name):
    g, g1, g2 = UNARY[name]
    f = parse_function({"expression": f"{name}(0.3*t**2 + 0.1*t)"})
    for t in UNARY_TIMES:
        u, u1, u2 = inner(t)
        expected = (g(u), g1(u) * u1, g2(u) * u1 * u1 + g1(u) * u2)
        assert close(kernel_jet(f, t), expected, rel=1e-12), (t, kernel_jet(f, t), expected)
        assert f.derivatives(t) == kernel_jet(f, t)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_function_derivatives_agree_with_finite_differences(name):
    f = parse_function({"expression": f"{name}(0.3*t**2 + 0.1*t)"})
    check_fd(f, UNARY_TIMES)


def test_abs_on_both_sides_of_its_kink():
    f = parse_function({"expression": "abs(0.3*t**2 - 0.5)"})
    for t in (0.4, 1.0, 1.6, 2.5):
        u, u1, u2 = 0.3 * t * t - 0.5, 0.6 * t, 0.6
        s = 1.0 if u >= 0 else -1.0
        assert close(kernel_jet(f, t), (s * u, s * u1, s * u2))
    check_fd(f, (0.4, 1.0, 1.6, 2.5))


# -- every kind ------------------------------------------------------------------------------

STEP = {"smooth_step": {"t0": 1.0, "f0": 2.0, "t1": 3.0, "f1": -1.0}}
BUMP = {"smooth_bump": {"t0": 0.5, "f0": 1.0, "tmax": 1.1, "fmax": 3.0, "t1": 2.0, "f1": -0.5}}
CUBIC_POINTS = [[0.0, 0.0], [0.5, 0.3], [1.0, 1.2], [2.0, 0.4], [3.0, -0.5]]


def step_closed_form(t):
    s = min(max((t - 1.0) / 2.0, 0.0), 1.0)
    return (
        2.0 - 3.0 * (10 * s**3 - 15 * s**4 + 6 * s**5),
        -3.0 * (30 * s**2 - 60 * s**3 + 30 * s**4) / 2.0,
        -3.0 * (60 * s - 180 * s**2 + 120 * s**3) / 4.0,
    )


KIND_CASES = [
    # JSON form, kernel kind, times, closed form (None: checked otherwise below)
    (2.5, tf.CONSTANT, (-1.0, 0.0, 3.0), lambda t: (2.5, 0.0, 0.0)),
    (
        {"polynomial": [1, -2, 0.5, 3]},
        tf.POLYNOMIAL,
        (-1.3, 0.0, 0.4, 2.0),
        lambda t: (1 - 2 * t + 0.5 * t**2 + 3 * t**3, -2 + t + 9 * t**2, 1 + 18 * t),
    ),
    ({"polynomial": [4]}, tf.POLYNOMIAL, (0.0, 2.0), lambda t: (4.0, 0.0, 0.0)),
    (STEP, tf.SMOOTH_STEP, (0.0, 1.3, 2.0, 2.9, 4.0), step_closed_form),
    (BUMP, tf.SMOOTH_BUMP, (0.2, 0.8, 1.1, 1.7, 2.5), None),
    (
        {"table": [[t, t**3 - t] for t in (0.0, 1.0, 2.0, 3.0, 4.5)]},
        tf.TABLE_CUBIC,
        (0.3, 1.0, 2.5, 4.1),
        lambda t: (t**3 - t, 3 * t * t - 1, 6 * t),  # not-a-knot is exact for a cubic
    ),
    (
        {"table": [[0, 0], [1, 1], [2, 4]]},
        tf.TABLE_CUBIC,
        (0.2, 1.5),
        lambda t: (t * t, 2 * t, 2.0),
    ),
    ({"table": [[0, 1], [2, 5]]}, tf.TABLE_CUBIC, (0.5, 1.9), lambda t: (1 + 2 * t, 2.0, 0.0)),
    (
        {"table": [[0, 0], [1, 2], [3, 1]], "interpolation": "linear"},
        tf.TABLE_LINEAR,
        (-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0),
        lambda t: (
            (0.0, 0.0, 0.0)
            if t < 0
            else (2 * t, 2.0, 0.0)
            if t < 1
            else (2 - 0.5 * (t - 1), -0.5, 0.0)
            if t <= 3
            else (1.0, 0.0, 0.0)
        ),
    ),
    (
        {"expression": "0.5*(1-cos(pi*t/3.5))"},
        tf.EXPRESSION,
        (0.0, 0.7, 3.5),
        lambda t: (
            0.5 * (1 - math.cos(math.pi * t / 3.5)),
            0.5 * math.pi / 3.5 * math.sin(math.pi * t / 3.5),
            0.5 * (math.pi / 3.5) ** 2 * math.cos(math.pi * t / 3.5),
        ),
    ),
]
KIND_IDS = [json.dumps(c[0])[:40] for c in KIND_CASES]


@pytest.mark.parametrize(("data", "kind", "times", "closed"), KIND_CASES, ids=KIND_IDS)
def test_every_kind_matches_its_closed_form_from_a_kernel(data, kind, times, closed):
    f = parse_function(data)
    assert f.encode().kind == kind
    for t in times:
        got = kernel_jet(f, t)
        assert f.derivatives(t) == got  # Python front end: the same kernel
        if closed is not None:
            assert close(got, closed(t), rel=1e-12, abs_=1e-12), (t, got, closed(t))


@pytest.mark.parametrize(("data", "kind", "times", "closed"), KIND_CASES, ids=KIND_IDS)
def test_every_kind_agrees_with_finite_differences(data, kind, times, closed):
    f = parse_function(data)
    # 0.013 past each time: the stencil (+-2 ms) crosses no knot and no end
    check_fd(f, [t + 0.013 for t in times], h=1e-3, rel=1e-6)


def test_smooth_bump_meets_its_conditions_and_is_its_polynomial():
    f = parse_function(BUMP)
    c = f.coefficients
    for t in (0.7, 1.3, 1.9):
        x = t - 0.5
        expected = (
            1.0 + sum(ck * x ** (k + 3) for k, ck in enumerate(c)),
            sum((k + 3) * ck * x ** (k + 2) for k, ck in enumerate(c)),
            sum((k + 3) * (k + 2) * ck * x ** (k + 1) for k, ck in enumerate(c)),
        )
        assert close(kernel_jet(f, t), expected, rel=1e-12, abs_=1e-11)
    assert close(kernel_jet(f, 1.1)[:2], (3.0, 0.0), abs_=1e-11)
    assert close(kernel_jet(f, 2.0), (-0.5, 0.0, 0.0), abs_=1e-10)
    assert kernel_jet(f, 0.2) == (1.0, 0.0, 0.0)
    assert kernel_jet(f, 2.5) == (-0.5, 0.0, 0.0)


def test_cubic_table_passes_through_its_rows_and_holds_its_ends():
    f = parse_function({"table": CUBIC_POINTS})
    for t, v in CUBIC_POINTS:
        assert kernel_jet(f, t)[0] == pytest.approx(v, abs=1e-14)
    assert kernel_jet(f, -0.1) == (0.0, 0.0, 0.0)
    assert kernel_jet(f, 3.1) == (-0.5, 0.0, 0.0)
    for knot in (0.5, 1.0, 2.0):  # C2 at the interior knots
        left = kernel_jet(f, knot - 1e-10)
        right = kernel_jet(f, knot)
        assert close(left, right, rel=1e-8, abs_=1e-8)


def test_tables_give_nan_for_a_nan_time():
    for data in ({"table": CUBIC_POINTS}, {"table": CUBIC_POINTS, "interpolation": "linear"}):
        assert all(math.isnan(x) for x in kernel_jet(parse_function(data), math.nan))


# -- expressions: the rules of the jets ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "t", "expected"),
    [
        ("0**0", 0.0, (1.0, 0.0, 0.0)),
        ("t**0", 0.0, (1.0, 0.0, 0.0)),
        ("(t-1)**0", 1.0, (1.0, 0.0, 0.0)),
        ("(t-2)**3", 0.0, (-8.0, 12.0, -12.0)),  # negative base, integer exponent
        ("(t-3)**-2", 1.0, (0.25, 0.25, 0.375)),
        ("(-t)**3", 2.0, (-8.0, -12.0, -12.0)),
        ("(2*t)**2", -1.0, (4.0, -8.0, 8.0)),
        ("t**2", 0.0, (0.0, 0.0, 2.0)),
        ("sqrt(0) + t", 0.0, (0.0, 1.0, 0.0)),  # 0 * inf is 0 where the factor is exactly 0
        ("log(1) * t", 2.0, (0.0, 0.0, 0.0)),
        ("1/(t-t+2)", 5.0, (0.5, 0.0, 0.0)),
        ("min(t, 2-t)", 1.0, (1.0, 1.0, 0.0)),  # tie: the first argument
        ("min(2-t, t)", 1.0, (1.0, -1.0, 0.0)),
        ("max(t, t**2)", 1.0, (1.0, 1.0, 0.0)),
        ("max(t**2, t)", 1.0, (1.0, 2.0, 2.0)),
        ("min(3, t, t**2, 2*t)", 2.0, (2.0, 1.0, 0.0)),
        ("max(1, t, t**3/4)", 2.0, (2.0, 1.0, 0.0)),  # t**3/4 = 2 ties with t
        ("min(1, log(t))", -1.0, (1.0, 0.0, 0.0)),  # a later nan is never selected
        ("abs(t)", 0.0, (0.0, 1.0, 0.0)),  # +t at the kink
        ("2**t", 0.0, (1.0, math.log(2), math.log(2) ** 2)),  # exp(t log 2)
    ],
)
def test_expression_rules(text, t, expected):
    got = kernel_jet(parse_function({"expression": text}), t)
    assert close(got, expected, rel=1e-15, abs_=1e-15), got


@pytest.mark.parametrize(
    ("text", "t", "finite"),
    [
        ("1/t", 0.0, (False, False, False)),  # inf, -inf/0 ... : poles
        ("log(t)", 0.0, (False, False, False)),
        ("sqrt(t)", 0.0, (True, False, False)),
        ("tan(t)", math.pi / 2, (True, True, True)),  # tan(pi/2) is large, not inf
        ("log(t)", -1.0, (False, True, True)),  # nan, but 1/t is finite
        ("sqrt(t)", -1.0, (False, False, False)),
        ("asin(t)", 2.0, (False, False, False)),
        ("acos(t)", -2.0, (False, False, False)),
        ("(t-2)**0.5", 0.0, (False, False, False)),  # negative base, fractional exponent
        ("(t-2)**t", 1.0, (True, False, False)),  # a t-dependent exponent needs a > 0
        ("exp(t)", 1000.0, (False, False, False)),  # overflow
        ("min(log(t), 1)", -1.0, (False, True, True)),  # a first nan stays
    ],
)
def test_domain_errors_and_poles_give_ieee_values_without_warnings(text, t, finite):
    f = parse_function({"expression": text})
    got = kernel_jet(f, t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f.derivatives(t) == pytest.approx(got, nan_ok=True)
        vec = f.derivatives(np.array([t, t]))
    assert tuple(math.isfinite(x) for x in got) == finite, got
    for k in range(3):
        np.testing.assert_array_equal(vec[k], [got[k], got[k]])


def test_pole_values():
    assert kernel_jet(parse_function({"expression": "1/t"}), 0.0)[0] == math.inf
    assert kernel_jet(parse_function({"expression": "log(t)"}), 0.0)[:2] == (-math.inf, math.inf)
    assert kernel_jet(parse_function({"expression": "sqrt(t)"}), 0.0)[:2] == (0.0, math.inf)
    assert math.isnan(kernel_jet(parse_function({"expression": "0*log(t)"}), 0.0)[0])


def nested(levels: int, opening: str, closing: str = ")") -> str:
    return opening * levels + "t" + closing * levels


def test_deepest_nesting_the_parser_allows_evaluates_exactly():
    levels = MAX_DEPTH - 1  # the whole expression is one more level
    product = parse_function({"expression": nested(levels, "t*(")})  # t**100
    table = product.kernel_table()
    assert table.stack.shape == (levels + 1, 3)  # every factor waits on the stack
    n, t = levels + 1, 1.01
    expected = (t**n, n * t ** (n - 1), n * (n - 1) * t ** (n - 2))
    assert close(kernel_jet(product, t), expected, rel=1e-12)

    total = parse_function({"expression": nested(levels, "t+(")})
    assert close(kernel_jet(total, 0.3), (0.3 * n, float(n), 0.0), rel=1e-14)

    smallest = parse_function({"expression": nested(levels, "min(2,", ")")})
    assert kernel_jet(smallest, 1.5) == (1.5, 1.0, 0.0)
    assert kernel_jet(smallest, 2.0) == (2.0, 0.0, 0.0)  # ties: the first argument, 2

    sines = parse_function({"expression": nested(levels, "sin(")})
    v, d1, d2 = 0.7, 1.0, 0.0  # reference: the chain rule applied 99 times
    for _ in range(levels):
        v, d1, d2 = math.sin(v), math.cos(v) * d1, -math.sin(v) * d1 * d1 + math.cos(v) * d2
    assert close(kernel_jet(sines, 0.7), (v, d1, d2), rel=1e-12)
    check_fd(sines, (0.7,))

    with pytest.raises(ModelError, match="nested too deeply"):
        parse_expression(nested(levels + 1, "t*("))


def test_longest_min_has_one_stack_level_per_argument():
    text = "min(" + ",".join(["t"] * 600) + ",0.5*t)"
    f = parse_function({"expression": text})
    assert f.kernel_table().stack.shape == (602, 3)  # 600 t, then 0.5 and t
    assert kernel_jet(f, 2.0) == (1.0, 0.5, 0.0)
    assert kernel_jet(f, -2.0) == (-2.0, 1.0, 0.0)


# -- tables of several functions, the empty table ---------------------------------------------

MIXED = [
    3,
    {"expression": "0.5*(1-cos(pi*t/3.5))"},
    {"polynomial": [0, 1, 0.5]},
    STEP,
    BUMP,
    {"table": CUBIC_POINTS},
    {"table": [[0, 0], [1, 2]], "interpolation": "linear"},
    {"expression": "max(t, 2-t, 0.5*t**2) + t**t"},
    {"expression": "t*(t*(t*(t+1)))"},
]


def test_a_table_of_several_functions_equals_each_alone():
    functions = [parse_function(d) for d in MIXED]
    table = tf.function_table([f.encode() for f in functions])
    assert table.kind.shape == (len(MIXED),)
    assert table.data_start[-1] == len(table.data)
    assert table.op_start[-1] == len(table.ops)
    assert table.stack.shape[0] == 5  # the deepest: t*(t*(t*(t+1))), t, t, t, t, 1
    ts = np.linspace(-0.5, 4.0, 37)
    with np.errstate(all="ignore"):  # t**t at t < 0 (plain Python: NumPy scalars warn)
        out = jets_from_a_kernel(table, ts)
        batches = [tf.jets(table, i, ts) for i in range(len(functions))]
    for i, f in enumerate(functions):
        alone = f.derivatives(ts)
        for k in range(3):
            np.testing.assert_array_equal(out[i, :, k], alone[k])
        batch = batches[i]
        for k in range(3):
            np.testing.assert_array_equal(batch[k], alone[k])
        assert tf.evaluate(table, i, 1.25) == f.derivatives(1.25)


def test_the_empty_table_and_every_table_have_one_numba_type():
    empty = tf.function_table([])
    assert empty.kind.shape == (0,)
    assert list(empty.data_start) == [0]
    assert list(empty.op_start) == [0]
    assert empty.data.shape == (0,)
    assert empty.ops.shape == (0, 2)
    assert empty.stack.shape == (1, 3)
    one = parse_function(2.0).kernel_table()
    full = tf.function_table([parse_function(d).encode() for d in MIXED])
    assert numba.typeof(empty) == numba.typeof(one) == numba.typeof(full)
    assert jets_from_a_kernel(empty, np.linspace(0, 1, 5)).shape == (0, 5, 3)
    jets_from_a_kernel(full, np.array([0.5]))
    if ENABLED:  # compiled (or loaded from the cache) once for all three tables
        assert len(jets_from_a_kernel.signatures) == 1
    with pytest.raises(IndexError):
        tf.evaluate(empty, 0, 0.0)


@pytest.mark.parametrize(
    ("item", "fragment"),
    [
        ((99, [1.0], None), "unknown kind"),
        ((tf.CONSTANT, [1.0, 2.0], None), "invalid data"),
        ((tf.CONSTANT, [math.nan], None), "finite"),
        ((tf.POLYNOMIAL, [], None), "invalid data"),
        ((tf.SMOOTH_STEP, [1.0, 0.0, 1.0, 2.0], None), "invalid data"),
        ((tf.SMOOTH_BUMP, [0.0] * 8, None), "invalid data"),
        ((tf.TABLE_LINEAR, [0.0, 1.0, 0.0], None), "invalid data"),
        ((tf.TABLE_LINEAR, [1.0, 0.0, 0.0, 1.0], None), "invalid data"),
        ((tf.TABLE_CUBIC, [0.0, 1.0, 0.0, 1.0], None), "invalid data"),
        ((tf.CONSTANT, [1.0], [(tf.OP_T, 0)]), "only an expression"),
        ((tf.EXPRESSION, [], []), "leaves 0"),
        ((tf.EXPRESSION, [], [(tf.OP_T, 0), (tf.OP_T, 0)]), "leaves 2"),
        ((tf.EXPRESSION, [], [(tf.OP_T, 0), (tf.OP_ADD, 0)]), "two operands"),
        ((tf.EXPRESSION, [], [(tf.OP_SIN, 1)]), "needs an operand"),
        ((tf.EXPRESSION, [1.0], [(tf.OP_CONST, 1)]), "out of range"),
        ((tf.EXPRESSION, [], [(tf.OP_T, 0), (tf.OP_T, 0), (tf.OP_MIN, 3)]), "min/max"),
        ((tf.EXPRESSION, [], [(tf.OP_T, 0), (tf.OP_MAX, 1)]), "min/max"),
        ((tf.EXPRESSION, [], [(tf.OP_T, 0), (77, 0)]), "unknown opcode"),
    ],
)
def test_function_table_refuses_malformed_items(item, fragment):
    with pytest.raises(ValueError, match=fragment):
        tf.function_table([parse_function(1.0).encode(), item])


def test_encoded_expression_opcodes():
    code = parse_expression("2*min(t, 1, -t)**sin(t)").encode()
    assert code.kind == tf.EXPRESSION
    assert list(code.data) == [2.0, 1.0]
    assert [tuple(row) for row in code.ops] == [
        (tf.OP_CONST, 0),
        (tf.OP_T, 0),
        (tf.OP_CONST, 1),
        (tf.OP_T, 0),
        (tf.OP_NEG, 0),
        (tf.OP_MIN, 3),
        (tf.OP_T, 0),
        (tf.OP_SIN, 1),
        (tf.OP_POW, 0),
        (tf.OP_MUL, 0),
    ]


# -- the cached table and the model's copies ---------------------------------------------------


@pytest.mark.parametrize("data", MIXED, ids=[json.dumps(d)[:30] for d in MIXED])
def test_cached_table_is_not_pickled_or_copied_and_copies_evaluate_the_same(data):
    f = parse_function(data)
    before = f.derivatives(0.7)
    assert f.kernel_table() is f.kernel_table()
    size = len(pickle.dumps(f))
    assert b"FunctionTable" not in pickle.dumps(f)
    for again in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f), copy.copy(f)):
        assert again == f
        assert hash(again) == hash(f)
        assert "_kernel_table" not in again.__dict__
        assert again.derivatives(0.7) == before
    assert len(pickle.dumps(f)) == size


def test_loading_and_validating_every_example_does_not_import_numba():
    code = (
        "import glob, sys\n"
        "from solver.model import load_model\n"
        "for path in sorted(glob.glob('examples/*.json')):\n"
        "    load_model(path)\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "from solver.model.functions import parse_function\n"
        "parse_function({'expression': 't'}).derivatives(1.0)\n"
        "assert 'numba' in sys.modules\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=root
    )
    assert result.returncode == 0, result.stderr
