"""Every case of the hostile corpus (``cases.py``) through the command line.

All cases run in one child process (``runner.py``: ``biela``'s entry point called case after
case), with a time limit per case, a limit on the whole, and an address-space limit so a
regression that reads without end cannot take the machine's memory. The child's peak
resident memory (its ``VmHWM``: ``ru_maxrss`` would count the test process's memory the
child held between ``fork`` and ``exec``) must stay under 500 MB; each case must give its exit code and one message
line naming what the case is about, and never a traceback, an internal error, a Python
warning or a raw control character.
"""

from __future__ import annotations

import csv
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.cases import CASES, EXIT_SOLVER, EXIT_USAGE, Case

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CASE_TIMEOUT = 60.0  # s, one case
MEMORY_LIMIT = 500e6  # bytes of resident memory, the whole corpus
ADDRESS_SPACE = 3 << 30  # bytes: a runaway read fails here instead of exhausting the machine
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
PROGRESS = "biela: step "


def _scratch(tmp: Path) -> None:
    """The special paths of ``{tmp}``."""
    os.mkfifo(tmp / "fifo")
    (tmp / "loop").symlink_to(tmp / "loop2")
    (tmp / "loop2").symlink_to(tmp / "loop")
    with open(tmp / "big.json", "wb") as fh:  # sparse: 65 MiB claimed, nothing on disk
        fh.truncate(65 * 2**20)
    shutil.copy(ROOT / "examples" / "pendulum.json", tmp / "model.json")


def _argv(case: Case, tmp: Path) -> list[str]:
    out = str(tmp / "out" / case.id)
    argv = [
        a.format(models=HERE / "models", examples=ROOT / "examples", tmp=tmp, out=out)
        for a in case.argv
    ]
    if argv[:1] == ["run"] and not {"--csv", "--summary"} & set(argv):
        argv += ["--csv", f"{out}.csv", "--summary", f"{out}.json"]
    return argv


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """``(results by case id, peak resident bytes, scratch folder)`` of one child run."""
    tmp = tmp_path_factory.mktemp("hostile")
    (tmp / "out").mkdir()
    _scratch(tmp)
    cases = [{"id": c.id, "argv": _argv(c, tmp), "timeout": CASE_TIMEOUT} for c in CASES]
    (tmp / "cases.json").write_text(json.dumps(cases))
    results_path = tmp / "results.json"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "COLUMNS": "100"}
    env.pop("BIELA_DEBUG", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.hostile.runner", str(tmp / "cases.json"), str(results_path)],
        cwd=ROOT,
        env=env,
        preexec_fn=_limit_memory,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + CASE_TIMEOUT * 4 + 5 * len(cases)
    while True:
        pid, status = os.waitpid(child.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            child.kill()
            os.waitpid(child.pid, 0)
            pytest.fail("the corpus did not finish in time")
        time.sleep(0.2)
    child.returncode = os.waitstatus_to_exitcode(status)
    crash = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    results = json.loads(results_path.read_text()) if results_path.exists() else []
    assert child.returncode == 0, f"the runner stopped: {crash[-2000:]}"
    peak = max(r["peak_kB"] for r in results) * 1024  # the runner's own VmHWM
    return {r["id"]: r for r in results}, peak, tmp


@pytest.mark.timeout(1200)  # the whole corpus runs in this test's set-up
def test_the_corpus_stays_under_500_MB(corpus):
    results, peak, _ = corpus
    assert len(results) == len(CASES)
    steps, before = [], 0
    for r in results.values():  # where the peak rose (cases run in order)
        if r["peak_kB"] - before > 10_000:
            steps.append(f"{r['id']}: {r['peak_kB'] / 1024:.0f} MiB")
        before = r["peak_kB"]
    assert peak < MEMORY_LIMIT, f"peak resident memory {peak / 1e6:.0f} MB ({'; '.join(steps)})"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case, corpus):
    results, _, tmp = corpus
    r = results[case.id]
    assert not r["timed_out"], f"{case.id} ran more than {CASE_TIMEOUT} s"
    err, out = r["stderr"], r["stdout"]
    assert r["exit"] == case.exit, f"exit {r['exit']}, expected {case.exit}: {err}"
    for text in (err, out):
        assert "Traceback" not in text and "internal error" not in text, text
        assert not CONTROL.search(text), f"raw control character in {text!r}"
        assert not re.search(r"\w+Warning: ", text), f"a Python warning leaked: {text}"
    lines = [ln for ln in err.splitlines() if not ln.startswith(PROGRESS)]
    warnings = [ln for ln in lines if ln.startswith("warning: ")]
    messages = [ln for ln in lines if not ln.startswith("warning: ")]
    if case.warns:
        assert any(case.warns in w for w in warnings), err
    if case.exit == EXIT_SOLVER:  # the failure line, then how many frames were kept
        assert len(messages) == 2 and messages[1].endswith("up to the failure were kept"), err
        _assert_results_written(case, tmp, messages[0])
    elif case.exit == EXIT_USAGE and err.startswith("usage: "):
        assert messages[-1].startswith("biela"), err  # argparse: the usage, then the error
    elif case.exit != 0:
        assert len(messages) == 1, f"expected one line: {err}"
    else:
        assert not messages, err
    for fragment in case.says:
        assert fragment in (messages[0] if case.exit == EXIT_SOLVER else err), (fragment, err)


def _assert_results_written(case: Case, tmp: Path, message: str) -> None:
    """A failed run keeps its CSV rows up to the failure and a summary that says so."""
    out = tmp / "out" / case.id
    summary = json.loads(Path(f"{out}.json").read_text())
    assert summary["status"] == "failed"
    assert summary["message"] in message
    with open(f"{out}.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "t"
    assert len(rows) - 1 == summary["frames"]
    t_fail = float(re.search(r"stopped at t = (\S+) s", message).group(1))
    assert all(float(r[0]) <= t_fail + 1e-12 for r in rows[1:])
