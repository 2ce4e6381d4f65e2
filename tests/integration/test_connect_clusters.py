"""Several Kafka Connect clusters on one Kafka cluster, against two real distributed worker groups.

The session's shared worker and this module's own worker (its own group.id and storage topics, on the same broker)
are two Connect clusters of one Cluster profile (``connect: {clusters: {shared: ..., own: ...}}``). Connectors of
the same name on both are two connectors; a snapshot keeps a section per cluster and an import of it plans with no
change; with one worker stopped the other's connectors are still planned and applied and the exit code says that
some were not (the stop is the module's last test: the worker is this module's own).
"""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from reconciler import manifests, operations, planner, ports
from reconciler.adopt import from_live
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import ApplyReport, Outcome
from reconciler.connect import opening
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kinds.connector import evidence
from reconciler.model import connect_snapshot, plans, state
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, ConnectWorker

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def other_worker(private_connect_worker: ConnectWorker) -> ConnectWorker:
    """The second Connect cluster: this module's own worker group (stopped by the module's last test)."""
    return private_connect_worker


def write(directory: Path, cluster: KafkaCluster, urls: dict[str, str], body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    listed = "".join(f"      {name}: {{urls: ['{url}']}}\n" for name, url in urls.items())
    profile = f"""\
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {{name: test}}
spec:
  bootstrapServers: ["{cluster.bootstrap}"]
  connect:
    clusters:
{listed}"""
    (directory / "cluster.yaml").write_text(profile)
    (directory / "connectors.yaml").write_text(textwrap.dedent(body))
    return directory


def sink(name: str, cluster: str, topic: str, out: Path) -> str:
    return f"""\
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: {name}}}
spec:
  connectCluster: {cluster}
  class: {FILE_SINK}
  config: {{topics: {topic}, file: {out}}}
"""


def plan_of(directory: Path) -> tuple[plans.Plan, manifests.LoadResult, operations.Target]:
    loaded = manifests.load([directory])
    target = operations.Target(profiles=loaded.profiles)
    loaded = ports.placed_load(loaded, target)
    return operations.compute_plan(loaded, target=target, request=operations.PlanRequest()), loaded, target


def apply_of(
    cluster: KafkaCluster, loaded: manifests.LoadResult, target: operations.Target, p: plans.Plan
) -> ApplyReport:
    written = {c.name.partition("/")[0] for c in p.actionable if c.kind is Kind.CONNECTOR}
    port = opening.port_of(target, only=written)
    options = ApplyOptions(deadline_s=120, ports={"connect": port}, desired=loaded.desired)
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        return apply_plan(p, adapter, options=options)


def test_the_same_name_on_two_clusters_is_two_connectors_and_a_snapshot_imports_with_no_change(
    connect_worker: ConnectWorker,
    other_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
) -> None:
    urls = {"shared": connect_worker.url, "own": other_worker.url}
    name = f"{topic_prefix}mirror"
    body = sink(name, "shared", f"{topic_prefix}a", tmp_path / "a.txt")
    body += sink(name, "own", f"{topic_prefix}b", tmp_path / "b.txt")
    directory = write(tmp_path / "m", kafka_single, urls, body)
    p, loaded, target = plan_of(directory)
    assert sorted((c.address, c.action) for c in p.changes) == [
        (f"connector/own/{name}", plans.Action.CREATE),
        (f"connector/shared/{name}", plans.Action.CREATE),
    ]
    report = apply_of(kafka_single, loaded, target, p)
    assert report.exit_code == 0, report.items
    assert connect_worker.rest("GET", f"/connectors/{name}/config")["file"] == str(tmp_path / "a.txt")
    assert other_worker.rest("GET", f"/connectors/{name}/config")["file"] == str(tmp_path / "b.txt")
    again, _, _ = plan_of(directory)
    assert not again.actionable and again.unchanged.get(Kind.CONNECTOR) == 2

    # snapshot (a section per Connect cluster) -> import -> plan against the snapshot: no change
    bare = state.ClusterState(cluster_id=None, controller_id=None, brokers=())
    live = ports.with_every(bare, target)
    assert live.connect is not None and not live.connect.unreachable
    section = connect_snapshot.to_dict(live.connect)
    assert name in section["clusters"]["shared"]["connectors"] and name in section["clusters"]["own"]["connectors"]
    live = dataclasses.replace(bare, connect=connect_snapshot.from_dict(section))
    from_live.adopt_cluster(live, out_dir=tmp_path / "imported", force=False)
    imported = (tmp_path / "imported" / "connectors.yaml").read_text()
    assert "connectCluster: own" in imported and "connectCluster: shared" in imported
    (tmp_path / "imported" / "cluster.yaml").write_text((directory / "cluster.yaml").read_text())
    wanted = ports.placed_load(manifests.load([tmp_path / "imported"]), target).desired
    mine = {k: c for k, c in wanted.connectors.items() if k.endswith(f"/{name}")}
    assert sorted(mine) == [f"own/{name}", f"shared/{name}"]
    again = planner.plan(dataclasses.replace(wanted, connectors=mine), evidence.offline(live, wanted))
    assert not [c for c in again.changes if c.name in mine], [c.address for c in again.changes]


def test_one_cluster_stopped_the_other_is_still_planned_and_applied(
    connect_worker: ConnectWorker,
    other_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
) -> None:
    urls = {"shared": connect_worker.url, "own": other_worker.url}
    up, down = f"{topic_prefix}up", f"{topic_prefix}down"
    body = sink(up, "shared", f"{topic_prefix}a", tmp_path / "a.txt") + sink(
        down, "own", f"{topic_prefix}b", tmp_path / "b.txt"
    )
    directory = write(tmp_path / "m", kafka_single, urls, body)
    other_worker.close()  # this module's own worker: the module's last test
    p, loaded, target = plan_of(directory)
    actions = {c.address: c.action for c in p.changes}
    assert actions == {f"connector/shared/{up}": plans.Action.CREATE, f"connector/own/{down}": plans.Action.BLOCKED}
    assert any(w.code == "connect-cluster-unreachable" and "own" in w.message for w in p.warnings)
    report = apply_of(kafka_single, loaded, target, p)
    assert report.exit_code == 3  # applied in part: the blocked connector was wanted and is not there
    outcomes = {i.address: i.outcome for i in report.items}
    assert outcomes == {f"connector/shared/{up}": Outcome.APPLIED, f"connector/own/{down}": Outcome.BLOCKED}
    status = connect_worker.rest("GET", f"/connectors/{up}/status")
    assert status["connector"]["state"] == "RUNNING" and [t["state"] for t in status["tasks"]] == ["RUNNING"]
