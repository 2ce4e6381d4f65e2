"""The pull-request comment view of a plan, always within GitHub's comment size limit.

Summary (with the impact line) and a table of counts per kind first; errors and warnings, what each change will
do (impact), blocked changes and deletions are always visible (never collapsed); the per-kind details follow in
``<details>`` sections, with reasons shared by many resources stated once per kind rather than once per resource.
When the full details would exceed ``max_chars``, every kind is still shown, one line per resource, cut to
"... and N more" within a fair share of the room.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reconciler.base.terminal import count
from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.render import repeats, text, values

Group = tuple[str, list[plans.Change]]

GITHUB_COMMENT_LIMIT = 65_536
_COLUMNS = (plans.Action.CREATE, plans.Action.UPDATE, plans.Action.DELETE, plans.Action.BLOCKED)
_ITEM_LIMIT = 1_000  # one list item never takes more than this many characters
_RESERVE = 400  # room kept for "... and N more" notes and the truncation note


def heading(cluster: str | None, status: str | None = None) -> str:
    """The one heading of every plan comment and job summary: ``### Kafka plan for prod-eu``, with ``: failed``
    (no plan) or ``: refused`` (a plan apply will not run) after it."""
    title = f"Kafka plan for {cluster}" if cluster else "Kafka plan"
    return f"### {_escape(title)}{f': {status}' if status else ''}"


def marker_line(name: str) -> str:
    """The hidden line that lets CI find and update its own comment: ``<!-- kafka-reconciler: cluster=NAME -->``."""
    safe = name.replace("--", "-").replace(">", "")
    return f"<!-- kafka-reconciler: cluster={safe} -->"


def _escape(textual: str) -> str:
    """Text outside code: keep ``<default>`` and the like from being read as HTML."""
    return textual.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _code(textual: str) -> str:
    return "`" + textual.replace("`", "'") + "`"


def _clip(item: str) -> str:
    return item if len(item) <= _ITEM_LIMIT else item[: _ITEM_LIMIT - 3] + "..."


def _warning_items(result: plans.Plan) -> list[str]:
    out = []
    for w, addresses in repeats.warning_groups(result.warnings):
        where = f"{_code(w.address)}: " if w.address else ""
        if addresses:
            where = f"{len(addresses):,} resources ({repeats.names_text(addresses, quote='`')}): "
        badge = "**error**" if w.severity == "error" else "warning"
        out.append(_clip(f"- {badge} [{w.code}] {where}{_escape(w.message)}"))
    return out


def _blocked_items(result: plans.Plan) -> list[str]:
    """One item per blocked change; alike ones (same phase and reasons, ``repeats.GROUP_AT`` or more) as one."""
    alike: dict[tuple[Kind, plans.Phase, tuple[str, ...]], list[plans.Change]] = {}
    for c in result.blocked:
        alike.setdefault((c.kind, c.phase, c.reasons), []).append(c)
    out = []
    for (kind, phase, reasons), changes in alike.items():
        because = "; ".join(_escape(r) for r in reasons) or "blocked"
        if len(changes) >= repeats.GROUP_AT:
            names = repeats.names_text([c.name for c in changes], quote="`")
            out.append(_clip(f"- {repeats.noun(kind, len(changes))} ({phase.label}): {because}: {names}"))
        else:
            out.extend(_clip(f"- {_code(c.address)} ({phase.label}): {because}") for c in changes)
    return out


def _impact_items(result: plans.Plan) -> list[str]:
    """One item per impact line; a line alike on ``repeats.GROUP_AT`` resources or more (the same phase and text:
    "drops the data it holds: 0 B" on 250 topics) as one item naming them, where its first one was."""
    if result.impact is None:
        return []
    out = [_clip(f"- {_escape(note)}") for note in result.impact.notes]
    alike: dict[tuple[str, str], list[str]] = {}
    for e in result.impact.entries:
        for line in e.lines:
            alike.setdefault((e.phase, line), []).append(e.address)
    for e in result.impact.entries:
        where = plans.Phase[e.phase].label if e.phase in plans.Phase.__members__ else e.phase
        for line in e.lines:
            addresses = alike[(e.phase, line)]
            if len(addresses) < repeats.GROUP_AT:
                out.append(_clip(f"- {_code(e.address)} ({where}): {_escape(line)}"))
            elif addresses[0] == e.address:
                names = repeats.names_text(addresses, quote="`")
                out.append(_clip(f"- {len(addresses):,} resources ({where}): {_escape(line)}: {names}"))
    return out


def _deletion_items(result: plans.Plan) -> list[str]:
    """One item per delete; ``repeats.GROUP_AT`` or more with the same notes as one item naming them (the per-kind
    details below still list each)."""
    notes_of = {
        c.address: tuple(_escape(w) for w in c.warnings if not w.startswith("impact: "))  # shown under Impact
        for c in result.changes
        if c.action is plans.Action.DELETE
    }
    alike: dict[tuple[str, ...], list[str]] = {}
    for address, notes in notes_of.items():
        alike.setdefault(notes, []).append(address)
    out = []
    for address, notes in notes_of.items():
        same = alike[notes]
        suffix = f": {'; '.join(notes)}" if notes else ""
        if not notes or len(same) < repeats.GROUP_AT:
            out.append(_clip(f"- {_code(address)}{suffix}"))
        elif same[0] == address:
            out.append(_clip(f"- {len(same):,} resources{suffix}: {repeats.names_text(same, quote='`')}"))
    return out


def _fit_list(title: str, items: Sequence[str], budget: int) -> tuple[str, int]:
    """A titled list using at most ``budget`` characters, cut to "... and N more" when needed."""
    if not items:
        return "", budget
    head = f"#### {title}\n\n"
    used = len(head)
    kept: list[str] = []
    for i, item in enumerate(items):
        rest = len(items) - i - 1
        tail = len(f"- ... and {rest} more\n") if rest else 0
        if used + len(item) + 1 + tail > budget:
            break
        kept.append(item)
        used += len(item) + 1
    missing = len(items) - len(kept)
    body = head + "\n".join(kept) + ("\n" if kept else "")
    if missing:
        body += f"- ... and {missing} more\n"
    body += "\n"
    return body, budget - len(body)


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
        summary += f" (one line each; {shown} shown)"
    return f"<details><summary>{kind.heading}: {summary}</summary>\n\n"


def _full_section(kind: Kind, groups: list[Group]) -> str:
    shared = _shared_reasons(groups)
    notes = "".join(f"- reason for {n} of these: {_escape(r)}\n" for r, n in shared)
    omit = frozenset(r for r, _ in shared)
    warned = _shared_reasons(groups, warnings=True)
    notes += "".join(f"- warning for {n} of these: {_escape(w)}\n" for w, n in warned)
    items = repeats.collapse(groups)
    stated: dict[tuple[str, ...], str] = {}
    for reasons, n, tag in _shared_blocks([i for i in items if not isinstance(i, repeats.SameBlock)]):
        notes += f"- blocked{f' {tag}' if tag else ''}, for {n} of these: {_escape('; '.join(reasons))}\n"
        stated[reasons] = f"for the reason {tag + ' ' if tag else ''}stated above"
    parts = (
        "\n".join(
            _diff_line(line)
            for line in (
                text.block_lines(item)
                if isinstance(item, repeats.SameBlock)
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


def _compact_section(kind: Kind, groups: list[Group], budget: int) -> str:
    """One line per resource, as many as ``budget`` characters hold; "... and N more" for the rest."""
    closing = "```\n\n</details>\n\n"
    lines: list[str] = []
    used = len(_opening(kind, groups, 0)) + len("```diff\n") + len(closing) + 60
    for address, changes in groups:
        line = _diff_line(_clip(text.one_line(address, changes))) + "\n"
        if used + len(line) > budget:
            break
        lines.append(line)
        used += len(line)
    rest = len(groups) - len(lines)
    more = f"... and {rest} more (kafka-reconciler show PLAN_FILE --compact lists them all)\n" if rest else ""
    return _opening(kind, groups, len(lines)) + "```diff\n" + "".join(lines) + more + closing


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


_REASONS_SHOWN = 3  # per kind in the opening list of what apply will not do


def _not_done(result: plans.Plan) -> list[str]:
    """What apply will NOT do, for the top of the comment: the blocked resources, counted per kind, with the reasons
    (their first line) grouped and counted; the Blocked section below names each resource."""
    by_kind: dict[Kind, dict[str, set[str]]] = {}
    for c in result.blocked:
        reason = c.reasons[0] if c.reasons else "blocked"
        by_kind.setdefault(c.kind, {}).setdefault(reason, set()).add(c.address)
    if not by_kind:
        return []
    total = result.summary().blocked
    lines = [f"**Blocked: apply will NOT change {total:,} resource{'' if total == 1 else 's'}:**", ""]
    for kind in sorted(by_kind, key=_kind_order):
        reasons = sorted(by_kind[kind].items(), key=lambda item: -len(item[1]))
        resources = len(set().union(*by_kind[kind].values()))
        said = [
            _escape(r) + (f" ({len(addresses):,})" if len(reasons) > 1 else "")
            for r, addresses in reasons[:_REASONS_SHOWN]
        ]
        if len(reasons) > _REASONS_SHOWN:
            said.append(f"{len(reasons) - _REASONS_SHOWN} other reasons (under Blocked below)")
        lines.append(_clip(f"- {repeats.noun(kind, resources)}: " + "; ".join(said)))
    lines.append("")
    return lines


def _head(result: plans.Plan, *, cluster: str | None, marker: str | None) -> str:
    """The comment's top: marker, heading, refusal, what apply will not do, summary line, impact line and the
    cluster's facts."""
    summary = result.summary()
    # As apply decides (preflight.check_shape): a finding about one resource blocks only that resource's changes.
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
    head.extend(_not_done(result))
    head.append(f"**{summary.line()}**")
    head.append("")
    impact_line = None if result.impact is None else result.impact.summary_line()
    if impact_line:
        head.append(f"**{_escape(impact_line)}**")
        head.append("")
    info = result.cluster
    racks = sorted({b.rack for b in info.brokers if b.rack})
    facts = [f"cluster {_code(info.cluster_id or 'unknown')}", count(len(info.brokers), "broker")]
    if racks:
        facts.append("racks " + ", ".join(_code(r) for r in racks))
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
        ("Errors and warnings", _warning_items(result)),
        ("Impact", _impact_items(result)),
        ("Blocked", _blocked_items(result)),
        ("Deletions", _deletion_items(result)),
    ):
        section, _ = _fit_list(heading, items, min(budget, max_chars // 4))
        out += section
        budget -= len(section)

    kinds = sorted(by_kind, key=_kind_order)
    full = {kind: _full_section(kind, by_kind[kind]) for kind in kinds}
    unmanaged = ""
    if result.unmanaged:
        listed = "\n".join(_clip(f"- {_code(u.address)}: {_escape(u.reason)}") for u in result.unmanaged)
        unmanaged = f"<details><summary>Unmanaged: {len(result.unmanaged)}</summary>\n\n{listed}\n\n</details>\n\n"
    if sum(map(len, full.values())) + len(unmanaged) <= budget:
        return out + "".join(full.values()) + unmanaged
    sizes = {kind: sum(len(text.one_line(a, cs)) + 3 for a, cs in by_kind[kind]) + 400 for kind in kinds}
    shares = _fair_shares(sizes, budget)
    for kind in kinds:
        out += _compact_section(kind, by_kind[kind], shares[kind])
    out += (
        "_The full plan is longer than a comment may be: each resource is shown on one line. "
        "Run `kafka-reconciler show` on the plan file for every detail._\n"
    )
    return out[:max_chars] if len(out) > max_chars else out


# The name the CLI calls.
render = render_markdown
