"""A study tells a lost cluster from a slow case (``ClusterWatch``): no connection to the
scheduler, or no worker, for ``timeout`` s is an error that says so; a cluster that comes
back in time is not. (The study dialog's test loses a real cluster mid-study.)"""

from __future__ import annotations

import pytest

from solver.studies import StudyError, engine


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeClient:
    """What the watch asks a ``distributed.Client``: its status and the scheduler's
    identity (``None`` workers: the question times out)."""

    def __init__(self) -> None:
        self.status = "running"
        self.workers: dict | None = {"tcp://127.0.0.1:1": {}}
        self.scheduler = type("Rpc", (), {"identity": object()})()
        self.questions = 0

    def sync(self, func, callback_timeout=None):
        assert func is self.scheduler.identity and callback_timeout == engine.ASK_TIMEOUT
        self.questions += 1
        if self.workers is None:
            raise TimeoutError("no answer")
        return {"workers": dict(self.workers)}


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(engine.time, "monotonic", clock)
    return clock


def test_no_worker_for_the_timeout_is_an_error_and_a_worker_back_in_time_is_not(clock):
    client = FakeClient()
    watch = engine.ClusterWatch(client, timeout=5.0, every=1.0)
    watch.check()
    assert watch.addresses == {"tcp://127.0.0.1:1"}
    client.workers = {}
    clock.now += 1.0
    watch.check()  # the workers went: the clock starts
    clock.now += 0.5
    watch.check()  # not asked again within `every`
    assert client.questions == 2 and watch.addresses == set()
    clock.now += 3.5
    watch.check()  # 4 s without a worker
    client.workers = {"tcp://127.0.0.1:2": {}}  # one restarts
    clock.now += 1.0
    watch.check()
    assert watch.addresses == {"tcp://127.0.0.1:2"}
    client.workers = {}
    clock.now += 1.0
    watch.check()
    clock.now += 4.9
    watch.check()  # 4.9 s since it went again
    clock.now += 0.5
    watch.check()  # not asked within `every`
    clock.now += 0.5
    with pytest.raises(StudyError) as error:
        watch.check()
    assert str(error.value) == "study: the cluster was lost: no Dask worker left for 5 s"


@pytest.mark.parametrize("status", ["connecting", "closed"])
def test_no_scheduler_for_the_timeout_is_an_error(clock, status):
    client = FakeClient()
    watch = engine.ClusterWatch(client, timeout=3.0)
    client.workers = None  # the scheduler does not answer
    watch.check()
    client.status = status  # then the client knows it lost it
    clock.now += 3.0
    with pytest.raises(StudyError) as error:
        watch.check()
    assert str(error.value) == (
        "study: the cluster was lost: no connection to the Dask scheduler for 3 s"
    )
    assert not watch.connected()
    assert engine.ClusterWatch(client).timeout == engine.LOST_TIMEOUT  # the default


def test_a_local_cluster_that_does_not_start_is_an_error(monkeypatch):
    """Each worker of a local cluster has ``CONNECT_TIMEOUT`` s to start; a start that times
    out ends the study with a message, not a wait without end."""
    import distributed

    asked = {}

    def never_starts(**kwargs):
        asked.update(kwargs)
        raise TimeoutError("Nanny failed to start in 60 seconds")

    monkeypatch.setattr(distributed, "LocalCluster", never_starts)
    expected = r"local Dask cluster of 2 worker\(s\) did not start"
    with pytest.raises(StudyError, match=expected), engine.dask_client(workers=2):
        pass
    assert asked["death_timeout"] == engine.CONNECT_TIMEOUT
    assert asked["n_workers"] == 2
