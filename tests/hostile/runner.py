"""Runs corpus cases one after another in this process, as ``biela`` would (the console
script's ``main``): ``python -m tests.hostile.runner CASES.json RESULTS.json``.

``CASES.json`` is a list of ``{"id", "argv", "timeout"}``; each case's stdout and stderr are
captured at the file-descriptor level (so output of compiled libraries is caught too) and
it is stopped by an alarm after ``timeout`` seconds. ``RESULTS.json`` gets, per case,
``{"id", "exit", "stdout", "stderr", "seconds", "timed_out", "peak_kB"}`` (the process's
peak resident memory so far, ``peak_kb``), written after every case (a crash leaves the
results so far).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import tempfile
import time


class CaseTimeout(BaseException):
    """A case ran past its time limit (a ``BaseException``: no ``except Exception`` of the
    code under test may swallow it)."""


def _alarm(signum, frame):
    raise CaseTimeout


def run_case(argv: list[str], timeout: float) -> dict:
    from app.launcher import main

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        timed_out = False
        start = time.perf_counter()
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except CaseTimeout:
            code, timed_out = None, True
        except BaseException as exc:  # noqa: BLE001 - reported, not hidden
            code = f"raised {type(exc).__name__}: {exc}"
        finally:
            seconds = time.perf_counter() - start
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        out.seek(0)
        err.seek(0)
        return {
            "exit": code,
            "stdout": out.read().decode("utf-8", "backslashreplace"),
            "stderr": err.read().decode("utf-8", "backslashreplace"),
            "seconds": seconds,
            "timed_out": timed_out,
        }


def peak_kb() -> int:
    """This process's peak resident memory so far (kB): ``VmHWM``, which counts from the
    ``exec`` of this program (``ru_maxrss`` would include the parent's memory that the
    child held between ``fork`` and ``exec``)."""
    with open("/proc/self/status") as fh:
        return int(re.search(r"VmHWM:\s+(\d+) kB", fh.read()).group(1))


def main(cases_path: str, results_path: str) -> None:
    with open(cases_path, encoding="utf-8") as fh:
        cases = json.load(fh)
    results = []
    for case in cases:
        result = {"id": case["id"], **run_case(case["argv"], case["timeout"])}
        result["peak_kB"] = peak_kb()
        results.append(result)
        with open(results_path, "w", encoding="utf-8") as fh:
            json.dump(results, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
