"""``run_fleet_plan`` end to end on snapshots: plan files, summary files, partial results, progress.

The live states are snapshots (JSON and Parquet) derived from the example manifests, with drift
added; each cluster's plan file must be byte-identical to the single-cluster plan of the same
manifests and snapshot, and readable by ``Plan.load`` (what ``show`` and ``apply --plan`` use).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pyarrow.parquet as pq

from reconciler import operations
from reconciler.fleet import FleetEvent, load_fleet, run_fleet_plan, sources
from reconciler.model import plans
from reconciler.snapshot import files


def single_cluster_plan(fleet_dir: Path, snapshot: Path) -> str:
    wanted = operations.load_manifests([fleet_dir / "manifests"], env={}).desired
    if snapshot.suffix == ".parquet":
        from reconciler.fleet import rows

        live = rows.rebuild_live(sources.read_parquet_snapshot(snapshot))
    else:
        live = files.read_snapshot(snapshot)
    return operations.make_plan(wanted, live).to_json()


def test_each_plan_file_equals_the_single_cluster_plan_and_the_result_is_partial(fleet_dir: Path) -> None:
    events: list[FleetEvent] = []
    out = fleet_dir / "out"
    result = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, progress=events.append, env={})

    assert (out / "eu-1" / "plan.json").read_text() == single_cluster_plan(fleet_dir, fleet_dir / "eu.json")
    assert (out / "us-1" / "plan.json").read_text() == single_cluster_plan(fleet_dir, fleet_dir / "us.parquet")
    assert not (out / "ap-1").exists()
    eu_plan = plans.Plan.load(out / "eu-1" / "plan.json")
    assert {c.address for c in eu_plan.actionable} >= {"topic/orders.shipped", "topic/orders.legacy"}
    assert "topic/__consumer_offsets" not in {c.address for c in eu_plan.changes}

    assert result.partial and result.exit_code == 3
    assert [(c.name, c.status) for c in result.clusters] == [
        ("eu-1", "planned"),
        ("us-1", "planned"),
        ("ap-1", "unreadable"),
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "partial"
    assert summary["unreadable"] == [
        {
            "name": "ap-1",
            "status": "unreadable",
            "reason": f"cannot read snapshot {fleet_dir / 'ap.json'}: No such file or directory",
        }
    ]
    eu = next(c for c in summary["clusters"] if c["name"] == "eu-1")
    assert eu["by_kind"]["topic"] == {
        "create": 1, "update": 1, "delete": 1, "blocked": 0, "unmanaged": 0, "unchanged": 6
    }  # fmt: skip
    assert eu["by_kind"]["acl"]["create"] == 1 and eu["counts"]["create"] == sum(
        k["create"] for k in eu["by_kind"].values()
    )
    top = summary["most_drifted"][0]
    assert top["attributes"] >= 1 and top["cluster"] in ("eu-1", "us-1")
    assert {"cluster": "eu-1", "kind": "topic", "name": "orders.created", "action": "update", "attributes": 1,
            "names": ["configs.retention.ms"]} in summary["most_drifted"]  # fmt: skip

    report = (out / "report.md").read_text()
    assert "PARTIAL" in report and "**ap-1** (unreadable): cannot read snapshot" in report
    assert f"| eu-1 | planned | {eu['counts']['create']} | {eu['counts']['update']} |" in report
    clusters = pq.read_table(out / "clusters.parquet").to_pylist()
    assert {(r["cluster"], r["kind"]) for r in clusters} >= {("eu-1", "topic"), ("us-1", "acl"), ("ap-1", "none")}
    drift = pq.read_table(out / "drift.parquet").to_pylist()
    assert {"cluster": "us-1", "kind": "topic", "name": "payments.settled", "action": "create"}.items() <= next(
        d for d in drift if d["name"] == "payments.settled"
    ).items()

    stages = [(e.stage, e.cluster) for e in events]
    assert ("read", "eu-1") in stages and ("plan", "us-1") in stages and ("unreadable", "ap-1") in stages


def test_invalid_manifests_fail_only_their_clusters(fleet_dir: Path) -> None:
    broken = fleet_dir / "broken"
    broken.mkdir()
    (broken / "t.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {name: x}\nspec: {partitions: 0}\n"
    )
    (fleet_dir / "fleet.yaml").write_text(
        "clusters:\n  - {name: eu-1, manifests: manifests, snapshot: eu.json}\n"
        "  - {name: bad, manifests: broken, snapshot: eu.json}\n"
    )
    result = run_fleet_plan(
        load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=fleet_dir / "out", progress=None, env={}
    )
    status = {c.name: (c.status, c.reason) for c in result.clusters}
    assert status["eu-1"][0] == "planned"
    assert status["bad"][0] == "failed"
    assert "error(s) in the manifests; first:" in str(status["bad"][1]) and "t.yaml:4" in str(status["bad"][1])


def test_a_complete_run_exits_zero_and_has_no_unreadable_section(fleet_dir: Path) -> None:
    (fleet_dir / "fleet.yaml").write_text("clusters:\n  - {name: eu-1, manifests: manifests, snapshot: eu.json}\n")
    result = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=fleet_dir / "out", env={})
    assert (result.partial, result.exit_code, result.has_changes) == (False, 0, True)
    assert result.summary["status"] == "complete" and result.summary["unreadable"] == []
    assert "## Clusters not planned" not in (fleet_dir / "out" / "report.md").read_text()
    assert dataclasses.asdict(result.clusters[0])["plan_path"] == fleet_dir / "out" / "eu-1" / "plan.json"
