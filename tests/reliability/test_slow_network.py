"""A slow network that still answers, and answers lost on the way: through a fault proxy to a real broker.

The tool reaches the broker only through ``tests.support.faultproxy`` (the broker advertises the proxy's address on
the listener the tool bootstraps from), which delays every read of the broker's answers, or resets or stalls the
connection part-way through one API's answer. Each case checks what a user would: how long the command took, its
exit code and message, what its report says of each item, and what the cluster holds afterwards (read directly,
not through the proxy). Durations are bound checks with slack for a CLI process's start-up on a loaded 2-core
machine, not timings; the figures measured are in docs/reliability.md.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import proxied_node
from tests.support.faultproxy import CREATE_TOPICS, DESCRIBE_CONFIGS, FaultProxy
from tests.support.integration import ownership, write_manifests
from tests.support.live import cli, topics_state
from tests.support.manifest_texts import topic_documents

pytestmark = pytest.mark.kafka

DEADLINE_S = 5
SLACK_S = 12.0  # a CLI process's interpreter start-up and imports on a loaded 2-core machine, and then some
OUTER_S = 180.0  # the subprocess limit: reaching it means the bound did not hold
LONG_REQUESTS = {"KAFKA_REQUEST_TIMEOUT_MS": "30000"}  # the default: the deadline, not the request timeout, ends it


@pytest.fixture(scope="module")
def proxy() -> Iterator[FaultProxy]:
    with FaultProxy() as started:
        yield started


@pytest.fixture(scope="module")
def behind_proxy(proxy: FaultProxy) -> Iterator[KafkaCluster]:
    """A node the tool reaches only through ``proxy`` (the harness itself talks to it directly)."""
    cluster = proxied_node(proxy)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def clean_proxy(proxy: FaultProxy) -> Iterator[FaultProxy]:
    proxy.set()
    yield proxy
    proxy.set()


def manifests(directory: Path, prefix: str, count: int) -> Path:
    specs = {f"{prefix}{i:04d}": (1, 1, {"retention.ms": "3600000"}) for i in range(count)}
    return write_manifests(directory, ownership(prefix) + "\n---\n" + topic_documents(specs))


def run(args: list[str], *, env: dict[str, str] | None = None) -> tuple[Any, float]:
    started = time.monotonic()
    result = cli(args, env=env, timeout=OUTER_S)
    took = time.monotonic() - started
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result, took


def applied_report(result: Any) -> dict[str, Any]:
    report = json.loads(result.stdout)
    assert isinstance(report, dict) and report.get("format") == "kafka-reconciler/apply-report", result.stdout
    return report


def outcomes(report: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: item["outcome"] for item in report["items"]}


def plan_is_clean(proxy: FaultProxy, path: Path) -> bool:
    """The next plan, through the proxy without faults, has nothing left to do (exit 0 with --detailed-exitcode)."""
    result = cli(["plan", str(path), "--bootstrap-server", proxy.address, "--detailed-exitcode"], timeout=OUTER_S)
    assert result.returncode in (0, 2), result.stdout + result.stderr
    return result.returncode == 0


# -------------------------------------------------------------------------- a deadline on a slow network
def test_apply_timeout_is_a_deadline_on_a_network_that_answers_slowly(
    behind_proxy: KafkaCluster, clean_proxy: FaultProxy, tmp_path: Path, topic_prefix: str
) -> None:
    """2 s per read of every answer from the first CreateTopics on: the writes are answered, the read-back is slow.
    ``--timeout 5`` ends the whole command near 5 s with exit 3, a deadline note and each item's true state."""
    path = manifests(tmp_path / "m", topic_prefix, 20)
    clean_proxy.set(latency_s=2.0, latency_from_api=CREATE_TOPICS)
    args = ["apply", str(path), "--auto-approve", "--format", "json", "--timeout", str(DEADLINE_S)]
    result, took = run([*args, "--bootstrap-server", clean_proxy.address], env=LONG_REQUESTS)
    report = applied_report(result)
    print(
        f"\nslow network, --timeout {DEADLINE_S}: exit {result.returncode} after {took:.1f}s "
        f"(apply part {report['duration_s']}s): {report['counts']}; notes: {report['notes']}"
    )
    assert result.returncode == 3, result.stdout + result.stderr
    assert report["duration_s"] <= DEADLINE_S + 1.5, report["duration_s"]
    assert took <= DEADLINE_S + SLACK_S, took
    # the note names the --timeout given, not what planning left of it
    notes = report["notes"]
    assert any(f"time limit of {DEADLINE_S}s (--timeout" in n and "was reached" in n for n in notes), notes
    clean_proxy.set()
    exists = set(topics_state(behind_proxy, topic_prefix))
    for name, outcome in outcomes(report).items():
        assert outcome in ("applied", "unknown", "failed", "not sent"), (name, outcome)
        if outcome == "applied":
            assert name in exists, name  # what the report calls applied is on the cluster
        if outcome == "not sent":  # planning under load left no time to write: nothing was sent
            assert name not in exists, name
    assert plan_is_clean(clean_proxy, path) == (exists == set(outcomes(report)))


def test_the_plan_step_of_apply_respects_the_timeout_against_a_stalled_connection(
    behind_proxy: KafkaCluster, clean_proxy: FaultProxy, tmp_path: Path, topic_prefix: str
) -> None:
    """Every DescribeConfigs answer stalls after 10 bytes (the plan's config read): ``apply PATHS --timeout 5`` ends
    near 5 s with exit 1 naming the time limit, and writes nothing."""
    path = manifests(tmp_path / "m", topic_prefix, 3)
    clean_proxy.set(cut="stall", cut_api=DESCRIBE_CONFIGS, cut_after_bytes=10, cuts_left=1_000)
    args = ["apply", str(path), "--auto-approve", "--timeout", str(DEADLINE_S)]
    result, took = run([*args, "--bootstrap-server", clean_proxy.address], env=LONG_REQUESTS)
    print(
        f"\nstalled plan read, --timeout {DEADLINE_S}: exit {result.returncode} after {took:.1f}s: "
        f"{result.stderr.strip()}"
    )
    assert clean_proxy.cuts >= 1, "the proxy never stalled an answer"
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"time limit of {DEADLINE_S}s" in result.stderr, result.stderr
    assert took <= DEADLINE_S + SLACK_S, took
    assert topics_state(behind_proxy, topic_prefix) == {}


# ---------------------------------------------------------------------------------------- lost answers
@pytest.mark.parametrize("cut", ["reset", "stall"])
def test_a_lost_create_topics_answer_is_resolved_by_reading_the_cluster(
    behind_proxy: KafkaCluster, clean_proxy: FaultProxy, tmp_path: Path, topic_prefix: str, cut: str
) -> None:
    """Every CreateTopics answer is cut after 200 bytes (the 300 topics are created; the client hears a reset, or
    nothing until its timeout): the report says applied for each topic that exists, the exit code follows, and
    the next plan has nothing to do."""
    path = manifests(tmp_path / "m", topic_prefix, 300)
    clean_proxy.set(cut=cut, cut_api=CREATE_TOPICS, cut_after_bytes=200, cuts_left=1_000)
    env = {"KAFKA_REQUEST_TIMEOUT_MS": "4000"}
    args = ["apply", str(path), "--auto-approve", "--format", "json", "--timeout", "120"]
    result, took = run([*args, "--bootstrap-server", clean_proxy.address], env=env)
    report = applied_report(result)
    print(
        f"\nCreateTopics answer {cut} after 200 bytes: exit {result.returncode} after {took:.1f}s: "
        f"{report['counts']}; cuts {clean_proxy.cuts}; notes: {report['notes']}"
    )
    assert clean_proxy.cuts >= 1, "the proxy never cut an answer"
    clean_proxy.set()
    exists = set(topics_state(behind_proxy, topic_prefix))
    found = outcomes(report)
    assert len(found) == 300
    assert {name for name, outcome in found.items() if outcome == "applied"} == exists
    assert len(exists) == 300, "the controller carried out the creates whose answers were lost"
    assert result.returncode == 0, result.stdout + result.stderr
    assert all("answer was lost" in (item["message"] or "") for item in report["items"]), report["items"][0]
    assert plan_is_clean(clean_proxy, path)


def left_to_do(proxy: FaultProxy, path: Path) -> set[str]:
    """The addresses the next plan (through the proxy, without faults) still wants to change."""
    result = cli(["plan", str(path), "--bootstrap-server", proxy.address, "--format", "json"], timeout=OUTER_S)
    assert result.returncode == 0, result.stdout + result.stderr
    return {c["address"] for c in json.loads(result.stdout)["changes"] if c["action"] != "no-op"}


def test_a_create_topics_answer_that_stalls_is_read_back_in_the_time_kept_for_it(
    behind_proxy: KafkaCluster, clean_proxy: FaultProxy, tmp_path: Path, topic_prefix: str
) -> None:
    """The CreateTopics answer stalls after 12 bytes (the 20 topics are created; the client hears nothing more), 10
    client quotas come in a later phase, ``apply --timeout 20``: the stalled request gives up early enough to read,
    so each topic is reported applied (it exists); what the time limit kept from being sent is ``not sent``, with a
    message that does not speak of a lost answer; nothing is ``failed`` that the broker did not refuse or that
    exists; the command ends within its limit."""
    quotas = "".join(
        "---\napiVersion: kafka-reconciler/v1\nkind: ClientQuota\n"
        f"metadata: {{name: q{i}}}\n"
        f"spec: {{entity: {{user: {topic_prefix}u{i}}}, values: {{producer_byte_rate: 1048576}}}}\n"
        for i in range(10)
    )
    specs = {f"{topic_prefix}{i:04d}": (1, 1, {"retention.ms": "3600000"}) for i in range(20)}
    path = write_manifests(tmp_path / "m", ownership(topic_prefix) + "\n---\n" + topic_documents(specs) + quotas)
    clean_proxy.set(cut="stall", cut_api=CREATE_TOPICS, cut_after_bytes=12, cuts_left=1)
    args = ["apply", str(path), "--auto-approve", "--format", "json", "--timeout", "20"]
    result, took = run([*args, "--bootstrap-server", clean_proxy.address], env=LONG_REQUESTS)
    report = applied_report(result)
    counts = {k: v for k, v in report["counts"].items() if v}
    print(
        f"\nCreateTopics answer stalled after 12 bytes, --timeout 20: exit {result.returncode} "
        f"after {took:.1f}s (apply part {report['duration_s']}s): {counts}"
    )
    assert clean_proxy.cuts == 1, "the proxy never stalled an answer"
    clean_proxy.set()
    exists = set(topics_state(behind_proxy, topic_prefix))
    assert exists == set(specs), "the controller carried out the creates whose answer stalled"
    items = {item["address"]: item for item in report["items"]}
    assert {items[f"topic/{name}"]["outcome"] for name in specs} == {"applied"}, report["items"][0]
    left = left_to_do(clean_proxy, path)
    for address, item in items.items():
        assert item["outcome"] in ("applied", "not sent"), item
        assert (address in left) == (item["outcome"] == "not sent"), (item, left)
        if item["outcome"] == "not sent":
            assert "lost" not in (item["message"] or ""), item
    assert result.returncode == (3 if left else 0), result.stdout + result.stderr
    assert report["duration_s"] <= 20 + 1.5, report["duration_s"]  # the apply part: what planning left, and 1.5 s
    assert took <= 20 + 2 * SLACK_S, took  # the whole command: a CLI's start-up under load 20-25 takes 5-10 s
