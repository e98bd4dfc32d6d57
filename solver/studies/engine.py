"""Where the cases run: a Dask ``distributed`` client.

Without a scheduler address, a ``LocalCluster`` of ``workers`` processes (default: the
cores of this machine), each with one thread and one BLAS thread (the cases are
independent runs: processes, not threads, share the cores). With ``scheduler``
(``tcp://host:8786``), the cluster started there with ``dask scheduler`` and
``dask worker`` (see the README). A ``client`` given by the caller is used as it is and
left open.

Every wait on the cluster is bounded: starting a local cluster's workers, connecting, the
first worker, each question to the scheduler, closing; and while a study runs, :class:`ClusterWatch` tells a lost cluster (no
connection to the scheduler, or no worker, for ``LOST_TIMEOUT`` s) from a slow case.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
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
#: Seconds a running study waits, without a connection to its scheduler or without any
#: worker, before it stops with an error (a worker that restarts, a scheduler that comes
#: back within this time: the study goes on).
LOST_TIMEOUT = 60.0
#: Seconds for one question to the scheduler while a study runs.
ASK_TIMEOUT = 10.0
#: Seconds for closing the client, and a local cluster, after a study.
CLOSE_TIMEOUT = 30.0

log = logging.getLogger(__name__)


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
            _close(remote, "the Dask client")
        return
    n = workers or default_workers()
    if n < 1:
        raise StudyError("", f"workers must be at least 1 (got {n})")
    import dask

    # glibc's own heap thresholds in the workers, not Dask's MALLOC_TRIM_THRESHOLD_ (it
    # doubles a time step's CPU time, see solver.studies.memory)
    no_trim = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    try:
        with _quiet_distributed(), dask.config.set(no_trim):
            cluster = LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                dashboard_address="127.0.0.1:0",  # its HTTP endpoints on a free port, not 8787
                host="127.0.0.1",
                env=ONE_THREAD,
                silence_logs=logging.ERROR,
                # each worker process has this long to start and reach the scheduler
                death_timeout=CONNECT_TIMEOUT,
            )
    except (OSError, TimeoutError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StudyError(
            "",
            f"the local Dask cluster of {n} worker(s) did not start within "
            f"{CONNECT_TIMEOUT} s: {reason}",
        ) from None
    local = Client(cluster, set_as_default=False)
    try:
        yield local
    finally:
        with _quiet_distributed():
            _close(local, "the Dask client")
            _close(cluster, "the local Dask cluster")


def _close(thing: Any, what: str) -> None:
    """Close a client or a cluster within ``CLOSE_TIMEOUT`` s; a failure to close is
    logged, never raised over the study's own outcome."""
    try:
        thing.close(timeout=CLOSE_TIMEOUT)
    except Exception as exc:  # noqa: BLE001 (the study's result or error stands)
        log.warning("closing %s: %s: %s", what, type(exc).__name__, exc)


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


class ClusterWatch:
    """Tells a lost cluster from a slow one while a study runs. :meth:`check` (at most every
    ``every`` s) asks the scheduler for its workers (within ``ASK_TIMEOUT`` s) and raises
    ``StudyError`` once the client has had no scheduler, or the scheduler no worker, for
    ``timeout`` s (default ``LOST_TIMEOUT``). ``addresses`` holds the workers of the last
    answer."""

    def __init__(self, client: Any, timeout: float | None = None, every: float = 1.0) -> None:
        self.client = client
        self.timeout = LOST_TIMEOUT if timeout is None else timeout
        self.every = every
        self.addresses: set[str] = set()
        self._lost_since: float | None = None
        self._next = 0.0
        self._reason = ""

    def connected(self) -> bool:
        return self.client.status == "running"

    def _workers(self) -> set[str] | None:
        """The scheduler's workers, or None without an answer."""
        if not self.connected():
            return None
        try:
            info = self.client.sync(self.client.scheduler.identity, callback_timeout=ASK_TIMEOUT)
        except Exception:  # noqa: BLE001 (no answer: counted as lost until it comes back)
            return None
        return set(info.get("workers", {}))

    def check(self, force: bool = False) -> None:
        now = time.monotonic()
        if now < self._next and not force:
            return
        self._next = now + self.every
        workers = self._workers()
        if workers:
            self.addresses = workers
            self._lost_since = None
            return
        self.addresses = set()
        self._reason = (
            "no connection to the Dask scheduler" if workers is None else "no Dask worker left"
        )
        if self._lost_since is None:
            self._lost_since = now
        if now - self._lost_since >= self.timeout:
            raise StudyError("", f"the cluster was lost: {self._reason} for {self.timeout:g} s")
