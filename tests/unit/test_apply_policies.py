"""Pure pieces of apply: retry policy, deadline, dependency rules, report and exit codes, secrets, plan shape."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from reconciler.apply import decoded, dryrun, outcomes, preflight, retry, secrets_at_write
from reconciler.apply.apply_report import ApplyReport, ItemOutcome, NotConverged, Outcome
from reconciler.base import errors
from reconciler.model import payloads, plans
from reconciler.model.acl_names import AclOperation
from reconciler.model.desired import SecretRef
from reconciler.model.kinds import Kind
from reconciler.model.state import AclBinding

# ------------------------------------------------------------------------------------- retry policy


def test_backoff_grows_exponentially_and_is_capped() -> None:
    policy = retry.RetryPolicy(base_s=0.1, cap_s=1.0, multiplier=2.0)
    assert [policy.ceiling(n) for n in range(6)] == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.0, 1.0])


def test_jitter_spreads_the_wait_over_zero_to_the_ceiling() -> None:
    policy = retry.RetryPolicy(base_s=0.1, cap_s=1.0)
    assert policy.delay(3, rand=lambda: 0.0) == 0.0
    assert policy.delay(3, rand=lambda: 0.999) == pytest.approx(0.7992)
    assert policy.delay(3, rand=lambda: 0.25) == pytest.approx(0.2)


def test_broker_throttle_time_is_a_floor() -> None:
    policy = retry.RetryPolicy(base_s=0.1, cap_s=1.0)
    assert policy.delay(0, rand=lambda: 0.5, throttle_time_ms=2500) == 2.5
    assert policy.delay(5, rand=lambda: 0.9, throttle_time_ms=10) == pytest.approx(0.9)


@pytest.mark.parametrize(
    ("error", "retriable"),
    [
        ("NOT_CONTROLLER", True),
        ("REQUEST_TIMED_OUT", True),
        ("LEADER_NOT_AVAILABLE", True),
        ("THROTTLING_QUOTA_EXCEEDED", True),
        ("NETWORK_EXCEPTION", True),
        ("CONNECTION_ERROR", True),
        ("TOPIC_AUTHORIZATION_FAILED", False),
        ("CLUSTER_AUTHORIZATION_FAILED", False),
        ("INVALID_CONFIG", False),
        ("TOPIC_ALREADY_EXISTS", False),
        ("POLICY_VIOLATION", False),
        (None, False),
    ],
)
def test_only_transient_errors_are_retried(error: str | None, retriable: bool) -> None:
    assert retry.RetryPolicy(max_attempts=3).should_retry(attempts_made=1, error_name=error) is retriable


def test_attempts_are_bounded() -> None:
    policy = retry.RetryPolicy(max_attempts=3)
    assert policy.should_retry(attempts_made=2, error_name="NOT_CONTROLLER")
    assert not policy.should_retry(attempts_made=3, error_name="NOT_CONTROLLER")


def test_invalid_policy_is_rejected() -> None:
    with pytest.raises(ValueError, match="base_s"):
        retry.RetryPolicy(base_s=2.0, cap_s=1.0)


def test_deadline_counts_down_on_the_injected_clock() -> None:
    now = [100.0]
    deadline = retry.Deadline(10.0, clock=lambda: now[0])
    now[0] = 104.0
    assert deadline.remaining() == 6.0 and not deadline.expired()
    now[0] = 111.0
    assert deadline.remaining() == 0.0 and deadline.expired()


# --------------------------------------------------------------------------------- dependencies


def change(
    phase: plans.Phase,
    name: str = "orders",
    kind: Kind = Kind.TOPIC,
    action: plans.Action = plans.Action.UPDATE,
) -> plans.Change:
    return plans.Change(address=f"{kind}/{name}", kind=kind, name=name, action=action, phase=phase)


@pytest.mark.parametrize(
    ("failed_phase", "later_phase", "skipped"),
    [
        (plans.Phase.TOPIC_DELETE, plans.Phase.TOPIC_CREATE, True),
        (plans.Phase.TOPIC_CREATE, plans.Phase.PARTITIONS, True),
        (plans.Phase.TOPIC_CREATE, plans.Phase.TOPIC_CONFIG, True),
        (plans.Phase.TOPIC_CREATE, plans.Phase.REASSIGN, True),
        (plans.Phase.PARTITIONS, plans.Phase.REASSIGN, True),
        (plans.Phase.PARTITIONS, plans.Phase.TOPIC_CONFIG, False),
        (plans.Phase.TOPIC_CONFIG, plans.Phase.REASSIGN, False),
        (plans.Phase.ACL_DELETE, plans.Phase.ACL_CREATE, False),
    ],
)
def test_only_dependants_of_a_failure_are_skipped(
    failed_phase: plans.Phase, later_phase: plans.Phase, skipped: bool
) -> None:
    failures = {(failed_phase, "topic/orders"): "INVALID_CONFIG"}
    reason = outcomes.skip_reason(change(later_phase), failures)
    assert (reason is not None) is skipped
    if reason:
        assert "topic/orders" in reason and "INVALID_CONFIG" in reason
    assert outcomes.skip_reason(change(later_phase, name="other"), failures) is None


# --------------------------------------------------------------------------------------- report


def outcome(result: Outcome, address: str = "topic/a") -> ItemOutcome:
    return ItemOutcome(address, "topic", address[6:], plans.Phase.TOPIC_CREATE, plans.Action.CREATE, result)


@pytest.mark.parametrize(
    ("outcomes", "dry_run", "converged", "code"),
    [
        ([Outcome.APPLIED, Outcome.APPLIED], False, True, 0),
        ([Outcome.APPLIED, Outcome.FAILED], False, False, 3),
        ([Outcome.APPLIED, Outcome.SKIPPED], False, True, 3),
        ([Outcome.APPLIED], False, False, 3),
        ([Outcome.DRY_RUN_ACCEPTED], True, None, 0),
        ([Outcome.DRY_RUN_ACCEPTED, Outcome.DRY_RUN_REJECTED], True, None, 3),
    ],
)
def test_exit_codes(outcomes: list[Outcome], dry_run: bool, converged: bool | None, code: int) -> None:
    report = ApplyReport("c", dry_run, tuple(outcome(o, f"topic/{i}") for i, o in enumerate(outcomes)), (), converged)
    assert report.exit_code == code


def test_report_json_carries_counts_and_not_converged() -> None:
    report = ApplyReport(
        "c",
        False,
        (outcome(Outcome.APPLIED), outcome(Outcome.FAILED, "topic/b")),
        (),
        False,
        not_converged=(NotConverged("topic/a", "topic create: the topic does not exist"),),
        requests=4,
    )
    doc = json.loads(report.to_json())
    assert doc["counts"]["applied"] == 1 and doc["counts"]["failed"] == 1 and doc["counts"]["skipped"] == 0
    assert doc["exit_code"] == 3 and doc["requests"] == 4
    assert doc["not_converged"] == [{"address": "topic/a", "detail": "topic create: the topic does not exist"}]
    assert doc["items"][1]["outcome"] == "failed"


# -------------------------------------------------------------------------------------- secrets


def test_secret_from_env_and_file(tmp_path: Path) -> None:
    pw = tmp_path / "pw"
    pw.write_text("from-file\n")
    assert secrets_at_write.resolve(SecretRef(env="PW"), user="alice", environ={"PW": "from-env"}) == "from-env"
    assert secrets_at_write.resolve(SecretRef(file=str(pw)), user="alice", environ={}) == "from-file"


@pytest.mark.parametrize(
    ("ref", "environ", "message"),
    [
        (SecretRef(env="PW"), {}, "SCRAM user 'alice': password reference env:PW: environment variable PW is not set"),
        (SecretRef(env="PW"), {"PW": ""}, "env:PW: the value is empty"),
        (
            SecretRef(file="/nonexistent/pw"),
            {},
            "file:/nonexistent/pw: cannot read file /nonexistent/pw: No such file or directory",
        ),
    ],
)
def test_missing_secret_names_user_and_reference(ref: SecretRef, environ: dict[str, str], message: str) -> None:
    with pytest.raises(secrets_at_write.SecretUnavailable) as info:
        secrets_at_write.resolve(ref, user="alice", environ=environ)
    assert message in str(info.value)
    assert info.value.exit_code == 1


def test_secret_reference_forms_in_plan_data() -> None:
    assert secrets_at_write.ref_from_data("env:PW") == SecretRef(env="PW")
    assert secrets_at_write.ref_from_data({"file": "/x"}) == SecretRef(file="/x")
    assert secrets_at_write.ref_from_data("PW") is None


# ------------------------------------------------------------------------------ dry-run checks


def test_client_side_acl_checks() -> None:
    good = AclBinding("TOPIC", "LITERAL", "orders", "User:alice", "*", "READ", "ALLOW")
    seen: set[AclBinding] = set()
    assert dryrun.check_acl(good, seen=seen) is None
    assert dryrun.check_acl(good, seen=seen) == "duplicate binding in this plan"
    bad = AclBinding("CLUSTER", "LITERAL", "x", "alice", "*", "READ", "ALLOW")
    problem = dryrun.check_acl(bad, seen=seen) or ""
    assert "not of the form Type:name" in problem and "kafka-cluster" in problem


def test_client_side_reassignment_checks() -> None:
    problem = dryrun.check_reassignment(topic="t", targets={0: (1, 1), 1: (1, 9)}, brokers={1, 2}, partitions=2) or ""
    assert "partition 0: a broker appears twice" in problem and "partition 1: broker(s) [9] do not exist" in problem
    assert dryrun.check_reassignment(topic="t", targets={0: (1, 2)}, brokers={1, 2}, partitions=1) is None


def test_client_side_scram_checks() -> None:
    problem = dryrun.check_scram(
        user="u", mechanism="SCRAM-SHA-1", iterations=100, password="env:X", upsert=True, environ={"X": "y"}
    )
    assert problem == "unknown SCRAM mechanism SCRAM-SHA-1; iterations 100 outside 4096..16384"


# --------------------------------------------------------------------------------- plan shape


def test_a_change_in_the_wrong_phase_makes_the_plan_impossible() -> None:
    bad = plans.Plan(
        cluster=plans.ClusterInfo("c", 1),
        changes=(
            change(plans.Phase.TOPIC_DELETE, action=plans.Action.CREATE),
            change(plans.Phase.ACL_CREATE, kind=Kind.TOPIC, action=plans.Action.CREATE),
        ),
    )
    with pytest.raises(
        preflight.ImpossiblePlan, match=r"topic/orders: a create of a topic cannot run in phase topic delete"
    ):
        decoded.check_shape(bad)


def test_error_level_warnings_block_apply() -> None:
    p = plans.Plan(
        cluster=plans.ClusterInfo("c", 1),
        changes=(),
        warnings=(plans.PlanWarning("topics could not be read", code="topics-unreadable", severity="error"),),
    )
    with pytest.raises(errors.ReconcilerError, match="topics could not be read"):
        decoded.check_findings(p)


def test_a_quota_change_writes_the_entity_its_payload_carries_never_one_parsed_from_its_address() -> None:
    """Regression: the entity was rebuilt by parsing the change's name, so ``clientId: "a,user=b"`` was written to
    ``client-id=a, user=b``. Names holding the address's separators are written percent-encoded."""
    from reconciler.model.state import QuotaEntity

    for entity in (
        QuotaEntity.of(user="alice"),
        QuotaEntity.of(user=None),
        QuotaEntity.of(user="bob", client_id=None),
        QuotaEntity.of(client_id="app,v2=x"),
        QuotaEntity.of(client_id="a,user=b"),
        QuotaEntity.of(client_id="<default>"),
        QuotaEntity.of(user="CN=alice,OU=eng", client_id="50%"),
    ):
        c = plans.Change(
            entity.address,
            Kind.QUOTA,
            entity.address[len("quota/") :],
            plans.Action.CREATE,
            plans.Phase.QUOTA,
            after=payloads.QuotaPayload(entity, {"producer_byte_rate": 1024.0}),
        )
        assert decoded.operation(c).entity == entity
    assert QuotaEntity.of(client_id="a,user=b").address == "quota/client-id=a%2Cuser=b"
    assert QuotaEntity.of(client_id="<default>").address != QuotaEntity.of(client_id=None).address


def test_a_quota_change_whose_entity_is_not_its_address_is_refused_at_decode() -> None:
    from reconciler.model.state import QuotaEntity

    shown, written = QuotaEntity.of(user="alice"), QuotaEntity.of(user="mallory")
    c = plans.Change(
        shown.address,
        Kind.QUOTA,
        shown.address[len("quota/") :],
        plans.Action.CREATE,
        plans.Phase.QUOTA,
        after=payloads.QuotaPayload(written, {"producer_byte_rate": 1024.0}),
    )
    op = decoded.operation(c)
    assert op.request is None and op.problem is not None and "quota/user=mallory" in op.problem


def test_authorization_failures_name_the_missing_operation_and_resource() -> None:
    from reconciler.apply.batch import Result

    c = change(plans.Phase.TOPIC_CREATE, name="orders", action=plans.Action.CREATE)
    denied = Result(ok=False, error_code=29, error_name="TOPIC_AUTHORIZATION_FAILED", message="Authorization failed.")
    item = outcomes.from_result(c, denied, dry_run=False)
    assert item.message == (
        "Authorization failed.; the connecting principal needs CREATE on TOPIC orders "
        "(or CREATE on CLUSTER kafka-cluster)"
    )
    other = Result(ok=False, error_code=40, error_name="INVALID_CONFIG", message="bad")
    assert outcomes.from_result(c, other, dry_run=False).message == "bad"


def test_an_error_about_one_resource_whose_changes_are_blocked_does_not_refuse_the_plan() -> None:
    p = plans.Plan(
        cluster=plans.ClusterInfo("c", 1),
        changes=(change(plans.Phase.TOPIC_CONFIG, "b"),),
        warnings=(plans.PlanWarning("bad", address="topic/a", code="x", severity="error"),),
    )
    decoded.check_findings(p)  # topic/a has no change left to send: topic/b goes ahead
    acting = dataclasses.replace(p, warnings=(plans.PlanWarning("bad", address="topic/b", code="x", severity="error"),))
    with pytest.raises(errors.ReconcilerError, match="topic/b: bad"):
        decoded.check_findings(acting)


def test_an_acl_change_whose_binding_is_not_its_address_is_refused_at_decode() -> None:
    """Regression: a resealed plan could show one ACL and create another (the binding was never compared with the
    change's address)."""
    shown = AclBinding("TOPIC", "LITERAL", "orders", "User:app", "*", "READ", "ALLOW")
    written = dataclasses.replace(shown, operation=AclOperation.ALL, resource_name="*")
    name = shown.address.removeprefix("acl/")
    c = plans.Change(
        shown.address, Kind.ACL, name, plans.Action.CREATE, plans.Phase.ACL_CREATE, after=payloads.AclPayload(written)
    )
    op = decoded.operation(c)
    assert op.request is None and op.problem is not None and written.address in op.problem
