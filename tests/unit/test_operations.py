"""What plan and apply do end to end, reached without a terminal (``reconciler.operations``).

The cluster is a snapshot file or a ``RecordingAdapter`` holding plain data; the CLI tests check the same
flows through the commands, and the integration tests against a real broker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reconciler import manifests, operations
from reconciler.apply.apply_report import Outcome
from reconciler.base import errors
from reconciler.model import plan_compare, plans, state
from reconciler.snapshot import files
from tests.support.recording import RecordingAdapter

TOPICS = """\
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: orders}
spec: {partitions: 6, replicationFactor: 1, configs: {retention.ms: 7d}}
---
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: payments}
spec: {partitions: 3, replicationFactor: 1}
"""


def live_cluster(topics: dict[str, state.TopicState]) -> state.ClusterState:
    return state.ClusterState(
        cluster_id="cluster-a",
        controller_id=1,
        brokers=(state.Broker(1, "127.0.0.1", 9092, None),),
        topics=topics,
        acls=frozenset(),
    )


def orders(partitions: int) -> state.TopicState:
    return state.TopicState(
        name="orders",
        assignment=tuple((1,) for _ in range(partitions)),
        configs={"retention.ms": "604800000"},
    )


@pytest.fixture
def loaded(tmp_path: Path) -> manifests.LoadResult:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "topics.yaml").write_text(TOPICS, encoding="utf-8")
    return manifests.load([tmp_path / "m"])


def snapshot(tmp_path: Path, live: state.ClusterState) -> Path:
    path = tmp_path / "live.json"
    files.write_snapshot(live, path)
    return path


def test_a_plan_against_a_snapshot_names_no_target_and_lists_each_change(
    tmp_path: Path, loaded: manifests.LoadResult
) -> None:
    path = snapshot(tmp_path, live_cluster({"orders": orders(3)}))
    p = operations.compute_plan(loaded, target=operations.Target(), request=operations.PlanRequest(), live_state=path)
    assert p.cluster.target is None
    assert p.cluster.cluster_id == "cluster-a"
    assert sorted((c.name, c.action.value) for c in p.actionable) == [("orders", "update"), ("payments", "create")]
    assert operations.has_work(p)


def test_a_plan_with_nothing_to_do_has_no_work(tmp_path: Path, loaded: manifests.LoadResult) -> None:
    payments = state.TopicState(name="payments", assignment=((1,), (1,), (1,)), configs={})
    path = snapshot(tmp_path, live_cluster({"orders": orders(6), "payments": payments}))
    p = operations.compute_plan(loaded, target=operations.Target(), request=operations.PlanRequest(), live_state=path)
    assert not p.actionable and not p.blocked
    assert not operations.has_work(p)


@pytest.mark.parametrize(
    ("window", "message"),
    [
        ("soon", "--in-use-window: 'soon' is not a duration"),
        ("-1d", "--in-use-window"),
    ],
)
def test_a_bad_in_use_window_is_refused_before_anything_is_read(
    tmp_path: Path, loaded: manifests.LoadResult, window: str, message: str
) -> None:
    with pytest.raises(errors.ConfigError, match=message):
        operations.compute_plan(
            loaded,
            target=operations.Target(),
            request=operations.PlanRequest(in_use_window=window),
            live_state=tmp_path / "never-read.json",
        )


@pytest.mark.parametrize(("text", "ms"), [("7d", 604_800_000), ("12h", 43_200_000), ("0", 0)])
def test_in_use_window_durations(text: str, ms: int) -> None:
    assert operations.in_use_window_ms(text) == ms


def test_rotating_an_undeclared_scram_user_is_refused(tmp_path: Path, loaded: manifests.LoadResult) -> None:
    path = snapshot(tmp_path, live_cluster({}))
    with pytest.raises(errors.ConfigError, match=r"--rotate-password names SCRAM user.*: ghost"):
        operations.compute_plan(
            loaded,
            target=operations.Target(),
            request=operations.PlanRequest(rotate_passwords=("ghost",)),
            live_state=path,
        )


def test_apply_takes_the_saved_plan_or_asks_for_one(tmp_path: Path, loaded: manifests.LoadResult) -> None:
    p = operations.compute_plan(
        loaded,
        target=operations.Target(),
        request=operations.PlanRequest(),
        live_state=snapshot(tmp_path, live_cluster({})),
    )
    p.save(tmp_path / "plan.json")
    again, ops = operations.plan_to_apply(
        plan_file=tmp_path / "plan.json",
        loaded=None,
        target=operations.Target(),
        request=operations.PlanRequest(),
        timeout_s=5,
    )
    assert again == p
    assert ops is not None and {op.address for op in ops.items} == {c.address for c in p.actionable}
    with pytest.raises(errors.ConfigError, match=r"give manifest paths to plan and apply, or --plan FILE"):
        operations.plan_to_apply(
            plan_file=None, loaded=None, target=operations.Target(), request=operations.PlanRequest(), timeout_s=5
        )


def test_prepare_apply_resolves_the_connection_before_any_question(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "cluster.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Cluster\nmetadata: {name: prod}\nspec:\n"
        '  bootstrapServers: ["kafka-1:9093"]\n  securityProtocol: SASL_SSL\n  saslMechanism: SCRAM-SHA-512\n'
        "  username: reconciler\n  passwordFrom: {env: RECONCILER_TEST_UNSET_PASSWORD}\n"
        + TOPICS.replace("apiVersion", "---\napiVersion", 1),
        encoding="utf-8",
    )
    with_profile = manifests.load([tmp_path / "m"])
    p = operations.compute_plan(
        with_profile,
        target=operations.Target(),
        request=operations.PlanRequest(),
        live_state=snapshot(tmp_path, live_cluster({})),
    )
    target = operations.Target(profiles=with_profile.profiles)
    with pytest.raises(errors.ConfigError, match="environment variable RECONCILER_TEST_UNSET_PASSWORD is not set"):
        operations.prepare_apply(p, target=target, timeout_s=5, dry_run=False)


class ClosingAdapter(RecordingAdapter):
    closed = False

    def __enter__(self) -> ClosingAdapter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.closed = True


def test_apply_carries_out_the_plan_reads_it_back_and_closes_the_connection(
    tmp_path: Path, loaded: manifests.LoadResult
) -> None:
    adapter = ClosingAdapter(topics={"orders": orders(3)})
    p = operations.compute_plan(
        loaded,
        target=operations.Target(),
        request=operations.PlanRequest(),
        live_state=snapshot(tmp_path, live_cluster({"orders": orders(3)})),
    )
    report = operations.apply(
        p,
        adapter,  # type: ignore[arg-type]
        dry_run=False,
        allow_self_lockout=False,
        timeout_s=30,
        loaded=loaded,
    )
    assert report.exit_code == 0
    assert {i.name: i.outcome for i in report.items} == {"orders": Outcome.APPLIED, "payments": Outcome.APPLIED}
    assert len(adapter.topics["orders"].assignment) == 6
    assert len(adapter.topics["payments"].assignment) == 3
    assert adapter.closed


def test_a_saved_plan_differs_from_the_manifests_planned_again(tmp_path: Path, loaded: manifests.LoadResult) -> None:
    """``apply PATHS --plan FILE`` compares what each change does; the integration test runs it on a broker."""
    live = snapshot(tmp_path, live_cluster({"orders": orders(3)}))
    saved = operations.compute_plan(
        loaded, target=operations.Target(), request=operations.PlanRequest(), live_state=live
    )
    assert plan_compare.differences(saved, saved) == []
    (tmp_path / "m" / "topics.yaml").write_text(
        TOPICS.replace("retention.ms: 7d", "retention.ms: 49d").replace("partitions: 3", "partitions: 4"),
        encoding="utf-8",
    )
    changed = manifests.load([tmp_path / "m"])
    fresh = operations.compute_plan(
        changed, target=operations.Target(), request=operations.PlanRequest(), live_state=live
    )
    assert plan_compare.differences(saved, fresh) == [
        "topic/orders (topic config) is planned now (update) but not in the saved plan",
        "topic/payments (topic create) is planned differently now (create partitions -> 4, replication_factor -> 1 "
        "instead of create partitions -> 3, replication_factor -> 1)",
    ]


def test_a_saved_plans_options_plan_the_manifests_again_the_same_way() -> None:
    options = {"rotate_scram_users": ["app"], "allow_delete_in_use": True, "in_use_window_ms": 0, "max_deletes": 40}
    saved = plans.Plan(cluster=plans.ClusterInfo(cluster_id="c", controller_id=1), changes=(), options=options)
    request = operations.saved_request(saved)
    assert request == operations.PlanRequest(
        rotate_passwords=("app",), allow_delete_in_use=True, in_use_window="0", max_deletes=40
    )
    assert operations.in_use_window_ms(request.in_use_window) == 0


@pytest.mark.parametrize(
    ("request_options", "named"),
    [
        ({"max_deletes": 300}, "--max-deletes"),
        ({"rotate_passwords": ("app",)}, "--rotate-password"),
        ({"allow_delete_in_use": True, "in_use_window": "1d"}, "--allow-deleting-topics-in-use, --in-use-window"),
    ],
)
def test_planning_options_with_a_saved_plan_are_refused_not_ignored(
    tmp_path: Path, request_options: dict[str, Any], named: str
) -> None:
    """``apply --plan FILE --max-deletes 300`` would otherwise look like consent the saved plan never carries."""
    with pytest.raises(errors.ConfigError, match=rf"^{named} shape a plan made now; a saved plan keeps"):
        operations.plan_to_apply(
            plan_file=tmp_path / "never-read.json",
            loaded=None,
            target=operations.Target(),
            request=operations.PlanRequest(**request_options),
            timeout_s=5,
        )
