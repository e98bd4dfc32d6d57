"""Where a run's time goes inside the compiled code: Linux ``perf`` with a symbol map.

    python -m benchmarks.compiled_profile EXAMPLE [--runs 4] [--top 40] [--data FILE]

Runs the example once (loading and, on a cold cache, compiling its kernels), then records
``--runs`` more runs with ``perf record`` attached to this process, and prints perf's
report by function, the compiled kernels by their names (``solver.compiled.band.
lu_factor_band``, …) and Numba's runtime (reference counts, allocation) beside them.

Numba's machine code has no symbols perf can read. Before anything is loaded, this script
keeps each code library's object file (Numba hands it to its JIT engine and drops it);
after the runs it writes ``/tmp/perf-<pid>.map``, where perf looks for the symbols of
code it cannot attribute: every function of every object, at the address the engine put
its section (one exported symbol of each section located through the engine, the others
at their offsets from it), and the reference counts of Numba's runtime (``numba runtime
NRT_incref``, ``NRT_decref``: compiled in memory, located by name). Kernels inlined into
their callers count as the callers.
Needs ``perf`` (Debian: linux-perf) and permission to record this process.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
_FUNCTION, _LOCAL = 2, 0  # an ELF symbol's type and binding


def keep_objects() -> None:
    """Keep every Numba code library's object file (as ``_kept_object``) when it is set:
    call before any kernel is loaded or compiled."""
    from numba.core import codegen

    original = codegen.CPUCodeLibrary._set_compiled_object
    if getattr(original, "keeps", False):
        return

    def keep(self, value):
        self.__dict__["_kept_object"] = value
        return original(self, value)

    keep.keeps = True
    codegen.CPUCodeLibrary._set_compiled_object = keep


def functions(obj: bytes) -> list[tuple[str, bool, int, int, int]]:
    """``(name, exported, section, offset, size)`` of each function symbol of the ELF
    (64-bit, little-endian) object ``obj``."""
    from solver.kernels.cache_loading import elf_symbols

    return [
        (name, info >> 4 != _LOCAL, section, value, extent)
        for name, info, section, value, extent in elf_symbols(obj)
        if info & 0xF == _FUNCTION and 0 < section < 0xFF00
    ]


def readable(name: str) -> str:
    """``solver.compiled.band.lu_factor_band`` from Numba's mangled ``_ZN6solver…``."""
    if not name.startswith("_ZN"):
        return name
    i, parts = 3, []
    while i < len(name) and name[i].isdigit():
        j = i
        while j < len(name) and name[j].isdigit():
            j += 1
        k = int(name[i:j])
        parts.append(name[j : j + k])
        i = j + k
    return ".".join(parts) or name


def write_map(path: str) -> int:
    """Write perf's symbol map of the compiled code loaded in this process to ``path``;
    returns the number of functions mapped."""
    from numba.core.dispatcher import Dispatcher
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee
    libraries = {}
    for obj in gc.get_objects():
        if isinstance(obj, Dispatcher):
            for result in obj.overloads.values():
                libraries[id(result.library)] = result.library
    rows = []
    for library in libraries.values():
        code = library.__dict__.get("_kept_object")
        if code is None:
            continue
        table = functions(code)
        base = {}
        for name, exported, section, value, _ in table:
            if exported and section not in base:
                address = engine.get_function_address(name)
                if address:
                    base[section] = address - value
        for name, _, section, value, extent in table:
            if section in base:
                rows.append((base[section] + value, max(extent, 1), readable(name)))
    rows += runtime_rows()
    rows.sort()
    with open(path, "w") as f:
        for address, extent, name in rows:
            f.write(f"{address:x} {extent:x} {name}\n")
    return len(rows)


def runtime_rows() -> list[tuple[int, int, str]]:
    """``(address, size, name)`` of the functions of Numba's runtime library that the
    kernels call (the reference counts: ``NRT_incref``, ``NRT_decref``), which it compiles
    in memory, without an object file; each size runs to the next function's address."""
    from numba.core.runtime import nrt

    library = nrt.rtsys.library
    found = []
    for fn in library._final_module.functions:
        if fn.is_declaration:
            continue
        try:
            found.append((library.get_pointer_to_function(fn.name), fn.name))
        except Exception:  # (not emitted: inlined everywhere)
            continue
    found = sorted(a for a in found if a[0])
    rows = []
    for k, (address, name) in enumerate(found):
        end = found[k + 1][0] if k + 1 < len(found) else address + 16
        rows.append((address, max(end - address, 1), f"numba runtime {name}"))
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("example", help="example name (file stem) or path to a model file")
    ap.add_argument("--runs", type=int, default=4, help="runs recorded")
    ap.add_argument("--top", type=int, default=40, help="functions printed")
    ap.add_argument("--data", help="perf's data file (default: a temporary one)")
    args = ap.parse_args(argv)
    if shutil.which("perf") is None:
        raise SystemExit("perf is not installed (Debian: apt-get install linux-perf)")
    keep_objects()
    from solver import load_model, simulate

    path = Path(args.example)
    model = load_model(path if path.suffix else EXAMPLES / f"{args.example}.json")
    simulate(model)  # loads (or compiles) what the run needs
    data = args.data or os.path.join(tempfile.mkdtemp(), "perf.data")
    recorder = subprocess.Popen(
        ["perf", "record", "-F", "2000", "-o", data, "-p", str(os.getpid())],
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)  # perf attached
    start = time.perf_counter()
    for _ in range(args.runs):
        simulate(model)
    wall = (time.perf_counter() - start) / args.runs
    recorder.send_signal(signal.SIGINT)
    recorder.wait()
    mapped = write_map(f"/tmp/perf-{os.getpid()}.map")
    print(f"{args.runs} runs, {wall:.3f} s each; {mapped} compiled functions mapped", flush=True)
    report = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "sym", "--stdio"],
        capture_output=True,
        text=True,
    )
    lines = [ln for ln in report.stdout.splitlines() if ln.strip() and not ln.startswith("#")]
    print("\n".join(lines[: args.top]))
    if report.returncode:
        print(report.stderr, file=sys.stderr)


if __name__ == "__main__":
    main()
