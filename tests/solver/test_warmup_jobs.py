"""The warm-up in two processes: the system's entries are shared out between them, the
second compiles its parts meanwhile, its progress reaches the caller, and its failure is
an error, not a silent cold cache."""

from __future__ import annotations

import pytest

import solver.analysis.warmup as warmup
from solver.kernels import jit
from tests.solver.test_no_qt_import import imported_after

pytestmark = pytest.mark.skipif(not jit.ENABLED, reason="plain Python compiles nothing")


def test_a_second_process_compiles_its_parts_and_reports_them():
    lines = []
    warmup.warm(lines.append, force=True, parts=["natural", "lagrange_baumgarte"], jobs=2)
    assert any("natural coordinates" in line for line in lines)
    assert any("(lagrange_baumgarte)" in line for line in lines)  # from the second process
    # each process began with its share of the system's entries
    assert any(warmup.FAMILIES["forces"] in line for line in lines)
    assert any(warmup.FAMILIES["constraints"] in line for line in lines)
    assert warmup.is_compiled(["natural", "lagrange_baumgarte"])


def test_one_part_still_shares_the_system_entries_out():
    lines = []
    warmup.warm(lines.append, force=True, parts=["natural"], jobs=2)
    assert any(warmup.FAMILIES["forces"] in line for line in lines)
    assert any(warmup.FAMILIES["constraints"] in line for line in lines)  # the second process
    assert any("natural coordinates" in line for line in lines)


def test_one_job_runs_everything_here(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("no second process with jobs=1")

    monkeypatch.setattr(warmup, "_SecondJob", refuse)
    lines = []
    warmup.warm(lines.append, force=True, parts=["natural", "penalty"], jobs=1)
    assert len(lines) == 2


def test_a_failing_second_process_is_an_error(monkeypatch):
    monkeypatch.setattr(warmup.sys, "executable", "/bin/false")
    with pytest.raises(RuntimeError, match=r"compiling null_space failed \(exit 1\)"):
        warmup.warm(None, force=True, parts=["natural", "null_space"], jobs=2)


_FAMILIES = """
import json
from solver.analysis import warmup
from solver.kernels import system as ks
entries = {"forces": ks.force_evaluation, "constraints": ks.constraint_evaluation,
           "second_order": ks.second_order_evaluation, "mass": ks.mass_evaluation,
           "state": ks.state_evaluation}
warmup.compile_families(FIRST)
first = {name: len(f.signatures) for name, f in entries.items()}
warmup.compile_families(list(warmup.FAMILIES))
from solver.analysis.simulate import simulate
from solver.model import model_from_data
done = {name: len(f.signatures) for name, f in entries.items()}
result = simulate(model_from_data(warmup.warm_model_data()), formulation="null_space",
                  dt=1e-3, t_end=0.002)
after = {name: len(f.signatures) for name, f in entries.items()}
print(json.dumps({"first": first, "done": done, "after": after, "status": result.status}))
"""


def test_the_families_are_the_entries_a_run_calls_and_nothing_more():
    """Compiling a family compiles its entry only, with the signature that the runs use:
    a run after all of them compiles none of them again (else the two processes would
    share nothing out)."""
    got = imported_after(_FAMILIES.replace("FIRST", '["mass", "constraints"]'))
    assert got["first"] == {"forces": 0, "constraints": 1, "second_order": 0, "mass": 1,
                            "state": 0}  # fmt: skip
    assert set(got["done"].values()) == {1}
    assert got["after"] == got["done"]
    assert got["status"] == "ok"


def test_an_unknown_family_is_refused():
    with pytest.raises(ValueError, match="unknown family of system entries 'inertia'"):
        warmup.compile_families(["inertia"])


def test_a_failure_here_releases_the_second_process(monkeypatch):
    """The second process waits for this one's families: if they fail, it is released
    (its standard input closed), ends its parts, and the failure is this one's."""

    def broken(families):
        raise RuntimeError("broken here")

    monkeypatch.setattr(warmup, "compile_families", broken)
    lines = []
    with pytest.raises(RuntimeError, match="broken here"):
        warmup.warm(lines.append, force=True, parts=["natural", "null_space"], jobs=2)
    assert any("(null_space)" in line for line in lines)  # the second process went on
