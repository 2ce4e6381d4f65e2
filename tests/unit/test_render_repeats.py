"""One mistake copied into 2,000 topics is stated once in the text plan, the PR comment and validate's output, with
the count and the first names; the JSON plan and validate --format json keep every item."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.model import plans
from reconciler.planner import plan
from reconciler.render import render_json, render_markdown, render_text
from tests.support.builders import brokers, cluster, topic, want

runner = CliRunner()
REASON = "cannot create: replication factor 3 exceeds the 1 broker(s) in the cluster"


def _blocked_plan(n: int) -> plans.Plan:
    declared = [topic(f"orders.t{i:04d}", 12, 3) for i in range(n)] + [topic("payments", 6, 1)]
    return plan(want(topics=declared), cluster(broker_list=brokers(1)))


def test_two_thousand_alike_blocked_topics_are_one_entry_in_text_and_markdown_and_all_in_json() -> None:
    result = _blocked_plan(2000)
    assert result.summary().blocked == 2000
    text = render_text(result)
    assert f"  ! 2,000 topics blocked (topic create): {REASON}\n" in text
    assert "orders.t0000, orders.t0001, orders.t0002, orders.t0003, orders.t0004, ... and 1,995 more" in text
    assert "orders.t0005" not in text
    assert "  + topic/payments\n" in text  # a change of its own is still shown in full
    assert len(text.splitlines()) < 30

    md = render_markdown(result)
    assert md.count(REASON) == 3  # at the top, under Blocked and in the details; not 2,000 times each
    assert md.index("**Blocked: apply will NOT change 2,000 resources:**\n\n") < md.index("**Plan: ")
    assert f"\n- 2,000 topics: {REASON}\n" in md
    assert f"- 2,000 topics (topic create): {REASON}: `orders.t0000`, `orders.t0001`" in md
    assert len(md) < 3_000

    compact = render_text(result, compact=True)  # the listing that names every resource
    assert compact.count("! topic/orders.t") == 2000
    as_json = json.loads(render_json(result))
    assert sum(1 for c in as_json["changes"] if c["action"] == "blocked") == 2000


def test_fewer_than_five_alike_are_each_shown() -> None:
    text = render_text(_blocked_plan(4))
    assert text.count(f"blocked: {REASON}") == 4
    assert "topics blocked" not in text


def test_a_warning_found_on_many_resources_is_stated_once_with_them() -> None:
    message = "min.insync.replicas 2 leaves no room for a broker down"
    warnings = [plans.PlanWarning(message, f"topic/t{i}", "min-isr", "warning") for i in range(300)]
    warnings.append(plans.PlanWarning("auto.create.topics.enable is true", None, "auto-create-enabled"))
    result = plans.Plan(cluster=plans.ClusterInfo("c", 1), changes=(), warnings=tuple(warnings))
    text = render_text(result)
    assert (
        "warning: [min-isr] min.insync.replicas 2 leaves no room for a broker down (300 resources: topic/t0, topic/t1,"
        " topic/t2, topic/t3, topic/t4, ... and 295 more)"
    ) in text
    assert "[auto-create-enabled]" in text
    md = render_markdown(result)
    assert (
        "- warning [min-isr] 300 resources (`topic/t0`, `topic/t1`, `topic/t2`, `topic/t3`, `topic/t4`, ... and " in md
    )
    assert md.count("leaves no room") == 1
    assert len(json.loads(render_json(result))["warnings"]) == 301


def test_validate_states_a_repeated_error_once_with_where_else_and_json_keeps_each(tmp_path: Path) -> None:
    docs = [
        f"apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {{name: orders.t{i:04d}}}\n"
        "spec: {partitions: 6, replicationFactor: 1, configs: {min.insync.replicas: 2}}\n"
        for i in range(2000)
    ]
    (tmp_path / "topics.yaml").write_text("---\n".join(docs), encoding="utf-8")
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 2, lines[:5]
    assert lines[0].startswith(f"{tmp_path}/topics.yaml:4:") and "min.insync.replicas 2 is greater than" in lines[0]
    assert lines[1].startswith(f"  the same error at 1,999 more places: {tmp_path}/topics.yaml:9:")
    assert lines[1].endswith(", ... and 1,996 more (--format json lists each)")
    as_json = json.loads(runner.invoke(app, ["validate", str(tmp_path), "--format", "json"]).stdout)
    assert len(as_json["diagnostics"]) == 2000
