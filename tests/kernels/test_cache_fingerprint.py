"""The compiled-code cache belongs to the sources in use: the fingerprint follows every
edit of a compiled module (also one that keeps its size and modification time), is
remembered under the sources' stat key so that an unchanged tree is not hashed again, and
a new fingerprint deletes the old cache files."""

from __future__ import annotations

import os

import pytest

from solver.kernels import cache

KERNEL = "from solver.kernels.jit import kernel\n\n\n@kernel\ndef f(x):\n    return x + {}\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A package with one compiled module and one plain module, and its marker folder."""
    package = tmp_path / "solver"
    (package / "kernels").mkdir(parents=True)
    (package / "kernels" / "k.py").write_text(KERNEL.format(1))
    (package / "plain.py").write_text("X = 1\n")
    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setattr(cache, "PACKAGE", package)
    monkeypatch.setattr(cache, "marker_dir", lambda: markers)
    monkeypatch.setattr(cache, "_checked", None)
    return package


def _hashes(monkeypatch) -> list[str]:
    """Record the calls of the content hash."""
    calls = []
    real = cache.content_fingerprint
    monkeypatch.setattr(cache, "content_fingerprint", lambda: calls.append(1) or real())
    return calls


def test_an_edit_changes_the_fingerprint_even_with_size_and_time_kept(tree):
    kernel = tree / "kernels" / "k.py"
    first = cache.fingerprint()
    stat = kernel.stat()
    kernel.write_text(KERNEL.format(2))  # same size
    os.utime(kernel, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same modification time
    assert kernel.stat().st_size == stat.st_size
    second = cache.fingerprint()
    assert second != first
    assert second == cache.content_fingerprint()


def test_an_unchanged_tree_is_not_hashed_again(tree, monkeypatch):
    calls = _hashes(monkeypatch)
    first = cache.fingerprint()
    assert cache.fingerprint() == first and len(calls) == 1
    (tree / "kernels" / "k.py").touch()  # written, not changed: hashed once, same print
    assert cache.fingerprint() == first and len(calls) == 2
    assert cache.fingerprint() == first and len(calls) == 2


def test_a_new_compiled_module_changes_the_fingerprint(tree):
    first = cache.fingerprint()
    (tree / "plain.py").write_text(
        "from solver.kernels.jit import kernel\n@kernel\ndef g(): pass\n"
    )
    assert cache.fingerprint() != first


def test_a_corrupt_memo_is_hashed_again(tree, monkeypatch):
    first = cache.fingerprint()
    for memo in cache.marker_dir().glob("biela-stat-*"):
        memo.write_text("")
    calls = _hashes(monkeypatch)
    assert cache.fingerprint() == first and len(calls) == 1


def test_a_new_fingerprint_clears_the_old_cache_files(tree, monkeypatch):
    monkeypatch.setattr(cache, "_folders", lambda: [tree / "kernels" / "__pycache__"])
    folder = tree / "kernels" / "__pycache__"
    folder.mkdir()
    first = cache.ensure_fresh()
    assert cache.is_warm("x") is False
    cache.mark_warm(1.0, "x")
    assert cache.is_warm("x")
    stale = folder / "k.f-4.py311.nbi"
    stale.write_bytes(b"")
    assert cache.ensure_fresh() == first and stale.exists()  # checked once per process
    (tree / "kernels" / "k.py").write_text(KERNEL.format(3))
    monkeypatch.setattr(cache, "_checked", None)  # a new process
    assert cache.ensure_fresh() != first
    assert not stale.exists() and not cache.is_warm("x")
    # the new fingerprint is remembered: the next process does not hash
    calls = _hashes(monkeypatch)
    monkeypatch.setattr(cache, "_checked", None)
    cache.ensure_fresh()
    assert calls == []
