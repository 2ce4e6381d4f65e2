"""Apply decodes a plan once, before it reads the cluster: every change that cannot be carried out as written is
named in one refusal, and the checks before writing read the decoded operations, handed on to apply."""

from __future__ import annotations

import copy
import json
import struct
import threading
from pathlib import Path
from typing import Any

import pytest

from reconciler.apply import ApplyReport, apply_plan, decoded, preflight
from reconciler.base import errors
from reconciler.model import plans, state
from reconciler.model.desired import DesiredState, DesiredTopic
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from tests.support.apply_runs import apply_options
from tests.support.fuzzing import GOLDEN_PLAN, reseal
from tests.support.recording import RecordingAdapter

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "example-plan.json"


def golden() -> plans.Plan:
    return plans.Plan.from_json_dict(json.loads(GOLDEN.read_text(encoding="utf-8")))


def test_a_saved_plan_decodes_into_one_operation_per_change_in_apply_order() -> None:
    p = golden()
    ops = decoded.decode(p)
    assert ops.changes == plans.sort_changes(p.actionable)
    assert all(op.problem is None for op in ops.items)
    assert [b.principal for b in ops.bindings(plans.Action.DELETE)] == ["User:payments-api", "User:payments-old"]
    assert ops.names(Kind.SCRAM_USER) == {"payments-api", "payments-batch"}
    upserts = {op.scram.user: op.scram.password for op in ops.of(Kind.SCRAM_USER) if op.scram is not None}
    assert set(upserts) == {"payments-api", "payments-batch"} and all(
        (pw or "").startswith(("env:", "file:")) for pw in upserts.values()
    )


def test_the_read_scope_names_the_changed_resources_and_the_principals_the_guard_weighs() -> None:
    scope = decoded.decode(golden()).read_scope(principals=("User:reconciler", "User:*", None))
    assert scope.topics == frozenset({"payments.legacy", "payments.orders", "payments.ledger", "payments.audit"})
    assert scope.principals == frozenset({"User:payments-api", "User:payments-old", "User:reconciler", "User:*"})
    assert scope.quota_entities == frozenset(
        {state.QuotaEntity.of(user="payments-api"), state.QuotaEntity.of(user="payments-batch")}
    )
    assert scope.brokers == frozenset({"1", state.CLUSTER_DEFAULT})


def test_every_change_that_cannot_be_carried_out_is_named_in_one_refusal() -> None:
    doc = copy.deepcopy(GOLDEN_PLAN)
    broken = []
    for c in doc["changes"]:
        if c["kind"] == "acl" and c["action"] == "delete" and isinstance(c.get("before"), dict):
            c["before"].pop("principal")
            broken.append(c["address"])
        elif c["phase"] == "PARTITIONS" and c["action"] == "update":
            c["after"]["partitions"] = "many"
            broken.append(c["address"])
    with pytest.raises(preflight.ImpossiblePlan) as refused:
        decoded.decode(plans.Plan.from_json_dict(reseal(doc)))
    message = str(refused.value)
    assert message.startswith("the plan cannot be applied as written: ")
    assert len(broken) == 3 and all(address in message for address in broken)
    assert "partitions is not a whole number" in message and "nothing was written" in message


def _config_change_only(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The golden plan with only its topic config change (payments.ledger: retention.ms set, cleanup.policy reset),
    and that change."""
    doc["changes"] = [c for c in doc["changes"] if c["phase"] == "TOPIC_CONFIG"]
    return doc, doc["changes"][0]


def test_apply_writes_the_config_operations_of_the_plan_and_shows_exactly_them() -> None:
    """Apply sends the change's config operations; what the plan shows is derived from the same operations."""
    from reconciler.apply import ApplyOptions, apply_plan
    from tests.support.recording import RecordingAdapter

    doc, _change = _config_change_only(copy.deepcopy(GOLDEN_PLAN))
    p = plans.Plan.from_json_dict(reseal(doc))
    topic = state.TopicState(
        "payments.ledger", ((1,),), configs={"retention.ms": "86400000", "cleanup.policy": "compact"}
    )
    adapter = RecordingAdapter(cluster_id=p.cluster.cluster_id or "c", topics={"payments.ledger": topic})
    report = apply_plan(p, adapter, options=ApplyOptions(check_staleness=False))
    assert report.exit_code == 0 and report.converged is True
    assert [args for name, args in adapter.calls if name == "incremental_alter_configs"] == [
        {"resources": [("TOPIC", "payments.ledger")], "validate_only": False}
    ]
    assert adapter.topics["payments.ledger"].configs == {"retention.ms": "604800000"}
    shown = [(a.name, a.before, a.after) for a in p.changes[0].attributes]
    assert shown == [("configs.retention.ms", "86400000", "604800000"), ("configs.cleanup.policy", "compact", None)]


@pytest.mark.parametrize("edit", ["attribute name", "attribute value", "operation value", "operation added"])
def test_a_config_change_that_shows_other_values_than_it_writes_is_refused_on_load(edit: str) -> None:
    """Regression: the display attributes, ``configs`` and ``config_ops`` were three stored copies nobody compared,
    so a resealed plan could show ``retention.ms 1d -> 7d`` while apply sent other config operations."""
    doc, change = _config_change_only(copy.deepcopy(GOLDEN_PLAN))
    if edit == "attribute name":
        change["attributes"][0]["name"] = "configs.shown.only"
    elif edit == "attribute value":
        change["attributes"][0]["after"] = "1"
    elif edit == "operation value":
        change["after"]["config_ops"][0]["value"] = "1"
    else:
        change["after"]["config_ops"].append({"key": "segment.ms", "op": "set", "value": "1"})
    with pytest.raises(errors.PlanFileError, match="shows other values than its data writes"):
        plans.Plan.from_json_dict(reseal(doc))


def test_a_config_change_without_its_config_operations_is_refused_before_anything_is_read() -> None:
    doc, change = _config_change_only(copy.deepcopy(GOLDEN_PLAN))
    del change["after"]["config_ops"]
    with pytest.raises(preflight.ImpossiblePlan, match=r"topic/payments\.ledger: the config change lists no config"):
        decoded.decode(plans.Plan.from_json_dict(reseal(doc)))


def test_two_plans_decoded_in_two_threads_apply_each_its_own_operations_decoded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: the decoded operations were kept in a module-level cache of one entry, shared by fleet apply's
    threads: a second cluster's plan decoded between the first's check and its apply evicted it, and the first plan
    was decoded again. The operations are now handed on: each plan is decoded once, and each apply carries out its
    own plan's operations."""
    calls: list[int] = []
    real = decoded.of_changes

    def counted(changes: Any) -> decoded.Operations:
        calls.append(1)
        return real(changes)

    monkeypatch.setattr(decoded, "of_changes", counted)
    adapters = {name: RecordingAdapter() for name in ("a", "b")}
    wanted = {name: DesiredState(topics={f"t-{name}": DesiredTopic(f"t-{name}", 1, 1, {})}) for name in adapters}
    plans_of = {name: plan(wanted[name], adapters[name].read_state(kinds=wanted[name].needs())) for name in adapters}
    a_decoded, b_decoded = threading.Event(), threading.Event()
    reports: dict[str, ApplyReport] = {}

    def run(name: str, *, wait: threading.Event | None, done: threading.Event) -> None:
        if wait is not None:
            assert wait.wait(60), "the other thread never decoded its plan"
        ops = decoded.decode(plans_of[name])
        done.set()
        assert (b_decoded if name == "a" else a_decoded).wait(60)
        reports[name] = apply_plan(plans_of[name], adapters[name], options=apply_options(), operations=ops)

    threads = [
        threading.Thread(target=run, args=("a",), kwargs={"wait": None, "done": a_decoded}),
        threading.Thread(target=run, args=("b",), kwargs={"wait": a_decoded, "done": b_decoded}),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert set(reports) == {"a", "b"}
    assert len(calls) == 2  # a, then b: neither decoded again by its apply
    for name, report in reports.items():
        assert report.exit_code == 0
        assert [i.name for i in report.items] == [f"t-{name}"]
        assert set(adapters[name].topics) == {f"t-{name}"}


@pytest.mark.parametrize("edit", ["quota value", "created partitions", "created config", "added partitions"])
def test_a_quota_change_or_topic_creation_that_shows_other_values_than_it_writes_is_refused_on_load(
    edit: str,
) -> None:
    """Regression: a resealed plan could show ``consumer_byte_rate 2097152 -> 4194304`` or a topic of 6 partitions
    while its data (what apply sends) said otherwise."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    if edit == "quota value":
        change = next(c for c in doc["changes"] if c["kind"] == "quota" and c["action"] == "update")
        change["after"]["values"]["consumer_byte_rate"] = 1.0
    elif edit == "added partitions":
        change = next(c for c in doc["changes"] if c["phase"] == "PARTITIONS" and c["action"] == "update")
        change["after"]["partitions"] = 7
    else:
        change = next(c for c in doc["changes"] if c["phase"] == "TOPIC_CREATE")
        if edit == "created partitions":
            change["after"]["partitions"] = 600
        else:
            change["after"]["configs"]["retention.ms"] = "1"
    with pytest.raises(errors.PlanFileError, match="shows other values than its data writes"):
        plans.Plan.from_json_dict(reseal(doc))


def _one(doc: dict[str, Any], address: str) -> dict[str, Any]:
    change: dict[str, Any] = next(
        c for c in doc["changes"] if c["address"] == address and c["phase"] in ("SCRAM", "REASSIGN")
    )
    doc["changes"] = [change]
    return change


@pytest.mark.parametrize("edit", ["iterations", "mechanism", "removed credential"])
def test_a_scram_change_that_shows_other_credentials_than_it_writes_is_refused_on_load(edit: str) -> None:
    """Regression: a resealed plan could show ``credentials.SCRAM-SHA-512 4096 -> 8192`` while its data (what apply
    sends) set SCRAM-SHA-256, or 100000 iterations, or removed a credential it did not show."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    change = _one(doc, "scram_user/payments-batch")
    if edit == "iterations":
        change["after"]["credentials"]["SCRAM-SHA-512"]["iterations"] = 100_000
    elif edit == "mechanism":
        change["after"]["credentials"] = {"SCRAM-SHA-256": {"iterations": 8192}}
    else:
        change["before"]["credentials"]["SCRAM-SHA-256"] = {"iterations": 4096}
    with pytest.raises(errors.PlanFileError, match=r"scram_user/payments-batch.* shows other values than its data"):
        plans.Plan.from_json_dict(reseal(doc))


@pytest.mark.parametrize("edit", ["replicas", "extra partition"])
def test_a_reassignment_that_shows_other_replicas_than_it_writes_is_refused_on_load(edit: str) -> None:
    """Regression: a resealed plan could show partition 0 moving to [1, 2, 3] while its data moved it to [4, 5, 6],
    or move a partition it did not show."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    change = _one(doc, "topic/payments.audit")
    if edit == "replicas":
        change["after"]["assignment"][0] = [4, 5, 6]
    else:
        change["after"]["assignment"].append([1, 2, 3])
    with pytest.raises(errors.PlanFileError, match=r"topic/payments\.audit.* shows other values than its data"):
        plans.Plan.from_json_dict(reseal(doc))


def test_a_scram_change_or_reassignment_without_stored_attributes_shows_what_it_writes() -> None:
    """Their attributes are derived from their data: with none stored, the plan shows what apply sends."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    doc["changes"] = [c for c in doc["changes"] if c["phase"] in ("SCRAM", "REASSIGN")]
    batch = next(c for c in doc["changes"] if c["address"] == "scram_user/payments-batch")
    batch["after"]["credentials"] = {"SCRAM-SHA-256": {"iterations": 10_000}}
    audit = next(c for c in doc["changes"] if c["address"] == "topic/payments.audit")
    audit["after"]["assignment"][2] = [3, 2, 1]
    for c in doc["changes"]:
        c["attributes"] = []
    p = plans.Plan.from_json_dict(reseal(doc))
    shown = {c.address: {a.name: (a.before, a.after) for a in c.attributes} for c in p.changes}
    assert shown["scram_user/payments-batch"] == {
        "credentials.SCRAM-SHA-256": (None, {"iterations": 10_000}),
        "credentials.SCRAM-SHA-512": ({"iterations": 4096}, None),
        "password": (None, "file:/run/secrets/batch"),
    }
    assert shown["topic/payments.audit"]["assignment.2"] == ([3, 1], [3, 2, 1])
    scram = next(op.scram for op in decoded.decode(p).items if op.scram is not None and op.name == "payments-batch")
    assert scram is not None and dict(scram.upserts) == {"SCRAM-SHA-256": 10_000}
    assert scram.deletions == ("SCRAM-SHA-512",)


def test_a_reassignment_whose_replica_lists_do_not_match_its_replication_factor_is_refused() -> None:
    """The plan shows ``replication_factor 2 -> 3``; replica lists of another length would write another one."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    change = _one(doc, "topic/payments.audit")
    change["after"]["assignment"] = [[1, 2, 3, 4], [2, 3, 1, 4], [3, 1, 2, 4]]
    change["attributes"] = []
    with pytest.raises(preflight.ImpossiblePlan, match=r"payments\.audit: the target replicas do not all number 3"):
        decoded.decode(plans.Plan.from_json_dict(reseal(doc)))


def test_the_in_memory_adapter_builds_scram_and_reassignment_requests_with_the_adapter_encoders() -> None:
    """Regression: the unit tests' adapter accepted a SCRAM mechanism and a broker id the wire cannot carry."""
    from reconciler.connection.settings import Secret
    from reconciler.kafka import results
    from tests.support.recording import RecordingAdapter

    adapter = RecordingAdapter()
    with pytest.raises(ValueError, match="unknown SCRAM mechanism 'SCRAM-SHA-1'"):
        adapter.alter_scram_credentials(upserts=[results.ScramUpsert("u", "SCRAM-SHA-1", 4096, Secret("pw"))])
    with pytest.raises(ValueError, match="unknown SCRAM mechanism 'MD5'"):
        adapter.alter_scram_credentials(deletions=[results.ScramDeletion("u", "MD5")])
    with pytest.raises(struct.error):
        adapter.alter_partition_reassignments({("t", 0): [1, 2**31]})
