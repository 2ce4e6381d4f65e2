"""The lists a plan comment always shows, outside any folded section: what apply will NOT do (at the top), errors
and warnings, impact, blocked changes and deletions, each alike item on many resources stated once; and the
markdown escapes they share with ``reconciler.render.markdown``."""

from __future__ import annotations

from collections.abc import Sequence

from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.render import repeats

ITEM_LIMIT = 1_000  # one list item never takes more than this many characters


def escape(textual: str) -> str:
    """Text outside code: keep ``<default>`` and the like from being read as HTML."""
    return textual.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def code(textual: str) -> str:
    return "`" + textual.replace("`", "'") + "`"


def clip(item: str) -> str:
    return item if len(item) <= ITEM_LIMIT else item[: ITEM_LIMIT - 3] + "..."


def warning_items(result: plans.Plan) -> list[str]:
    out = []
    for w, addresses in repeats.warning_groups(result.warnings):
        where = f"{code(w.address)}: " if w.address else ""
        if addresses:
            where = f"{len(addresses):,} resources ({repeats.names_text(addresses, quote='`')}): "
        badge = "**error**" if w.severity == "error" else "warning"
        out.append(clip(f"- {badge} [{w.code}] {where}{escape(w.message)}"))
    return out


def blocked_items(result: plans.Plan) -> list[str]:
    """One item per blocked change; alike ones (same phase and reasons, ``repeats.GROUP_AT`` or more) as one."""
    alike: dict[tuple[Kind, plans.Phase, tuple[str, ...]], list[plans.Change]] = {}
    for c in result.blocked:
        alike.setdefault((c.kind, c.phase, c.reasons), []).append(c)
    out = []
    for (kind, phase, reasons), changes in alike.items():
        because = "; ".join(escape(r) for r in reasons) or "blocked"
        if len(changes) >= repeats.GROUP_AT:
            names = repeats.names_text([c.name for c in changes], quote="`")
            out.append(clip(f"- {repeats.noun(kind, len(changes))} ({phase.label}): {because}: {names}"))
        else:
            out.extend(clip(f"- {code(c.address)} ({phase.label}): {because}") for c in changes)
    return out


def impact_items(result: plans.Plan) -> list[str]:
    """One item per impact line; a line alike on ``repeats.GROUP_AT`` resources or more (the same phase and text:
    "drops the data it holds: 0 B" on 250 topics) as one item naming them, where its first one was."""
    if result.impact is None:
        return []
    out = [clip(f"- {escape(note)}") for note in result.impact.notes]
    alike: dict[tuple[str, str], list[str]] = {}
    for e in result.impact.entries:
        for line in e.lines:
            alike.setdefault((e.phase, line), []).append(e.address)
    for e in result.impact.entries:
        where = plans.Phase[e.phase].label if e.phase in plans.Phase.__members__ else e.phase
        for line in e.lines:
            addresses = alike[(e.phase, line)]
            if len(addresses) < repeats.GROUP_AT:
                out.append(clip(f"- {code(e.address)} ({where}): {escape(line)}"))
            elif addresses[0] == e.address:
                names = repeats.names_text(addresses, quote="`")
                out.append(clip(f"- {len(addresses):,} resources ({where}): {escape(line)}: {names}"))
    return out


def deletion_items(result: plans.Plan) -> list[str]:
    """One item per delete; ``repeats.GROUP_AT`` or more with the same notes as one item naming them (the per-kind
    details below still list each)."""
    notes_of = {
        c.address: tuple(escape(w) for w in c.warnings if not w.startswith("impact: "))  # shown under Impact
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
            out.append(clip(f"- {code(address)}{suffix}"))
        elif same[0] == address:
            out.append(clip(f"- {len(same):,} resources{suffix}: {repeats.names_text(same, quote='`')}"))
    return out


def fit_list(title: str, items: Sequence[str], budget: int) -> tuple[str, int]:
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


_REASONS_SHOWN = 3  # per kind in the opening list of what apply will not do


def not_done(result: plans.Plan) -> list[str]:
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
    for kind in sorted(by_kind, key=list(Kind).index):
        reasons = sorted(by_kind[kind].items(), key=lambda item: -len(item[1]))
        resources = len(set().union(*by_kind[kind].values()))
        said = [
            escape(r) + (f" ({len(addresses):,})" if len(reasons) > 1 else "")
            for r, addresses in reasons[:_REASONS_SHOWN]
        ]
        if len(reasons) > _REASONS_SHOWN:
            said.append(f"{len(reasons) - _REASONS_SHOWN} other reasons (under Blocked below)")
        lines.append(clip(f"- {repeats.noun(kind, resources)}: " + "; ".join(said)))
    lines.append("")
    return lines
