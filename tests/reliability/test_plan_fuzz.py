"""Plan files edited by hand and resealed (checksum recomputed) so the parser and the checks before writing see
them: never a crash, only a plain refusal or a report. Runs against the in-memory adapter of the unit tests:
what is tested is how apply reads a plan, not the wire protocol."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from reconciler.apply import ApplyOptions, apply_plan
from reconciler.base import errors
from reconciler.kafka import encoders
from reconciler.model import plans, state
from reconciler.model.acl_names import AclOperation
from tests.support import shown_sent
from tests.support.fuzz_edges import check_plan_text, hostile_plan_texts
from tests.support.fuzzing import (
    APPLICABLE_PLAN,
    GOLDEN_PLAN,
    check_plan,
    edited_plans,
    edited_plans_of_kinds,
    reseal,
    seeded_kinds,
)
from tests.support.live import cli
from tests.support.recording import RecordingAdapter
from tests.support.shown_sent import check_shown_is_sent


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(edited_plans())
def test_resealed_plans_are_refused_plainly_or_applied(doc: dict[str, Any]) -> None:
    verdict, detail = check_plan(doc)
    assert verdict != "crash", detail


@settings(max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(hostile_plan_texts())
def test_deep_nesting_huge_numbers_and_wire_limits_in_plan_files_are_never_a_crash(text: str) -> None:
    """Regression: a plan nested 100,000 deep or holding a 5,000-digit number ended in an internal error."""
    verdict, detail = check_plan_text(text)
    assert verdict != "crash", detail


def test_a_quota_change_whose_name_is_not_an_entity_is_refused_before_writing() -> None:
    """Regression: a resealed quota change named "x" crashed apply with CannotTranslate while it chose what to read."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    quota = next(c for c in doc["changes"] if c["kind"] == "quota")
    quota["name"], quota["address"] = "x", "quota/x"  # the address follows the name, or the load refuses it
    doc["changes"] = [quota]
    assert check_plan(reseal(doc)) == ("refused before writing", None)


def test_a_section_of_the_wrong_type_is_a_malformed_plan(tmp_path: Path) -> None:
    """Regression: ``"cluster": []`` in a resealed plan ended in "internal error: AttributeError"."""
    doc = reseal({**copy.deepcopy(GOLDEN_PLAN), "cluster": []})
    path = tmp_path / "plans.json"
    path.write_text(json.dumps(doc))
    result = cli(["show", str(path)])
    assert result.returncode == 1
    assert "malformed plan file" in result.stderr and "internal error" not in result.stderr


def test_a_reason_that_is_not_text_is_a_malformed_plan(tmp_path: Path) -> None:
    """Regression: ``"reasons": [null]`` in a resealed plan with a blocked change crashed apply (TypeError)."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    doc["changes"][0]["reasons"] = [None]
    path = tmp_path / "plans.json"
    path.write_text(json.dumps(reseal(doc)))
    result = cli(["show", str(path)])
    assert result.returncode == 1
    assert "malformed plan file" in result.stderr and "'reasons' must be a list of strings" in result.stderr


def test_an_acl_change_without_its_binding_is_refused_before_writing() -> None:
    """Regression: an ACL change whose data lacked a field crashed apply with KeyError before its first write."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    acl = next(c for c in doc["changes"] if c["kind"] == "acl")
    for side in ("before", "after"):
        if isinstance(acl.get(side), dict):
            acl[side].pop("principal", None)
    p = plans.Plan.from_json_dict(reseal(doc))
    adapter = RecordingAdapter(cluster_id=p.cluster.cluster_id or "cluster-a")
    try:
        apply_plan(p, adapter, options=ApplyOptions(check_staleness=False))
    except errors.ReconcilerError as exc:
        assert "the plan cannot be applied as written" in str(exc) and acl["address"] in str(exc)
    else:
        raise AssertionError("the plan was accepted")
    assert adapter.writes() == [] and adapter.calls == []


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(edited_plans())
def test_what_a_resealed_plan_shows_is_what_its_requests_carry(doc: dict[str, Any]) -> None:
    """Regression: a resealed plan could show one ACL, quota entity or config value and write another. Every plan
    that loads is shown, decoded, and each request built and encoded by the adapter's own encoders: no crash, and
    every request carries exactly what the plan shows."""
    verdict, detail = check_shown_is_sent(doc)
    assert verdict in ("refused", "same"), detail


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(edited_plans_of_kinds())
def test_what_a_resealed_change_of_each_kind_shows_is_what_its_requests_carry(case: tuple[str, dict[str, Any]]) -> None:
    """The shown-is-sent check with the edits inside one registered kind's changes, every kind seeded (a kind the
    golden plan cannot seed fails ``seeded_kinds``). Regression: a connector's lines were not derived from its data,
    so an edited connector config was shown as planned and applied as edited."""
    kind, doc = case
    verdict, detail = check_shown_is_sent(doc)
    assert verdict in ("refused", "same"), (kind, detail)


def test_every_registered_kind_is_seeded_and_an_edited_connector_is_caught() -> None:
    from reconciler.kinds import registry

    assert seeded_kinds() == [k.value for k in registry.KINDS]
    doc = copy.deepcopy(APPLICABLE_PLAN)
    created = next(c for c in doc["changes"] if c["kind"] == "connector" and c["action"] == "create")
    created["after"]["config"]["topics"] = "other"
    assert check_shown_is_sent(reseal(doc))[0] == "refused"
    for a in created["attributes"]:
        if a["name"] == "config.topics":
            a["after"] = "other"
    assert check_shown_is_sent(reseal(doc)) == ("same", None)


def test_an_operation_the_check_cannot_compare_is_refused_by_the_check_not_passed() -> None:
    """A kind whose operations the shown-is-sent check was not taught would pass every case unchecked: the check
    raises instead (``check_shown_is_sent`` reports it as a crash), so a new kind fails the fuzz until its requests
    are compared."""
    from reconciler.apply import decoded

    p = plans.Plan.from_json_dict(reseal(copy.deepcopy(APPLICABLE_PLAN)))
    unknown = decoded.Operation(change=p.actionable[0], request=object())
    with pytest.raises(TypeError, match="no shown-is-sent comparison for a object operation"):
        shown_sent._sent(unknown)


def test_a_warning_that_is_not_text_is_a_malformed_plan(tmp_path: Path) -> None:
    """Regression (found by the plan-contract fuzz): a resealed warning whose message was an object crashed show."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    doc["warnings"][0]["message"] = {"a": 1}
    path = tmp_path / "plans.json"
    path.write_text(json.dumps(reseal(doc)))
    result = cli(["show", str(path)])
    assert result.returncode == 1
    assert "malformed plan file" in result.stderr and "internal error" not in result.stderr


def _deletions_only() -> dict[str, Any]:
    doc = copy.deepcopy(GOLDEN_PLAN)
    doc["changes"] = [c for c in doc["changes"] if c["phase"] in ("ACL_DELETE", "TOPIC_DELETE")]
    assert {c["phase"] for c in doc["changes"]} == {"ACL_DELETE", "TOPIC_DELETE"}
    return reseal(doc)


def test_a_deletion_is_compared_with_the_request_that_deletes() -> None:
    """The shown-is-sent check reads each deletion's target back from the encoded DeleteTopics or DeleteAcls request
    (topic name; binding rebuilt from its wire codes) and compares it with the address the plan shows."""
    assert check_shown_is_sent(_deletions_only()) == ("same", None)


def test_a_deletion_request_for_another_resource_than_shown_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: the check built no request for a topic deletion and a CreateAcls (not the DeleteAcls it sends) for
    an ACL deletion, so a deletion sent to another resource than its address went unnoticed. Each fault injected into
    the encoders is now reported as a difference between what show prints and what would be sent."""
    real_topics, real_acls = encoders.delete_topics, encoders.delete_acls

    def other_topic(chunk: Sequence[str], *, timeout_ms: int) -> Any:
        return real_topics([f"{n}-other" for n in chunk], timeout_ms=timeout_ms)

    def other_operation(chunk: Sequence[state.AclBinding]) -> Any:
        return real_acls([dataclasses.replace(b, operation=AclOperation.ALL) for b in chunk])

    monkeypatch.setattr(encoders, "delete_topics", other_topic)
    verdict, detail = check_shown_is_sent(_deletions_only())
    assert verdict == "different" and "shows topic/payments.legacy, writes to topic/payments.legacy-other" in str(
        detail
    )
    monkeypatch.setattr(encoders, "delete_topics", real_topics)
    monkeypatch.setattr(encoders, "delete_acls", other_operation)
    verdict, detail = check_shown_is_sent(_deletions_only())
    shown = "acl/User:payments-old/ALLOW/READ/TOPIC:LITERAL:payments.events@*"
    assert verdict == "different" and f"shows {shown}, writes to {shown.replace('/READ/', '/ALL/')}" in str(detail)


def _topic_deletion(edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(GOLDEN_PLAN)
    edit(next(c for c in doc["changes"] if c["phase"] == "TOPIC_DELETE"))
    return reseal(doc)


DELETION_EDITS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "fewer partitions than its data": (
        lambda c: c["warnings"].__setitem__(0, "deleting the topic deletes its 1 partition(s) and all their data"),
        "its data says 2 partition(s)",
    ),
    "no group, where its data has one": (
        lambda c: c["before"]["usage"].__setitem__("groups", ["billing"]),
        "'evidence: no consumer group has committed offsets on it', which its usage evidence does not say",
    ),
    "smaller end offsets": (
        lambda c: c["warnings"].__setitem__(2, "evidence: end offsets 0, 0 (sum 0)"),
        "'evidence: end offsets 0, 0 (sum 0)'",
    ),
    "an older latest record": (
        lambda c: c["before"]["usage"].__setitem__("latest_timestamp_ms", 1791544000000 - 86_400_000),
        "latest record written 2026-10-09T11:06:40Z",
    ),
    "evidence without usage data": (lambda c: c["before"].pop("usage"), "which its usage evidence does not say"),
}


@pytest.mark.parametrize("case", list(DELETION_EDITS))
def test_a_topic_deletion_showing_facts_its_data_does_not_hold_is_refused(case: str, tmp_path: Path) -> None:
    """Regression: a topic deletion's lines about what it destroys (partition count, consumer groups, end offsets,
    latest record) were free text: a resealed plan could show "deletes its 1 partition(s)" or "no consumer group has
    committed offsets on it" over data saying otherwise, and apply deleted the topic. They are now made from the
    change's ``before`` and a line its data does not hold refuses the plan on load (show exits 1, naming it)."""
    edit, says = DELETION_EDITS[case]
    doc = _topic_deletion(edit)
    assert check_plan(doc) == ("refused at load", None)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    result = cli(["show", str(path)])
    assert result.returncode == 1, result.stdout
    assert "refused: the change at 'topic/payments.legacy' shows" in result.stderr and says in result.stderr
    assert "internal error" not in result.stderr


def test_a_topic_deletion_as_planned_is_shown_with_its_facts() -> None:
    """The unedited deletion loads: every fact line it shows is its data's own (the latest record with its age)."""
    p = plans.Plan.from_json_dict(_topic_deletion(lambda c: None))
    deleted = next(c for c in p.changes if c.phase is plans.Phase.TOPIC_DELETE)
    assert "evidence: latest record written 2026-10-09T11:06:40Z, 40d before the plan" in deleted.warnings
