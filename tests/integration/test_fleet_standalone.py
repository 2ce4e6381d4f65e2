"""Fleet plans on a real multi-process Spark: a standalone master and two workers, each its own JVM.

The cluster is started from the pyspark package's own launcher on 127.0.0.1 (``tests.spark.standalone``),
with executors that run this interpreter (the engine's default, nothing set by hand). The fleet mixes
a live Kafka node (with drift), JSON and Parquet snapshots of two manifest sets and a port nothing
listens on. Every plan file the standalone run writes must be byte for byte the local engine's, the
summaries equal apart from the run's metadata, and Spark's own event log must show the planning tasks
spread over both workers' executors.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient, NewTopic

from reconciler.fleet import load_fleet, run_fleet_plan, sources
from reconciler.fleet import spark as spark_engine
from reconciler.snapshot import files
from tests.kafka.cluster import KafkaCluster
from tests.spark import events
from tests.spark.standalone import StandaloneCluster, standalone_cluster
from tests.support.fleet import EXAMPLES, live_from
from tests.support.fleet_live import write_fleet
from tests.support.integration import closed_port

# Four JVMs start here (master, two workers, the driver) plus the executors: allow more than the default.
pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(900)]

SNAPSHOT_CLUSTERS = 6


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    with standalone_cluster(tmp_path_factory.mktemp("spark-standalone"), workers=2, cores=1) as cluster:
        yield cluster


def fleet_with_snapshots(root: Path, *, prefix: str, live: KafkaCluster) -> Path:
    """The live manifests of ``write_fleet`` for ``single`` and ``down``, and snapshot clusters of the examples."""
    fleet_file = write_fleet(root, prefix=prefix, single=live, triple=live)
    shutil.copytree(EXAMPLES, root / "platform")
    lines = [
        "defaults: {manifests: manifests, requestTimeoutMs: 5000}",
        "clusters:",
        f"  - {{name: single, bootstrap: '{live.bootstrap}'}}",
        f"  - {{name: down, bootstrap: '127.0.0.1:{closed_port()}'}}",
    ]
    for i in range(SNAPSHOT_CLUSTERS):
        state = live_from(
            root / "platform", drop="orders.shipped", extra_topic=f"orders.old{i}", retention=f"{i + 1}000"
        )
        path = root / (f"snap-{i}.parquet" if i % 2 else f"snap-{i}.json")
        if i % 2:
            sources.write_parquet_snapshot(state, path)
        else:
            files.write_snapshot(state, path)
        lines.append(f"  - {{name: snap-{i}, manifests: platform, snapshot: {path.name}}}")
    fleet_file.write_text("\n".join(lines) + "\n")
    return fleet_file


def test_standalone_cluster_plans_like_the_local_engine_on_both_workers(
    standalone: StandaloneCluster, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    admin = KafkaAdminClient(bootstrap_servers=kafka_single.bootstrap, request_timeout_ms=20_000)
    try:
        admin.create_topics([NewTopic(f"{topic_prefix}orders", 2, 1, topic_configs={"retention.ms": "1000"})])
    finally:
        admin.close()
    fleet = load_fleet(fleet_with_snapshots(tmp_path, prefix=topic_prefix, live=kafka_single), env={})
    event_dir = tmp_path / "events"
    event_dir.mkdir()

    on_local = run_fleet_plan(fleet, engine="local", out_dir=tmp_path / "local", env={})
    on_spark = run_fleet_plan(
        fleet,
        engine="spark",
        master=standalone.master_url,
        spark_conf={
            "spark.executor.memory": "512m",
            # start planning only once both workers' executors are there (2 cores)
            "spark.cores.max": "2",
            "spark.scheduler.minRegisteredResourcesRatio": "1.0",
            "spark.scheduler.maxRegisteredResourcesWaitingTime": "180s",
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.eventLog.enabled": "true",
            "spark.eventLog.compress": "false",
            "spark.eventLog.dir": event_dir.as_uri(),
        },
        out_dir=tmp_path / "spark",
        env={},
    )

    planned = ["single", *(f"snap-{i}" for i in range(SNAPSHOT_CLUSTERS))]
    for result in (on_local, on_spark):
        status = {c.name: c.status for c in result.clusters}
        assert status == {**dict.fromkeys(planned, "planned"), "down": "unreadable"}
        assert (result.exit_code, result.detailed_exit_code) == (3, 4)
    for name in planned:
        assert (tmp_path / "spark" / name / "plan.json").read_bytes() == (
            tmp_path / "local" / name / "plan.json"
        ).read_bytes(), name
    single = json.loads((tmp_path / "spark" / "single" / "plan.json").read_text())
    assert {(c["address"], c["action"]) for c in single["changes"]} >= {
        (f"topic/{topic_prefix}orders", "update"),
        (f"topic/{topic_prefix}payments", "create"),
    }

    def without_run(summary: dict[str, Any]) -> dict[str, Any]:
        """The summary without the run's metadata, and with the closed port's reason checked, then set aside:
        its wording depends on how many refused connections the bootstrap saw before its timeout, under load."""
        doc = json.loads(json.dumps({k: v for k, v in summary.items() if k not in ("run", "engine")}))
        for entry in (*doc["unreadable"], *doc["clusters"]):
            if entry["name"] == "down":
                assert "connection refused" in entry["reason"], entry
                entry["reason"] = "(connection refused)"
        return dict(doc)

    assert without_run(dict(on_spark.summary)) == without_run(dict(on_local.summary))

    apps = standalone.status()["completedapps"]  # the session has stopped: the application is listed done
    assert any(app["name"] == "kafka-reconciler fleet plan" for app in apps)
    tasks = events.group_tasks(events.read_events(event_dir), group_prefix="kafka-reconciler-plan")
    # one planning task per executor core, each planning several of the 8 clusters
    assert len(tasks) == spark_engine.partitions(len(planned) + 1, cores=2) == 2 and all(t.succeeded for t in tasks)
    assert len({t.executor for t in tasks}) == 2, tasks  # both workers' executors planned clusters
