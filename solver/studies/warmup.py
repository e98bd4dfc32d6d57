"""Compile the solver's Numba code once per host before a study fans out.

Numba caches the compiled code on disk (:mod:`solver.kernels.cache`); workers that found a
cold cache would each compile it at once (minutes, on every core). So before the cases,
one worker on each host warms the cache (:func:`solver.analysis.warmup.warm`), then
runs a few steps of one case per distinct solver set-up of the study (formulation,
coordinates, orientation, method...), which compiles what the study's own models need
beyond the warm-up's models; the host's other workers then load it all from the cache.
Nothing is compiled with ``BIELA_JIT=0`` on the worker.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

from solver.studies.engine import ASK_TIMEOUT

#: steps of each set-up's warm-up run
STEPS = 3
#: seconds between looks at the warm-up runs (and at the cluster, a cancel)
POLL = 0.05


def setup_of(model: Any) -> tuple:
    """What selects the compiled code of a run: the solver's choices, not its numbers."""
    s = model.solver
    choices = tuple(sorted((k, v) for k, v in s.parameters.items() if isinstance(v, str | bool)))
    return (s.analysis, s.formulation, s.coordinates, s.orientation, choices)


def representatives(models: Iterable[Any]) -> list[Any]:
    """The first model of each distinct :func:`setup_of`."""
    seen: dict[tuple, Any] = {}
    for model in models:
        seen.setdefault(setup_of(model), model)
    return list(seen.values())


def warm_here(models: Iterable[Any] = ()) -> str:
    """Run on a worker: warm this host's cache if it is cold, then run ``STEPS`` steps of
    each of ``models`` (their failures are left to the cases). Returns what was done."""
    from solver.analysis.simulate import simulate
    from solver.analysis.warmup import compiled_parts, is_compiled, warm
    from solver.kernels import jit

    if not jit.ENABLED:
        return "off"
    models = list(models)
    parts = sorted({p for model in models for p in compiled_parts(model)}) or None
    done = "warm" if is_compiled(parts) else f"warmed in {warm(parts=parts):.1f} s"
    for model in models:
        dt = model.solver.dt
        with contextlib.suppress(Exception):  # the case itself will report a failure
            simulate(model, t_end=min(model.solver.t_end, STEPS * dt), output_dt=dt)
    return done


def warm_hosts(
    client: Any,
    models: Iterable[Any] = (),
    watch: Any = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, str]:
    """Warm one worker per host (others wait); ``{host: what was done}``. With ``watch`` (a
    ``ClusterWatch``) a lost cluster raises its ``StudyError``, and a host whose warming
    worker leaves is given up ("lost": its cases compile what they need); ``cancelled()``
    true stops waiting ("cancelled")."""
    from solver.studies.engine import ClusterWatch

    models = representatives(models)
    watch = watch or ClusterWatch(client)
    watch.check(force=True)
    info = client.sync(client.scheduler.identity, callback_timeout=ASK_TIMEOUT)
    first: dict[str, str] = {}
    for address, worker in info.get("workers", {}).items():
        first.setdefault(worker.get("host", address), address)
    futures = {
        host: client.submit(
            warm_here, models, workers=[address], allow_other_workers=False, pure=False
        )
        for host, address in first.items()
    }
    done: dict[str, str] = {}
    while futures:
        for host, future in list(futures.items()):
            if future.done():
                done[host] = future.result()  # a failed warm-up is a bug: it is raised
                del futures[host]
        if not futures:
            break
        if cancelled is not None and cancelled():
            client.cancel(list(futures.values()))
            done.update(dict.fromkeys(futures, "cancelled"))
            break
        watch.check()
        for host, future in list(futures.items()):
            if watch.addresses and first[host] not in watch.addresses:
                client.cancel([future])  # pinned to a worker that is gone: never runs
                done[host] = "lost: its worker left during the warm-up"
                del futures[host]
        time.sleep(POLL)
    return done
