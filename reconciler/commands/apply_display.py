"""What ``apply`` shows on the console: live progress while it runs, then the report (bars and tables on a terminal).

Unlike ``reconciler.render`` (pure text renderings of a plan), ``progress`` drives a live display: rich progress bars
redrawn on a terminal, plain lines in CI.

``progress(console)`` returns a context manager yielding an event sink for ``apply_plan``: one progress
bar per phase when the console is a terminal, one plain line per phase step otherwise. ``report_table``
builds the final per-resource table; ``report_text`` is the same content as plain lines.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from reconciler.apply.apply_report import ApplyReport, ItemOutcome, Outcome
from reconciler.apply.events import ApplyEvent, EventKind, EventSink
from reconciler.base.terminal import count, is_tty
from reconciler.model import plans
from reconciler.render import repeats

STYLES = {
    Outcome.APPLIED: "green",
    Outcome.FAILED: "bold red",
    Outcome.SKIPPED: "yellow",
    Outcome.UNCHANGED: "dim",
    Outcome.DRY_RUN_ACCEPTED: "green",
    Outcome.DRY_RUN_REJECTED: "bold red",
    Outcome.BLOCKED: "bold red",
    Outcome.UNKNOWN: "bold yellow",
    Outcome.NOT_SENT: "yellow",
}


class PlainProgress:
    """One line per phase start, retry, wait and phase end, and per read-back step that changed the counts:
    readable in CI logs."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.outcomes: Counter[Outcome] = Counter()
        self.verified: int | None = None  # changes converged at the last read-back line printed

    def __call__(self, event: ApplyEvent) -> None:
        label = event.phase.label if event.phase is not None else "apply"
        if event.kind is EventKind.VERIFYING:
            if self.verified is None or event.done != self.verified:
                self.console.print(f"read-back: {event.message}", highlight=False)
            self.verified = event.done
        elif event.kind is EventKind.PHASE_STARTED:
            self.outcomes.clear()
            self.console.print(f"{label}: {count(event.total, 'item')}", highlight=False)
        elif event.kind is EventKind.ITEM_DONE and event.outcome is not None:
            self.outcomes[event.outcome] += 1
        elif event.kind is EventKind.ANSWERED and event.done < event.total:  # the last answer: "done" says it
            self.console.print(f"{label}: {event.done}/{event.total} answered", highlight=False)
        elif event.kind in (EventKind.RETRY, EventKind.WAITING):
            self.console.print(f"{label}: {event.message}", highlight=False)
        elif event.kind is EventKind.PHASE_FINISHED:
            counts = ", ".join(f"{n} {o.value}" for o, n in sorted(self.outcomes.items(), key=lambda x: x[0].value))
            self.console.print(f"{label}: done in {event.duration_s or 0:.1f}s ({counts})", highlight=False)


class RichProgress:
    """A progress bar per phase, advanced as items finish; waits (reassignments) show their own progress; the
    read-back a bar of the changes converged, described by its status line."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[plans.Phase, TaskID] = {}
        self.verifying: TaskID | None = None
        self.answered: dict[plans.Phase, int] = {}  # items the phase's requests have been answered for
        self.finished: dict[plans.Phase, int] = {}  # items the phase has reported done

    def __call__(self, event: ApplyEvent) -> None:
        phase = event.phase
        if event.kind is EventKind.VERIFYING:
            text = escape(event.message or "read-back")
            if self.verifying is None:
                self.verifying = self.progress.add_task(text, total=event.total)
            self.progress.update(self.verifying, description=text, completed=event.done)
            return
        if phase is None:
            return
        if event.kind is EventKind.PHASE_STARTED:
            self.tasks[phase] = self.progress.add_task(phase.label, total=event.total)
        elif phase not in self.tasks:
            return
        elif event.kind in (EventKind.ITEM_DONE, EventKind.ANSWERED):
            if event.kind is EventKind.ANSWERED:
                self.answered[phase] = event.done
            else:
                self.finished[phase] = self.finished.get(phase, 0) + 1
            shown = max(self.answered.get(phase, 0), self.finished.get(phase, 0))
            self.progress.update(self.tasks[phase], completed=shown)
        elif event.kind in (EventKind.RETRY, EventKind.WAITING):
            self.progress.update(self.tasks[phase], description=f"{phase.label}: {event.message}")
        elif event.kind is EventKind.PHASE_FINISHED:
            self.progress.update(self.tasks[phase], description=phase.label, completed=event.total)


@contextlib.contextmanager
def progress(console: Console) -> Iterator[EventSink]:
    """An event sink drawing progress on ``console``: bars on a terminal, plain lines otherwise."""
    if not (console.is_terminal and is_tty(console.file)):  # FORCE_COLOR colours a CI log; it gets no bars
        yield PlainProgress(console)
        return
    bars = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    with bars:
        yield RichProgress(bars)


def _message(item: ItemOutcome) -> str:
    parts = []
    if item.error_name:
        parts.append(item.error_name if item.error_code is None else f"{item.error_name} ({item.error_code})")
    if item.message:
        parts.append(item.message)
    if item.checked_by is not None:
        parts.append(f"[{item.checked_by.value}]")
    text = ": ".join(parts[:2]) + (f" {parts[2]}" if len(parts) > 2 else "")
    resolved = _resolved(item)
    return f"{text}; {resolved}" if text and resolved else text or resolved


def _resolved(item: ItemOutcome) -> str:
    """For a topic create the broker accepted in a dry run: the configs it resolved (KIP-525), declared ones first."""
    configs = item.details.get("resolved_configs")
    if not isinstance(configs, dict) or not configs:
        return ""
    declared = item.details.get("declared_configs")
    keys = [k for k in (declared or ()) if k in configs] or [k for k in _KEY_CONFIGS if k in configs]
    shown = ", ".join(f"{k}={configs[k]}" for k in keys)
    rest = len(configs) - len(keys)
    return f"broker resolved {shown}" + (f" (+{rest} more in --format json)" if rest else "")


# Shown for a dry-run topic create that declares no configs of its own.
_KEY_CONFIGS = ("cleanup.policy", "retention.ms", "min.insync.replicas")


def _verdict(report: ApplyReport) -> str:
    """What converged and what did not: "the cluster converged" only when nothing was left undone."""
    if report.dry_run:
        return "nothing was written"
    unknown = sum(1 for i in report.items if i.outcome is Outcome.UNKNOWN)
    verdict = _settled_verdict(report)
    if unknown:
        verdict += f"; {count(unknown, 'change')} unknown (answer lost, cluster unreadable: run plan to see)"
    return verdict


def _settled_verdict(report: ApplyReport) -> str:
    """The verdict on what is known: every problem but the unknown outcomes."""
    known = [i for i in report.items if i.outcome is not Outcome.UNKNOWN]
    written = sum(1 for i in known if i.outcome is Outcome.FAILED and i.details.get("written"))
    unsent = sum(1 for i in known if i.outcome is Outcome.NOT_SENT)
    undone = Counter(
        i.outcome.value
        for i in known
        if i.outcome.is_problem and not i.details.get("written") and i.outcome is not Outcome.NOT_SENT
    )
    left = ", ".join(f"{n} {o}" for o, n in sorted(undone.items()))
    left = f"{left} not carried out" if left else ""
    if unsent:  # never sent: nothing was written for them
        after = f"{count(unsent, 'change')} not sent (the time limit came first)"
        left = f"{left}; {after}" if left else after
    if written:  # a connector created, then FAILED: carried out, not as declared
        after = f"{count(written, 'change')} carried out, then failed"
        left = f"{left}; {after}" if left else after
    applied = sum(1 for i in known if i.outcome is Outcome.APPLIED)
    if report.converged is False and report.not_converged:
        verdict = f"{count(len(report.not_converged), 'resource')} did not converge"
        return f"{verdict}; {left}" if left else verdict
    if report.unverified:
        verdict = f"applied, not verified (missing right: {'; '.join(report.unverified)})"
        return f"{verdict}; {left}" if left else verdict
    if not left and len(known) < len(report.items):  # some outcomes unknown: the cluster as a whole is not known
        return f"the {count(applied, 'applied change')} converged" if report.converged and applied else "not verified"
    if not left:
        return "the cluster converged" if report.converged else "not verified"
    differs = f"{left}, so the cluster still differs from the manifests"
    if report.converged and applied:
        return f"the {count(applied, 'applied change')} converged; {differs}"
    return f"nothing was applied; {differs}" if not applied and not written else differs


def summary_line(report: ApplyReport) -> str:
    counts = {k: v for k, v in report.counts().items() if v}
    listed = ", ".join(f"{n} {o}" for o, n in counts.items()) or "nothing to do"
    head = "Dry run" if report.dry_run else "Apply"
    return (
        f"{head}: {listed}; {_verdict(report)}; {count(report.requests, 'admin request')} in {report.duration_s:.1f}s."
    )


Row = tuple[str, str, str, str]  # phase, resource, outcome (markup), detail: as the table shows them
GROUP_AT = 5  # alike rows (same phase, outcome and detail) grouped into one, once the table is over a screenful


def _grouped(rows: list[Row]) -> list[Row]:
    """``rows`` with each set of ``GROUP_AT`` or more alike ones as one row naming the first few, where the first
    was."""
    alike: dict[tuple[str, str, str], list[str]] = {}
    for phase, resource, outcome, detail in rows:
        alike.setdefault((phase, outcome, detail), []).append(resource)
    out: list[Row] = []
    for phase, resource, outcome, detail in rows:
        same = alike[(phase, outcome, detail)]
        if len(same) < GROUP_AT:
            out.append((phase, resource, outcome, detail))
        elif same[0] == resource:
            out.append((phase, f"{len(same):,} resources: {repeats.names_text(same)}", outcome, detail))
    return out


def report_table(report: ApplyReport, *, max_rows: int | None = None) -> Table:
    """The per-resource outcome table, then phase timings as a caption. Over ``max_rows`` rows (a screenful),
    alike rows are grouped (``_grouped``); the JSON report and the plain report list every one."""
    table = Table(title="Dry run" if report.dry_run else "Apply", show_lines=False)
    table.add_column("phase")
    table.add_column("resource", overflow="fold")
    table.add_column("outcome")
    table.add_column("detail", overflow="fold")
    rows: list[Row] = [
        (item.phase.label, item.address, f"[{STYLES[item.outcome]}]{item.outcome.value}[/]", _message(item))
        for item in report.items
    ]
    rows += [("read-back", nc.address, "[bold red]not converged[/]", nc.detail) for nc in report.not_converged]
    rows += [("reassign", partition, "[yellow]still moving[/]", "") for partition in report.still_moving]
    grouped = max_rows is not None and len(rows) > max_rows
    for phase, resource, outcome, detail in _grouped(rows) if grouped else rows:
        table.add_row(phase, escape(resource), outcome, escape(detail))
    timings = "; ".join(f"{p.phase.label} {p.duration_s:.2f}s/{p.requests} req" for p in report.phases)
    note = "alike rows grouped; --format json lists each" if grouped else ""
    table.caption = "; ".join(part for part in (timings, note) if part) or None
    return table


def report_text(report: ApplyReport) -> str:
    """The report as plain lines (CI logs, non-terminal output)."""
    lines = []
    for item in report.items:
        detail = _message(item)
        lines.append(
            f"{item.outcome.value:<16} {item.phase.label:<14} {item.address}" + (f"  {detail}" if detail else "")
        )
    lines += [f"{'not converged':<16} {'read-back':<14} {nc.address}  {nc.detail}" for nc in report.not_converged]
    lines += [f"{'still moving':<16} {'reassign':<14} {p}" for p in report.still_moving]
    lines += [f"note: {n}" for n in report.notes]
    lines += [
        f"phase {p.phase.label}: {p.duration_s:.2f}s, {count(p.requests, 'request')}, {count(p.items, 'item')}"
        for p in report.phases
    ]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
