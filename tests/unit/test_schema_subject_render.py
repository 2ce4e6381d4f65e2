"""How a subject change reads in the text plan and in a PR comment: its attributes, the dry run and impact, a
blocked change's reasons, and a new version's unified diff of the canonical schema text, cut at its size."""

from __future__ import annotations

import json
import time
from typing import Any

from reconciler.kinds.schema_subject import diff, dryrun, impact, payload, render, views
from reconciler.model import desired
from reconciler.model.state import TopicUsage
from reconciler.registry.port import RestRegistryPort
from tests.support.registry_fake import FakeRegistry

SOURCE = desired.Source("subjects/orders.yaml", 3, 1)


def record(*names: str, last: dict[str, Any] | None = None) -> str:
    """An Order record of long fields; ``last`` adds keys to the last field."""
    fields: list[dict[str, Any]] = [{"name": n, "type": "long"} for n in names]
    fields[-1].update(last or {})
    return json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": fields})


def later() -> float:
    return time.monotonic() + 30


def setup(*held: str) -> RestRegistryPort:
    port = RestRegistryPort(FakeRegistry())
    for text in held:
        port.register("orders-value", text, schema_type="AVRO", deadline=later())
    return port


def one(
    port: RestRegistryPort,
    wanted: dict[str, views.DesiredSubject],
    rules: tuple[diff.SubjectRule, ...] = (),
    usage: dict[str, TopicUsage] | None = None,
) -> dict[str, Any]:
    live = views.read(port, ["orders-value"], deadline=later())
    changes, verdicts = dryrun.dry_run(
        diff.diff(wanted, live, rules=rules, may_delete=True), live, registry=port, deadline=later()
    )
    (change,) = changes
    before, after = payload.payloads_of(change, live)
    verdict = verdicts.get(change.subject)
    finding = impact.assess(change, verdict, usage=usage)
    kw: dict[str, Any] = {"before": before, "after": after, "verdict": verdict, "finding": finding}
    return {"change": change, **kw}


def test_a_new_version_shows_the_diff_of_the_canonical_text() -> None:
    port = setup(record("id"))
    wanted = {
        "orders-value": views.DesiredSubject("orders-value", record("id", "n", last={"default": 0}), source=SOURCE)
    }
    found = one(port, wanted)
    assert render.text_lines(found.pop("change"), **found) == [
        "~ schema_subject/orders-value (subjects/orders.yaml:3:1)",
        "    new version (after version 1)",
        "    dry run: the registry finds it compatible under BACKWARD",
        "      --- registered version 1",
        "      +++ declared",
        "      @@ -2,6 +2,11 @@",
        '         "fields": [',
        "           {",
        '             "name": "id",',
        '      +      "type": "long"',
        "      +    },",
        "      +    {",
        '      +      "default": 0,',
        '      +      "name": "n",',
        '             "type": "long"',
        "           }",
        "         ],",
    ]


def test_a_blocked_version_shows_the_registry_s_reasons_and_a_level_change_its_impact() -> None:
    port = setup(record("id"))
    blocked = {"orders-value": views.DesiredSubject("orders-value", record("id", "n"), source=SOURCE)}
    found = one(port, blocked)
    lines = render.text_lines(found.pop("change"), **found)
    assert lines[:4] == [
        "! schema_subject/orders-value (subjects/orders.yaml:3:1)",
        "    new version (after version 1)",
        "    blocked: the registry finds the new schema incompatible under BACKWARD (checked against version latest)",
        "    blocked: version 1: READER_FIELD_MISSING_DEFAULT_VALUE: n",
    ]
    through = {
        "orders-value": views.DesiredSubject(
            "orders-value", record("id", "n"), compatibility="NONE", topics=("orders",), source=SOURCE
        )
    }
    usage = {"orders": TopicUsage(end_offsets=(1,), latest_timestamp_ms=None, groups=("billing",), read_at_ms=0)}
    found = one(port, through, usage=usage)
    lines = render.text_lines(found.pop("change"), **found)
    assert lines[1:5] == [
        "    new version (after version 1)",
        "    compatibility: (none) -> NONE",
        "    dry run: level NONE: not held to a level (BACKWARD would refuse it)",
        "    impact: a new version of orders-value that its level BACKWARD refuses is let in by the change to NONE: "
        "its readers may fail on it: topic orders, read by consumer group(s) billing",
    ]


def test_a_permanent_delete_says_so_and_a_long_diff_is_cut() -> None:
    port = setup(record(*[f"f{i}" for i in range(40)]))
    rules = (diff.SubjectRule(desired.NamePattern("exact", "orders-value"), permanent=True),)
    found = one(port, {}, rules=rules)
    lines = render.text_lines(found.pop("change"), **found, max_lines=10)
    assert lines[:2] == ["- schema_subject/orders-value", "    delete: (none) -> permanent"]
    assert lines[2:4] == ["      --- registered version 1", "      +++ /dev/null"]
    assert len(lines) == 2 + 10 + 1 and lines[-1].startswith("      ... ") and lines[-1].endswith(" more lines")


def test_the_pr_comment_folds_the_diff_under_its_counts() -> None:
    port = setup(record("id"))
    wanted = {
        "orders-value": views.DesiredSubject(
            "orders-value", record("id", "n", last={"default": 0}), compatibility="FULL", source=SOURCE
        )
    }
    found = one(port, wanted)
    text = render.markdown(found.pop("change"), **found)
    assert text.startswith(
        "- `~` `schema_subject/orders-value` (subjects/orders.yaml:3:1)\n"
        "  - `compatibility`: (none) → FULL\n"
        "  - dry run: compatible under BACKWARD; the registry checks FULL when the version is registered\n"
        "  <details><summary>schema +5 -0</summary>\n\n  ```diff\n  --- registered version 1\n"
    )
    assert text.endswith("```\n\n  </details>")


def test_a_reformatted_schema_shows_no_diff() -> None:
    port = setup(record("id"))
    spaced = json.dumps(json.loads(record("id")), indent=4)
    found = one(port, {"orders-value": views.DesiredSubject("orders-value", spaced, compatibility="FULL")})
    assert render.text_lines(found.pop("change"), **found) == [
        "~ schema_subject/orders-value",
        "    compatibility: (none) -> FULL",
    ]
