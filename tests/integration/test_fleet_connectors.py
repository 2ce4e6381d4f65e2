"""Fleet plans and fleet apply of connectors over real clusters and a real Kafka Connect worker.

Two clusters (a single node and a three-node cluster), each with a Cluster profile naming the harness's worker and
its own connectors (a prefix each, with an Ownership rule). Both engines read each cluster's Connect cluster where
they read the cluster and must give the connector changes and warnings ``plan`` gives for it (a validate error
included); fleet apply then applies them through the profile's Connect cluster, the worker holds what was declared
and the next fleet plan reads each Connect cluster once (two REST requests) and finds nothing to do. A Connect
cluster that never answers makes its cluster unreadable by the run's deadline, on both engines.
"""

from __future__ import annotations

import json
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal
from unittest import mock

import pytest

from reconciler import manifests, operations
from reconciler.connect import settings as connect_settings
from reconciler.connect.port import RestConnectPort
from reconciler.fleet import applying, load_fleet, run_fleet_plan
from reconciler.model import plans
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, FILE_SOURCE, ConnectWorker
from tests.support.black_hole import black_hole
from tests.support.polling import eventually

pytestmark = [pytest.mark.kafka, pytest.mark.slow]
SECRET = "fleet-connect-s3cret"


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """A local Spark session for this module only, stopped when it ends (no session outlives the module)."""
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    from reconciler.fleet import spark as spark_engine

    session = spark_engine.session("local[2]", conf={"spark.sql.shuffle.partitions": "2"})
    yield session
    session.stop()


def profile(name: str, cluster: KafkaCluster, url: str) -> str:
    servers = json.dumps(cluster.bootstrap.split(","))
    return f"""\
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {{name: {name}}}
spec:
  bootstrapServers: {servers}
  connect: {{urls: ["{url}"]}}
---
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {{name: {name}-connectors}}
spec:
  connectors: [{{prefix: {name}-}}]
  delete: {{connector: true}}
"""


def connector(name: str, cls: str, config: dict[str, str], *, state: str = "running", extra: str = "") -> str:
    lines = "".join(f"    {k}: {v}\n" for k, v in config.items())
    head = f"---\napiVersion: kafka-reconciler/v1\nkind: Connector\nmetadata: {{name: {name}}}\n"
    return f"{head}spec:\n  class: {cls}\n  tasksMax: 1\n  state: {state}\n  config:\n{lines}{extra}"


def write_manifests(folder: Path, head: str, *docs: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "all.yaml").write_text(head + "".join(docs))


def write_fleet(root: Path, entries: dict[str, str], *, timeout_ms: int = 15000) -> Path:
    lines = "".join(f"  - {{name: {n}, manifests: {n}, profile: {p}}}\n" for n, p in entries.items())
    (root / "fleet.yaml").write_text(f"defaults: {{requestTimeoutMs: {timeout_ms}}}\nclusters:\n{lines}")
    return root / "fleet.yaml"


def single_plan(folder: Path, name: str) -> plans.Plan:
    """What ``plan --cluster <name> <folder>`` plans."""
    loaded = manifests.load([folder])
    target = operations.Target(cluster=name, profiles=loaded.profiles)
    return operations.compute_plan(loaded, target=target, request=operations.PlanRequest(), deadline_s=60)


def connector_view(p: plans.Plan) -> tuple[list[str], list[tuple[str, str | None, str, str]]]:
    """The connector changes (as the plan file holds them) and the connector warnings of a plan."""
    changes = [json.dumps(c.to_dict(), sort_keys=True) for c in p.changes if c.kind is Kind.CONNECTOR]
    warnings = sorted(
        (w.code, w.address, w.message, w.severity) for w in p.warnings if (w.address or "").startswith("connector/")
    )
    return changes, warnings


def status(worker: ConnectWorker, name: str) -> tuple[str, list[str]]:
    found = worker.rest("GET", f"/connectors/{name}/status")
    return found["connector"]["state"], [t["state"] for t in found["tasks"]]


def settled(worker: ConnectWorker, wanted: dict[str, str]) -> bool:
    """Whether each connector of ``wanted`` and each of its tasks (at least one) is in its state there (a status
    Connect has not written yet, 404 right after a create, is not settled)."""
    for name, state in wanted.items():
        try:
            connector_state, tasks = status(worker, name)
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return False
            raise
        if connector_state != state or not tasks or any(t != state for t in tasks):
            return False
    return True


def test_live_fleet_plans_read_each_connect_cluster_like_plan_and_fleet_apply_converges(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    kafka_cluster3: KafkaCluster,
    topic_prefix: str,
    spark: Any,
    tmp_path: Path,
) -> None:
    p = topic_prefix.replace("_", "-").rstrip("-")
    one, three = f"{p}-one", f"{p}-three"  # profile names, and the prefix of each cluster's connectors
    secret_file = tmp_path / "jaas.txt"
    secret_file.write_text(SECRET + "\n")
    out_a, out_b, in_a = tmp_path / "a-sink.txt", tmp_path / "b-sink.txt", tmp_path / "a-in.txt"
    in_a.write_text("")
    for name, body in ((f"{one}-sink", {"file": str(tmp_path / "old.txt")}), (f"{one}-legacy", {})):
        connect_worker.rest("PUT", f"/connectors/{name}/config", {"connector.class": FILE_SINK, "topics": p, **body})
    eventually(
        lambda: settled(connect_worker, {f"{one}-sink": "RUNNING", f"{one}-legacy": "RUNNING"}),
        what="seeded",
        timeout=90,
    )
    try:
        head_one = profile(one, kafka_single, connect_worker.url)
        docs_one = (
            connector(f"{one}-sink", FILE_SINK, {"topics": p, "file": str(out_a)}),  # update: another file
            connector(f"{one}-src", FILE_SOURCE, {"topic": f"{p}-in", "file": str(in_a)}),  # create
        )  # and {one}-legacy: owned, undeclared: delete
        head_three = profile(three, kafka_cluster3, connect_worker.url)
        jaas = f"  secrets:\n    producer.override.sasl.jaas.config: {{file: {secret_file}}}\n"
        sink_three = connector(
            f"{three}-sink", FILE_SINK, {"topics": p, "file": str(out_b)}, state="paused", extra=jaas
        )
        bad = connector(f"{three}-bad", FILE_SINK, {"topics": p, "errors.tolerance": "sometimes"})
        write_manifests(tmp_path / "one", head_one, *docs_one)
        write_manifests(tmp_path / "three", head_three, sink_three, bad)
        fleet = load_fleet(write_fleet(tmp_path, {"one": one, "three": three}), env={})

        local = run_fleet_plan(fleet, engine="local", out_dir=tmp_path / "local", env={})
        on_spark = run_fleet_plan(fleet, engine="spark", spark_session=spark, out_dir=tmp_path / "spark", env={})
        for result in (local, on_spark):
            found = [(c.name, c.status) for c in result.clusters]
            assert found == [("one", "planned"), ("three", "planned")], [c.reason for c in result.clusters]
        for cluster, profile_name in (("one", one), ("three", three)):
            expected = connector_view(single_plan(tmp_path / cluster, profile_name))
            for engine in ("local", "spark"):
                got = connector_view(plans.Plan.load(tmp_path / engine / cluster / "plan.json"))
                assert got == expected, (engine, cluster)
        plan_one = plans.Plan.load(tmp_path / "spark" / "one" / "plan.json")
        assert {c.name: c.action.value for c in plan_one.changes if c.kind is Kind.CONNECTOR} == {
            f"{one}-sink": "update",
            f"{one}-src": "create",
            f"{one}-legacy": "delete",
        }
        plan_three = plans.Plan.load(tmp_path / "spark" / "three" / "plan.json")
        actions = {c.name: c.action.value for c in plan_three.changes}
        assert actions == {f"{three}-sink": "create", f"{three}-bad": "blocked"}
        invalid = [w for w in plan_three.warnings if w.code == "connector-invalid"]
        assert invalid and "errors.tolerance" in invalid[0].message and f"{tmp_path / 'three'}" in invalid[0].message
        for path in tmp_path.rglob("*"):
            if path.is_file() and path != secret_file:
                assert SECRET.encode() not in path.read_bytes(), path

        write_manifests(tmp_path / "three", head_three, sink_three)  # the invalid one left out: all can be applied
        run_fleet_plan(fleet, engine="local", out_dir=tmp_path / "local", env={})
        applied = applying.run_fleet_apply(fleet, out_dir=tmp_path / "local", env={}, timeout_s=120)
        reports = [json.loads((tmp_path / "local" / c / "apply-report.json").read_text()) for c in ("one", "three")]
        reports = [[(i["outcome"], i.get("message")) for i in r["items"] if i["outcome"] != "applied"] for r in reports]
        assert [(c.name, c.status) for c in applied.clusters] == [("one", "applied"), ("three", "applied")], reports
        assert connect_worker.rest("GET", f"/connectors/{one}-sink/config")["file"] == str(out_a)
        assert f"{one}-legacy" not in connect_worker.rest("GET", "/connectors")
        held = connect_worker.rest("GET", f"/connectors/{three}-sink/config")
        assert held["producer.override.sasl.jaas.config"] == SECRET
        wanted = {f"{one}-sink": "RUNNING", f"{one}-src": "RUNNING"}
        eventually(lambda: settled(connect_worker, wanted), what="the applied connectors in their states", timeout=90)
        assert status(connect_worker, f"{three}-sink") == ("PAUSED", [])  # created paused: Connect starts no task

        ports: list[RestConnectPort] = []
        made = connect_settings.port_for

        def counted(*args: Any, **kwargs: Any) -> RestConnectPort:
            ports.append(made(*args, **kwargs))
            return ports[-1]

        with mock.patch.object(connect_settings, "port_for", counted):
            again = run_fleet_plan(fleet, engine="local", out_dir=tmp_path / "again", env={})
        assert {c.name: c.status for c in again.clusters} == {"one": "planned", "three": "planned"}
        for planned in again.clusters:
            assert (planned.counts["create"], planned.counts["update"], planned.counts["delete"]) == (0, 0, 0)
        assert not [d for d in again.summary["drift"] if d["kind"] == "connector"], again.summary["drift"]
        assert [port.request_count for port in ports] == [2, 2]  # every connector and the plugins, per cluster
    finally:
        for name in connect_worker.rest("GET", "/connectors"):
            if name.startswith((f"{one}-", f"{three}-")):
                connect_worker.rest("DELETE", f"/connectors/{name}")


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_a_connect_cluster_that_never_answers_makes_its_cluster_unreadable_by_the_run_deadline(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    spark: Any,
    tmp_path: Path,
    engine: Literal["local", "spark"],
) -> None:
    p = topic_prefix.replace("_", "-").rstrip("-")
    sink = connector(f"{p}-dark-sink", FILE_SINK, {"topics": p})
    with black_hole() as address:
        write_manifests(tmp_path / "dark", profile(f"{p}-dark", kafka_single, f"http://{address}"), sink)
        write_manifests(tmp_path / "lit", profile(f"{p}-lit", kafka_single, connect_worker.url), sink)
        fleet = load_fleet(write_fleet(tmp_path, {"dark": f"{p}-dark", "lit": f"{p}-lit"}, timeout_ms=120_000), env={})
        began = time.monotonic()
        result = run_fleet_plan(
            fleet,
            engine=engine,
            spark_session=spark if engine == "spark" else None,
            out_dir=tmp_path / "out",
            env={},
            deadline_s=20,
        )
        took = time.monotonic() - began
    found = {c.name: (c.status, str(c.reason)) for c in result.clusters}
    assert found["dark"][0] == "unreadable", found
    assert f"the Kafka Connect cluster of Cluster profile {p}-dark could not be read" in found["dark"][1]
    assert address in found["dark"][1]
    assert found["lit"][0] == "planned", found
    assert result.exit_code == 3 and not (tmp_path / "out" / "dark" / "plan.json").exists()
    assert took < 20 + 40, took  # the deadline, not the 120 s request timeout, ended the wait (Spark: and its job)
