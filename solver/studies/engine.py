"""Where the cases run: a Dask ``distributed`` client.

Without a scheduler address, a ``LocalCluster`` of ``workers`` processes (default: the
cores of this machine), each with one thread and one BLAS thread (the cases are
independent runs: processes, not threads, share the cores). With ``scheduler``
(``tcp://host:8786``), the cluster started there with ``dask scheduler`` and
``dask worker`` (see the README). A ``client`` given by the caller is used as it is and
left open.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from solver.studies.errors import StudyError

#: Environment of local workers: one BLAS/OpenMP thread each (several workers share the cores).
ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}
#: Seconds to wait for a scheduler to answer, and for its first worker.
CONNECT_TIMEOUT = 60


def default_workers() -> int:
    return max(
        1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )


@contextlib.contextmanager
def dask_client(
    client: Any = None, workers: int | None = None, scheduler: str | None = None
) -> Iterator[Any]:
    """A connected ``distributed.Client``; a local cluster it started is closed on exit."""
    if client is not None:
        yield client
        return
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            remote = Client(scheduler, timeout=CONNECT_TIMEOUT / 2, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise StudyError(
                "", f"cannot reach the Dask scheduler at {scheduler}: {reason}"
            ) from None
        try:
            yield remote
        finally:
            remote.close()
        return
    n = workers or default_workers()
    if n < 1:
        raise StudyError("", f"workers must be at least 1 (got {n})")
    import dask

    # glibc's own heap thresholds in the workers, not Dask's MALLOC_TRIM_THRESHOLD_ (it
    # doubles a time step's CPU time, see solver.studies.memory)
    no_trim = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    with _quiet_distributed(), dask.config.set(no_trim):
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address="127.0.0.1:0",  # its HTTP endpoints on a free port, not 8787
            host="127.0.0.1",
            env=ONE_THREAD,
            silence_logs=logging.ERROR,
        )
    local = Client(cluster, set_as_default=False)
    try:
        yield local
    finally:
        with _quiet_distributed():
            local.close()
            cluster.close()


@contextlib.contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Distributed logs routine start/stop notes at INFO/WARNING: keep stderr for ours."""
    loggers = [
        logging.getLogger(n) for n in ("distributed", "distributed.nanny", "distributed.scheduler")
    ]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def worker_count(client: Any) -> int:
    return len(client.scheduler_info().get("workers", {}))


def wait_for_workers(client: Any, timeout: float = CONNECT_TIMEOUT) -> int:
    """The number of workers, waiting (up to ``timeout`` s) for at least one."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise StudyError("", f"the Dask scheduler has no workers (waited {timeout:g} s)") from None
    return worker_count(client)
