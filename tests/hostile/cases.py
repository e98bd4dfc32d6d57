"""The hostile corpus: bad model files (``models/``) and bad command lines, each with the
outcome the command line owes it.

Every case runs ``biela ARGS`` and must end with its exit code and, on stderr, one line that
contains every fragment of ``says`` (the item and the field for exit 1; the time, the cause
and the advice for exit 3, ``stopped at t = …; try: …``): never a traceback, an internal
error, a Python warning, a raw control character, a hang or more than 500 MB.

In ``argv``, ``{models}`` is this folder's ``models/``, ``{examples}`` the repository's
``examples/``, ``{tmp}`` a scratch folder (with a named pipe ``fifo``, a symbolic-link loop
``loop``, a sparse 65 MiB ``big.json`` and a copy of the pendulum ``model.json``) and ``{out}`` a path prefix of the case's own. ``run`` cases get
``--csv {out}.csv --summary {out}.json`` unless they give outputs themselves.

Add a case for every new defect: a model file under ``models/`` and a line here.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_SOLVER = 0, 1, 2, 3


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    exit: int
    says: tuple[str, ...] = ()
    #: a warning line (``warning: …``) that must be printed
    warns: str = ""


def _model(file: str, exit: int, *says: str, command: str = "check", warns: str = "") -> Case:
    argv = (command, f"{{models}}/{file}")
    return Case(f"{command}-{file.removesuffix('.json')}", argv, exit, says, warns)


def _check_and_run(file: str, *says: str) -> list[Case]:
    """An invalid file: ``check`` and ``run`` both refuse it with the same line."""
    return [_model(file, EXIT_INVALID, *says), _model(file, EXIT_INVALID, *says, command="run")]


def _fails(file: str, *says: str) -> Case:
    """A run that stops with a solver failure (exit 3)."""
    return _model(file, EXIT_SOLVER, "stopped at t = ", "; try: ", *says, command="run")


TRY_SMALLER = "a smaller t_end or a larger dt"

MODEL_CASES: list[Case] = [
    # ---- the file itself
    *_check_and_run("not_json.json", "not_json.json: is not valid JSON", "line 1"),
    _model("empty.json", EXIT_INVALID, "empty.json: is not valid JSON"),
    _model("nan_literal.json", EXIT_INVALID, "NaN is not allowed"),
    _model("infinity_literal.json", EXIT_INVALID, "-Infinity is not allowed"),
    _model("nested_100k.json", EXIT_INVALID, "nested too deeply"),
    _model("digits_5000.json", EXIT_INVALID, "digits_5000.json: has a number of more than 4300"),
    _model("not_utf8.json", EXIT_INVALID, "is not UTF-8 text (byte"),
    _model("utf16.json", EXIT_INVALID, "is not UTF-8 text"),
    _model("top_level_list.json", EXIT_INVALID, "must hold a JSON object"),
    *_check_and_run("duplicate_top_key.json", "model: name is given twice"),
    *_check_and_run("duplicate_body_key.json", 'bodies[0] "bob": mass is given twice'),
    _model("duplicate_solver_key.json", EXIT_INVALID, "solver: dt is given twice"),
    _model(
        "duplicate_section_key.json", EXIT_INVALID, 'bodies[0] "beam": material.E is given twice'
    ),
    # ---- numbers: too large, overflowing, subnormal, huge integer literals
    *_check_and_run("huge_integer_mass.json", 'bodies[0] "bob": mass is too large', "digits"),
    _model("huge_integer_version.json", EXIT_INVALID, "newer Biela", "digits"),
    _model(
        "huge_integer_elements.json", EXIT_INVALID, 'bodies[0] "beam": elements must be at most'
    ),
    _model("elements_1e6.json", EXIT_INVALID, 'bodies[0] "beam": elements must be at most 10000'),
    *_check_and_run("max_iterations_1e30.json", "solver: max_iterations must be at most"),
    _model("max_iterations_huge_int.json", EXIT_INVALID, "solver: max_iterations must be at most"),
    *_check_and_run("inertia_1e308.json", 'bodies[0] "bar": inertia[0] is too large'),
    _model(
        "inertia_tensor_1e300.json", EXIT_INVALID, 'bodies[0] "bar": inertia[0][0] is too large'
    ),
    *_check_and_run("inertia_subnormal.json", 'bodies[0] "bar": inertia has a principal moment'),
    *_check_and_run("axis_1e300.json", 'joints[0] "R": axis[1] is too large'),
    *_check_and_run("length_1e308.json", 'joints[0] "bar": length is too large'),
    *_check_and_run("mass_subnormal.json", 'bodies[0] "bob": mass is too small'),
    _model("mass_1e-310.json", EXIT_INVALID, 'bodies[0] "bob": mass is too small'),
    _model("position_1e300.json", EXIT_INVALID, 'bodies[0] "bob": position[0] is too large'),
    _model("velocity_-1e31.json", EXIT_INVALID, 'bodies[0] "bob": velocity[1] is too large'),
    _model("gravity_1e40.json", EXIT_INVALID, "model: gravity[1] is too large"),
    _model("dt_subnormal.json", EXIT_INVALID, "solver: dt is too small"),
    *_check_and_run("t_end_1e300.json", "solver: t_end (1e+300 s) / dt (0.001 s)", TRY_SMALLER),
    _model("t_end_1e7_dt_1e-3.json", EXIT_INVALID, "1e+10 time steps", TRY_SMALLER, command="run"),
    _model("tolerance_1e-300.json", EXIT_INVALID, "solver: tolerance is too small"),
    _model("spring_stiffness_1e308.json", EXIT_INVALID, 'forces[0] "S1": stiffness is too large'),
    _model("polynomial_1e300.json", EXIT_INVALID, 'drivers[0] "beta": function.polynomial[1] is'),
    _model("table_time_1e300.json", EXIT_INVALID, 'drivers[0] "beta": function.table[1][0] is'),
    _model("expression_literal_1e400.json", EXIT_INVALID, '"1e400" is too large'),
    _model("density_tiny.json", EXIT_INVALID, 'bodies[0] "bar": density is too small'),
    # ---- text: unpaired surrogates, control and format characters (always shown escaped)
    *_check_and_run("surrogate_in_name.json", 'bodies[0] "bob\\ud800": name contains an unpaired'),
    _model("surrogate_in_model_name.json", EXIT_INVALID, "model: name contains an unpaired"),
    _model("surrogate_in_description.json", EXIT_INVALID, "model: description contains an"),
    _model("surrogate_in_expression.json", EXIT_INVALID, 'drivers[0] "beta": function'),
    *_check_and_run("escape_in_name.json", 'bodies[0] "bob\\x1b[31mRED', 'not contain "\\x1b"'),
    _model("escape_clear_screen_in_joint_ref.json", EXIT_INVALID, 'body2 "\\x1b[2J\\x1b[H" does'),
    _model("bidi_override_in_name.json", EXIT_INVALID, 'must not contain "\\u202e"'),
    _model("del_in_name.json", EXIT_INVALID, 'must not contain "\\x7f"'),
    _model("c1_csi_in_name.json", EXIT_INVALID, 'must not contain "\\x9b"'),
    _model("zero_width_in_name.json", EXIT_INVALID, 'must not contain "\\u200b"'),
    _model("newline_in_name.json", EXIT_INVALID, 'must not contain "\\n"'),
    _model("escape_in_unknown_field.json", EXIT_INVALID, 'unknown field "ma\\x1b[31mss"'),
    _model("escape_in_model_name.json", EXIT_OK),  # valid: its name is printed escaped
    _model("escape_in_model_name.json", EXIT_OK, command="run"),
    # ---- expressions: ASCII digits only
    _model("arabic_indic_digit.json", EXIT_INVALID, 'drivers[0] "beta": function', "ASCII digit"),
    _model("fullwidth_digit.json", EXIT_INVALID, "not an ASCII digit"),
    _model("superscript_digit.json", EXIT_INVALID, "not an ASCII digit"),
    _model("devanagari_digit.json", EXIT_INVALID, "not an ASCII digit"),
    # ---- drivers whose function fails: named, with the time; results up to it written
    _fails("driver_sqrt_reaches_zero.json", 'drivers[0] "beta": ', '"sqrt(0.02-t)"', "0.02 s"),
    _fails("driver_overflows.json", 'drivers[0] "beta": the first derivative of function'),
    _fails("driver_sqrt_t_kinematic.json", 'drivers[0] "beta": the first derivative', '"sqrt(t)"'),
    _model("driver_sqrt_t_kinematic.json", EXIT_INVALID, 'drivers[0] "beta"', '"sqrt(t)"'),
    _fails("driver_log_dynamic.json", 'drivers[0] "motor": ', '"2*pi*t + 0*log(0.02-t)"'),
    _fails("driver_polynomial_overflow.json", 'drivers[0] "beta": the second derivative'),
    # ---- forces and torques whose function fails
    _fails("force_one_over_t.json", 'forces[0] "push": vector[0] "1/t" is inf at t = 0 s'),
    _fails("force_power_tower.json", 'forces[0] "push": vector[0] "10**10**10" is inf'),
    _fails("force_sqrt_negative.json", 'forces[0] "push": vector[1] "sqrt(-1)" is NaN'),
    _fails(
        "force_nan_later.json", 'forces[0] "push": vector[1] "log(0.02-t)" is -inf at t = 0.02 s'
    ),
    _fails("torque_inf_later.json", 'forces[0] "push": vector[2] "1/max(0.02-t, 0)" is inf'),
    _fails("actuator_nan.json", 'forces[0] "S1": actuator "acos(1+t)" is NaN'),
    _fails(
        "joint_torque_overflow.json",
        'forces[0] "motor": function "1e31*min(1, 1e30*max(t-0.0105, 0))" is 1e+31 at t = 0.011 s',
    ),
    # ---- orientation sets at their singularity: the body, the time, the set to use
    _fails("gibbs_at_pi.json", 'body "disc"', "gibbs", '"euler_parameters"'),
    _fails("rodrigues_at_pi.json", 'body "disc"', "rodrigues", '"euler_parameters"'),
    _fails("euler_zxz_at_identity.json", 'body "disc"', "euler_zxz", '"euler_parameters"'),
    _fails("gibbs_passes_pi.json", 'body "disc"', "gibbs", '"euler_parameters"'),
    # ---- legal but surely unintended: a warning
    _model("ball_10m_inside_plane.json", EXIT_OK, warns='forces[0] "floor": the sphere starts'),
    _model(
        "ball_10m_inside_plane.json",
        EXIT_OK,
        command="run",
        warns="with its centre 10 m behind the plane",
    ),
    _model("spheres_overlapping.json", EXIT_OK, warns="0.05 m into the other sphere"),
    # ---- solver settings
    *_check_and_run("dt_larger_than_t_end.json", "solver: dt (1 s) is larger than t_end"),
    _model("output_dt_below_dt.json", EXIT_INVALID, "solver: output_dt (1e-06 s) is smaller"),
    _model("coordinates_polar.json", EXIT_INVALID, 'solver: coordinates "polar" is not one of'),
    _model("parameters_not_object.json", EXIT_INVALID, "solver: parameters must be an object"),
    # ---- NumPy/SciPy warnings stay off the terminal (a pendulum has no static equilibrium
    # to start from horizontally: the solver says so, once)
    _fails("static_rigid_pendulum.json", "no static equilibrium found"),
]

PENDULUM = "{examples}/pendulum.json"
MODEL = "{tmp}/model.json"  # a copy of the pendulum (outputs next to it may overwrite it)


def _run(*options: str) -> tuple[str, ...]:
    return ("run", PENDULUM, *options)


COMMAND_CASES: list[Case] = [
    # ---- paths that are not model files
    Case("dev-zero", ("check", "/dev/zero"), EXIT_INVALID, ("/dev/zero: is a character device",)),
    Case("dev-urandom", ("run", "/dev/urandom"), EXIT_INVALID, ("/dev/urandom: is a character",)),
    Case("named-pipe", ("check", "{tmp}/fifo"), EXIT_INVALID, ("fifo: is a named pipe",)),
    Case("symlink-loop", ("check", "{tmp}/loop"), EXIT_INVALID, ("loop: cannot be read",)),
    Case("folder", ("check", "{tmp}"), EXIT_INVALID, ("is a folder, not a model file",)),
    Case("missing", ("check", "{tmp}/nope.json"), EXIT_INVALID, ("nope.json: does not exist",)),
    Case("over-64-MiB", ("check", "{tmp}/big.json"), EXIT_INVALID, ("big.json: is 68 MB",)),
    Case(
        "escape-in-path",
        ("check", "{tmp}/\x1b[2Jgone.json"),
        EXIT_INVALID,
        ("\\x1b[2Jgone.json: does not exist",),
    ),
    # ---- option values go through the model file's rules
    Case(
        "dt-above-t-end",
        _run("--dt", "1", "--t-end", "0.1"),
        EXIT_INVALID,
        ("command line: --dt (1 s) is larger than --t-end (0.1 s)",),
    ),  # fmt: skip
    Case(
        "output-dt-below-dt",
        _run("--output-dt", "1e-6", "--dt", "1e-3"),
        EXIT_INVALID,
        ("command line: --output-dt (1e-06 s) is smaller than --dt (0.001 s)",),
    ),  # fmt: skip
    Case(
        "output-dt-below-file-dt",
        _run("--output-dt", "1e-6"),
        EXIT_INVALID,
        ("command line: --output-dt (1e-06 s) is smaller than dt (0.001 s)",),
    ),  # fmt: skip
    Case(
        "t-end-below-file-dt",
        _run("--t-end", "1e-4"),
        EXIT_INVALID,
        ("solver: dt (0.001 s) is larger than --t-end (0.0001 s)",),
    ),  # fmt: skip
    Case("dt-zero", _run("--dt", "0"), EXIT_INVALID, ("command line: --dt must be positive",)),
    Case("dt-negative", _run("--dt", "-1"), EXIT_INVALID, ("--dt must be positive (got -1)",)),
    Case("dt-overflow", _run("--dt", "1e400"), EXIT_INVALID, ("--dt must be a finite number",)),
    Case("dt-subnormal", _run("--dt", "1e-320"), EXIT_INVALID, ("--dt is too small",)),
    Case(
        "t-end-1e300",
        _run("--t-end", "1e300"),
        EXIT_INVALID,
        ("command line: --t-end (1e+300 s) / dt (0.001 s)", "at most 1e+09"),
    ),  # fmt: skip
    Case(
        "steps-1e10",
        _run("--t-end", "1e4", "--dt", "1e-6"),
        EXIT_INVALID,
        ("--t-end (10000 s) / --dt (1e-06 s) is 1e+10 time steps",),
    ),  # fmt: skip
    Case("tolerance-zero", _run("--tolerance", "0"), EXIT_INVALID, ("--tolerance must be",)),
    Case("dt-nan", _run("--dt", "nan"), EXIT_USAGE, ("argument --dt", "not a decimal number")),
    Case("dt-inf", _run("--dt", "inf"), EXIT_USAGE, ("not a decimal number",)),
    Case("dt-arabic-digit", _run("--dt", "\u0661"), EXIT_USAGE, ("not a decimal number",)),
    Case("dt-underscore", _run("--dt", "1_0"), EXIT_USAGE, ("not a decimal number",)),
    Case("dt-spaces", _run("--dt", " 1"), EXIT_USAGE, ("not a decimal number",)),
    Case("bad-analysis", _run("--analysis", "polar"), EXIT_USAGE, ("invalid choice",)),
    Case("run-without-model", ("run",), EXIT_USAGE, ("required: MODEL",)),
    Case("check-two-models", ("check", PENDULUM, PENDULUM), EXIT_USAGE, ("unrecognized",)),
    # ---- outputs: checked before the run (t_end 1000 s would take minutes)
    Case(
        "csv-is-the-model",
        ("run", MODEL, "--csv", MODEL),
        EXIT_USAGE,
        ("--csv", "is the model file; the results would overwrite the model"),
    ),  # fmt: skip
    Case(
        "summary-is-the-model",
        ("run", MODEL, "--summary", MODEL),
        EXIT_USAGE,
        ("--summary", "is the model file"),
    ),  # fmt: skip
    Case(
        "csv-is-the-summary",
        _run("--csv", "{out}.x", "--summary", "{out}.x"),
        EXIT_USAGE,
        ("--csv and --summary name the same file",),
    ),  # fmt: skip
    Case(
        "csv-in-missing-folder",
        _run("--t-end", "1000", "--csv", "{tmp}/no/such/out.csv"),
        EXIT_USAGE,
        ("cannot write results: No such file or directory",),
    ),  # fmt: skip
    Case(
        "csv-is-a-folder",
        _run("--t-end", "1000", "--csv", "{tmp}"),
        EXIT_USAGE,
        ("cannot write results: Is a directory",),
    ),  # fmt: skip
    Case(
        "csv-disk-full",
        _run("--t-end", "1000", "--csv", "/dev/full"),
        EXIT_USAGE,
        ("cannot write results: No space left on device: /dev/full",),
    ),  # fmt: skip
    Case(
        "summary-in-missing-folder",
        _run("--t-end", "1000", "--summary", "{tmp}/no/s.json"),
        EXIT_USAGE,
        ("cannot write results",),
    ),  # fmt: skip
    # ---- the orientation set chosen on the command line, singular at the start
    Case(
        "rodrigues-option-at-pi",
        ("run", "{models}/gibbs_at_pi.json", "--orientation", "rodrigues"),
        EXIT_SOLVER,
        ('body "disc"', "rodrigues", "--orientation euler_parameters"),
    ),  # fmt: skip
]

CASES: list[Case] = MODEL_CASES + COMMAND_CASES
