"""Compile the solver's Numba code once per host before a study fans out.

Numba caches the compiled code on disk (:mod:`solver.compiled.warm`); workers that found a
cold cache would each compile it at once (minutes, on every core). So before the cases,
one worker on each host warms the cache (``python -m solver.compiled``'s :func:`warm`)
and the host's other workers then load it. Nothing to do when the cache is warm, or when
``BIELA_COMPILED=0`` on the worker.
"""

from __future__ import annotations

from typing import Any


def warm_here() -> str:
    """Run on a worker: warm this host's cache if it is cold. Returns what was done."""
    from solver.compiled.warm import is_warm, mode, warm

    if mode() == "off":
        return "off"
    if is_warm():
        return "warm"
    return f"warmed in {warm():.1f} s"


def warm_hosts(client: Any) -> dict[str, str]:
    """Warm one worker per host (others wait); ``{host: what was done}``."""
    workers = client.scheduler_info().get("workers", {})
    first: dict[str, str] = {}
    for address, info in workers.items():
        first.setdefault(info.get("host", address), address)
    futures = {
        host: client.submit(warm_here, workers=[address], allow_other_workers=False, pure=False)
        for host, address in first.items()
    }
    return {host: future.result() for host, future in futures.items()}
