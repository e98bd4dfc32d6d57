"""Time functions and the safe expression parser: values, exact derivatives, refusals."""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
import zlib

import numpy as np
import pytest

from solver.model.errors import ModelError
from solver.model.functions import (
    Constant,
    ExpressionFunction,
    Polynomial,
    SmoothBump,
    SmoothStep,
    Table,
    TimeFunction,
    parse_expression,
    parse_function,
)

WHERE = 'drivers[0] "motor"'
FIELD = "function"
PI = math.pi


def fd_derivatives(f, t, h=1e-3):
    """Fourth-order central differences of f' and f'' (cross-check only)."""
    fp2, fp1, f0, fm1, fm2 = (f(t + k * h) for k in (2, 1, 0, -1, -2))
    d1 = (-fp2 + 8 * fp1 - 8 * fm1 + fm2) / (12 * h)
    d2 = (-fp2 + 16 * fp1 - 30 * f0 + 16 * fm1 - fm2) / (12 * h * h)
    return d1, d2


# text, f, f', f'' (analytic), valid on t in [0.1, 3]
EXPRESSIONS = [
    ("2*pi*t", lambda t: 2 * PI * t, lambda t: 2 * PI, lambda t: 0.0),
    (
        "0.5*(1-cos(pi*t/3.5))",
        lambda t: 0.5 * (1 - math.cos(PI * t / 3.5)),
        lambda t: 0.5 * PI / 3.5 * math.sin(PI * t / 3.5),
        lambda t: 0.5 * (PI / 3.5) ** 2 * math.cos(PI * t / 3.5),
    ),
    (
        "min(t, 1)**2",
        lambda t: min(t, 1) ** 2,
        lambda t: 2 * t if t < 1 else 0.0,
        lambda t: 2.0 if t < 1 else 0.0,
    ),
    ("-t**2", lambda t: -(t**2), lambda t: -2 * t, lambda t: -2.0),
    ("2**3**2", lambda t: 512.0, lambda t: 0.0, lambda t: 0.0),
    ("1e-3*t", lambda t: 1e-3 * t, lambda t: 1e-3, lambda t: 0.0),
    ("(t-2)**2", lambda t: (t - 2) ** 2, lambda t: 2 * (t - 2), lambda t: 2.0),
    ("(t-2)**3", lambda t: (t - 2) ** 3, lambda t: 3 * (t - 2) ** 2, lambda t: 6 * (t - 2)),
    ("t**-2", lambda t: t**-2, lambda t: -2 * t**-3, lambda t: 6 * t**-4),
    (
        "t**t",
        lambda t: t**t,
        lambda t: t**t * (math.log(t) + 1),
        lambda t: t**t * ((math.log(t) + 1) ** 2 + 1 / t),
    ),
    (
        "2**t",
        lambda t: 2**t,
        lambda t: 2**t * math.log(2),
        lambda t: 2**t * math.log(2) ** 2,
    ),
    (
        "(1+t)**sin(t)",
        lambda t: (1 + t) ** math.sin(t),
        lambda t: (1 + t) ** math.sin(t) * (math.cos(t) * math.log(1 + t) + math.sin(t) / (1 + t)),
        None,  # checked by finite differences only
    ),
    (
        "sin(2*t)*exp(-t)",
        lambda t: math.sin(2 * t) * math.exp(-t),
        lambda t: math.exp(-t) * (2 * math.cos(2 * t) - math.sin(2 * t)),
        lambda t: math.exp(-t) * (-3 * math.sin(2 * t) - 4 * math.cos(2 * t)),
    ),
    (
        "tan(t/4)",
        lambda t: math.tan(t / 4),
        lambda t: 0.25 / math.cos(t / 4) ** 2,
        lambda t: 0.125 * math.tan(t / 4) / math.cos(t / 4) ** 2,
    ),
    (
        "asin(t/4)",
        lambda t: math.asin(t / 4),
        lambda t: 1 / math.sqrt(16 - t * t),
        lambda t: t / (16 - t * t) ** 1.5,
    ),
    (
        "acos(t/4)",
        lambda t: math.acos(t / 4),
        lambda t: -1 / math.sqrt(16 - t * t),
        lambda t: -t / (16 - t * t) ** 1.5,
    ),
    (
        "atan(t**2)",
        lambda t: math.atan(t * t),
        lambda t: 2 * t / (1 + t**4),
        lambda t: (2 - 6 * t**4) / (1 + t**4) ** 2,
    ),
    ("sinh(t)", math.sinh, math.cosh, math.sinh),
    (
        "cosh(2*t)",
        lambda t: math.cosh(2 * t),
        lambda t: 2 * math.sinh(2 * t),
        lambda t: 4 * math.cosh(2 * t),
    ),
    (
        "tanh(t)",
        math.tanh,
        lambda t: 1 - math.tanh(t) ** 2,
        lambda t: -2 * math.tanh(t) * (1 - math.tanh(t) ** 2),
    ),
    (
        "log(1+t**2)",
        lambda t: math.log(1 + t * t),
        lambda t: 2 * t / (1 + t * t),
        lambda t: 2 * (1 - t * t) / (1 + t * t) ** 2,
    ),
    (
        "sqrt(1+t)",
        lambda t: math.sqrt(1 + t),
        lambda t: 0.5 / math.sqrt(1 + t),
        lambda t: -0.25 * (1 + t) ** -1.5,
    ),
    (
        "abs(t-1)*t",
        lambda t: abs(t - 1) * t,
        lambda t: 2 * t - 1 if t >= 1 else 1 - 2 * t,
        lambda t: 2.0 if t >= 1 else -2.0,
    ),
    (
        "max(t, 2-t, 0.5*t**2)",
        lambda t: max(t, 2 - t, 0.5 * t * t),
        lambda t: [1.0, -1.0, t][int(np.argmax([t, 2 - t, 0.5 * t * t]))],
        lambda t: [0.0, 0.0, 1.0][int(np.argmax([t, 2 - t, 0.5 * t * t]))],
    ),
    (
        "1/(1+t**2)",
        lambda t: 1 / (1 + t * t),
        lambda t: -2 * t / (1 + t * t) ** 2,
        lambda t: (6 * t * t - 2) / (1 + t * t) ** 3,
    ),
    (
        "exp(sin(t))/t",
        lambda t: math.exp(math.sin(t)) / t,
        lambda t: math.exp(math.sin(t)) * (math.cos(t) / t - 1 / t**2),
        None,
    ),
    ("+t - -t", lambda t: 2 * t, lambda t: 2.0, lambda t: 0.0),
    (
        "e**t * pi",
        lambda t: PI * math.exp(t),
        lambda t: PI * math.exp(t),
        lambda t: PI * math.exp(t),
    ),
    ("sqrt(0) + t", lambda t: t, lambda t: 1.0, lambda t: 0.0),
    ("t / 2 / 4", lambda t: t / 8, lambda t: 1 / 8, lambda t: 0.0),
]
EXPRESSION_IDS = [e[0] for e in EXPRESSIONS]
SAMPLE_TIMES = (0.3, 0.7, 1.4, 2.6)


@pytest.mark.parametrize(("text", "f", "df", "ddf"), EXPRESSIONS, ids=EXPRESSION_IDS)
def test_expression_matches_analytic_derivatives(text, f, df, ddf):
    expr = parse_expression(text)
    for t in SAMPLE_TIMES:
        v, d1, d2 = expr.derivatives(t)
        assert v == pytest.approx(f(t), rel=1e-12, abs=1e-12)
        assert d1 == pytest.approx(df(t), rel=1e-11, abs=1e-12)
        if ddf is not None:
            assert d2 == pytest.approx(ddf(t), rel=1e-11, abs=1e-12)


@pytest.mark.parametrize(("text", "f", "df", "ddf"), EXPRESSIONS, ids=EXPRESSION_IDS)
def test_expression_derivatives_agree_with_finite_differences(text, f, df, ddf):
    expr = parse_expression(text)
    rng = np.random.default_rng(zlib.crc32(text.encode()))
    for t in rng.uniform(0.1, 3.0, size=5):
        if abs(t - 1.0) < 0.01:  # kinks of abs/min/max
            continue
        _, d1, d2 = expr.derivatives(t)
        fd1, fd2 = fd_derivatives(expr, t)
        assert d1 == pytest.approx(fd1, rel=1e-7, abs=1e-7)
        assert d2 == pytest.approx(fd2, rel=1e-5, abs=1e-5)


@pytest.mark.parametrize(("text", "f", "df", "ddf"), EXPRESSIONS, ids=EXPRESSION_IDS)
def test_expression_vectorised_equals_scalar(text, f, df, ddf):
    expr = parse_expression(text)
    t = np.array([[0.3, 0.7], [1.4, 2.6]])
    vec = expr.derivatives(t)
    for k in range(3):
        assert isinstance(vec[k], np.ndarray)
        assert vec[k].shape == t.shape
        expected = [[expr.derivatives(float(x))[k] for x in row] for row in t]
        np.testing.assert_array_equal(vec[k], expected)
    np.testing.assert_array_equal(expr(t), vec[0])
    scalar = expr.derivatives(0.7)
    assert all(type(x) is float for x in scalar)


@pytest.mark.parametrize(
    ("text", "t", "value"),
    [
        ("-t**2", 3.0, -9.0),
        ("2**3**2", 0.0, 512.0),
        ("(2**3)**2", 0.0, 64.0),
        ("2**-1", 0.0, 0.5),
        ("-2**2", 0.0, -4.0),
        ("(-2)**2", 0.0, 4.0),
        ("1-2-3", 0.0, -4.0),
        ("8/4/2", 0.0, 1.0),
        ("2*3+4*5", 0.0, 26.0),
        ("2+3*t**2", 2.0, 14.0),
        ("--t", 2.0, 2.0),
        ("1e-3", 0.0, 1e-3),
        ("1.5E+2 + .5 + 2.", 0.0, 152.5),
        ("  2 *\n\tt ", 4.0, 8.0),
        ("pi + e", 0.0, math.pi + math.e),
        ("min(3, t, 5, 2*t)", 4.0, 3.0),
        ("max(3, t, 5, t/2)", 4.0, 5.0),
        ("sin(cos(exp(0)))", 0.0, math.sin(math.cos(1.0))),
        ("abs(-t)", 2.0, 2.0),
        ("2*pi*t", 0.25, math.pi / 2),
        ("0.5*(1-cos(pi*t/3.5))", 3.5, 1.0),
        ("min(t, 1)**2", 0.5, 0.25),
        ("min(t, 1)**2", 2.0, 1.0),
        ("1e-3*t", 2.0, 2e-3),
    ],
)
def test_expression_precedence_and_values(text, t, value):
    assert parse_expression(text)(t) == pytest.approx(value, rel=1e-15, abs=1e-15)


@pytest.mark.parametrize(
    ("text", "t", "expected"),
    [
        ("(t-2)**2", 0.0, (4.0, -4.0, 2.0)),  # negative base, constant integer exponent
        ("(t-2)**3", 0.0, (-8.0, 12.0, -12.0)),
        ("t**2", 0.0, (0.0, 0.0, 2.0)),
        ("t**1", 0.0, (0.0, 1.0, 0.0)),
        ("t**0", 0.0, (1.0, 0.0, 0.0)),
        ("t**3", -1.0, (-1.0, 3.0, -6.0)),
        ("abs(t)", 0.0, (0.0, 1.0, 0.0)),  # active branch at the kink: +t
        ("abs(t)", -2.0, (2.0, -1.0, 0.0)),
        ("min(t, 1)", 1.0, (1.0, 1.0, 0.0)),  # tie: first argument
        ("max(1, t)", 1.0, (1.0, 0.0, 0.0)),
        ("sqrt(4)*t", 1.0, (2.0, 2.0, 0.0)),
    ],
)
def test_expression_special_points(text, t, expected):
    assert parse_expression(text).derivatives(t) == pytest.approx(expected, abs=1e-15)


def test_expression_domain_errors_give_ieee_values_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v, d1, _ = parse_expression("sqrt(t)").derivatives(0.0)
        assert v == 0.0
        assert d1 == math.inf
        assert math.isnan(parse_expression("log(t)")(-1.0))
        assert math.isnan(parse_expression("sqrt(t)")(-1.0))
        assert math.isnan(parse_expression("asin(t)")(2.0))
        assert parse_expression("1/t")(0.0) == math.inf
        assert parse_expression("log(t)")(0.0) == -math.inf
        out = parse_expression("log(t)")(np.array([-1.0, 1.0]))
        assert math.isnan(out[0])
        assert out[1] == 0.0


def test_constant_expression_broadcasts_to_the_shape_of_t():
    f, d1, d2 = parse_expression("2*pi").derivatives(np.zeros(4))
    np.testing.assert_array_equal(f, np.full(4, 2 * math.pi))
    np.testing.assert_array_equal(d1, np.zeros(4))
    np.testing.assert_array_equal(d2, np.zeros(4))


def test_long_flat_expression_within_limits_evaluates():
    text = "t+" * 999 + "t"  # 1999 characters, 1000 terms: no recursion at evaluation
    assert len(text) == 1999
    assert parse_expression(text).derivatives(2.0) == (2000.0, 1000.0, 0.0)
    assert parse_expression("(" * 60 + "t" + ")" * 60)(3.0) == 3.0


MALFORMED = [
    "__import__('os')",
    "().__class__",
    "t.real",
    '"a"',
    "'a'",
    "open('x')",
    "lambda: 1",
    "t if t else 1",
    "[1]",
    "{1}",
    "x",
    "2*x",
    "T",
    "import os",
    "2*",
    "(t",
    "t)",
    "(t))",
    "1 2",
    "2t",
    "t(1)",
    "pi(2)",
    "2^3",
    "exp",
    "sin()",
    "sin(1,2)",
    "sin(t t)",
    "min(1)",
    "max()",
    "2***3",
    "1..2",
    "1e999",
    "t;1",
    "t # comment",
    "t == 1",
    "t, 1",
    "",
    "   ",
    "\x00",
    "(" * 5000 + "t" + ")" * 5000,
    "(" * 150 + "t" + ")" * 150,
    "-" * 150 + "t",
    "t**" * 150 + "t",
    "t+" * 1000 + "t",
    "sin(" * 120 + "t" + ")" * 120,
]


@pytest.mark.parametrize("text", MALFORMED, ids=[repr(m)[:40] for m in MALFORMED])
def test_malformed_or_malicious_expressions_are_refused(text):
    with pytest.raises(ModelError) as info:
        parse_expression(text, WHERE, FIELD)
    message = str(info.value)
    assert message.startswith(f"{WHERE}: {FIELD} ")
    assert info.value.location == WHERE
    assert info.value.field == FIELD
    assert "\n" not in message
    assert len(message) < 400
    # the same refusal through parse_function
    with pytest.raises(ModelError, match="function"):
        parse_function({"expression": text}, WHERE, FIELD)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2*x", 'unknown name "x" in expression "2*x" (allowed: t, pi, e, sin, cos'),
        ("__import__('os')", 'unknown name "__import__"'),
        ("2^3", "write powers with ** (e.g. t**2)"),
        ("t.real", "attribute access is not supported"),
        ("().__class__", "attribute access is not supported"),
        ('"a"', "strings are not supported"),
        ("exp", "exp(t)"),
        ("sin(1,2)", "sin takes 1 argument, got 2"),
        ("sin()", "sin takes 1 argument, got 0"),
        ("min(1)", "min takes at least 2 arguments, got 1"),
        ("(t", 'missing ")"'),
        ("t)", 'unmatched ")"'),
        ("2*", 'ends unexpectedly after "*"'),
        ("1 2", 'unexpected number "2" at position 3'),
        ("2t", "implicit multiplication"),
        ("", "is empty"),
        ("t+" * 1000 + "t", "at most 2000"),
        ("(" * 150 + "t" + ")" * 150, "nested too deeply"),
        ("t(1)", "not a function"),
    ],
)
def test_expression_error_messages_say_what_is_wrong_and_allowed(text, fragment):
    with pytest.raises(ModelError) as info:
        parse_expression(text, WHERE, FIELD)
    assert fragment in str(info.value)


def test_unknown_name_message_exactly():
    with pytest.raises(ModelError) as info:
        parse_function({"expression": "2*x"}, WHERE, "function")
    assert str(info.value) == (
        'drivers[0] "motor": function unknown name "x" in expression "2*x" (allowed: t, pi, e, '
        "sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, log, sqrt, abs, min, max)"
    )


@pytest.mark.parametrize("value", [None, 3, ["t"], {"t": 1}])
def test_expression_must_be_a_string(value):
    with pytest.raises(ModelError, match=r"^forces\[1\] \"F\": vector\[1\] .*string"):
        parse_expression(value, 'forces[1] "F"', "vector[1]")


def test_nesting_limit_is_100_levels():
    assert parse_expression("(" * 99 + "t" + ")" * 99)(1.5) == 1.5
    with pytest.raises(ModelError, match="nested too deeply"):
        parse_expression("(" * 100 + "t" + ")" * 100)


# -- function kinds ------------------------------------------------------------------


def check_against_fd(func, times, rel=1e-6, abs_=1e-6):
    for t in times:
        _, d1, d2 = func.derivatives(t)
        fd1, fd2 = fd_derivatives(func, t, h=1e-4)
        assert d1 == pytest.approx(fd1, rel=rel, abs=abs_)
        assert d2 == pytest.approx(fd2, rel=1e3 * rel, abs=1e3 * abs_)


def test_constant():
    f = parse_function(2.5, WHERE, FIELD)
    assert isinstance(f, Constant)
    assert f.derivatives(1.0) == (2.5, 0.0, 0.0)
    f, d1, d2 = f.derivatives(np.arange(3.0))
    np.testing.assert_array_equal(f, [2.5, 2.5, 2.5])
    np.testing.assert_array_equal(d1, 0.0)
    np.testing.assert_array_equal(d2, 0.0)
    assert parse_function(3).to_json() == 3
    assert isinstance(parse_function(3).to_json(), int)
    assert parse_function(np.float64(1.5)) == Constant(1.5)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (True, "true"),
        (None, "null"),
        ("2*t", "must be a number or an object"),
        ([1, 2], "must be a number or an object"),
        (math.nan, "finite"),
        (math.inf, "finite"),
        (10**400, "finite"),
        ({}, "give exactly one of expression, polynomial"),
        ({"expression": "t", "polynomial": [1]}, "expression and polynomial"),
        ({"expresion": "t"}, 'unknown key "expresion"; did you mean "expression"?'),
        ({"expression": "t", "interpolation": "linear"}, 'only allowed with "table"'),
        ({"polynomial": "1 + t"}, "list of numbers"),
        ({"polynomial": []}, "non-empty list"),
        ({"polynomial": [1, "2"]}, "polynomial[1] must be a number"),
        ({"polynomial": [1, True]}, "polynomial[1] must be a number"),
        ({"polynomial": [1, math.nan]}, "polynomial[1] must be a finite number"),
        ({"smooth_step": [0, 0, 1, 1]}, "must be an object with t0, f0, t1, f1"),
        ({"smooth_step": {"t0": 0, "f0": 0, "t1": 1}}, "missing f1"),
        ({"smooth_step": {"t0": 0, "f0": 0, "t1": 1, "f1": 1, "x": 2}}, 'unknown key "x"'),
        ({"smooth_step": {"t0": 0, "f0": 0, "t1": "1", "f1": 1}}, "smooth_step.t1 must be"),
        ({"smooth_step": {"t0": 1, "f0": 0, "t1": 1, "f1": 1}}, "t1 (1) must be greater than t0"),
        ({"smooth_step": {"t0": 2, "f0": 0, "t1": 1, "f1": 1}}, "smooth_step t1 (1) must be"),
        (
            {"smooth_bump": {"t0": 0, "f0": 0, "tmax": 2, "fmax": 1, "t1": 1, "f1": 0}},
            "t0 < tmax < t1",
        ),
        ({"smooth_bump": {"t0": 0, "f0": 0, "tmax": 0.5, "fmax": 1, "t1": 1}}, "missing f1"),
        ({"table": [[0, 1]]}, "at least 2 rows"),
        ({"table": "data.csv"}, "at least 2 rows"),
        ({"table": [[0, 1], [1, 2, 3]]}, "table[1] must be a row [t, f]"),
        ({"table": [[0, 1], [0, 2]]}, "strictly increasing"),
        ({"table": [[0, 1], [2, 2], [1, 3]]}, "table[2][0]"),
        ({"table": [[0, 1], [1, math.inf]]}, "table[1][1] must be a finite number"),
        ({"table": [[0, 1], ["1", 2]]}, "table[1][0] must be a number"),
        ({"table": [[0, 1], [1, 2]], "interpolation": "spline"}, "interpolation must be"),
    ],
)
def test_invalid_function_data_is_refused_naming_the_field(data, fragment):
    with pytest.raises(ModelError) as info:
        parse_function(data, WHERE, "vector[1]")
    message = str(info.value)
    assert message.startswith(f"{WHERE}: vector[1]")
    assert fragment in message
    assert "\n" not in message


def test_polynomial():
    f = parse_function({"polynomial": [1, -2, 0.5, 3]})
    assert isinstance(f, Polynomial)
    for t in (-1.3, 0.0, 0.4, 2.0):
        assert f.derivatives(t) == pytest.approx(
            (1 - 2 * t + 0.5 * t**2 + 3 * t**3, -2 + t + 9 * t**2, 1 + 18 * t), rel=1e-14
        )
    check_against_fd(f, (0.3, 1.7))
    assert parse_function({"polynomial": [4]}).derivatives(2.0) == (4.0, 0.0, 0.0)
    t = np.linspace(-1, 2, 7)
    vec = f.derivatives(t)
    for k in range(3):
        np.testing.assert_allclose(vec[k], [f.derivatives(x)[k] for x in t], rtol=1e-15)


STEP = {"smooth_step": {"t0": 1.0, "f0": 2.0, "t1": 3.0, "f1": -1.0}}


def test_smooth_step_values_and_derivatives():
    f = parse_function(STEP)
    assert isinstance(f, SmoothStep)
    assert f.derivatives(0.0) == (2.0, 0.0, 0.0)
    assert f.derivatives(1.0) == (2.0, 0.0, 0.0)
    assert f.derivatives(3.0) == (-1.0, 0.0, 0.0)
    assert f.derivatives(5.0) == (-1.0, 0.0, 0.0)
    assert f(2.0) == pytest.approx(0.5)
    for t in (1.3, 2.0, 2.9):
        s = (t - 1.0) / 2.0
        expected = (
            2.0 - 3.0 * (10 * s**3 - 15 * s**4 + 6 * s**5),
            -3.0 * (30 * s**2 - 60 * s**3 + 30 * s**4) / 2.0,
            -3.0 * (60 * s - 180 * s**2 + 120 * s**3) / 4.0,
        )
        assert f.derivatives(t) == pytest.approx(expected, rel=1e-13, abs=1e-13)
    check_against_fd(f, (1.2, 1.9, 2.7))
    values = f(np.linspace(0, 4, 401))
    assert np.all(np.diff(values) <= 0)  # monotone


@pytest.mark.parametrize("edge", [1.0, 3.0])
def test_smooth_step_is_c2_continuous_at_its_ends(edge):
    f = parse_function(STEP)
    left = f.derivatives(edge - 1e-7)
    right = f.derivatives(edge + 1e-7)
    assert left == pytest.approx(right, abs=1e-5)
    assert left[1] == pytest.approx(0.0, abs=1e-9)
    assert left[2] == pytest.approx(0.0, abs=1e-5)


BUMP = {"smooth_bump": {"t0": 0, "f0": 0, "tmax": 0.6, "fmax": math.pi / 6, "t1": 1.2, "f1": 0}}


def test_smooth_bump_mubodyna_example():
    f = parse_function(BUMP)
    assert isinstance(f, SmoothBump)
    assert f.coefficients == pytest.approx([19.39, -48.48, 40.40, -11.22, 0.0], abs=5e-3)
    assert f.coefficients[4] == pytest.approx(0.0, abs=1e-9)
    v, d1, d2 = f.derivatives(0.6)
    assert v == pytest.approx(math.pi / 6, rel=1e-14)
    assert d1 == pytest.approx(0.0, abs=1e-12)
    assert d2 < 0
    t = np.linspace(-0.5, 1.7, 2201)
    values = f(t)
    assert values.max() == pytest.approx(math.pi / 6, rel=1e-13)
    assert t[values.argmax()] == pytest.approx(0.6, abs=1e-3)
    assert f.derivatives(-1.0) == (0.0, 0.0, 0.0)
    assert f.derivatives(2.0) == (0.0, 0.0, 0.0)
    check_against_fd(f, (0.1, 0.45, 0.9, 1.1))
    c = f.coefficients
    for x in (0.2, 0.8):
        expected = sum(ck * x ** (k + 3) for k, ck in enumerate(c))
        assert f(x) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("edge", [0.0, 1.2])
def test_smooth_bump_is_c2_continuous_at_its_ends(edge):
    f = parse_function(BUMP)
    at_edge = f.derivatives(edge)
    assert at_edge == pytest.approx((0.0, 0.0, 0.0), abs=1e-10)
    # f'' changes by at most |f'''| * 1e-9 across the edge: no jump in f, f' or f''
    assert f.derivatives(edge - 1e-9) == pytest.approx(at_edge, abs=1e-6)
    assert f.derivatives(edge + 1e-9) == pytest.approx(at_edge, abs=1e-6)


def test_smooth_bump_general_case_conditions():
    f = parse_function(
        {"smooth_bump": {"t0": 1.0, "f0": 2.0, "tmax": 1.5, "fmax": -1.0, "t1": 3.0, "f1": 0.5}}
    )
    assert f.derivatives(1.5) == pytest.approx((-1.0, 0.0, f.derivatives(1.5)[2]), abs=1e-12)
    assert f.derivatives(3.0) == pytest.approx((0.5, 0.0, 0.0), abs=1e-10)
    assert f.derivatives(1.0) == (2.0, 0.0, 0.0)


TABLE_POINTS = [[0.0, 0.0], [0.5, 0.3], [1.0, 1.2], [2.0, 0.4], [3.0, -0.5]]


def test_cubic_table_passes_through_its_points_and_is_c2():
    f = parse_function({"table": TABLE_POINTS}, WHERE, FIELD)
    assert isinstance(f, Table)
    for t, v in TABLE_POINTS:
        assert f(t) == pytest.approx(v, abs=1e-14)
    check_against_fd(f, (0.2, 0.8, 1.5, 2.5))
    for knot in (0.5, 1.0, 2.0):
        left = f.derivatives(knot - 1e-9)
        right = f.derivatives(knot + 1e-9)
        assert left == pytest.approx(right, abs=1e-6)
    # outside: end values held, zero derivatives
    assert f.derivatives(-1.0) == (0.0, 0.0, 0.0)
    assert f.derivatives(4.0) == (-0.5, 0.0, 0.0)
    t = np.array([-1.0, 0.25, 1.7, 5.0])
    vec = f.derivatives(t)
    for k in range(3):
        np.testing.assert_array_equal(vec[k], [f.derivatives(x)[k] for x in t])


def test_cubic_table_is_exact_for_low_order_data():
    cubic = parse_function({"table": [[t, t**3 - t] for t in (0.0, 1.0, 2.0, 3.0, 4.5)]})
    assert cubic.derivatives(2.5) == pytest.approx((2.5**3 - 2.5, 3 * 2.5**2 - 1, 15.0))
    parabola = parse_function({"table": [[0, 0], [1, 1], [2, 4]]})
    assert parabola.derivatives(1.5) == pytest.approx((2.25, 3.0, 2.0))
    line = parse_function({"table": [[0, 1], [2, 5]]})
    assert line.derivatives(0.5) == pytest.approx((2.0, 2.0, 0.0), abs=1e-14)


def test_linear_table():
    f = parse_function({"table": [[0, 0], [1, 2], [3, 1]], "interpolation": "linear"})
    assert f.derivatives(0.5) == (1.0, 2.0, 0.0)
    assert f.derivatives(2.0) == (1.5, -0.5, 0.0)
    assert f.derivatives(1.0) == (2.0, -0.5, 0.0)  # the segment to the right
    assert f.derivatives(3.0) == (1.0, -0.5, 0.0)
    assert f.derivatives(-1.0) == (0.0, 0.0, 0.0)
    assert f.derivatives(4.0) == (1.0, 0.0, 0.0)
    vec = f.derivatives(np.array([-1.0, 0.5, 2.0, 4.0]))
    np.testing.assert_array_equal(vec[0], [0.0, 1.0, 1.5, 1.0])
    np.testing.assert_array_equal(vec[1], [0.0, 2.0, -0.5, 0.0])
    np.testing.assert_array_equal(vec[2], [0.0, 0.0, 0.0, 0.0])


# -- JSON round trip, equality, immutability ---------------------------------------------

ROUND_TRIP = [
    3,
    -0.25,
    {"expression": "0.5*(1-cos(pi*t/3.5))"},
    {"polynomial": [0, 1, 0.5]},
    STEP,
    BUMP,
    {"table": TABLE_POINTS},
    {"table": [[0, 0], [1, 2]], "interpolation": "linear"},
    {"table": [[0, 0], [1, 2]], "interpolation": "cubic"},
]


@pytest.mark.parametrize("data", ROUND_TRIP, ids=[json.dumps(d)[:30] for d in ROUND_TRIP])
def test_to_json_round_trip(data):
    f = parse_function(data)
    assert f.to_json() == data
    again = parse_function(json.loads(json.dumps(f.to_json())))
    assert again == f
    assert hash(again) == hash(f)
    assert again.derivatives(0.7) == f.derivatives(0.7)
    assert type(f).__name__ in repr(f)


def test_equality_is_by_json_form():
    assert parse_function({"expression": "2*t"}) == parse_function({"expression": "2*t"})
    assert parse_function({"expression": "2*t"}) != parse_function({"expression": "t*2"})
    assert parse_function({"polynomial": [0, 2]}) != parse_function({"expression": "2*t"})
    assert Constant(1) == Constant(1.0)
    assert hash(Constant(1)) == hash(Constant(1.0))
    assert parse_function(STEP) != parse_function(BUMP)
    assert Constant(1) != 1
    assert parse_function(Constant(2)) == Constant(2)


def test_functions_are_immutable():
    for data in ROUND_TRIP:
        f = parse_function(data)
        assert isinstance(f, TimeFunction)
        with pytest.raises(dataclasses.FrozenInstanceError):
            f.value = 1
    expr = parse_function({"expression": "t"})
    assert isinstance(expr, ExpressionFunction)
    with pytest.raises(AttributeError):
        expr.expression._text = "x"


def test_to_json_returns_a_fresh_copy():
    f = parse_function({"table": [[0, 0], [1, 2]]})
    data = f.to_json()
    data["table"][0][1] = 99
    assert f(0.0) == 0.0
    assert f.to_json() == {"table": [[0, 0], [1, 2]]}


def test_error_messages_name_the_item_and_field():
    cases = [
        ({"expression": "2*x"}, 'joints[3] "J4"', "function"),
        ({"polynomial": ["a"]}, 'forces[0] "spring"', "actuator"),
        ({"table": [[1, 0], [0, 1]]}, 'forces[2] "F"', "vector[2]"),
        ({"smooth_step": {"t0": 0, "f0": 0, "t1": -1, "f1": 1}}, 'drivers[1] "lift"', "function"),
    ]
    for data, where, field in cases:
        with pytest.raises(ModelError) as info:
            parse_function(data, where, field)
        assert str(info.value).startswith(f"{where}: {field}")
