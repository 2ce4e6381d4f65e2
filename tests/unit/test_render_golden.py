"""Golden-file tests: the three renders of the example plan must match tests/golden/ exactly.

Regenerate after an intended change with ``UPDATE_GOLDEN=1 pytest tests/unit/test_render_golden.py``
and review the diff of tests/golden/ like any other change.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from reconciler.model import plans
from reconciler.render import render_json, render_markdown, render_text
from tests.golden.example import example_plan

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

RENDERS: dict[str, Callable[[plans.Plan], str]] = {
    "example-plan.txt": lambda plan: render_text(plan, color=False),
    "example-plan-color.txt": lambda plan: render_text(plan, color=True),
    "example-plan.md": lambda plan: render_markdown(plan, cluster="prod-eu", marker="prod-eu"),
    "example-plan.json": render_json,
}


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_render_matches_golden_file(name: str) -> None:
    rendered = RENDERS[name](example_plan())
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(rendered, encoding="utf-8")
    assert path.exists(), f"{path} is missing; run with UPDATE_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    assert rendered == expected, f"{name} differs from {path}; if intended, regenerate with UPDATE_GOLDEN=1"


def test_golden_json_is_a_loadable_plan_equal_to_the_example(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text((GOLDEN / "example-plan.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert plans.Plan.load(plan_file) == example_plan()


IMPACT_RENDERS: dict[str, Callable[[plans.Plan], str]] = {
    "impact-plan.md": lambda plan: render_markdown(plan, cluster="shop", marker="shop"),
    "impact-plan.txt": lambda plan: render_text(plan, color=False),
}


@pytest.mark.parametrize("name", sorted(IMPACT_RENDERS))
def test_impact_render_matches_golden_file(name: str) -> None:
    from tests.golden.impact import impact_plan

    rendered = IMPACT_RENDERS[name](impact_plan())
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(rendered, encoding="utf-8")
    assert rendered == path.read_text(encoding="utf-8"), f"{name} differs; if intended, regenerate with UPDATE_GOLDEN=1"


BIG_RENDERS: dict[str, Callable[[plans.Plan], str]] = {
    "big-plan.md": lambda plan: render_markdown(plan, cluster="prod-eu", marker="prod-eu"),
    "big-plan-compact.txt": lambda plan: render_text(plan, compact=True),
    "big-plan.txt": lambda plan: render_text(plan),
}


@pytest.fixture(scope="module")
def big() -> plans.Plan:
    from tests.golden.big import big_plan

    return big_plan()


@pytest.mark.parametrize("name", sorted(BIG_RENDERS))
def test_big_plan_render_matches_golden_file(name: str, big: plans.Plan) -> None:
    rendered = BIG_RENDERS[name](big)
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(rendered, encoding="utf-8")
    assert rendered == path.read_text(encoding="utf-8"), f"{name} differs; if intended, regenerate with UPDATE_GOLDEN=1"


def test_big_plan_comment_counts_every_kind_first_and_repeats_no_boilerplate(big: plans.Plan) -> None:
    md = (GOLDEN / "big-plan.md").read_text(encoding="utf-8")
    assert len(big.changes) == 2_000
    assert len(md) <= 65_000
    table = md.index("| kind | create | update | delete | blocked | unchanged | unmanaged |")
    assert table < md.index("####") and table < md.index("<details>")
    for row in (
        "| Topics | 600 | 150 | 50 | 0 | 0 | 0 |",
        "| ACLs | 1000 | 0 | 100 | 0 | 0 | 0 |",
        "| Client quotas | 66 | 0 | 0 | 0 | 0 | 0 |",
        "| SCRAM users | 30 | 0 | 0 | 0 | 0 | 0 |",
        "| Broker configs | 0 | 4 | 0 | 0 | 0 | 0 |",
    ):
        assert row in md
    for title in ("Topics", "ACLs", "Client quotas", "SCRAM users", "Broker configs"):
        assert f"<details><summary>{title}: " in md
    acl_lines = [line for line in md.splitlines() if line.startswith("+ acl/User:unitb-app")]
    assert len(acl_lines) > 100, "ACLs are listed one per line, not dropped"
    assert "# topic create" not in md and "# acl create" not in md
    assert md.count("declared in the manifests; not in the cluster") <= 1
    assert "... and " in md and "more (kafka-reconciler show PLAN_FILE --compact lists them all)" in md


def test_the_big_comment_folds_alike_creates_with_their_configs_and_so_shows_more_of_the_rest(big: plans.Plan) -> None:
    """The comment listed 600 alike topic creates one line each, their configs hidden, and had room for 297 of the
    1,100 ACLs."""
    md = render_markdown(big, cluster="prod-eu")
    assert len(md) <= 65_000
    assert (
        "\n+ 600 topics (topic create), each partitions: 12; replication_factor: 3; configs.cleanup.policy: delete; "
        "configs.min.insync.replicas: 2; configs.retention.ms: 604800000 (7d): unitb.t0000, unitb.t0001, unitb.t0002, "
        "unitb.t0003, unitb.t0004, ... and 595 more\n"
    ) in md
    assert "<details><summary>Topics: 600 create, 50 delete, 150 update</summary>" in md  # every topic accounted for
    assert sum(1 for line in md.splitlines() if line.startswith(("+ acl/", "- acl/"))) > 700
    assert "the plan file (the workflow run's artifact, when CI uploads it)" in md


def test_the_big_terminal_plan_states_shared_reasons_once_folds_alike_changes_and_names_every_delete(
    big: plans.Plan,
) -> None:
    """The 2,000-change plan printed 13,288 lines, "reason: declared in the manifests; not in the cluster" 1,600
    times, before the prompt."""
    full = render_text(big)
    assert len(full.splitlines()) < 1_500
    assert full.count("declared in the manifests; not in the cluster") == 2  # for the topics and for the ACLs
    assert "    reason for 600 topics: declared in the manifests; not in the cluster\n" in full
    assert "    reason for 1,000 ACLs: declared in the manifests; not in the cluster\n" in full
    assert (
        "  + 600 topics (topic create), each:\n      + partitions: 12\n      + replication_factor: 3\n"
        "      + configs.cleanup.policy: delete\n      + configs.min.insync.replicas: 2\n"
        "      + configs.retention.ms: 604800000 (7d)\n      unitb.t0000, unitb.t0001, unitb.t0002, unitb.t0003, "
        "unitb.t0004, ... and 595 more (--compact or --format json lists each)\n"
    ) in full
    assert (
        "  ~ 150 topics (topic config), each:\n      ~ configs.retention.ms: 86400000 (1d) -> 259200000 (3d)\n" in full
    )
    # Deletes are never folded, and each ACL (all it has is its name) keeps a line of its own.
    assert all(f"  - topic/unitb.legacy{i:03d}  (topic delete)\n" in full for i in range(50))
    assert sum(1 for line in full.splitlines() if line.startswith("  - acl/User:unitb-old")) == 100
    assert sum(1 for line in full.splitlines() if line.startswith("  + acl/User:unitb-app")) == 1_000


def test_compact_terminal_plan_is_one_line_per_resource(big: plans.Plan) -> None:
    compact = render_text(big, compact=True).splitlines()
    assert len(compact) < 2_000 + 20
    assert "  + acl/User:unitb-app00/ALLOW/READ/TOPIC:LITERAL:unitb.t0000@*" in compact
    assert "  ~ topic/unitb.kept000  (configs.retention.ms: 86400000 (1d) -> 259200000 (3d))" in compact
    assert compact[-1] == "Plan: 1696 to create, 154 to update, 150 to delete."
