"""The pull-request comment view of a plan, always within GitHub's comment size limit.

Summary first; errors and warnings, blocked changes and deletions are always visible (never
collapsed); the per-kind details follow in ``<details>`` sections. When the comment would exceed
``max_chars``, the details are cut with a note; the summary is never cut, and the always-visible
lists are cut to "... and N more" only when they alone would not fit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from reconciler import desired, plan
from reconciler.render import text, values

GITHUB_COMMENT_LIMIT = 65_536
_KIND_TITLES = {
    desired.KIND_TOPIC: "Topics",
    desired.KIND_ACL: "ACLs",
    desired.KIND_QUOTA: "Client quotas",
    desired.KIND_SCRAM: "SCRAM users",
    desired.KIND_BROKER_CONFIG: "Broker configs",
}
_ITEM_LIMIT = 1_000  # one list item never takes more than this many characters
_RESERVE = 400  # room kept for "... and N more" notes and the truncation note


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


def _warning_items(result: plan.Plan) -> list[str]:
    out = []
    for w in result.warnings:
        where = f"{_code(w.address)}: " if w.address else ""
        badge = "**error**" if w.severity == "error" else "warning"
        out.append(_clip(f"- {badge} [{w.code}] {where}{_escape(w.message)}"))
    return out


def _blocked_items(result: plan.Plan) -> list[str]:
    out = []
    for c in result.blocked:
        reasons = "; ".join(_escape(r) for r in c.reasons) or "blocked"
        out.append(_clip(f"- {_code(c.address)} ({c.phase.label}): {reasons}"))
    return out


def _deletion_items(result: plan.Plan) -> list[str]:
    out = []
    for c in result.changes:
        if c.action is plan.Action.DELETE:
            notes = [_escape(w) for w in c.warnings]
            suffix = f": {'; '.join(notes)}" if notes else ""
            out.append(_clip(f"- {_code(c.address)}{suffix}"))
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


def _details(kind: str, groups: list[tuple[str, list[plan.Change]]]) -> tuple[str, Iterator[str]]:
    counts: dict[str, int] = {}
    for _, changes in groups:
        action = values.strongest(changes).value
        counts[action] = counts.get(action, 0) + 1
    summary = ", ".join(f"{n} {a}" for a, n in sorted(counts.items()))
    opening = f"<details><summary>{_KIND_TITLES.get(kind, kind)}: {summary}</summary>\n\n```diff\n"
    blocks = ("\n".join(_diff_line(line) for line in text.group_lines(a, cs)) + "\n" for a, cs in groups)
    return opening, blocks


def render_markdown(
    result: plan.Plan, *, max_chars: int = 65_000, title: str | None = None, marker: str | None = None
) -> str:
    """The plan as a GitHub comment of at most ``max_chars`` characters (``marker`` names the cluster)."""
    summary = result.summary()
    head: list[str] = []
    if marker is not None:
        head.append(marker_line(marker))
    head.append(f"### {_escape(title or 'kafka-reconciler plan')}")
    head.append("")
    head.append(f"**{summary.line()}**")
    head.append("")
    info = result.cluster
    racks = sorted({b.rack for b in info.brokers if b.rack})
    facts = [f"cluster {_code(info.cluster_id or 'unknown')}", f"{len(info.brokers)} broker(s)"]
    if racks:
        facts.append("racks " + ", ".join(_code(r) for r in racks))
    if summary.unchanged:
        facts.append(f"{summary.unchanged} unchanged")
    if summary.unmanaged:
        facts.append(f"{summary.unmanaged} unmanaged")
    head.append(" · ".join(facts))
    head.append("")
    out = "\n".join(head) + "\n"
    budget = max_chars - len(out) - _RESERVE

    for heading, items in (
        ("Errors and warnings", _warning_items(result)),
        ("Blocked", _blocked_items(result)),
        ("Deletions", _deletion_items(result)),
    ):
        section, budget = _fit_list(heading, items, budget)
        out += section

    by_kind: dict[str, list[tuple[str, list[plan.Change]]]] = {}
    for address, changes in values.grouped(result.changes):
        by_kind.setdefault(changes[0].kind, []).append((address, changes))
    hidden = 0
    for kind in sorted(by_kind, key=lambda k: list(_KIND_TITLES).index(k) if k in _KIND_TITLES else 99):
        groups = by_kind[kind]
        if hidden:
            hidden += len(groups)
            continue
        opening, blocks = _details(kind, groups)
        closing = "```\n\n</details>\n\n"
        used = len(opening) + len(closing)
        shown: list[str] = []
        for block in blocks:  # rendered lazily: a huge plan stops at the budget
            if used + len(block) > budget:
                break
            shown.append(block)
            used += len(block)
        hidden += len(groups) - len(shown)
        if shown:
            out += opening + "".join(shown) + closing
            budget -= used
    if result.unmanaged and not hidden:
        items = [_clip(f"- {_code(u.address)}: {_escape(u.reason)}") for u in result.unmanaged]
        lines = "\n".join(items) + "\n"
        block = f"<details><summary>Unmanaged: {len(items)}</summary>\n\n{lines}\n</details>\n\n"
        if len(block) <= budget:
            out += block
        else:
            hidden += len(items)
    if hidden:
        out += (
            f"_{hidden} more resource(s) not shown: the comment is limited to {max_chars} characters. "
            "Run `kafka-reconciler show` on the plan file for the full plan._\n"
        )
    return out[:max_chars] if len(out) > max_chars else out


# The name the CLI calls.
render = render_markdown
