"""Kinds an older cluster cannot manage, decided from its capabilities record (ApiVersions), on plain data.

Kafka 2.8 has every admin API the tool uses except ListConfigResources (group configs and client-metrics
subscriptions, Kafka 4), so the unsupported path is tested here: a capabilities record as a Kafka 2.5 or 2.2
broker would give, a live state read as the adapter reads it then (the kind's section not read), and the plan,
the saved plan, apply and the CLI on top.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.apply import ApplyOptions, Outcome, apply_plan
from reconciler.cli import app
from reconciler.model import capabilities, desired, plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from reconciler.snapshot import files
from tests.support.builders import acl, cluster, scram_user, topic, want
from tests.support.recording import RecordingAdapter

# Every admin API the tool uses, at the version a Kafka 2.8 broker answers with.
KAFKA_28 = {api: 0 for api in capabilities.API_SINCE if api != "ListConfigResources"} | {
    "Metadata": 11,
    "CreateTopics": 7,
    "OffsetFetch": 7,
}
SINCE_26 = ("DescribeClientQuotas", "AlterClientQuotas")
SINCE_27 = ("DescribeUserScramCredentials", "AlterUserScramCredentials")
KAFKA_25 = {k: v for k, v in KAFKA_28.items() if k not in (*SINCE_26, *SINCE_27, "DescribeCluster")}
KAFKA_26 = {k: v for k, v in KAFKA_28.items() if k not in (*SINCE_27, "DescribeCluster")}
KAFKA_22 = {
    k: v
    for k, v in KAFKA_25.items()
    if k not in ("IncrementalAlterConfigs", "AlterPartitionReassignments", "ListPartitionReassignments")
}
QUOTA_REASON = "not supported by this cluster (version): it lacks DescribeClientQuotas, AlterClientQuotas (Kafka 2.6+)"
SCRAM_REASON = (
    "not supported by this cluster (version): it lacks DescribeUserScramCredentials, AlterUserScramCredentials "
    "(Kafka 2.7+)"
)
GROUP_REASON = "not supported by this cluster (version): it lacks ListConfigResources v1 (Kafka 4.1+)"
METRICS_REASON = "not supported by this cluster (version): it lacks ListConfigResources (Kafka 4.0+)"
KAFKA_4_ENTITIES = {Kind.GROUP_CONFIG: GROUP_REASON, Kind.CLIENT_METRICS: METRICS_REASON}
KAFKA_40 = {**KAFKA_28, "ListConfigResources": 0}
KAFKA_41 = {**KAFKA_28, "ListConfigResources": 1}
APP = state.QuotaEntity.of(user="app")
APP_READ = acl("User:app", "READ", "orders")


@pytest.mark.parametrize(
    ("caps", "expected"),
    [
        pytest.param(KAFKA_41, {}, id="4.1-all"),
        pytest.param(KAFKA_40, {Kind.GROUP_CONFIG: GROUP_REASON}, id="4.0-no-group-listing"),
        pytest.param(KAFKA_28, KAFKA_4_ENTITIES, id="2.8-no-kafka-4-entities"),
        pytest.param(KAFKA_26, {Kind.SCRAM_USER: SCRAM_REASON, **KAFKA_4_ENTITIES}, id="2.6-no-scram"),
        pytest.param(KAFKA_25, {Kind.QUOTA: QUOTA_REASON, Kind.SCRAM_USER: SCRAM_REASON, **KAFKA_4_ENTITIES}, id="2.5"),
        pytest.param(
            KAFKA_22,
            {
                Kind.TOPIC: "not supported by this cluster (version): it lacks IncrementalAlterConfigs (Kafka 2.3+)",
                Kind.QUOTA: QUOTA_REASON,
                Kind.SCRAM_USER: SCRAM_REASON,
                Kind.BROKER_CONFIG: "not supported by this cluster (version): it lacks "
                "IncrementalAlterConfigs (Kafka 2.3+)",
                Kind.GROUP_CONFIG: "not supported by this cluster (version): it lacks "
                "ListConfigResources v1, IncrementalAlterConfigs (Kafka 4.1+)",
                Kind.CLIENT_METRICS: "not supported by this cluster (version): it lacks "
                "ListConfigResources, IncrementalAlterConfigs (Kafka 4.0+)",
            },
            id="2.2",
        ),
        pytest.param({}, {}, id="unknown-capabilities-refuse-nothing"),
    ],
)
def test_kinds_a_cluster_cannot_manage_are_named_with_the_release_that_added_their_apis(
    caps: dict[str, int], expected: dict[str, str]
) -> None:
    found = {k: r for k in tuple(Kind) if (r := capabilities.kind_unsupported(k, caps)) is not None}
    assert found == expected


def kafka_25_live() -> state.ClusterState:
    """What the adapter reads from a Kafka 2.5 cluster when quotas and SCRAM users are wanted: neither section."""
    live = cluster(topics=[], acls=[], quotas=None, scram=None)
    unavailable: dict[str, str] = {Kind.QUOTA: QUOTA_REASON, Kind.SCRAM_USER: SCRAM_REASON}
    return dataclasses.replace(live, capabilities=KAFKA_25, unavailable=unavailable)


def declared() -> desired.DesiredState:
    return want(
        topics=[topic("orders", 3, 3)],
        acls=[APP_READ],
        quotas={APP: {"producer_byte_rate": 1048576.0}},
        scram=[scram_user("app")],
    )


def test_unsupported_kinds_are_blocked_per_resource_and_the_rest_is_planned() -> None:
    result = plan(declared(), kafka_25_live())

    by_address = {c.address: c for c in result.changes}
    assert {a: c.action for a, c in by_address.items()} == {
        "topic/orders": plans.Action.CREATE,
        APP_READ.address: plans.Action.CREATE,
        APP.address: plans.Action.BLOCKED,
        "scram_user/app": plans.Action.BLOCKED,
    }
    assert by_address[APP.address].reasons == (
        f"client quotas are {QUOTA_REASON}; nothing of this kind is read or written",
    )
    assert by_address["scram_user/app"].reasons == (
        f"SCRAM users are {SCRAM_REASON}; nothing of this kind is read or written",
    )
    assert by_address["scram_user/app"].source == "users.yaml:1:1"  # where it is declared
    # Reported per kind, as a warning: not an error that would stop apply for the kinds that do work.
    assert sorted((w.code, w.severity, w.message) for w in result.warnings) == [
        ("kind-unsupported", "warning", f"SCRAM users: {SCRAM_REASON}; 1 declared resource(s) blocked"),
        ("kind-unsupported", "warning", f"client quotas: {QUOTA_REASON}; 1 declared resource(s) blocked"),
    ]
    summary = result.summary()
    assert (summary.create, summary.blocked) == (2, 2)

    # The saved plan keeps the blocked changes and their reasons.
    again = plans.Plan.from_json_dict(json.loads(result.to_json()))
    assert [(c.address, c.action, c.reasons) for c in again.blocked] == [
        (c.address, c.action, c.reasons) for c in result.blocked
    ]


def test_owned_but_undeclared_resources_of_an_unsupported_kind_are_never_deleted() -> None:
    wanted = dataclasses.replace(
        want(own_principals=["User:"], delete=["quota", "scram_user"]), quotas={}, scram_users={}
    )
    result = plan(wanted, kafka_25_live())
    assert result.changes == ()
    assert sorted(w.message for w in result.warnings) == [
        f"SCRAM users: {SCRAM_REASON}; undeclared ones are not looked at",
        f"client quotas: {QUOTA_REASON}; undeclared ones are not looked at",
    ]


def test_with_unknown_capabilities_a_missing_section_is_still_an_error() -> None:
    live = dataclasses.replace(kafka_25_live(), capabilities={})
    result = plan(declared(), live)
    assert not result.blocked
    assert {w.code for w in result.warnings if w.severity == "error"} == {"quotas-unreadable", "scram-unreadable"}


def test_apply_writes_what_the_cluster_supports_and_reports_the_rest_blocked() -> None:
    adapter = RecordingAdapter(cluster_id="test-cluster-id")
    report = apply_plan(plan(declared(), kafka_25_live()), adapter, options=ApplyOptions(deadline_s=60))

    assert report.exit_code == 3  # blocked changes: partial, never a crash or an error before writing
    assert {i.address: i.outcome for i in report.items if i.outcome is Outcome.BLOCKED} == {
        APP.address: Outcome.BLOCKED,
        "scram_user/app": Outcome.BLOCKED,
    }
    written = {name for name, _ in adapter.writes()}
    assert written == {"create_topics", "create_acls"}
    assert "orders" in adapter.topics and not adapter.quotas and not adapter.scram


def test_plan_command_shows_the_kind_as_unsupported_and_exits_as_documented(tmp_path: Path) -> None:
    snapshot = tmp_path / "live.json"
    files.write_snapshot(kafka_25_live(), snapshot)
    manifests = tmp_path / "m"
    manifests.mkdir()
    (manifests / "quota.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\n"
        "kind: ClientQuota\n"
        "metadata: {name: app}\n"
        "spec: {entity: {user: app}, values: {producer_byte_rate: 1048576}}\n"
    )
    runner = CliRunner()
    shown = runner.invoke(app, ["plan", str(manifests), "--live-state", str(snapshot), "--no-color"])
    assert shown.exit_code == 0, shown.output
    assert f"client quotas are {QUOTA_REASON}" in shown.stdout
    assert "1 blocked" in shown.stdout

    detailed = runner.invoke(app, ["plan", str(manifests), "--live-state", str(snapshot), "--detailed-exitcode"])
    assert detailed.exit_code == 2, detailed.output
    as_json = runner.invoke(app, ["plan", str(manifests), "--live-state", str(snapshot), "--format", "json"])
    doc = json.loads(as_json.stdout)
    assert [(c["address"], c["action"]) for c in doc["changes"]] == [(APP.address, "blocked")]
