"""Public API additions for the workbench: picklable models, the formulations' parameter lists,
``AssemblyError`` from ``solver``, early refusal of what cannot run, wall time without pauses."""

from __future__ import annotations

import copy
import json
import math
import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import solver
from solver import load_model, simulate
from solver.analysis.formulations import REGISTRY, formulation_class
from solver.kernels import jit
from solver.model.errors import ModelError, UnsupportedFeature

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))

#: A point mass on a distance joint whose driver, force and table use every function kind.
FUNCTIONS_MODEL = {
    "biela": 1,
    "name": "functions",
    "gravity": [0, 0, -9.81],
    "bodies": [
        {
            "name": "bob",
            "type": "point_mass",
            "mass": 1.0,
            "position": [1, 0, 0],
        }
    ],
    "joints": [
        {
            "name": "bar",
            "type": "distance",
            "body1": "ground",
            "body2": "bob",
            "point1": [0, 0, 0],
            "point2": [1, 0, 0],
        }
    ],
    "forces": [
        {
            "name": "push",
            "type": "force",
            "body": "bob",
            "point": [1, 0, 0],
            "vector": [
                {"polynomial": [0.5, 0, 1]},
                {"expression": "2*sin(3*t) + t**2"},
                {"table": [[0, 0], [0.5, 1], [1, 0]]},
            ],
        },
    ],
}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_model_pickles_and_deep_copies_exactly(path):
    model = load_model(path)
    again = pickle.loads(pickle.dumps(model))
    assert again == model
    assert copy.deepcopy(model) == model


def test_expressions_and_tables_survive_pickling_with_the_same_values(tmp_path):
    file = tmp_path / "functions.json"
    file.write_text(json.dumps(FUNCTIONS_MODEL))
    model = load_model(file)
    again = pickle.loads(pickle.dumps(model))
    assert again == model
    for original, copied in zip(model.forces[0].vector, again.forces[0].vector, strict=True):
        for t in (0.0, 0.3, 0.77):
            assert copied.derivatives(t) == original.derivatives(t)
    expression = again.forces[0].vector[1]
    assert expression(0.5) == pytest.approx(2 * math.sin(1.5) + 0.25, abs=1e-15)
    # the same run from the original and from the copy
    a = simulate(model, dt=1e-3, t_end=0.05, formulation="augmented_lagrangian")
    b = simulate(again, dt=1e-3, t_end=0.05, formulation="augmented_lagrangian")
    assert (a.data == b.data).all()


def test_formulation_parameters_cover_exactly_what_each_formulation_reads():
    """The public list and the classes' own defaults agree key by key (no drift)."""
    from solver.analysis.formulations.central_differences_family import (
        CentralDifferencesFamily,
    )

    for name in REGISTRY:
        params = solver.formulation_parameters(name)
        listed = {p.name: p.default for p in params}
        assert len(listed) == len(params), f"{name}: a parameter is listed twice"
        own = dict(formulation_class(name).defaults)
        if name == "central_differences":  # the family scheme reads more keys
            family = dict(CentralDifferencesFamily.defaults)
            family.pop("variant")  # "standard" unless given: CentralDifferences.__new__
            own.update(family)
            assert listed.pop("variant") == "standard"
        assert listed == own, name
        for p in params:
            assert p.description and p.kind in ("float", "choice"), (name, p.name)
            if p.kind == "choice":
                assert p.default in p.choices, (name, p.name)


def test_formulation_parameter_choices_are_accepted_by_the_solver():
    model = load_model(ROOT / "examples" / "pendulum.json")
    for name in REGISTRY:
        for p in solver.formulation_parameters(name):
            for choice in p.choices:
                if name == "central_differences" and p.name == "variant":
                    continue  # the variants have their own validation tests
                settings = {p.name: choice}
                sim = simulate(
                    model, formulation=name, dt=1e-3, t_end=2e-3, parameters=settings, stream=True
                )
                list(sim)
                assert sim.result.status == "ok", (name, p.name, choice, sim.result.message)


def test_unknown_formulation_parameters_name_raises_a_clear_error():
    with pytest.raises(UnsupportedFeature, match="nope"):
        solver.formulation_parameters("nope")


def test_assembly_error_is_exported_and_raised_by_check(tmp_path):
    assert (
        solver.AssemblyError
        is __import__("solver.analysis.kinematics", fromlist=["AssemblyError"]).AssemblyError
    )
    bad = copy.deepcopy(FUNCTIONS_MODEL)
    bad["forces"] = []
    # two distance joints that cannot both hold: 1 m and 3 m from the origin
    bad["joints"].append(
        {
            "name": "far",
            "type": "distance",
            "body1": "ground",
            "body2": "bob",
            "point1": [0, 0, 0],
            "point2": [1, 0, 0],
            "length": 3.0,
        }
    )
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(bad))
    with pytest.raises(solver.AssemblyError) as info:
        solver.check(load_model(file))
    assert info.value.residual > 0.5
    assert any("far" in item or "bar" in item for item in info.value.items)


def test_unavailable_formulation_is_refused_when_the_simulation_is_created(monkeypatch):
    from solver.analysis import formulations

    model = load_model(ROOT / "examples" / "pendulum.json")
    monkeypatch.setitem(
        formulations.REGISTRY, "penalty", ("solver.analysis.formulations.absent", "Absent")
    )
    with pytest.raises(UnsupportedFeature, match="penalty"):
        simulate(model, formulation="penalty", stream=True)
    with pytest.raises(UnsupportedFeature, match="penalty"):
        simulate(model, formulation="penalty")
    with pytest.raises(ModelError, match='formulation "no_such_formulation" is not one of'):
        simulate(model, formulation="no_such_formulation", stream=True)
    with pytest.raises(UnsupportedFeature, match="orientation"):
        simulate(model, formulation="null_space", orientation="rodrigues", stream=True)


def test_wall_time_excludes_the_time_the_consumer_holds_frames():
    model = load_model(ROOT / "examples" / "pendulum.json")
    sim = simulate(model, formulation="penalty", dt=1e-3, t_end=0.02, stream=True)
    start = time.perf_counter()
    pause = 0.4
    for i, _frame in enumerate(sim):
        if i == 1:
            time.sleep(pause)  # a paused consumer
    total = time.perf_counter() - start
    wall = sim.result.summary["wall_time_s"]
    assert wall == sim.wall_time
    assert 0 < wall <= total - pause + 1e-3
    # a consumer that stops early: the time after its last frame is not counted either
    sim = simulate(model, formulation="penalty", dt=1e-3, t_end=1.0, stream=True)
    frames = iter(sim)
    start = time.perf_counter()
    next(frames)
    first = time.perf_counter() - start
    time.sleep(pause)
    frames.close()
    assert 0 < sim.wall_time <= first


#: two runs of the pendulum in one process: per run, the time from the call to the end of
#: the frames, and the summary's wall and loading times
_TWO_RUNS = textwrap.dedent(
    """
    import json, sys, time
    from solver import load_model, simulate
    model = load_model(sys.argv[1])
    out = []
    for _ in range(2):
        start = time.perf_counter()
        sim = simulate(model, t_end=0.05, stream=True)
        for _frame in sim:
            pass
        s = sim.result.summary
        out.append((time.perf_counter() - start, s["wall_time_s"], s["load_time_s"]))
    print(json.dumps(out))
    """
)


@pytest.mark.skipif(not jit.ENABLED, reason="nothing is compiled")
def test_loading_the_compiled_code_is_start_up_not_the_runs_time():
    """The first run of a process loads the kernels it calls from the cache
    (``load_time_s``), which its ``wall_time_s`` leaves out; the next run loads nothing."""
    pendulum = ROOT / "examples" / "pendulum.json"
    for _ in range(2):  # (a first process may compile what the cache lacks, not load it)
        done = subprocess.run(
            [sys.executable, "-c", _TWO_RUNS, str(pendulum)],
            capture_output=True, text=True, timeout=600, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        (total0, wall0, load0), (total1, wall1, load1) = json.loads(done.stdout.splitlines()[-1])
        if load0 > 0:
            break
    assert load0 > 0 and load1 == 0
    assert wall0 > 0 and wall0 + load0 <= total0
    assert 0 < wall1 <= total1


def test_wall_time_leaves_out_the_loading_of_kernels(monkeypatch):
    """Loading met while the run computes (here a stand-in of 0.3 s, during the first frame's
    recording) counts in ``load_time_s`` and not in ``wall_time_s``."""
    import solver.analysis.simulate as simulation
    from solver.results import Result

    loaded = [0.0]
    monkeypatch.setattr(simulation, "load_seconds", lambda: loaded[0])
    append = Result.append

    def loading_append(self, *args, **kwargs):
        if not loaded[0]:
            time.sleep(0.3)
            loaded[0] = 0.3
        return append(self, *args, **kwargs)

    monkeypatch.setattr(Result, "append", loading_append)
    model = load_model(ROOT / "examples" / "pendulum.json")
    sim = simulate(model, t_end=0.02, stream=True)
    start = time.perf_counter()  # (the set-up done)
    for _frame in sim:
        pass
    total = time.perf_counter() - start
    s = sim.result.summary
    assert s["load_time_s"] == pytest.approx(0.3)
    assert 0 < s["wall_time_s"] <= total - 0.3
