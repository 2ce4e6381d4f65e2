"""The pull-request comment view of a plan, always within GitHub's comment size limit.

Summary (with the impact line) and a table of counts per kind first; errors and warnings, what each change will
do (impact), blocked changes and deletions are always visible (never collapsed); the per-kind details follow in
``<details>`` sections, with reasons shared by many resources stated once per kind rather than once per resource.
When the full details would exceed ``max_chars``, every kind is still shown, one line per resource, cut to
"... and N more" within a fair share of the room.
"""

from __future__ import annotations

import re

from reconciler.base.terminal import count
from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.render import markdown_lists as lists
from reconciler.render import repeats, text, values

Group = tuple[str, list[plans.Change]]

GITHUB_COMMENT_LIMIT = 65_536
_COLUMNS = (plans.Action.CREATE, plans.Action.UPDATE, plans.Action.DELETE, plans.Action.BLOCKED)
_RESERVE = 400  # room kept for "... and N more" notes and the truncation note


def heading(cluster: str | None, status: str | None = None) -> str:
    """The one heading of every plan comment and job summary: ``### Kafka plan for prod-eu``, with ``: failed``
    (no plan) or ``: refused`` (a plan apply will not run) after it."""
    title = f"Kafka plan for {cluster}" if cluster else "Kafka plan"
    return f"### {lists.escape(title)}{f': {status}' if status else ''}"


def marker_line(name: str) -> str:
    """The hidden line that lets CI find and update its own comment: ``<!-- kafka-reconciler: cluster=NAME -->``."""
    safe = name.replace("--", "-").replace(">", "")
    return f"<!-- kafka-reconciler: cluster={safe} -->"


_SYMBOL_LINE = re.compile(r"^(\s+)([-+~!]) (.*)$")


def _diff_line(line: str) -> str:
    """Move an indented ``+``/``-``/``~``/``!`` to column 0, where GitHub's diff highlighting looks for it."""
    line = line.replace("```", "'''")
    found = _SYMBOL_LINE.match(line)
    return f"{found.group(2)}{found.group(1)} {found.group(3)}" if found else line


def _kind_order(kind: Kind) -> int:
    return list(Kind).index(kind)


def _count_table(result: plans.Plan, by_kind: dict[Kind, list[Group]]) -> str:
    """One row per kind the plan touches or saw: resources to create, update, delete, blocked, unchanged, unmanaged."""
    unmanaged: dict[Kind, int] = {}
    for u in result.unmanaged:
        unmanaged[u.kind] = unmanaged.get(u.kind, 0) + 1
    kinds = sorted(set(by_kind) | set(result.unchanged) | set(unmanaged), key=_kind_order)
    if not kinds:
        return ""
    rows = [
        "| kind | create | update | delete | blocked | unchanged | unmanaged |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind in kinds:
        actions = [values.strongest(changes) for _, changes in by_kind.get(kind, [])]
        cells = [sum(1 for a in actions if a is wanted) for wanted in _COLUMNS]
        cells += [result.unchanged.get(kind, 0), unmanaged.get(kind, 0)]
        rows.append(f"| {kind.heading} | " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(rows) + "\n\n"


def _shared_reasons(groups: list[Group], *, warnings: bool = False) -> list[tuple[str, int]]:
    """Reasons (or ``warnings``) given for more than one resource of a kind, with how many: stated once, not per
    resource."""
    seen: dict[str, int] = {}
    for _, changes in groups:
        lines = (c.warnings if warnings else c.reasons for c in changes if c.action is not plans.Action.BLOCKED)
        for line in {said for found in lines for said in found}:
            seen[line] = seen.get(line, 0) + 1
    return [(r, n) for r, n in seen.items() if n > 1]


def _shared_blocks(groups: list[Group]) -> list[tuple[tuple[str, ...], int, str]]:
    """Blocked reasons (the whole set of one blocked change) given for more than one resource of a kind: each with
    how many and its tag (``""``, or ``[1]``, ``[2]``... when there are several)."""
    seen: dict[tuple[str, ...], int] = {}
    for _, changes in groups:
        for reasons in {c.reasons for c in changes if c.action is plans.Action.BLOCKED and c.reasons}:
            seen[reasons] = seen.get(reasons, 0) + 1
    shared = [(r, n) for r, n in seen.items() if n > 1]
    return [(r, n, f"[{i}]" if len(shared) > 1 else "") for i, (r, n) in enumerate(shared, start=1)]


def _opening(kind: Kind, groups: list[Group], shown: int | None = None) -> str:
    counts: dict[str, int] = {}
    for _, changes in groups:
        action = values.strongest(changes).value
        counts[action] = counts.get(action, 0) + 1
    summary = ", ".join(f"{n} {a}" for a, n in sorted(counts.items()))
    if shown is not None and shown < len(groups):
        summary += f" (one line each, or per resources changed alike; {shown} shown)"
    return f"<details><summary>{kind.heading}: {summary}</summary>\n\n"


def _full_section(kind: Kind, groups: list[Group]) -> str:
    shared = _shared_reasons(groups)
    notes = "".join(f"- reason for {n} of these: {lists.escape(r)}\n" for r, n in shared)
    omit = frozenset(r for r, _ in shared)
    warned = _shared_reasons(groups, warnings=True)
    notes += "".join(f"- warning for {n} of these: {lists.escape(w)}\n" for w, n in warned)
    items = repeats.collapse(groups, alike=True)
    stated: dict[tuple[str, ...], str] = {}
    singles = [i for i in items if not isinstance(i, repeats.SameBlock | repeats.SameChange)]
    for reasons, n, tag in _shared_blocks(singles):
        notes += f"- blocked{f' {tag}' if tag else ''}, for {n} of these: {lists.escape('; '.join(reasons))}\n"
        stated[reasons] = f"for the reason {tag + ' ' if tag else ''}stated above"
    parts = (
        "\n".join(
            _diff_line(line)
            for line in (
                text.block_lines(item)
                if isinstance(item, repeats.SameBlock)
                else text.alike_lines(item, omit=omit | frozenset(w for w, _ in warned))
                if isinstance(item, repeats.SameChange)
                else text.group_lines(
                    *item,
                    omit_reasons=omit,
                    omit_warnings=frozenset(w for w, _ in warned),
                    stated_blocks=stated,
                    implied_phases=False,
                )
            )
        )
        for item in items
    )
    body = "\n".join(parts)
    return _opening(kind, groups) + (notes + "\n" if notes else "") + f"```diff\n{body}\n```\n\n</details>\n\n"


def _alike_line(item: repeats.SameBlock | repeats.SameChange) -> str:
    """Many resources blocked or changed alike on one line: the count, what each gets (a create's configs stay
    visible) or why it is blocked, then the names, folded."""
    if isinstance(item, repeats.SameBlock):
        return f"! {item.head()}: {repeats.names_text(item.names)}"
    shown = "; ".join(line for _, line in item.lines)
    what = f"{repeats.noun(item.change.kind, len(item.names))} ({item.change.phase.label}), each {shown}"
    return f"{item.change.action.symbol} {what}: {repeats.names_text(item.names)}"


def _compact_lines(groups: list[Group]) -> list[tuple[str, int]]:
    """The compact lines of a kind's resources, each with how many resources it stands for."""
    out = []
    for item in repeats.collapse(groups, alike=True):
        if isinstance(item, repeats.SameBlock | repeats.SameChange):
            line, resources = _alike_line(item), len(item.names)
        else:
            line, resources = text.one_line(*item), 1
        out.append((_diff_line(lists.clip(line)) + "\n", resources))
    return out


def _compact_section(kind: Kind, groups: list[Group], budget: int) -> str:
    """One line per resource, or per set of resources changed alike (``repeats.collapse``), as many as ``budget``
    characters hold; "... and N more" for the rest."""
    closing = "```\n\n</details>\n\n"
    lines: list[str] = []
    used = len(_opening(kind, groups, 0)) + len("```diff\n") + len(closing) + 60
    covered = 0
    for line, resources in _compact_lines(groups):
        if used + len(line) > budget:
            break
        lines.append(line)
        used += len(line)
        covered += resources
    rest = len(groups) - covered
    more = f"... and {rest} more (kafka-reconciler show PLAN_FILE --compact lists them all)\n" if rest else ""
    return _opening(kind, groups, covered) + "```diff\n" + "".join(lines) + more + closing


def _fair_shares(sizes: dict[Kind, int], budget: int) -> dict[Kind, int]:
    """Split ``budget`` over the kinds: small kinds get all they need, the others equal shares of the rest."""
    shares: dict[Kind, int] = {}
    left = budget
    pending = sorted(sizes, key=lambda k: sizes[k])
    while pending:
        kind = pending.pop(0)
        share = max(left // (len(pending) + 1), 0)
        shares[kind] = min(sizes[kind], share)
        left -= shares[kind]
    return shares


def _head(result: plans.Plan, *, cluster: str | None, marker: str | None) -> str:
    """The comment's top: marker, heading, refusal, what apply will not do, summary line, impact line and the
    cluster's facts."""
    summary = result.summary()
    # As apply decides (decoded.check_findings): a finding about one resource blocks only that resource's changes.
    acting = {c.address for c in result.actionable}
    errors = sum(1 for w in result.warnings if w.severity == "error" and (w.address is None or w.address in acting))
    head: list[str] = []
    if marker is not None:
        head.append(marker_line(marker))
    head.append(heading(cluster, "refused" if errors else None))
    head.append("")
    if errors:
        head.append(
            f"**Refused: apply writes nothing while this plan has {count(errors, 'error')} "
            "(under Errors and warnings below).**"
        )
        head.append("")
    head.extend(lists.not_done(result))
    head.append(f"**{summary.line()}**")
    head.append("")
    impact_line = None if result.impact is None else result.impact.summary_line()
    if impact_line:
        head.append(f"**{lists.escape(impact_line)}**")
        head.append("")
    info = result.cluster
    racks = sorted({b.rack for b in info.brokers if b.rack})
    facts = [f"cluster {lists.code(info.cluster_id or 'unknown')}", count(len(info.brokers), "broker")]
    if racks:
        facts.append("racks " + ", ".join(lists.code(r) for r in racks))
    if summary.unchanged:
        facts.append(f"{summary.unchanged} unchanged")
    if summary.unmanaged:
        facts.append(f"{summary.unmanaged} unmanaged")
    head.append(" · ".join(facts))
    head.append("")
    return "\n".join(head) + "\n"


def render_markdown(
    result: plans.Plan, *, max_chars: int = 65_000, cluster: str | None = None, marker: str | None = None
) -> str:
    """The plan as a GitHub comment of at most ``max_chars`` characters, headed by ``cluster`` (``marker`` keys the
    comment to its cluster).

    Opens with what apply will NOT do (refused; blocked changes per kind, reasons grouped).

    Always shown: the summary, a table of counts per kind, errors and warnings, blocked changes and deletions
    (each list at most a quarter of the room). Then one ``<details>`` section per kind: the full diff when the
    whole plan fits, otherwise one line per resource, the room shared fairly so that every kind is present.
    """
    by_kind: dict[Kind, list[Group]] = {}
    for address, changes in values.grouped(result.changes):
        by_kind.setdefault(changes[0].kind, []).append((address, changes))
    out = _head(result, cluster=cluster, marker=marker) + _count_table(result, by_kind)
    budget = max_chars - len(out) - _RESERVE

    for heading, items in (
        ("Errors and warnings", lists.warning_items(result)),
        ("Impact", lists.impact_items(result)),
        ("Blocked", lists.blocked_items(result)),
        ("Deletions", lists.deletion_items(result)),
    ):
        section, _ = lists.fit_list(heading, items, min(budget, max_chars // 4))
        out += section
        budget -= len(section)

    kinds = sorted(by_kind, key=_kind_order)
    full = {kind: _full_section(kind, by_kind[kind]) for kind in kinds}
    unmanaged = ""
    if result.unmanaged:
        listed = "\n".join(lists.clip(f"- {lists.code(u.address)}: {lists.escape(u.reason)}") for u in result.unmanaged)
        unmanaged = f"<details><summary>Unmanaged: {len(result.unmanaged)}</summary>\n\n{listed}\n\n</details>\n\n"
    if sum(map(len, full.values())) + len(unmanaged) <= budget:
        return out + "".join(full.values()) + unmanaged
    sizes = {kind: sum(len(line) for line, _ in _compact_lines(by_kind[kind])) + 400 for kind in kinds}
    shares = _fair_shares(sizes, budget)
    for kind in kinds:
        out += _compact_section(kind, by_kind[kind], shares[kind])
    out += (
        "_The full plan is longer than a comment may be: each resource is shown on one line, and resources changed "
        "alike on one line with what each gets. Every detail: the plan file (the workflow run's artifact, when CI "
        "uploads it), with `kafka-reconciler show PLAN_FILE`._\n"
    )
    return out[:max_chars] if len(out) > max_chars else out


# The name the CLI calls.
render = render_markdown
