"""Timeouts, an unreachable cluster and a cluster that goes away between phases: plain errors, a truthful
report, nothing written when the first read fails, and a re-run that converges."""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka.admin import NewTopic
from kafka.errors import KafkaError

from reconciler.apply import ApplyEvent, ApplyOptions, EventKind, Outcome, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.base import errors
from reconciler.kafka import read
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired, plans
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import single_node
from tests.support.live import cli, plan_now, settings, topic_configs, topics_state
from tests.support.manifest_texts import topic_documents
from tests.support.polling import eventually


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port bound for the whole test but never listening: connecting is refused, and nothing started meanwhile
    (a broker of the other share) can take the port and answer."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


def wanted_topics(prefix: str, *, new: int, existing: int) -> desired.DesiredState:
    topics = {
        f"{prefix}n{i:03d}": desired.DesiredTopic(f"{prefix}n{i:03d}", 1, 1, {"retention.ms": "7200000"})
        for i in range(new)
    }
    topics |= {
        f"{prefix}e{i:03d}": desired.DesiredTopic(f"{prefix}e{i:03d}", 1, 1, {"retention.ms": "3600000"})
        for i in range(existing)
    }
    return desired.DesiredState(
        topics=topics, ownership=desired.Ownership(topics=(desired.NamePattern("prefix", prefix),))
    )


def check_truthful(cluster: KafkaCluster, report: ApplyReport, wanted: desired.DesiredState, prefix: str) -> None:
    """Items reported applied are on the cluster; items reported failed name an error."""
    applied = [i for i in report.items if i.outcome is Outcome.APPLIED]
    for item in report.items:
        if item.outcome is Outcome.FAILED:
            assert item.error_name and item.message, item
    names = {i.name for i in applied}
    eventually(
        lambda: names <= set(topics_state(cluster, prefix)),
        what="the topics reported applied",
        timeout=30,
        retry_on=(KafkaError,),
    )

    def configs() -> bool:
        found = topic_configs(cluster, names)
        return all(found[n].get("retention.ms") == wanted.topics[n].configs["retention.ms"] for n in names)

    eventually(configs, what="the configs reported applied", timeout=30, retry_on=(KafkaError,))


def converge(cluster: KafkaCluster, wanted: desired.DesiredState) -> int:
    """Re-run until nothing is left (at most twice); returns how many changes the first re-run had."""
    with KafkaAdapter(settings(cluster)) as adapter:
        again = plan_now(adapter, wanted)
        left = len(again.actionable)
        if left:
            rerun = apply_plan(again, adapter, options=ApplyOptions(deadline_s=120))
            assert rerun.exit_code == 0, rerun.to_json()
        assert plan_now(adapter, wanted).actionable == ()
    return left


# ------------------------------------------------------------------------------------ unreachable
@pytest.mark.parametrize("command", ["plan", "apply", "snapshot"])
def test_unreachable_cluster_fails_plainly_with_exit_1(tmp_path: Path, command: str, closed_port: int) -> None:
    (tmp_path / "m.yaml").write_text(topic_documents({"orders": (1, 1, {})}))
    port = closed_port
    args = {
        "plan": ["plan", str(tmp_path)],
        "apply": ["apply", str(tmp_path), "--auto-approve"],
        "snapshot": ["snapshot", "--out", str(tmp_path / "s.json")],
    }[command]
    result = cli([*args, "--bootstrap-server", f"127.0.0.1:{port}"], env={"KAFKA_REQUEST_TIMEOUT_MS": "3000"})
    assert result.returncode == 1, result.stderr
    assert f"cannot connect to Kafka at 127.0.0.1:{port} (PLAINTEXT): 127.0.0.1:{port}: connection refused" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr + result.stdout
    assert not (tmp_path / "s.json").exists()


# ----------------------------------------------------------------------------------------- timeouts
def test_tiny_request_timeout_gives_a_plain_error_and_writes_nothing_or_a_truthful_report(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    wanted = wanted_topics(topic_prefix, new=5, existing=0)
    with KafkaAdapter(settings(kafka_single)) as adapter:
        p = plan_now(adapter, wanted)
    with KafkaAdapter(settings(kafka_single, request_timeout_ms=1)) as adapter:
        try:
            report = apply_plan(p, adapter, options=ApplyOptions(deadline_s=30))
        except errors.ReconcilerError as exc:
            assert exc.exit_code == 1
            # Depending on where the 1 ms runs out: while connecting, or waiting for the first read's answer.
            message = str(exc)
            assert "no broker answered within 0.001s" in message or "request timeout (1 ms)" in message, message
            assert "may or may not have been applied" not in message  # a read: nothing can have been applied
            assert topics_state(kafka_single, topic_prefix) == {}
            return
    # A loopback broker sometimes answers within 1 ms (a timed-out read is split and sent again): then the
    # apply goes on, and its report must tell the truth about every topic.
    assert len(report.items) == len(wanted.topics)
    check_truthful(kafka_single, report, wanted, topic_prefix)


def test_an_apply_deadline_spent_before_any_write_names_the_limit_and_writes_nothing(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    """The deadline bounds every wait from the apply's first read: 1 ms ends it there, before any write."""
    wanted = wanted_topics(topic_prefix, new=100, existing=0)
    with KafkaAdapter(settings(kafka_single)) as adapter:
        p = plan_now(adapter, wanted)
        with pytest.raises(errors.ConnectionFailed, match=r"the time limit of 0\.001s for talking to the cluster") as e:
            apply_plan(p, adapter, options=ApplyOptions(deadline_s=0.001, settle_s=0))
    assert e.value.exit_code == 1
    assert "may or may not have been applied" not in str(e.value)  # a read: nothing can have been applied
    assert topics_state(kafka_single, topic_prefix) == {}


# ---------------------------------------------------------------------- the cluster goes away mid-apply
@pytest.fixture(scope="module")
def own_node() -> Iterator[KafkaCluster]:
    """A private single node this module may stop and start (the shared ``kafka_single`` must stay up)."""
    cluster = single_node()
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.mark.slow
def test_cluster_unreachable_between_phases(own_node: KafkaCluster, topic_prefix: str) -> None:
    wanted = wanted_topics(topic_prefix, new=40, existing=40)
    with own_node.admin_session() as admin:
        admin.create_topics([NewTopic(n, 1, 1) for n in wanted.topics if n.startswith(f"{topic_prefix}e")])
    eventually(
        lambda: len(topics_state(own_node, topic_prefix)) == 40, what="the 40 existing topics", retry_on=(KafkaError,)
    )
    node = own_node.nodes[0]
    restarted = threading.Event()
    retries: list[ApplyEvent] = []

    def restart() -> None:
        node.start()
        restarted.set()

    def stop_after_first_phase(event: ApplyEvent) -> None:
        if event.kind is EventKind.RETRY:
            retries.append(event)
        if event.kind is EventKind.PHASE_FINISHED and event.phase is plans.Phase.TOPIC_CREATE:
            node.stop()  # the next phase starts against a cluster that is gone; it comes back meanwhile
            threading.Thread(target=restart, daemon=True).start()

    with KafkaAdapter(settings(own_node, request_timeout_ms=5_000)) as adapter:
        p = plan_now(adapter, wanted)
        assert {c.phase for c in p.actionable} == {plans.Phase.TOPIC_CREATE, plans.Phase.TOPIC_CONFIG}
        report = apply_plan(p, adapter, options=ApplyOptions(deadline_s=90), events=stop_after_first_phase)
    assert restarted.wait(120), "the node did not come back"
    counts = report.counts()
    print(f"\nnode bounced between phases: {counts}, converged={report.converged}, notes={report.notes}")
    print("retries:", [e.message for e in retries])
    assert retries, "the phase after the stop should have met a cluster that was gone"
    check_truthful(own_node, report, wanted, topic_prefix)
    left = converge(own_node, wanted)
    print(f"re-run had {left} change(s) left")
    assert topics_state(own_node, topic_prefix) == {n: 1 for n in wanted.topics}


# -------------------------------------------------------------------- a broker that stops answering a read
def test_a_config_read_the_broker_does_not_answer_in_time_is_split_and_read_again(
    own_node: KafkaCluster, topic_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [f"{topic_prefix}s{i:02d}" for i in range(12)]
    with own_node.admin_session() as admin:
        admin.create_topics([NewTopic(n, 1, 1, topic_configs={"retention.ms": "3600000"}) for n in names])
    eventually(lambda: len(topics_state(own_node, topic_prefix)) == 12, what="the 12 topics", retry_on=(KafkaError,))
    # 12 topics split as 5,000 would (halves down to 4 resources instead of 250), so the test stays small.
    monkeypatch.setattr(read, "MIN_SPLIT", 4)
    pid = own_node.nodes[0].pid
    assert pid is not None
    sizes: list[int] = []
    with KafkaAdapter(settings(own_node)) as adapter:
        wire = adapter._wire
        plain = wire._send

        def send(request: Any, *, node: int | None, timeout_ms: int | None) -> Any:
            if type(request).__name__ != "DescribeConfigsRequest":
                return plain(request, node=node, timeout_ms=timeout_ms)
            sizes.append(len(request.resources))
            if len(sizes) > 1:
                return plain(request, node=node, timeout_ms=timeout_ms)
            # The broker is stopped while the first DescribeConfigs waits: no answer within its (2 s) timeout.
            os.kill(pid, signal.SIGSTOP)
            try:
                return plain(request, node=node, timeout_ms=2_000)
            finally:
                os.kill(pid, signal.SIGCONT)

        monkeypatch.setattr(wire, "_send", send)
        live = adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n in names)
        counts = dict(adapter.request_counts)
    # 12 topics and the broker's lint keys in one request; unanswered, it was sent again as two halves.
    assert sizes == [13, 6, 7]
    assert counts["DescribeConfigs"] == 3
    assert sorted(live.topics or {}) == names
    assert all(dict(t.configs) == {"retention.ms": "3600000"} for t in (live.topics or {}).values())
    assert live.cluster_configs["auto.create.topics.enable"] == "false"
