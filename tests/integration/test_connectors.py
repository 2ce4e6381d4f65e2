"""Connectors planned and applied against a real Kafka Connect worker (the harness's, next to a real broker).

Each test declares connectors in manifests with a Cluster profile naming the worker, plans them (one read of every
connector, the validate endpoint for changed configs), applies the plan and asserts what the worker holds
afterwards, read with plain REST calls.
"""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from unittest import mock

import pytest
from kafka import KafkaConsumer, TopicPartition

from reconciler import manifests, operations
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import ApplyReport, Outcome
from reconciler.connect import opening
from reconciler.connect import settings as connect_settings
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.render import render_json, render_text
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, FILE_SOURCE, ConnectWorker
from tests.support.connect_manifests import write_connect_manifests
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka


def write(directory: Path, worker: ConnectWorker, cluster: KafkaCluster, body: str) -> Path:
    """Manifests: a Cluster profile naming the broker and the worker, then ``body`` (dedented)."""
    return write_connect_manifests(directory, cluster, worker.url, textwrap.dedent(body))


def plan_of(directory: Path) -> tuple[plans.Plan, manifests.LoadResult, int]:
    """The plan of the manifests in ``directory`` and the REST requests its Connect read took."""
    loaded = manifests.load([directory])
    target = operations.Target(profiles=loaded.profiles)
    port = opening.port_of(target)
    assert port is not None
    with mock.patch.object(opening, "port_of", lambda _target, **_kw: port):
        p = operations.compute_plan(loaded, target=target, request=operations.PlanRequest())
    return p, loaded, port.request_count


def apply_of(cluster: KafkaCluster, loaded: manifests.LoadResult, p: plans.Plan, **kw: object) -> ApplyReport:
    profile = connect_settings.profile_for(cluster="test", profiles=loaded.profiles, explicit=False)
    assert profile is not None
    port = connect_settings.port_for(profile)
    options = ApplyOptions(deadline_s=90, ports={"connect": port}, desired=loaded.desired, **kw)  # type: ignore[arg-type]
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        return apply_plan(p, adapter, options=options)


def connector_doc(name: str, cls: str, *, state: str = "running", config: str = "", extra: str = "") -> str:
    return f"""\
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: {name}}}
spec:
  class: {cls}
  tasksMax: 1
  state: {state}
  config:
{config}{extra}"""


def test_create_update_pause_and_a_no_change_plan_of_two_requests(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}sink"
    out = tmp_path / "sink.txt"
    config = f"    topics: {topic_prefix}orders\n    file: {out}\n"
    directory = write(tmp_path / "m", connect_worker, kafka_single, connector_doc(name, FILE_SINK, config=config))
    p, loaded, _ = plan_of(directory)
    assert [(c.address, c.action) for c in p.changes] == [(Kind.CONNECTOR.address(name), plans.Action.CREATE)]
    report = apply_of(kafka_single, loaded, p)
    assert report.exit_code == 0, report.items
    assert any("Kafka Connect REST request(s) for 1 connector(s)" in note for note in report.notes), report.notes
    status = connect_worker.rest("GET", f"/connectors/{name}/status")
    assert status["connector"]["state"] == "RUNNING" and [t["state"] for t in status["tasks"]] == ["RUNNING"]
    assert connect_worker.rest("GET", f"/connectors/{name}/config")["file"] == str(out)

    again, _, requests = plan_of(directory)
    assert not again.actionable and again.unchanged.get(Kind.CONNECTOR) == 1
    assert requests == 2  # every connector and the plugin list; nothing validated

    config2 = config + "    batch.size: 7\n"
    write(directory, connect_worker, kafka_single, connector_doc(name, FILE_SINK, state="paused", config=config2))
    p, loaded, _ = plan_of(directory)
    [change] = p.actionable
    assert {a.name for a in change.attributes} == {"config.batch.size", "state"}
    report = apply_of(kafka_single, loaded, p)
    assert report.exit_code == 0, report.items
    assert connect_worker.rest("GET", f"/connectors/{name}/config")["batch.size"] == "7"
    status = connect_worker.rest("GET", f"/connectors/{name}/status")
    assert status["connector"]["state"] == "PAUSED" and [t["state"] for t in status["tasks"]] == ["PAUSED"]
    assert not plan_of(directory)[0].actionable


def test_a_validate_error_and_an_unknown_class_block_only_their_connector_at_the_manifest_line(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    good, bad, typo = f"{topic_prefix}good", f"{topic_prefix}bad", f"{topic_prefix}typo"
    docs = connector_doc(good, FILE_SOURCE, config=f"    topic: {topic_prefix}in\n    file: {tmp_path / 'in.txt'}\n")
    docs += connector_doc(bad, FILE_SINK, config=f"    topics: {topic_prefix}x\n    errors.tolerance: sometimes\n")
    docs += connector_doc(typo, "FileStreamSinkConector", config=f"    topics: {topic_prefix}x\n")
    directory = write(tmp_path / "m", connect_worker, kafka_single, docs)
    p, loaded, _ = plan_of(directory)
    actions = {c.name: c.action for c in p.changes}
    assert actions == {good: plans.Action.CREATE, bad: plans.Action.BLOCKED, typo: plans.Action.BLOCKED}
    by_code = {w.code: w for w in p.warnings if w.address}
    invalid = by_code["connector-invalid"]
    lines = (directory / "connectors.yaml").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "errors.tolerance" in text)
    assert invalid.message.startswith(f"{directory / 'connectors.yaml'}:{line}:")
    assert "errors.tolerance" in invalid.message
    unknown = by_code["connector-class-unknown"]
    assert "did you mean org.apache.kafka.connect.file.FileStreamSinkConnector?" in unknown.message
    report = apply_of(kafka_single, loaded, p)
    assert report.exit_code == 3
    assert {i.name: i.outcome for i in report.items}[good] is Outcome.APPLIED
    assert set(connect_worker.rest("GET", "/connectors")) >= {good}
    assert not {bad, typo} & set(connect_worker.rest("GET", "/connectors"))


def test_a_secret_is_compared_by_digest_and_never_shown(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = f"{topic_prefix}secret"
    secret = f"s3cr3t-{topic_prefix}one"
    monkeypatch.setenv("SINK_JAAS", secret)
    config = f"    topics: {topic_prefix}x\n    file: {tmp_path / 'o.txt'}\n"
    extra = "  secrets:\n    producer.override.sasl.jaas.config: {env: SINK_JAAS}\n"
    directory = write(
        tmp_path / "m", connect_worker, kafka_single, connector_doc(name, FILE_SINK, config=config, extra=extra)
    )
    p, loaded, _ = plan_of(directory)
    for text in (render_text(p, color=False), render_json(p)):
        assert secret not in text
    assert apply_of(kafka_single, loaded, p).exit_code == 0
    held = connect_worker.rest("GET", f"/connectors/{name}/config")["producer.override.sasl.jaas.config"]
    assert held == secret
    assert not plan_of(directory)[0].actionable  # the same digest: no change

    monkeypatch.setenv("SINK_JAAS", secret + "-two")
    p, loaded, _ = plan_of(directory)
    [change] = p.actionable
    [attr] = change.attributes
    assert attr.sensitive and attr.before == attr.after == plans.REDACTED
    assert secret not in render_json(p) and secret not in json.dumps(render_text(p, color=False))
    assert apply_of(kafka_single, loaded, p).exit_code == 0
    assert (
        connect_worker.rest("GET", f"/connectors/{name}/config")["producer.override.sasl.jaas.config"]
        == secret + "-two"
    )


def test_a_task_that_fails_after_start_is_reported_failed_exit_3(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}broken"
    config = f"    topics: {topic_prefix}x\n    file: /nonexistent-{topic_prefix}/out.txt\n"
    directory = write(tmp_path / "m", connect_worker, kafka_single, connector_doc(name, FILE_SINK, config=config))
    p, loaded, _ = plan_of(directory)
    began = time.monotonic()
    report = apply_of(kafka_single, loaded, p)
    assert report.exit_code == 3
    [item] = report.items
    assert item.outcome is Outcome.FAILED and "task 0 FAILED" in (item.message or "")
    assert time.monotonic() - began < 90
    again, _, _ = plan_of(directory)
    [restart] = again.actionable  # declared running, FAILED: drift, planned as a restart of what failed
    assert restart.address == Kind.CONNECTOR.address(name)
    assert [(a.name, (a.before or "").startswith("task 0 FAILED: ")) for a in restart.attributes] == [("restart", True)]


def test_a_config_change_that_fails_the_restarted_task_is_reported_failed_not_the_old_tasks_state(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}moved"
    good = f"    topics: {topic_prefix}x\n    file: {tmp_path / 'out.txt'}\n"
    directory = write(tmp_path / "m", connect_worker, kafka_single, connector_doc(name, FILE_SINK, config=good))
    p, loaded, _ = plan_of(directory)
    assert apply_of(kafka_single, loaded, p).exit_code == 0
    missing = f"/nonexistent-{topic_prefix}/out.txt"
    bad = f"    topics: {topic_prefix}x\n    file: {missing}\n"
    write(directory, connect_worker, kafka_single, connector_doc(name, FILE_SINK, config=bad))
    p, loaded, _ = plan_of(directory)
    assert [a.name for a in p.actionable[0].attributes] == ["config.file"]
    report = apply_of(kafka_single, loaded, p)
    assert report.exit_code == 3, report.items
    [item] = report.items
    assert item.outcome is Outcome.FAILED, item
    message = item.message or ""
    assert message.startswith("task 0 FAILED after the write: ") and missing in message, message
    assert "\n" not in message  # the trace's first line only
    status = connect_worker.rest("GET", f"/connectors/{name}/status")
    assert [t["state"] for t in status["tasks"]] == ["FAILED"]


def test_undeclared_connectors_are_deleted_only_where_ownership_allows(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    owned, other = f"{topic_prefix}owned", f"{topic_prefix}other"
    for n in (owned, other):
        body = {"connector.class": FILE_SINK, "topics": f"{topic_prefix}x", "file": str(tmp_path / f"{n}.txt")}
        connect_worker.rest("PUT", f"/connectors/{n}/config", body)
    # Connect leaves a connector out of GET /connectors?expand=status until its first status is written (a
    # NotFoundException it skips): the plan below would not see a connector created a moment ago.
    eventually(
        lambda: {owned, other} <= set(connect_worker.rest("GET", "/connectors?expand=status")),
        what="both connectors listed with a status",
    )
    ownership = f"""\
---
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {{name: o}}
spec:
  connectors: [{{name: {owned}}}]
  managedKinds: [connector]
  delete: {{connector: DELETE}}
"""
    directory = write(tmp_path / "m", connect_worker, kafka_single, ownership.replace("DELETE", "false"))
    p, _, _ = plan_of(directory)
    assert not p.actionable and [u.name for u in p.unmanaged] == [owned]
    write(directory, connect_worker, kafka_single, ownership.replace("DELETE", "true"))
    p, loaded, _ = plan_of(directory)
    [change] = p.actionable
    assert change.action is plans.Action.DELETE and change.name == owned
    assert any("resumes from them" in r for r in change.reasons)
    assert apply_of(kafka_single, loaded, p).exit_code == 0
    eventually(lambda: owned not in connect_worker.rest("GET", "/connectors"), what="the owned connector deleted")
    assert other in connect_worker.rest("GET", "/connectors")


def test_import_writes_connectors_that_plan_with_no_change(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    from reconciler import ports
    from reconciler.adopt import from_live
    from reconciler.model import state

    names = [f"{topic_prefix}imp-{i}" for i in range(3)]
    for i, n in enumerate(names):
        body = {
            "connector.class": FILE_SINK,
            "tasks.max": "1",
            "topics": f"{topic_prefix}x",
            "file": str(tmp_path / n),
            "batch.size": str(i + 1),
            "errors.tolerance": "all",
        }
        if i == 2:
            del body["tasks.max"]  # Connect runs it with one task: the import's tasksMax: 1 is no change
        connect_worker.rest("PUT", f"/connectors/{n}/config", body)
    connect_worker.rest("PUT", f"/connectors/{names[0]}/pause")
    eventually(
        lambda: connect_worker.rest("GET", f"/connectors/{names[0]}/status")["connector"]["state"] == "PAUSED",
        what="the paused connector",
    )
    target = operations.Target(profiles={})
    with mock.patch.dict("os.environ", {"KAFKA_CONNECT_URL": connect_worker.url}):
        live = ports.with_every(state.ClusterState(cluster_id=None, controller_id=None, brokers=()), target)
    report = from_live.adopt_cluster(live, out_dir=tmp_path / "imported", force=False)
    assert report.counts["connectors"] >= 3
    write(tmp_path / "profile", connect_worker, kafka_single, "")
    (tmp_path / "profile" / "connectors.yaml").unlink()
    loaded = manifests.load([tmp_path / "imported", tmp_path / "profile"])
    assert loaded.desired.connectors[names[0]].state == "paused"
    target = operations.Target(profiles=loaded.profiles)
    p = operations.compute_plan(loaded, target=target, request=operations.PlanRequest())
    mine = [c.address for c in p.changes if c.kind is Kind.CONNECTOR and c.name in names]
    assert not mine and p.unchanged.get(Kind.CONNECTOR, 0) >= 3, mine


def records_of(cluster: KafkaCluster, topic: str) -> list[str]:
    """Every record value of partition 0 of ``topic``, from the start (the FileStream source's lines, JSON)."""
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap, enable_auto_commit=False, **cluster.client_kwargs())
    try:
        partition = TopicPartition(topic, 0)
        consumer.assign([partition])
        consumer.seek_to_beginning(partition)
        end = consumer.end_offsets([partition])[partition]
        out: list[str] = []
        deadline = time.monotonic() + 30
        while consumer.position(partition) < end and time.monotonic() < deadline:
            for batch in consumer.poll(timeout_ms=1000).values():
                out.extend(json.loads(r.value) for r in batch)
        return out
    finally:
        consumer.close()


def test_a_recreated_source_resumes_from_its_kept_offsets_and_a_declared_reset_reads_its_file_again(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name, topic, source = f"{topic_prefix}src", f"{topic_prefix}lines", tmp_path / "in.txt"
    lines = [f"line-{i}" for i in range(1, 6)]
    source.write_text("".join(f"{line}\n" for line in lines))
    head = f"""\
---
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {{name: {topic}}}
spec: {{partitions: 1, replicationFactor: 1}}
---
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {{name: o}}
spec:
  connectors: [{{name: {name}}}]
  managedKinds: [connector]
  delete: {{connector: true}}
"""

    def converge(*, declared: bool, reset: bool = False) -> tuple[plans.Plan, ApplyReport]:
        extra = "  resetOffsetsOnCreate: true\n" if reset else ""
        doc = connector_doc(name, FILE_SOURCE, config=f"    topic: {topic}\n    file: {source}\n", extra=extra)
        p, loaded, _ = plan_of(write(tmp_path / "m", connect_worker, kafka_single, head + (doc if declared else "")))
        report = apply_of(kafka_single, loaded, p)
        assert report.exit_code == 0, report.to_json()
        return p, report

    def offsets_flushed(count: int) -> bool:  # the source's position (bytes read) is in Connect's offsets topic
        found = connect_worker.rest("GET", f"/connectors/{name}/offsets")["offsets"]
        return [o["offset"].get("position") for o in found] == [sum(len(f"line-{i}\n") for i in range(1, count + 1))]

    def topic_holds(count: int) -> list[str]:
        return eventually(
            lambda: found if len(found := records_of(kafka_single, topic)) >= count else None,
            what=f"{count} records in {topic}",
            timeout=60,
        )

    converge(declared=True)
    assert topic_holds(5) == lines
    eventually(lambda: offsets_flushed(5) or None, what="the source's offsets committed", timeout=60)
    deleted, _ = converge(declared=False)
    [delete] = deleted.actionable
    assert delete.action is plans.Action.DELETE
    shown = json.dumps({"filename": str(source)}) + ' -> {"position": 35}'  # the 5 lines: what a re-create skips
    assert f"offsets Connect keeps for it (1 partition(s), partition -> offset): {shown}" in delete.reasons
    eventually(lambda: name not in connect_worker.rest("GET", "/connectors") or None, what="the connector deleted")

    recreated, _ = converge(declared=True)  # no reset: it resumes after line-5, the file is not read again
    [create] = recreated.actionable
    assert any("resumes from them" in r for r in create.reasons), create.reasons
    with source.open("a") as out:
        out.write("line-6\n")
    lines.append("line-6")
    assert topic_holds(6) == lines  # line-6 only: lines 1-5 were not read again
    eventually(lambda: offsets_flushed(6) or None, what="the source's offsets committed", timeout=60)
    converge(declared=False)
    eventually(lambda: name not in connect_worker.rest("GET", "/connectors") or None, what="the connector deleted")

    reset, report = converge(declared=True, reset=True)  # the declared reset: the whole file is read again
    [create] = reset.actionable
    [note] = [r for r in create.reasons if r.startswith("resetOffsetsOnCreate")]
    assert f"the source offsets Connect kept under the name {name} are deleted" in note
    assert "reads its input again from the start" in note and json.dumps(note) in render_json(reset)
    assert [i.message for i in report.items if i.name == name] == ["created stopped, offsets reset, then running"]
    assert topic_holds(12) == lines + lines
    eventually(lambda: offsets_flushed(6) or None, what="the re-read committed", timeout=60)


def test_declared_offsets_stop_alter_and_resume_a_source_once_and_a_config_change_does_not(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name, topic, source = f"{topic_prefix}pos", f"{topic_prefix}lines", tmp_path / "in.txt"
    lines = [f"line-{i}" for i in range(1, 6)]
    source.write_text("".join(f"{line}\n" for line in lines))
    head = f"""\
---
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {{name: {topic}}}
spec: {{partitions: 1, replicationFactor: 1}}
"""
    three = sum(len(f"line-{i}\n") for i in range(1, 4))  # after line-3: a re-read from there gives lines 4 and 5

    def converge(*, offsets: bool, batch: int = 100) -> tuple[plans.Plan, ApplyReport]:
        extra = (
            f"  offsets:\n    - partition: {{filename: {source}}}\n      offset: {{position: {three}}}\n"
            if offsets
            else ""
        )
        config = f"    topic: {topic}\n    file: {source}\n    batch.size: {batch}\n"
        doc = connector_doc(name, FILE_SOURCE, config=config, extra=extra)
        p, loaded, _ = plan_of(write(tmp_path / "m", connect_worker, kafka_single, head + doc))
        report = apply_of(kafka_single, loaded, p)
        assert report.exit_code == 0, report.to_json()
        return p, report

    def position() -> object:
        found = connect_worker.rest("GET", f"/connectors/{name}/offsets")["offsets"]
        return found[0]["offset"].get("position") if found else None

    def topic_holds(count: int) -> list[str]:
        return eventually(
            lambda: found if len(found := records_of(kafka_single, topic)) >= count else None,
            what=f"{count} records in {topic}",
            timeout=60,
        )

    converge(offsets=False)
    assert topic_holds(5) == lines
    eventually(lambda: position() == sum(len(f"{x}\n") for x in lines) or None, what="offsets committed", timeout=60)

    altered, report = converge(offsets=True)
    [change] = altered.actionable
    shown = {a.name: (a.before, a.after) for a in change.attributes}
    partition = json.dumps({"filename": str(source)})
    assert shown["offsets"] == (f'{partition} -> {{"position": 35}}', f'{partition} -> {{"position": {three}}}')
    [message] = [i.message for i in report.items if i.name == name]
    assert message is not None and message.startswith("running -> stopped, offsets set (1 partition(s))"), message
    assert topic_holds(7) == lines + lines[3:]  # lines 4 and 5 read again from the declared position
    eventually(lambda: position() == 35 or None, what="the source past its file again", timeout=60)

    again, _ = converge(offsets=True)  # the connector moved on: the same declaration is not applied again
    assert not again.actionable
    changed, _ = converge(offsets=True, batch=50)  # a config change does not set the offsets again
    [change] = changed.actionable
    assert "offsets" not in {a.name for a in change.attributes}
    assert records_of(kafka_single, topic) == lines + lines[3:]
