"""Several Kafka Connect clusters per Kafka cluster, pure: the profile's clusters, a connector placed on its cluster
(errors at the manifest's line), keys ``<cluster>/<name>``, one read per cluster with a cluster down degrading only
its connectors, writes sent to the connector's cluster, and snapshot sections per cluster.

The Connect clusters are the shared in-memory worker (``tests.support.connect_fake``), so the real
``RestConnectPort`` and ``MultiConnectPort`` code runs over them.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from reconciler import manifests
from reconciler.apply import decoded
from reconciler.base import errors
from reconciler.connect import settings
from reconciler.connect.http import ConnectError
from reconciler.connect.multi import MultiConnectPort
from reconciler.connect.port import RestConnectPort
from reconciler.kinds.connector import evidence
from reconciler.kinds.connector import writes as connector_writes
from reconciler.model import connect_clusters, connect_snapshot, payloads, plans
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from reconciler.snapshot import files
from tests.support.connect_fake import FakeConnectWorker

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


class Reachable(FakeConnectWorker):
    """The shared in-memory worker, which can be taken down: while ``down`` no request reaches it."""

    def __init__(self, url: str, plugins: tuple[str, ...] = (SINK, SOURCE)) -> None:
        super().__init__(plugins=plugins)
        self.urls = (url,)
        self.down = False

    def exchange(self, method: str, path: str, body: Any = None, *, deadline: float) -> tuple[int, Any]:
        assert deadline > time.monotonic()
        if self.down:
            raise ConnectError(f"{method} {path}: no Kafka Connect worker answered at {self.urls[0]}", sent=False)
        return super().exchange(method, path, body, deadline=deadline)

    def hold(self, name: str, config: dict[str, str]) -> None:
        """A connector created on this worker directly (as another tool would)."""
        status, _ = super().exchange("POST", "/connectors", {"name": name, "config": config}, deadline=LATER())
        assert status == 201

    def writes(self) -> list[tuple[str, str, Any]]:
        return [(r.method, r.path, r.body) for r in self.sent if r.method != "GET"]


def LATER() -> float:
    return time.monotonic() + 5


def sink(name: str, *, file: str = "/data/out.txt", cluster: str | None = None) -> d.DesiredConnector:
    config = {"connector.class": SINK, "tasks.max": "1", "topics": "orders", "file": file}
    return d.DesiredConnector(name=name, config=config, cluster=cluster, source=d.Source("c.yaml", 3, 1))


def two_clusters() -> tuple[Reachable, Reachable, MultiConnectPort]:
    sources, sinks = Reachable("http://sources:8083"), Reachable("http://sinks:8083", plugins=(SINK,))
    port = MultiConnectPort(
        {"sources": RestConnectPort(sources, cluster="sources"), "sinks": RestConnectPort(sinks, cluster="sinks")}
    )
    return sources, sinks, port


def plan_over(wanted: d.DesiredState, connect: s.ConnectState) -> plans.Plan:
    return plan(wanted, s.ClusterState(cluster_id="c", controller_id=1, brokers=(), connect=connect))


# ---------------------------------------------------------------------------------------------- profile
def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.yaml"
    path.write_text(text)
    return path


CLUSTER = textwrap.dedent("""\
    apiVersion: kafka-reconciler/v1
    kind: Cluster
    metadata: {name: prod}
    spec:
      bootstrapServers: [k:9092]
    """)


def test_the_single_form_is_the_cluster_named_default(tmp_path: Path) -> None:
    loaded = manifests.load([write(tmp_path, CLUSTER + "  connect: {urls: ['http://c:8083']}\n")])
    assert list(loaded.profiles["prod"].connect_clusters) == [connect_clusters.DEFAULT]
    assert loaded.profiles["prod"].connect_clusters["default"].urls == ("http://c:8083",)


def test_several_clusters_by_name(tmp_path: Path) -> None:
    text = CLUSTER + textwrap.indent(
        textwrap.dedent("""\
        connect:
          clusters:
            sources: {urls: ['http://a:8083']}
            sinks: {urls: ['https://b:8083'], username: u, passwordFrom: {env: SINKS_PASSWORD}}
        """),
        "  ",
    )
    found = manifests.load([write(tmp_path, text)]).profiles["prod"].connect_clusters
    assert list(found) == ["sources", "sinks"]
    assert found["sinks"].urls == ("https://b:8083",) and found["sinks"].username == "u"
    assert found["sinks"].password == d.SecretRef(env="SINKS_PASSWORD")


@pytest.mark.parametrize(
    ("connect", "expected"),
    [
        ("  connect: {urls: ['http://a:8083'], clusters: {x: {urls: ['http://b:8083']}}}\n", "or clusters"),
        ("  connect: {username: u}\n", "give urls (one Connect cluster) or clusters"),
        ("  connect: {clusters: {'a/b': {urls: ['http://b:8083']}}}\n", "a/b"),
    ],
)
def test_a_connect_section_of_neither_or_both_forms_is_an_error_at_its_line(
    tmp_path: Path, connect: str, expected: str
) -> None:
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([write(tmp_path, CLUSTER + connect)])
    found = [x for x in failed.value.diagnostics if expected in x.message]
    assert found and found[0].file is not None and found[0].file.endswith("m.yaml") and found[0].line == 6


def test_kafka_connect_url_is_the_default_cluster() -> None:
    found = settings.profiles_for(
        cluster=None, profiles={}, explicit=False, environ={"KAFKA_CONNECT_URL": "http://e:1"}
    )
    assert list(found) == ["default"] and found["default"].urls == ("http://e:1",)


# -------------------------------------------------------------------------------------------- placement
CONNECTOR = """\
    ---
    apiVersion: kafka-reconciler/v1
    kind: Connector
    metadata: {{name: {name}}}
    spec:
      class: {cls}
      config: {{topics: orders, file: /data/{name}.txt}}
    {extra}"""


def connector_text(name: str, cluster: str | None = None) -> str:
    extra = f"  connectCluster: {cluster}\n" if cluster else ""
    return textwrap.dedent(CONNECTOR.format(name=name, cls=SINK, extra=extra))


def test_the_same_name_on_two_clusters_is_two_connectors(tmp_path: Path) -> None:
    text = connector_text("mirror", "sources") + connector_text("mirror", "sinks")
    loaded = manifests.load([write(tmp_path, text)])
    placed = connect_clusters.place(loaded.desired, ("sources", "sinks"))
    assert sorted(placed.connectors) == ["sinks/mirror", "sources/mirror"]
    assert placed.connectors["sinks/mirror"].config["file"] == "/data/mirror.txt"


def test_the_same_name_twice_on_one_cluster_is_an_error_at_the_second(tmp_path: Path) -> None:
    text = connector_text("mirror", "sinks") + connector_text("mirror", "sinks")
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([write(tmp_path, text)])
    assert any("declared twice" in x.message and x.line == 12 for x in failed.value.diagnostics)


def test_an_unknown_cluster_is_an_error_at_connect_cluster_listing_the_names(tmp_path: Path) -> None:
    loaded = manifests.load([write(tmp_path, connector_text("mirror", "sinkz"))])
    with pytest.raises(errors.ValidationFailed) as failed:
        connect_clusters.place(loaded.desired, ("sources", "sinks"))
    (problem,) = failed.value.diagnostics
    assert "'sinkz' is not in the Cluster profile (its Connect clusters: sinks, sources)" in problem.message
    assert (problem.file, problem.line, problem.column) == (str(tmp_path / "m.yaml"), 8, 19)


def test_no_cluster_named_with_several_is_an_error_listing_them(tmp_path: Path) -> None:
    loaded = manifests.load([write(tmp_path, connector_text("mirror"))])
    with pytest.raises(errors.ValidationFailed) as failed:
        connect_clusters.place(loaded.desired, ("sources", "sinks"))
    (problem,) = failed.value.diagnostics
    assert "set connectCluster to one of sinks, sources" in problem.message
    assert (problem.line, problem.column) == (2, 1)


def test_with_one_cluster_the_key_is_the_name_whether_named_or_not(tmp_path: Path) -> None:
    loaded = manifests.load([write(tmp_path, connector_text("a", "default") + connector_text("b"))])
    placed = connect_clusters.place(loaded.desired, ("default",))
    assert sorted(placed.connectors) == ["a", "b"]
    assert connect_clusters.place(placed, ("default",)) == placed  # placing again changes nothing
    with pytest.raises(errors.ValidationFailed):
        connect_clusters.place(loaded.desired, ("sinks",))  # 'default' is not this profile's cluster


# ------------------------------------------------------------------------------------------ read, plan
def test_one_read_per_cluster_keys_each_connector_by_its_cluster() -> None:
    sources, sinks, port = two_clusters()
    sources.hold("mirror", {"connector.class": SOURCE, "tasks.max": "1", "file": "/a"})
    sinks.hold("mirror", {"connector.class": SINK, "tasks.max": "1", "topics": "t", "file": "/b"})
    before = (sources.request_count, sinks.request_count)
    found = port.read(deadline=time.monotonic() + 5)
    assert sorted(found.connectors) == ["sinks/mirror", "sources/mirror"]
    assert found.connectors["sinks/mirror"].config["file"] == "/b"
    assert found.clusters["sinks"].plugins == (SINK,) and found.clusters["sources"].plugins == (SINK, SOURCE)
    assert (sources.request_count - before[0], sinks.request_count - before[1]) == (2, 2)


def test_a_cluster_down_degrades_only_its_connectors() -> None:
    sources, sinks, port = two_clusters()
    sources.down = True
    found = port.read(deadline=time.monotonic() + 5)
    assert list(found.unreachable) == ["sources"] and "no Kafka Connect worker answered" in found.unreachable["sources"]
    wanted = d.DesiredState(
        connectors={c.name: c for c in (sink("sources/a"), sink("sinks/b"))},
        ownership=d.Ownership(managed_kinds=frozenset({Kind.CONNECTOR}), connectors=(d.NamePattern("prefix", ""),)),
    )
    p = plan_over(wanted, found)
    actions = {c.name: c.action for c in p.changes}
    assert actions == {"sources/a": plans.Action.BLOCKED, "sinks/b": plans.Action.CREATE}
    assert [c.address for c in p.changes if c.action is plans.Action.CREATE] == ["connector/sinks/b"]
    assert any(w.code == "connect-cluster-unreachable" and w.severity == "warning" for w in p.warnings)
    sinks.down = True
    with pytest.raises(ConnectError):  # nothing read: as for one cluster
        port.read(deadline=time.monotonic() + 5)


def test_plugins_are_checked_per_cluster() -> None:
    _, _, port = two_clusters()
    found = port.read(deadline=time.monotonic() + 5)
    source_on = d.DesiredConnector(
        name="sinks/in", config={"connector.class": SOURCE, "tasks.max": "1", "file": "/in"}, cluster="sinks"
    )
    ok = d.DesiredConnector(name="sources/in", config=dict(source_on.config), cluster="sources")
    p = plan_over(d.DesiredState(connectors={c.name: c for c in (source_on, ok)}), found)
    errors_at = [(w.address, w.message) for w in p.warnings if w.code == "connector-class-unknown"]
    assert [a for a, _ in errors_at] == ["connector/sinks/in"]
    assert (
        f"connector class {SOURCE!r} is not installed on the workers of Kafka Connect cluster sinks" in errors_at[0][1]
    )
    assert {c.name: c.action for c in p.changes} == {
        "sinks/in": plans.Action.BLOCKED,
        "sources/in": plans.Action.CREATE,
    }
    versioned = d.DesiredConnector(name="sinks/v", config={**sink("sinks/v").config, "connector.plugin.version": "9.9"})
    [missing] = [w.message for w in plan_over(d.DesiredState(connectors={"sinks/v": versioned}), found).warnings]
    assert missing == (
        f"version 9.9 of connector class {SINK} is not installed on the workers of Kafka Connect cluster sinks "
        "(they have: 4.3.1)"
    )


def test_a_write_goes_to_its_connectors_cluster_under_its_connect_name() -> None:
    sources, sinks, port = two_clusters()
    config = {"connector.class": SINK, "tasks.max": "1", "topics": "t", "file": "/b"}
    port.create("sinks/mirror", config, initial_state="running", deadline=time.monotonic() + 5)
    assert list(sinks.connectors) == ["mirror"] and sinks.connectors["mirror"].config == config
    assert sources.connectors == {} and sources.request_count == 0
    assert [(m, p, b["name"]) for m, p, b in sinks.writes()] == [("POST", "/connectors", "mirror")]
    port.put_config("sinks/mirror", {**config, "file": "/c"}, deadline=time.monotonic() + 5)
    assert sinks.writes()[-1][:2] == ("PUT", "/connectors/mirror/config")
    assert sinks.connectors["mirror"].config["file"] == "/c"


def test_ownership_rules_match_the_name_or_the_cluster() -> None:
    rules = d.Ownership(connectors=(d.NamePattern("prefix", "sinks/"),))
    assert rules.owns_connector("sinks/x") and not rules.owns_connector("sources/x")
    assert d.Ownership(connectors=(d.NamePattern("prefix", "app-"),)).owns_connector("sinks/app-1")


# ----------------------------------------------------------------------------------------------- snapshot
def test_a_snapshot_holds_a_section_per_cluster_and_reads_back_the_same() -> None:
    sources, sinks, port = two_clusters()
    sinks.hold("mirror", {"connector.class": SINK, "tasks.max": "1", "topics": "t", "file": "/b"})
    sources.down = True
    found = port.read(deadline=time.monotonic() + 5)
    section = json.loads(json.dumps(connect_snapshot.to_dict(found)))
    assert sorted(section["clusters"]) == ["sinks"] and list(section["clusters"]["sinks"]["connectors"]) == ["mirror"]
    assert section["unreachable"] == {"sources": found.unreachable["sources"]}
    assert connect_snapshot.from_dict(section) == found
    with pytest.raises(ValueError, match="at least two"):
        connect_snapshot.from_dict({"clusters": section["clusters"]})  # one cluster's section alone is not keyed
    sources.down = False
    found = port.read(deadline=time.monotonic() + 5)
    back = connect_snapshot.from_dict(json.loads(json.dumps(connect_snapshot.to_dict(found))))
    assert back == found


def test_a_snapshot_of_one_cluster_reads_as_before(tmp_path: Path) -> None:
    one = s.ConnectState(
        url="http://c:8083",
        connectors={"a": s.ConnectorState("a", {"connector.class": SINK}, "RUNNING")},
        plugins=(SINK,),
    )
    section = connect_snapshot.to_dict(one)
    assert "clusters" not in section and list(section["connectors"]) == ["a"]
    assert connect_snapshot.from_dict(section) == one
    live = s.ClusterState(cluster_id="c", controller_id=1, brokers=(), connect=one)
    path = tmp_path / "snap.json"
    files.write_snapshot(live, path)
    assert files.read_snapshot(path).connect == one


def test_a_plan_read_validates_nothing_on_a_cluster_down() -> None:
    sources, sinks, port = two_clusters()
    sources.down = True
    wanted = d.DesiredState(connectors={c.name: c for c in (sink("sources/a"), sink("sinks/b"))})
    found = evidence.read_for_plan(port, wanted, deadline=time.monotonic() + 5)
    assert list(found.unreachable) == ["sources"]
    validated = [r.body for r in sinks.sent if r.path.endswith("/config/validate")]
    assert [body["name"] for body in validated] == ["b"]


@pytest.mark.parametrize(
    ("key", "expected"),
    [("sin ks/mirror", "not a Kafka Connect cluster name"), ("sinks/mi%rror", "answers 400"), ("a/b/c", "answers 400")],
)
def test_a_plan_file_key_is_checked_as_strictly_as_the_manifest(key: str, expected: str) -> None:
    after = payloads.ConnectorPayload({"connector.class": SINK, "tasks.max": "1"}, "running", {})
    change = plans.Change(
        address=Kind.CONNECTOR.address(key),
        kind=Kind.CONNECTOR,
        name=key,
        action=plans.Action.CREATE,
        phase=plans.Phase.CONNECTOR,
        after=after,
    )
    with pytest.raises(decoded.CannotDecode, match=expected):
        connector_writes.write(change)
    ok = dataclasses.replace(change, address=Kind.CONNECTOR.address("sinks/mirror"), name="sinks/mirror")
    assert connector_writes.write(ok).name == "sinks/mirror"


def test_the_example_places_each_connector_on_its_cluster() -> None:
    loaded = manifests.load([Path(__file__).resolve().parents[2] / "examples" / "connect-clusters"], env={})
    assert list(loaded.profiles["local"].connect_clusters) == ["sources", "sinks"]
    placed = connect_clusters.place(loaded.desired, tuple(loaded.profiles["local"].connect_clusters))
    assert sorted(placed.connectors) == ["sinks/demo-lines-out", "sources/demo-lines-in"]


def test_validate_checks_connect_cluster_against_the_profile(tmp_path: Path) -> None:
    from reconciler.manifests import check

    profile = CLUSTER + "  connect: {clusters: {sources: {urls: ['http://a:1']}, sinks: {urls: ['http://b:1']}}}\n"
    path = write(tmp_path, profile + connector_text("mirror", "sinkz"))
    result = check.validate([path])
    assert result.failed
    [problem] = [x for x in result.diagnostics if "sinkz" in x.message]
    assert "its Connect clusters: sinks, sources" in problem.message and problem.line == 14
    path.write_text(profile + connector_text("mirror", "sinks"))
    assert not check.validate([path]).failed


# ------------------------------------------------------------------------------------------------- fleet
def test_fleet_plans_several_connect_clusters_as_plan_does_from_the_same_snapshot(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from reconciler.cli import app
    from reconciler.fleet import engines, load_fleet, run_fleet_plan, sources

    manifests_dir = tmp_path / "manifests"
    manifests_dir.mkdir()
    profile = CLUSTER + "  connect: {clusters: {sources: {urls: ['http://a:1']}, sinks: {urls: ['http://b:1']}}}\n"
    body = connector_text("mirror", "sinks") + connector_text("mirror", "sources") + connector_text("new", "sinks")
    (manifests_dir / "m.yaml").write_text(profile + body)
    sources_worker, sinks_worker, port = two_clusters()
    sinks_worker.hold("mirror", {"connector.class": SINK, "tasks.max": "1", "topics": "old", "file": "/x"})
    sources_worker.down = True  # read as a plan reads it: the sources cluster unreachable
    connect = port.read(deadline=time.monotonic() + 5)
    live = s.ClusterState("c-eu", 1, (s.Broker(1, "b1", 9092),), topics={}, connect=connect)
    files.write_snapshot(live, tmp_path / "eu.json")
    sources.write_parquet_snapshot(live, tmp_path / "us.parquet")
    (tmp_path / "fleet.yaml").write_text(
        "defaults:\n  manifests: manifests\nclusters:\n"
        "  - name: eu-1\n    snapshot: eu.json\n"
        "  - name: us-1\n    snapshot: us.parquet\n"
    )
    single = tmp_path / "single.json"
    result = CliRunner().invoke(
        app, ["plan", str(manifests_dir), "--live-state", str(tmp_path / "eu.json"), "--out", str(single)]
    )
    assert result.exit_code == 0, result.output
    expected = plans.Plan.load(single)
    assert {c.address: c.action.value for c in expected.changes} == {
        "connector/sinks/mirror": "update",
        "connector/sinks/new": "create",
        "connector/sources/mirror": "blocked",
    }
    run_fleet_plan(load_fleet(tmp_path / "fleet.yaml", env={}), out_dir=tmp_path / "out", env={})
    for cluster in ("eu-1", "us-1"):
        fleet_plan = plans.Plan.load(tmp_path / "out" / cluster / "plan.json")
        assert [c.to_dict() for c in fleet_plan.changes] == [c.to_dict() for c in expected.changes], cluster
        assert [w.code for w in fleet_plan.warnings] == [w.code for w in expected.warnings]

    # a connector naming no Connect cluster where the profile has several: that cluster fails at load, as plan does
    (manifests_dir / "m.yaml").write_text(profile + body + connector_text("lost"))
    _, tasks, failed = engines.load(load_fleet(tmp_path / "fleet.yaml", env={}), env={}, progress=None)
    assert not tasks and sorted(f.cluster for f in failed) == ["eu-1", "us-1"]
    assert all("connector 'lost' does not name its Kafka Connect cluster" in (f.reason or "") for f in failed)


def test_fleet_apply_opens_the_connect_clusters_its_changes_write(tmp_path: Path) -> None:
    from reconciler.fleet import applying, spec

    profile = CLUSTER + "  connect: {clusters: {sources: {urls: ['http://a:1']}, sinks: {urls: ['http://b:1']}}}\n"
    loaded = manifests.load([write(tmp_path, profile)])
    _, _, port = two_clusters()
    wanted = d.DesiredState(connectors={c.name: c for c in (sink("sinks/b", cluster="sinks"),)})
    p = plan_over(wanted, port.read(deadline=time.monotonic() + 5))
    cluster = spec.ClusterSpec(name="eu", manifests=(tmp_path,), profile="prod")
    one = applying.ports_of(cluster, loaded, p)["connect"]
    assert isinstance(one, RestConnectPort) and one.cluster == "sinks" and one.url == "http://b:1"
    wanted = d.DesiredState(connectors={c.name: c for c in (sink("sinks/b"), sink("sources/a"))})
    both = applying.ports_of(cluster, loaded, plan_over(wanted, port.read(deadline=time.monotonic() + 5)))["connect"]
    assert isinstance(both, MultiConnectPort) and sorted(both.ports) == ["sinks", "sources"]


def test_diff_of_two_snapshots_names_the_cluster_and_leaves_out_one_not_read() -> None:
    from reconciler.snapshot import diff as snapshot_diff

    sources, sinks, port = two_clusters()
    sinks.hold("mirror", {"connector.class": SINK, "tasks.max": "1", "topics": "t", "file": "/b"})
    sources.hold("mirror", {"connector.class": SOURCE, "tasks.max": "1", "file": "/a"})
    before = s.ClusterState("c", 1, (), connect=port.read(deadline=time.monotonic() + 5))
    port.put_config("sinks/mirror", {"connector.class": SINK, "tasks.max": "1", "topics": "t", "file": "/c"},
                    deadline=time.monotonic() + 5)  # fmt: skip
    sources.down = True
    after = s.ClusterState("c", 1, (), connect=port.read(deadline=time.monotonic() + 5))
    found = snapshot_diff.compare(before, after)
    assert [(d.address, d.path, d.before, d.after) for d in found.differences] == [
        ("connector/sinks/mirror", "config.file", "/b", "/c")
    ]
    assert "connector/sources/* (Kafka Connect cluster sources not read)" in found.not_compared


def test_a_cluster_down_during_the_apply_leaves_the_others_read_back() -> None:
    from reconciler.apply import decoded, retry
    from reconciler.apply.apply_report import Outcome
    from reconciler.apply.batch import ApplyContext
    from reconciler.kinds.connector import phases as connector_phases
    from reconciler.kinds.connector import writes as connector_writes

    class Clock:
        now = 1000.0

        def __call__(self) -> float:
            return self.now

        def sleep(self, seconds: float) -> None:
            self.now += seconds

    clock = Clock()
    sources, sinks = Reachable("http://sources:8083"), Reachable("http://sinks:8083")
    sources.clock = sinks.clock = clock
    port = MultiConnectPort(
        {"sources": RestConnectPort(sources, cluster="sources"), "sinks": RestConnectPort(sinks, cluster="sinks")}
    )
    wanted = d.DesiredState(connectors={c.name: c for c in (sink("sources/a"), sink("sinks/b"))})
    connect = evidence.read_for_plan(port, wanted, deadline=time.monotonic() + 5)
    live = s.ClusterState(cluster_id=None, controller_id=None, brokers=(), connect=connect)
    ops = decoded.decode(plan(wanted, live)).of(Kind.CONNECTOR)
    sources.down = True  # after the plan, before the writes
    ctx = ApplyContext(
        adapter=None,  # type: ignore[arg-type]  # the connector phases call only the Connect port
        policy=retry.RetryPolicy(),
        pacer=retry.Pacer(sleep=clock.sleep, rand=lambda: 0.0),
        deadline=retry.Deadline(60.0, clock=clock),
        events=lambda _event: None,
        dry_run=False,
        ports={"connect": port},
    )
    writes = [op for op in ops if isinstance(op.request, connector_writes.WriteConnector)]
    items = {i.name: i for i in connector_phases.run_write(ctx, writes, live=live)}
    assert items["sinks/b"].outcome is Outcome.APPLIED, items["sinks/b"].message
    assert items["sources/a"].outcome is Outcome.NOT_SENT and "no Kafka Connect worker answered" in (
        items["sources/a"].message or ""
    )
    assert clock.now < 1060.0  # sinks/b settled from the rounds that read sinks, not at the apply's deadline
    assert sinks.connectors["b"].state == "RUNNING" and sources.connectors == {}


def test_a_cluster_the_plan_writes_to_that_does_not_answer_before_the_writes_refuses_the_apply() -> None:
    from reconciler.apply import apply_plan
    from tests.support.apply_runs import apply_options
    from tests.support.recording import RecordingAdapter

    sources, sinks, port = two_clusters()
    topic = d.DesiredTopic("orders", 1, 1, {})
    wanted = d.DesiredState(
        topics={"orders": topic}, connectors={c.name: c for c in (sink("sources/a"), sink("sinks/b"))}
    )
    adapter = RecordingAdapter()
    live = dataclasses.replace(
        adapter.read_state(kinds=wanted.needs()),
        connect=evidence.read_for_plan(port, wanted, deadline=time.monotonic() + 5),
    )
    p = plan(wanted, live)
    assert {c.address for c in p.actionable} == {"topic/orders", "connector/sources/a", "connector/sinks/b"}
    sources.down = True
    with pytest.raises(ConnectError, match="Kafka Connect cluster\\(s\\) sources could not be read"):
        apply_plan(p, adapter, options=apply_options(ports={"connect": port}, desired=wanted))
    assert adapter.topics == {} and sinks.connectors == {}  # nothing written: not the topic, not the other cluster


def test_the_profile_field_and_the_plan_file_check_one_cluster_name_pattern() -> None:
    import typing

    from reconciler.manifests import fields

    [constraint] = [m for m in typing.get_args(fields.ConnectClusterName)[1:] if getattr(m, "metadata", None)]
    assert [getattr(m, "pattern", None) for m in constraint.metadata] == [connect_clusters.NAME.pattern]
