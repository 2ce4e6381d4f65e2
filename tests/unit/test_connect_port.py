"""The Connect port on the in-memory worker: requests built in one place, names encoded, push-back retried and paced.

``RestConnectPort`` over ``tests.support.connect_fake.FakeConnectWorker`` (routed by the same ``requests.route``):
what the worker holds after each call, the requests counted per endpoint, 409/429/5xx answered and retried within
the deadline (the write pace halved), errors final at once, and the write bound never exceeded.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from reconciler.connect import pace
from reconciler.connect import requests as rq
from reconciler.connect.http import ConnectError
from reconciler.connect.port import RestConnectPort
from tests.support.connect_fake import FILE_SINK, REBALANCE, FakeConnectWorker

SINK = {"connector.class": FILE_SINK, "tasks.max": "1", "topics": "t", "file": "/tmp/out"}


def port_on(worker: FakeConnectWorker, *, bound: int | None = None) -> RestConnectPort:
    """The port on ``worker``; ``bound``: a write pace fixed at that many outstanding writes."""
    fixed = None if bound is None else pace.WritePace(start=bound, floor=bound, ceiling=bound)
    return RestConnectPort(worker, write_pace=fixed)


def soon(seconds: float = 30.0) -> float:
    return time.monotonic() + seconds


@pytest.mark.parametrize("name", ["a/b", "100% sure", "q?x#y", "space name", "plain"])
def test_a_name_is_one_path_segment_in_every_request_and_reads_back_as_written(name: str) -> None:
    built = [
        rq.get_config(name),
        rq.put_config(name, SINK),
        rq.set_state(name, "paused"),
        rq.restart(name),
        rq.delete(name),
        rq.task_configs(name),
        rq.get_offsets(name),
    ]
    for request in built:
        template, names, _ = rq.route(request.path)
        assert template.startswith("/connectors/{name}") and names == {"name": name}, request
    assert rq.restart(name).path.endswith("/restart?includeTasks=true&onlyFailed=true")


def test_create_update_state_restart_delete_are_held_by_the_worker() -> None:
    worker = FakeConnectWorker()
    port = port_on(worker)
    port.create("a/b", SINK, initial_state="paused", deadline=soon())
    assert worker.connectors["a/b"].target == "PAUSED"
    port.put_config("a/b", {**SINK, "batch.size": "5"}, deadline=soon())
    assert worker.connectors["a/b"].config["batch.size"] == "5"
    port.set_state("a/b", "running", deadline=soon())
    assert worker.connectors["a/b"].target == "RUNNING"
    port.restart_failed("a/b", deadline=soon())
    port.delete("a/b", deadline=soon())
    port.delete("a/b", deadline=soon())  # already gone: what the delete wanted
    assert "a/b" not in worker.connectors
    assert port.request_counts == {
        "POST /connectors": 1,
        "PUT /connectors/{name}/config": 1,
        "PUT /connectors/{name}/resume": 1,
        "POST /connectors/{name}/restart": 1,
        "DELETE /connectors/{name}": 2,
    }


def test_a_create_that_an_earlier_try_carried_out_becomes_a_config_write() -> None:
    worker = FakeConnectWorker()
    port = port_on(worker)
    port.create("c", SINK, initial_state="running", deadline=soon())
    port.create("c", {**SINK, "batch.size": "9"}, initial_state="running", deadline=soon())
    assert worker.connectors["c"].config["batch.size"] == "9"
    assert port.request_counts["PUT /connectors/{name}/config"] == 1


@pytest.mark.parametrize("status", [409, 429, 500, 503])
def test_a_write_pushed_back_is_sent_again_and_halves_the_write_pace(status: int) -> None:
    worker = FakeConnectWorker()
    port = port_on(worker)
    worker.refuse("POST /connectors", status, times=2)
    port.create("c", SINK, initial_state="running", deadline=soon())
    assert "c" in worker.connectors
    assert port.request_counts["POST /connectors"] == 3
    assert port.pace.refusals == 2 and port.pace.limit == pace.START // 4


def test_a_server_error_that_does_not_go_away_is_final_after_a_few_tries() -> None:
    worker = FakeConnectWorker()
    port = port_on(worker)
    worker.refuse("PUT /connectors/{name}/config", 500, times=10)
    with pytest.raises(ConnectError) as caught:
        port.put_config("c", SINK, deadline=soon())
    assert caught.value.status == 500
    assert port.request_counts["PUT /connectors/{name}/config"] == 3  # the first and SERVER_ERROR_RETRIES more


def test_push_back_until_the_deadline_fails_with_connects_answer_by_the_deadline() -> None:
    worker = FakeConnectWorker()
    port = port_on(worker)
    worker.refuse("PUT /connectors/{name}/config", 409, times=1000)
    began = time.monotonic()
    with pytest.raises(ConnectError) as caught:
        port.put_config("c", SINK, deadline=began + 1.0)
    assert caught.value.status == 409 and REBALANCE in str(caught.value)
    assert time.monotonic() - began < 1.0
    assert "c" not in worker.connectors


def test_an_error_answer_is_final_at_once_and_names_the_connector() -> None:
    worker = FakeConnectWorker()
    port = port_on(worker)
    with pytest.raises(ConnectError) as caught:
        port.set_state("missing", "paused", deadline=soon())
    assert caught.value.status == 404 and "setting connector missing paused" in str(caught.value)
    assert port.request_count == 1


def test_offsets_are_reset_and_altered_only_while_stopped_and_survive_a_delete() -> None:
    worker = FakeConnectWorker(clock=lambda: 0.0, restart_s=0.0, regenerate_s=0.0)
    port = port_on(worker)
    port.create("c", SINK, initial_state="stopped", deadline=soon())
    pair = ('{"kafka_partition": 0, "kafka_topic": "t"}', '{"kafka_offset": 5}')
    port.alter_offsets("c", (pair,), deadline=soon())
    port.delete("c", deadline=soon())
    port.create("c", SINK, initial_state="running", deadline=soon())
    port.read_connectors(deadline=soon())
    assert port.offset_pairs("c", deadline=soon()) == (pair,)
    with pytest.raises(ConnectError) as caught:
        port.reset_offsets("c", deadline=soon())
    assert caught.value.status == 400


def test_concurrent_writes_never_exceed_the_write_bound() -> None:
    worker = FakeConnectWorker()
    worker.latency_s = 0.02
    port = port_on(worker, bound=3)
    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(lambda i: port.create(f"c{i}", SINK, initial_state="running", deadline=soon()), range(24)))
    assert len(worker.connectors) == 24
    assert worker.most_outstanding == 3 == port.pace.most_outstanding
