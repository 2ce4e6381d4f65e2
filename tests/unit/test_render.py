"""Render behaviour beyond the golden files: colour, redaction, markdown size limits, JSON round trip."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from reconciler.kinds import registry
from reconciler.model import impact as im
from reconciler.model import payloads, plans
from reconciler.model.kinds import Kind
from reconciler.render import render_json, render_markdown, render_text
from reconciler.render.markdown import GITHUB_COMMENT_LIMIT
from tests.golden.example import example_plan

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SECRET = "hunter2-do-not-print"


def _change(
    i: int,
    action: plans.Action = plans.Action.UPDATE,
    *,
    attributes: tuple[plans.AttributeChange, ...] = (
        plans.AttributeChange("configs.retention.ms", "86400000", "604800000"),
    ),
    reasons: tuple[str, ...] = ("set 1 config(s) that differ from the manifests",),
    warnings: tuple[str, ...] = (),
    after: payloads.Payload | None = None,
) -> plans.Change:
    phase = {
        plans.Action.CREATE: plans.Phase.TOPIC_CREATE,
        plans.Action.DELETE: plans.Phase.TOPIC_DELETE,
        plans.Action.BLOCKED: plans.Phase.PARTITIONS,
        plans.Action.UPDATE: plans.Phase.TOPIC_CONFIG,
    }[action]
    return plans.Change(
        address=f"topic/t-{i:06d}",
        kind=Kind.TOPIC,
        name=f"t-{i:06d}",
        action=action,
        phase=phase,
        after=after,
        attributes=attributes,
        reasons=reasons,
        warnings=warnings,
    )


def _plan(changes: list[plans.Change], warnings: tuple[plans.PlanWarning, ...] = ()) -> plans.Plan:
    return plans.Plan(cluster=plans.ClusterInfo("cid", 1, ()), changes=plans.sort_changes(changes), warnings=warnings)


def test_text_ends_with_the_summary_line_and_colour_only_adds_escape_codes() -> None:
    result = example_plan()
    plain = render_text(result, color=False)
    coloured = render_text(result, color=True)
    assert plain.splitlines()[-1] == "Plan: 6 to create, 9 to update, 5 to delete, 3 blocked."
    assert "\x1b[" not in plain and "\x1b[" in coloured
    assert ANSI.sub("", coloured) == plain


def test_text_shows_units_resets_and_header() -> None:
    out = render_text(example_plan())
    assert "Cluster Zx4kq1bETKu0nLwq9XqA2w, controller 2" in out
    assert "1 (rack eu-west-1a), 2 (rack eu-west-1b), 3 (rack eu-west-1c)" in out
    assert "~ configs.retention.ms: 86400000 (1d) -> 604800000 (7d)" in out
    assert "- configs.cleanup.policy: compact -> (default: delete)" in out


@pytest.mark.parametrize(
    "attr",
    [
        plans.AttributeChange("configs.ssl.keystore.password", None, SECRET),
        plans.AttributeChange("configs.retention.ms", SECRET, None, default=SECRET, sensitive=True),
        plans.AttributeChange("configs.sasl.jaas.config", SECRET, SECRET),
    ],
)
def test_every_render_redacts_sensitive_values_even_in_a_hand_made_plan(attr: plans.AttributeChange) -> None:
    change = _change(1, attributes=(attr,), after=payloads.TopicPayload(configs={"ssl.keystore.password": SECRET}))
    result = _plan([change])
    for rendered in (render_text(result), render_markdown(result), render_json(result)):
        assert SECRET not in rendered
        assert plans.REDACTED in rendered


def test_json_render_is_the_plan_file_and_round_trips() -> None:
    result = example_plan()
    assert render_json(result) == result.to_json()
    assert plans.Plan.from_json_dict(json.loads(render_json(result))) == result


def test_markdown_opens_with_what_apply_will_not_do_then_the_summary_and_keeps_marker() -> None:
    out = render_markdown(example_plan(), marker="prod-eu", cluster="prod-eu")
    lines = out.splitlines()
    assert lines[0] == "<!-- kafka-reconciler: cluster=prod-eu -->"
    assert lines[1] == "### Kafka plan for prod-eu"
    assert lines[3] == "**Blocked: apply will NOT change 3 resources:**"
    assert lines[5] == "- 1 topic: Kafka cannot remove partitions: the topic has 6, the manifests declare 4"
    assert lines[6].startswith("- 2 connectors: error: [connector-invalid] ")  # each reason with its count
    assert lines[6].endswith("did you mean org.apache.kafka.connect.mirror.MirrorSourceConnector? (1)")
    assert lines[8] == "**Plan: 6 to create, 9 to update, 5 to delete, 3 blocked.**"
    # Blocked changes, deletions and warnings are outside any <details> block.
    first_details = out.index("<details>")
    for heading in ("#### Errors and warnings", "#### Blocked", "#### Deletions"):
        assert out.index(heading) < first_details
    assert "`broker_config/<default>`" in out


def test_markdown_without_changes_says_so() -> None:
    out = render_markdown(_plan([]))
    assert "**No changes. The cluster matches the manifests.**" in out
    assert "<details>" not in out


def test_markdown_of_a_huge_plan_stays_under_the_limit_and_keeps_the_essentials() -> None:
    retention = [
        (plans.AttributeChange("configs.retention.ms", "86400000", str(86_400_001 + i)),) for i in range(20_000)
    ]
    changes = [_change(i, attributes=retention[i]) for i in range(20_000)]  # not alike: none is folded
    changes += [_change(20_000 + i, plans.Action.DELETE, attributes=()) for i in range(5)]
    changes += [_change(30_000, plans.Action.BLOCKED, reasons=("Kafka cannot remove partitions",))]
    warnings = (plans.PlanWarning("no authorizer", code="acls-unavailable", severity="error"),)
    result = _plan(changes, warnings)
    out = render_markdown(result)
    assert len(out) <= 65_000 < GITHUB_COMMENT_LIMIT
    assert "**Plan: 0 to create, 20000 to update, 5 to delete, 1 blocked.**" in out
    assert "`topic/t-030000` (partitions): Kafka cannot remove partitions" in out
    assert all(f"`topic/t-{20_000 + i:06d}`" in out for i in range(5))
    assert "**error** [acls-unavailable]" in out
    assert re.search(r"\.\.\. and \d+ more \(kafka-reconciler show PLAN_FILE --compact lists them all\)", out)
    assert out.count("<details>") == out.count("</details>")
    assert out.count("```") % 2 == 0


def test_markdown_cuts_even_the_visible_lists_when_they_alone_are_too_big() -> None:
    changes = [_change(i, plans.Action.DELETE, attributes=(), warnings=(f"{i} " + "x" * 200,)) for i in range(2_000)]
    out = render_markdown(_plan(changes), max_chars=10_000)
    assert len(out) <= 10_000
    assert "**Plan: 0 to create, 0 to update, 2000 to delete.**" in out
    assert re.search(r"- \.\.\. and \d+ more", out)


@pytest.mark.parametrize("limit", [3_000, 20_000, 65_000])
def test_markdown_respects_any_limit(limit: int) -> None:
    changes = [_change(i) for i in range(3_000)]
    assert len(render_markdown(_plan(changes), max_chars=limit)) <= limit


def test_markdown_states_a_blocked_reason_shared_by_resources_with_other_changes_once() -> None:
    """Each topic has a config update and a blocked partition decrease with the same reasons: the details said the
    four reason lines once per topic."""
    reasons = ("Kafka cannot remove partitions: the topic has 6, the manifests declare 3", "option 1: keep them")
    changes = [_change(i) for i in range(40)] + [
        dataclasses.replace(_change(i, plans.Action.BLOCKED), reasons=reasons) for i in range(40)
    ]
    out = render_markdown(_plan(changes))
    details = out[out.index("<details>") :]
    assert details.count("Kafka cannot remove partitions") == 1
    assert f"- blocked, for 40 of these: {reasons[0]}; option 1: keep them" in details
    assert details.count("blocked: for the reason stated above") == 40


def test_markdown_groups_alike_impact_lines_and_leaves_zero_impacts_out_of_the_headline() -> None:
    deletes = [_change(i, plans.Action.DELETE, attributes=(), reasons=()) for i in range(250)]
    entries = tuple(
        im.TopicImpact(c.address, "TOPIC_DELETE", im.DROPS, ("drops the data it holds: 0 B",), records=0, bytes=0)
        for c in deletes
    )
    result = dataclasses.replace(_plan(deletes), impact=im.PlanImpact(entries=entries))
    out = render_markdown(result, max_chars=GITHUB_COMMENT_LIMIT)
    assert "0 B" not in out.split("#### ")[0]  # the headline: no "deletes ~0 B"
    assert out.count("drops the data it holds: 0 B") == 1
    assert "- 250 resources (topic delete): drops the data it holds: 0 B: `topic/t-000000`," in out
    assert "... and 245 more" in out


def test_markdown_details_state_a_warning_shared_by_many_resources_once() -> None:
    note = "whether the topic is in use was not checked (no usage evidence was read)"
    deletes = [_change(i, plans.Action.DELETE, attributes=(), reasons=(), warnings=(note,)) for i in range(30)]
    deletes.append(_change(99, plans.Action.DELETE, attributes=(), reasons=(), warnings=("in use by group g",)))
    details = render_markdown(_plan(deletes)).split("<details>", 1)[1]
    assert details.count(note) == 1 and f"- warning for 30 of these: {note}" in details
    assert "    warning: in use by group g" in details  # a warning of one resource stays with it


_HOLDING_CONFIGS = sorted(
    {kind for kind in Kind if "configs" in {f.name for f in dataclasses.fields(payloads.TYPES[kind])}},
    key=list(Kind).index,
)


@pytest.mark.parametrize("kind", _HOLDING_CONFIGS, ids=str)
def test_the_json_render_hides_a_sensitive_config_value_of_every_kind_whose_payload_holds_configs(kind: Kind) -> None:
    """A hand-made plan's payload holding a secret config value in clear is redacted by the JSON render whatever its
    kind: the render reads the payload's ``configs`` field, not a list of the kinds that have one."""
    held = payloads.TYPES[kind](configs={"ssl.keystore.password": SECRET, "retention.ms": "1000"})
    phase = registry.spec(kind).phases[0].phase
    change = plans.Change(
        address=kind.address("x"), kind=kind, name="x", action=plans.Action.NOOP, phase=phase, before=held
    )
    rendered = json.loads(render_json(_plan([change])))["changes"][0]["before"]["configs"]
    assert rendered == {"ssl.keystore.password": plans.REDACTED, "retention.ms": "1000"}
