"""The on-disk cache of the compiled kernels: fresh for the sources in use, and known warm.

Numba caches each compiled function next to its source (``__pycache__/<module>.<function>-
<line>.py<ver>.nbi/.nbc``, or in its user cache directory when that folder is not
writable) and checks only the function's own source file: a cached time step would keep
running the old code of a kernel it calls from another, edited file. So the whole cache
belongs to one *fingerprint* of every compiled module (the files that define kernels)
and of the Numba, NumPy and Python versions; :func:`ensure_fresh`, run once per process
when the first kernel module is imported, deletes the cache files of any other
fingerprint. A *warm* marker per part of the warm-up (``solver.analysis.warmup``) records
that its kernels have been compiled for these sources, so that a front end can tell the
user when a run will compile first.

Hashing the sources takes tens of milliseconds of every process's start-up, so each
fingerprint is remembered under a *stat key*: the path, size, modification and change
times and inode of every module of the solver, and the versions. Any write to a source
changes its change time (which no tool sets back), so an edited kernel always gets a new
key and is hashed again; a file touched but not changed hashes to the same fingerprint.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # solver/
_MARKERS = ("@kernel", "@njit", "njit(")


def sources() -> list[Path]:
    """Every module of the solver that compiles functions, and every module of the kernels
    (:mod:`solver.kernels.shepperd` holds a kernel's source without decorating it)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        compiled = any(m in text for m in _MARKERS) or path.parent == PACKAGE / "kernels"
        if compiled and path.name != "cache.py":  # (a kernel's source may be undecorated)
            found.append(path)
    return found


def content_fingerprint() -> str:
    """The hash of every compiled module's path and text and of the Numba, NumPy and Python
    versions (16 hex digits)."""
    from importlib.metadata import version

    h = hashlib.sha1()
    h.update(f"{version('numba')} {version('numpy')} {sys.version} {sys.platform}".encode())
    for path in sources():
        h.update(str(path.relative_to(PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def package_version(name: str) -> str:
    """The version of package ``name``: from the module when it is imported (cheap), else
    from the installed metadata."""
    version = getattr(sys.modules.get(name), "__version__", None)
    if version is None:
        from importlib.metadata import version as installed

        version = installed(name)
    return version


def stat_key() -> str:
    """The hash of the path, size, modification and change times (ns) and inode of every
    module of the solver and of the versions in use: a source written since the last
    :func:`content_fingerprint` changes it."""
    versions = f"{package_version('numba')} {package_version('numpy')} {sys.version} {sys.platform}"
    h = hashlib.sha1(versions.encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        try:
            s = path.stat()
        except OSError:
            continue
        h.update(f"{path.relative_to(PACKAGE)} {s.st_size} {s.st_mtime_ns} ".encode())
        h.update(f"{s.st_ctime_ns} {s.st_ino}\n".encode())
    return h.hexdigest()[:16]


def fingerprint() -> str:
    """:func:`content_fingerprint`, remembered under the :func:`stat_key` of the sources
    (a marker file) so that an unchanged tree is not read and hashed again."""
    key = stat_key()
    memo = marker_dir() / f"biela-stat-{key}"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        known = memo.read_text(encoding="ascii").strip()
        if len(known) == 16:
            return known
    current = content_fingerprint()
    with contextlib.suppress(OSError):
        memo.write_text(current, encoding="ascii")
    return current


def _folders() -> list[Path]:
    """Where Numba may keep the cache files of the solver's modules: each module's
    ``__pycache__`` and, for a read-only installation, Numba's user cache directory."""
    out = {p.parent / "__pycache__" for p in sources()}
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        out.add(Path(base))
    else:
        with contextlib.suppress(Exception):
            from numba.misc.appdirs import AppDirs

            out.add(Path(AppDirs(appname="numba", appauthor=False).user_cache_dir))
    return sorted(out)


def marker_dir() -> Path:
    """A writable folder for the fingerprint markers (the kernels' own ``__pycache__``, else
    the user's cache directory)."""
    here = Path(__file__).resolve().parent / "__pycache__"
    with contextlib.suppress(OSError):
        here.mkdir(exist_ok=True)
        if os.access(here, os.W_OK):
            return here
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "biela"
    base.mkdir(parents=True, exist_ok=True)
    return base


def _marker(kind: str, print_: str | None = None) -> Path:
    return marker_dir() / f"biela-{kind}-{print_ or fingerprint()}"


def clear() -> int:
    """Delete the cache files of every compiled module and every marker; returns the
    number of files deleted."""
    count = 0
    stems = {p.stem for p in sources()}
    for folder in _folders():
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            stem = path.name.split(".", 1)[0]
            if path.suffix in (".nbi", ".nbc") and stem in stems:
                with contextlib.suppress(OSError):
                    path.unlink()
                    count += 1
    with contextlib.suppress(OSError):
        for old in marker_dir().glob("biela-*"):
            old.unlink()
    return count


_checked: str | None = None


def ensure_fresh() -> str:
    """Make the on-disk cache belong to the current sources (once per process): when the
    fingerprint has changed, delete the old cache files. Returns the fingerprint."""
    global _checked
    if _checked is None:
        current = fingerprint()
        try:
            if not _marker("sources", current).exists():
                clear()
                _marker("sources", current).write_text("")
                fingerprint()  # remembered again (``clear`` deleted every marker)
        except OSError:
            pass  # a read-only installation: Numba's own checks only
        _checked = current
    return _checked


def is_warm(part: str) -> bool:
    """Whether the kernels of warm-up ``part`` (``solver.analysis.warmup.PARTS``) have been
    compiled and cached for these sources."""
    try:
        return _marker(f"warm-{part}", ensure_fresh()).exists()
    except OSError:
        return False


def mark_warm(seconds: float, part: str) -> None:
    with contextlib.suppress(OSError):
        _marker(f"warm-{part}", ensure_fresh()).write_text(f"compiled in {seconds:.1f} s\n")
