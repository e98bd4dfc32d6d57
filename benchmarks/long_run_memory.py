"""Peak memory of a long ``biela run`` with an output row at every step.

    python -m benchmarks.long_run_memory [--steps 1000000] [--against REV] [--keep-csv]

Runs ``biela run examples/pendulum.json --t-end N·dt --output-dt dt --csv OUT`` (the IFToMM
A01 pendulum, Δt = 1 ms, compiled central differences) in a child process and reports its
peak resident memory (``ru_maxrss`` of ``wait4``, what ``/usr/bin/time -v`` shows as
"Maximum resident set size"), wall time and CSV size. The run streams its rows to the CSV,
so the peak should not depend on N; ``--against REV`` runs the same command with the
``solver`` package of an earlier commit (``git archive`` into a temporary folder, put first
on ``PYTHONPATH``) for comparison.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = ROOT / "examples" / "pendulum.json"


def measure(steps: int, folder: Path, pythonpath: str | None = None) -> dict:
    csv = folder / "out.csv"
    cmd = [sys.executable, "-m", "solver.cli", "run", str(PENDULUM)]
    cmd += ["--t-end", f"{steps * 1e-3:.12g}", "--output-dt", "0.001", "--csv", str(csv), "-q"]
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=folder, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    return {
        "exit": os.waitstatus_to_exitcode(status),
        "peak_MiB": usage.ru_maxrss / 1024,
        "wall_s": time.perf_counter() - start,
        "csv_MB": csv.stat().st_size / 1e6 if csv.exists() else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--against", metavar="REV", help="also run an earlier commit's solver")
    parser.add_argument("--keep-csv", action="store_true", help="keep the CSV files")
    args = parser.parse_args()
    runs = [("this tree", None)]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.against:
            base = tmp / "base"
            base.mkdir()
            archive = subprocess.run(
                ["git", "archive", args.against, "solver"],
                cwd=ROOT,
                capture_output=True,
                check=True,
            )
            subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
            runs.append((args.against, str(base)))
        print(f"biela run pendulum, {args.steps:,} steps, an output row at every step")
        for label, path in runs:
            folder = Path(tempfile.mkdtemp(dir=tmp))
            r = measure(args.steps, folder, path)
            print(
                f"  {label:>12}: exit {r['exit']}, peak {r['peak_MiB']:.0f} MiB, "
                f"{r['wall_s']:.0f} s wall, CSV {r['csv_MB']:.0f} MB"
            )
            if args.keep_csv:
                (folder / "out.csv").rename(ROOT / f"long_run_{label.replace(' ', '_')}.csv")


if __name__ == "__main__":
    main()
