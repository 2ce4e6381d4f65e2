"""Apply report rendering: plain text for CI, rich table for terminals, progress lines."""

from __future__ import annotations

import io

from rich.console import Console
from rich.progress import Progress

from reconciler.apply import ApplyEvent, EventKind, Outcome
from reconciler.apply.apply_report import ApplyReport, CheckedBy, ItemOutcome, NotConverged, PhaseReport
from reconciler.commands import apply_display
from reconciler.model import plans

REPORT = ApplyReport(
    cluster_id="c",
    dry_run=False,
    items=(
        ItemOutcome(
            "topic/a",
            "topic",
            "a",
            plans.Phase.TOPIC_CREATE,
            plans.Action.CREATE,
            Outcome.APPLIED,
            attempts=1,
        ),
        ItemOutcome(
            "topic/b",
            "topic",
            "b",
            plans.Phase.TOPIC_CREATE,
            plans.Action.CREATE,
            Outcome.FAILED,
            40,
            "INVALID_CONFIG",
            "bad",
        ),
        ItemOutcome(
            "topic/b",
            "topic",
            "b",
            plans.Phase.TOPIC_CONFIG,
            plans.Action.UPDATE,
            Outcome.SKIPPED,
            message="because",
        ),
    ),
    phases=(PhaseReport(plans.Phase.TOPIC_CREATE, 0.25, 2, 2),),
    converged=False,
    not_converged=(NotConverged("topic/a", "topic create: 1 partition(s), wanted 3"),),
    requests=4,
    duration_s=1.0,
)


def test_plain_text_lists_every_outcome_and_a_summary() -> None:
    text = apply_display.report_text(REPORT)
    assert "applied          topic create   topic/a\n" in text
    assert "failed           topic create   topic/b  INVALID_CONFIG (40): bad" in text
    assert "skipped          topic config   topic/b  because" in text
    assert "not converged    read-back      topic/a  topic create: 1 partition(s), wanted 3" in text
    assert "phase topic create: 0.25s, 2 requests, 2 items" in text
    assert text.endswith(
        "Apply: 1 applied, 1 failed, 1 skipped; 1 resource did not converge; 1 failed, 1 skipped not carried out; "
        "4 admin requests in 1.0s.\n"
    )


def test_dry_run_labels_client_side_checks() -> None:
    item = ItemOutcome(
        "acl/x",
        "acl",
        "x",
        plans.Phase.ACL_CREATE,
        plans.Action.CREATE,
        Outcome.DRY_RUN_ACCEPTED,
        checked_by=CheckedBy.CLIENT,
    )
    text = apply_display.report_text(ApplyReport("c", True, (item,), (), None))
    assert "[client-side check]" in text and "nothing was written" in text


def test_rich_table_has_a_row_per_outcome() -> None:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(apply_display.report_table(REPORT))
    table = out.getvalue()
    assert table.count("topic/b") == 2 and "not converged" in table and "INVALID_CONFIG (40): bad" in table


def test_plain_progress_prints_phase_lines() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    with apply_display.progress(console) as sink:
        sink(ApplyEvent(EventKind.PHASE_STARTED, phase=plans.Phase.TOPIC_CREATE, total=2))
        sink(ApplyEvent(EventKind.ITEM_DONE, phase=plans.Phase.TOPIC_CREATE, outcome=Outcome.APPLIED))
        sink(ApplyEvent(EventKind.ITEM_DONE, phase=plans.Phase.TOPIC_CREATE, outcome=Outcome.FAILED))
        sink(ApplyEvent(EventKind.PHASE_FINISHED, phase=plans.Phase.TOPIC_CREATE, total=2, duration_s=0.5))
    assert out.getvalue() == "topic create: 2 items\ntopic create: done in 0.5s (1 applied, 1 failed)\n"


def test_table_shows_bracketed_text_and_resolved_configs_literally() -> None:
    from rich.console import Console

    from reconciler.apply.apply_report import ApplyReport, CheckedBy, ItemOutcome, Outcome
    from reconciler.commands.apply_display import report_table, report_text
    from reconciler.model import plans

    item = ItemOutcome(
        address="topic/orders",
        kind="topic",
        name="orders",
        phase=plans.Phase.TOPIC_CREATE,
        action=plans.Action.CREATE,
        outcome=Outcome.DRY_RUN_ACCEPTED,
        checked_by=CheckedBy.BROKER,
        message="broker said [/] and [bold]",
        details={
            "resolved_configs": {"retention.ms": "3600000", "cleanup.policy": "delete", "segment.ms": "604800000"},
            "declared_configs": ["retention.ms"],
        },
    )
    report = ApplyReport(cluster_id="c", dry_run=True, items=(item,), phases=(), converged=None, requests=1)
    console = Console(width=300, record=True, force_terminal=False)
    console.print(report_table(report))
    rendered = console.export_text()
    assert "broker said [/] and [bold]" in rendered
    assert "[broker]" in rendered
    assert "broker resolved retention.ms=3600000 (+2 more in --format json)" in rendered
    assert "broker resolved retention.ms=3600000 (+2 more in --format json)" in report_text(report)


def _outcomes(*pairs: tuple[str, Outcome]) -> tuple[ItemOutcome, ...]:
    return tuple(
        ItemOutcome(f"topic/{n}", "topic", n, plans.Phase.TOPIC_CONFIG, plans.Action.UPDATE, o) for n, o in pairs
    )


def test_the_summary_says_what_converged_and_what_was_not_carried_out() -> None:
    """``apply --plan`` with blocked items used to print "the cluster converged" beside "2 blocked" (exit 3)."""
    mixed = ApplyReport(
        "c",
        False,
        _outcomes(("a", Outcome.APPLIED), ("b", Outcome.APPLIED), ("c", Outcome.BLOCKED), ("d", Outcome.BLOCKED)),
        (),
        converged=True,
        requests=3,
    )
    line = apply_display.summary_line(mixed)
    assert line == (
        "Apply: 2 applied, 2 blocked; the 2 applied changes converged; 2 blocked not carried out, so the cluster "
        "still differs from the manifests; 3 admin requests in 0.0s."
    )
    assert mixed.exit_code == 3
    only_blocked = ApplyReport("c", False, _outcomes(("c", Outcome.BLOCKED)), (), converged=None)
    assert "nothing was applied; 1 blocked not carried out, so the cluster still differs" in (
        apply_display.summary_line(only_blocked)
    )
    clean = ApplyReport("c", False, _outcomes(("a", Outcome.APPLIED)), (), converged=True)
    assert "; the cluster converged;" in apply_display.summary_line(clean)


def test_plain_progress_prints_the_read_back_status_when_its_counts_change() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    lines = [
        (0, "verifying 1,100 changes: reading them back"),
        (940, "verifying 1,100 changes: 940 converged, waiting for 160 (acl 100, topic 60) after 1s"),
        (940, "verifying 1,100 changes: 940 converged, waiting for 160 (acl 100, topic 60) after 3s"),
        (1100, "verifying 1,100 changes: all converged in 9.5s"),
    ]
    with apply_display.progress(console) as sink:
        for done, message in lines:
            sink(ApplyEvent(EventKind.VERIFYING, total=1100, done=done, message=message))
    assert out.getvalue().splitlines() == [f"read-back: {m}" for i, (_, m) in enumerate(lines) if i != 2]


def _created(name: str, outcome: Outcome = Outcome.APPLIED, message: str | None = None) -> ItemOutcome:
    return ItemOutcome(
        f"topic/{name}", "topic", name, plans.Phase.TOPIC_CREATE, plans.Action.CREATE, outcome, message=message
    )


def test_a_table_over_a_screenful_groups_alike_rows_and_the_plain_report_keeps_every_one() -> None:
    items = (*(_created(f"t{i:04d}") for i in range(2_000)), _created("odd", Outcome.FAILED, "bad"))
    report = ApplyReport(cluster_id="c", dry_run=False, items=items, phases=(), converged=True, requests=3)
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(apply_display.report_table(report, max_rows=40))
    table = out.getvalue()
    assert "2,000 resources: topic/t0000, topic/t0001, topic/t0002, topic/t0003, topic/t0004, ... and 1,995" in table
    assert "topic/odd" in table and "topic/t0005" not in table
    assert "alike rows grouped; --format json lists each" in table
    assert len(table.splitlines()) < 20
    assert apply_display.report_text(report).count("applied          topic create   topic/t") == 2_000
    small = io.StringIO()
    Console(file=small, width=200, color_system=None).print(apply_display.report_table(report, max_rows=5_000))
    assert "topic/t1999" in small.getvalue()  # within a screenful: a row each


def test_the_progress_bar_advances_as_requests_are_answered() -> None:
    console = Console(file=io.StringIO(), width=120, color_system=None, force_terminal=True)
    bars = Progress(console=console)
    sink = apply_display.RichProgress(bars)
    phase = plans.Phase.TOPIC_CREATE
    sink(ApplyEvent(EventKind.PHASE_STARTED, phase=phase, total=1_000))
    [task] = bars.tasks
    sink(ApplyEvent(EventKind.ANSWERED, phase=phase, done=400, total=1_000))
    assert task.completed == 400
    sink(ApplyEvent(EventKind.ANSWERED, phase=phase, done=1_000, total=1_000))
    for _ in range(1_000):  # the items reported done at the end of the phase do not count twice
        sink(ApplyEvent(EventKind.ITEM_DONE, phase=phase, outcome=Outcome.APPLIED))
    assert task.completed == 1_000


def test_plain_progress_says_how_many_are_answered_before_the_last_answer() -> None:
    out = io.StringIO()
    sink = apply_display.PlainProgress(Console(file=out, width=200, color_system=None))
    sink(ApplyEvent(EventKind.ANSWERED, phase=plans.Phase.TOPIC_CREATE, done=400, total=1_000))
    sink(ApplyEvent(EventKind.ANSWERED, phase=plans.Phase.TOPIC_CREATE, done=1_000, total=1_000))
    assert out.getvalue() == "topic create: 400/1000 answered\n"
