"""The Terraform-like terminal view of a plan.

``render_text(plan, color=..., compact=...)`` returns the whole text (the impact summary line first, when the plan
has one); the CLI decides whether to colour
it (``reconciler.base.terminal``) and prints it. Colour is plain ANSI escape codes, so the text is the same with
or without it once the codes are stripped. ``group_lines`` renders one address as a block, ``one_line`` as a
single line (the compact form, also used by the markdown view of big plans). Many resources blocked alike, many
created or updated alike (the same attributes: 600 topics with the same configs), a reason or warning given for many
changes of a kind, and a warning found on many resources are stated once (``reconciler.render.repeats``), except in
the compact form, which lists every resource.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from reconciler.base.terminal import count
from reconciler.kinds import registry
from reconciler.kinds.spec import AttributeLines
from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.render import repeats, values

_ANSI = {
    "+": "\x1b[32m",
    "~": "\x1b[33m",
    "-": "\x1b[31m",
    "!": "\x1b[1;35m",
    "error": "\x1b[1;31m",
    "warning": "\x1b[33m",
    "dim": "\x1b[2m",
    "bold": "\x1b[1m",
}
_RESET = "\x1b[0m"


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, style: str, text: str) -> str:
        return f"{_ANSI[style]}{text}{_RESET}" if self.color else text


def header_lines(info: plans.ClusterInfo) -> list[str]:
    """``Target: <address, protocol, profile>`` (when known), ``Cluster <id>, controller 1``, the brokers with racks."""
    cluster = info.cluster_id or "(unknown id)"
    controller = "unknown" if info.controller_id is None else str(info.controller_id)
    brokers = ", ".join(f"{b.id}" + (f" (rack {b.rack})" if b.rack else "") for b in info.brokers) or "(none read)"
    target = [f"Target: {info.target}"] if info.target else []
    return [*target, f"Cluster {cluster}, controller {controller}", f"Brokers: {brokers}"]


@functools.cache
def _attribute_lines(kind: Kind) -> AttributeLines:
    """The lines ``kind``'s declaration shows an attribute as (its ``attribute_lines`` part, resolved once)."""
    return registry.spec(kind).attribute_lines.get()


def group_lines(
    address: str,
    changes: list[plans.Change],
    *,
    color: bool = False,
    omit_reasons: frozenset[str] = frozenset(),
    omit_warnings: frozenset[str] = frozenset(),
    stated_blocks: Mapping[tuple[str, ...], str] = MappingProxyType({}),
    implied_phases: bool = True,
) -> list[str]:
    """The lines of one address: header with symbol, then per phase its attributes, reasons and warnings.

    ``omit_reasons`` and ``omit_warnings`` are stated elsewhere (once for many resources), and so are the blocked
    reasons that are keys
    of ``stated_blocks``: a blocked change with those reasons gets the one line ``blocked: <its value>`` instead;
    ``implied_phases=False`` leaves out the ``# topic create`` line of a resource whose only change is a create or
    delete (its symbol says so).
    """
    style = _Style(color)
    action = values.strongest(changes)
    lines = [style(action.symbol, f"{action.symbol} {address}")]
    implied = len(changes) == 1 and changes[0].action in (plans.Action.CREATE, plans.Action.DELETE)
    for change in changes:
        if implied_phases or not implied:
            lines.append("    " + style("dim", f"# {change.phase.label}"))
        more_lines = _attribute_lines(change.kind) if change.attributes else None
        for attr in change.attributes:
            symbol, text = values.attribute_line(attr)
            if change.action is plans.Action.CREATE:
                symbol = "+"
            shown = None if more_lines is None else more_lines(change, attr)
            if shown is not None:  # e.g. a subject's new version: the unified diff of its canonical schema text
                lines.append("    " + style(symbol, f"{symbol} {shown[0]}"))
                marks = {"+": "+", "-": "-"}
                lines.extend("    " + style(marks.get(line.strip()[:1], "dim"), line) for line in shown[1:])
                continue
            lines.append("    " + style(symbol, f"{symbol} {text}"))
        if change.action is plans.Action.BLOCKED and change.reasons in stated_blocks:
            lines.append("    " + style("!", f"blocked: {stated_blocks[change.reasons]}"))
        elif change.action is plans.Action.BLOCKED:
            first, *rest = change.reasons or ("blocked",)
            lines.append("    " + style("!", f"blocked: {first}"))
            lines.extend(f"      {r}" for r in rest)
        else:
            lines.extend(f"    reason: {r}" for r in change.reasons if r not in omit_reasons)
        lines.extend("    " + style("warning", f"warning: {w}") for w in change.warnings if w not in omit_warnings)
    source = next((c.source for c in changes if c.source), None)
    if source:
        lines.append("    " + style("dim", f"declared at {source}"))
    return lines


def one_line(address: str, changes: list[plans.Change], *, color: bool = False) -> str:
    """One address on one line: symbol, address, then what changes (updates), why it is blocked, or warnings."""
    style = _Style(color)
    action = values.strongest(changes)
    details: list[str] = []
    for change in changes:
        if change.action is plans.Action.BLOCKED:
            details.append("blocked: " + (change.reasons[0] if change.reasons else "see the full plan"))
        elif change.action is plans.Action.UPDATE:
            details.extend(values.attribute_line(attr)[1] for attr in change.attributes)
        warnings = len(change.warnings)
        if warnings:
            details.append(count(warnings, "warning"))
    text = f"{action.symbol} {address}" + (f"  ({'; '.join(details)})" if details else "")
    return style(action.symbol, text)


def block_lines(block: repeats.SameBlock, *, color: bool = False) -> list[str]:
    """Many resources blocked alike, stated once: the count and reason, the other reasons, then their names."""
    style = _Style(color)
    lines = [style("!", f"! {block.head()}")]
    lines.extend(f"    {r}" for r in block.reasons[1:])
    lines.append("    " + style("dim", f"{repeats.names_text(block.names)} (--compact or --format json lists each)"))
    return lines


def _brief(changes: list[plans.Change], stated: frozenset[str]) -> bool:
    """A resource with nothing to say but its name and where it is declared: one create or delete with no attribute,
    whose reasons and warnings are all stated once elsewhere (an ACL created or deleted)."""
    if len(changes) != 1 or changes[0].action not in (plans.Action.CREATE, plans.Action.DELETE):
        return False
    c = changes[0]
    return not c.attributes and all(r in stated for r in c.reasons) and all(w in stated for w in c.warnings)


def brief_line(address: str, changes: list[plans.Change], *, color: bool = False) -> str:
    """``+ acl/...  (acl create, declared at acls.yaml:7:3)``: a ``_brief`` resource on one line."""
    style = _Style(color)
    symbol = changes[0].action.symbol
    where = f", declared at {changes[0].source}" if changes[0].source else ""
    return style(symbol, f"{symbol} {address}") + "  " + style("dim", f"({changes[0].phase.label}{where})")


def alike_lines(same: repeats.SameChange, *, color: bool = False, omit: frozenset[str] = frozenset()) -> list[str]:
    """Many resources changed alike, stated once: the count and phase, the attributes each gets, the reasons and
    warnings not in ``omit`` (stated elsewhere), then their names and how to list each."""
    style = _Style(color)
    symbol = same.change.action.symbol
    lines = [style(symbol, f"{symbol} {same.head()}")]
    lines.extend("    " + style(sym, f"{sym} {text}") for sym, text in same.lines)
    lines.extend(f"    reason: {r}" for r in same.change.reasons if r not in omit)
    lines.extend("    " + style("warning", f"warning: {w}") for w in same.change.warnings if w not in omit)
    lines.append("    " + style("dim", f"{repeats.names_text(same.names)} (--compact or --format json lists each)"))
    return lines


def stated_once(groups: list[tuple[str, list[plans.Change]]]) -> dict[Kind, list[tuple[str, str, int]]]:
    """Per kind, the reasons and warnings given for ``repeats.GROUP_AT`` or more of its changes (blocked ones aside):
    ``(what, text, how many)``, ``what`` being ``reason`` or ``warning``, in the order first given."""
    seen: dict[Kind, dict[tuple[str, str], int]] = {}
    for _, changes in groups:
        for c in changes:
            if c.action is plans.Action.BLOCKED:
                continue
            said = seen.setdefault(c.kind, {})
            for key in dict.fromkeys([*(("reason", r) for r in c.reasons), *(("warning", w) for w in c.warnings)]):
                said[key] = said.get(key, 0) + 1
    return {
        kind: [(what, text, n) for (what, text), n in said.items() if n >= repeats.GROUP_AT]
        for kind, said in seen.items()
        if any(n >= repeats.GROUP_AT for n in said.values())
    }


def _stated_once_lines(shared: dict[Kind, list[tuple[str, str, int]]], style: _Style) -> list[str]:
    if not shared:
        return []
    lines = ["  " + style("bold", "Given for many changes, stated once here (not under each change below):")]
    for kind, said in shared.items():
        for what, text, n in said:
            lines.append(
                "    "
                + (
                    style("warning", f"warning for {repeats.noun(kind, n)}")
                    if what == "warning"
                    else f"reason for {repeats.noun(kind, n)}"
                )
                + f": {text}"
            )
    return [*lines, ""]


def warning_line(warning: plans.PlanWarning, *, color: bool = False, addresses: tuple[str, ...] = ()) -> str:
    """One warning; ``addresses``: the resources it was found on, when it is stated once for many of them."""
    style = _Style(color)
    where = f" ({warning.address})" if warning.address else ""
    if addresses:
        where = f" ({len(addresses):,} resources: {repeats.names_text(addresses)})"
    return style(warning.severity if warning.severity == "error" else "warning", f"{warning.severity}: ") + (
        f"[{warning.code}] {warning.message}{where}"
    )


def _change_lines(groups: list[tuple[str, list[plans.Change]]], style: _Style) -> list[str]:
    """The changes, each block followed by a blank line: what many share stated once first, alike ones folded, and
    a run of one-line resources (``brief_line``) not spaced out."""
    color = style.color
    shared = stated_once(groups)
    lines = _stated_once_lines(shared, style)
    omit = {kind: frozenset(text for _, text, _ in said) for kind, said in shared.items()}
    brief = False
    for item in repeats.collapse(groups, alike=True):
        dropped = omit.get(item.change.kind if isinstance(item, repeats.SameChange) else _kind_of(item), frozenset())
        if not isinstance(item, repeats.SameBlock | repeats.SameChange) and _brief(item[1], dropped):
            lines.append("  " + brief_line(*item, color=color))
            brief = True
            continue
        if brief:
            lines.append("")
            brief = False
        if isinstance(item, repeats.SameBlock):
            block = block_lines(item, color=color)
        elif isinstance(item, repeats.SameChange):
            block = alike_lines(item, color=color, omit=dropped)
        else:
            block = group_lines(*item, color=color, omit_reasons=dropped, omit_warnings=dropped)
        lines.extend("  " + line for line in block)
        lines.append("")
    if not brief and lines:
        lines.pop()  # the caller ends the list with a blank line
    return lines


def _kind_of(item: repeats.Group | repeats.SameBlock) -> Kind:
    return item.kind if isinstance(item, repeats.SameBlock) else item[1][0].kind


def render_text(result: plans.Plan, *, color: bool = False, compact: bool = False) -> str:
    """The full plan as terminal text, ending with the summary line; ``compact``: one line per address."""
    style = _Style(color)
    lines = header_lines(result.cluster)
    lines.append("")
    if result.impact is not None and (line := result.impact.summary_line()):
        lines.append(style("bold", line))
        lines.extend(f"  {note}" for note in result.impact.notes)
        lines.append("")
    groups = values.grouped(result.changes)
    if groups:
        lines.append("Changes, in the order apply runs them (+ create, ~ update, - delete, ! blocked):")
        lines.append("")
        if compact:
            lines.extend("  " + one_line(*item, color=color) for item in groups)
        else:
            lines.extend(_change_lines(groups, style))
        lines.append("")
    if result.warnings:
        lines.append(style("bold", "Warnings:"))
        lines.extend(
            "  " + warning_line(w, color=color, addresses=where) for w, where in repeats.warning_groups(result.warnings)
        )
        lines.append("")
    if result.unmanaged:
        lines.append(style("bold", "Unmanaged (inside the ownership rules, not declared, kept):"))
        lines.extend(f"  {u.address}: {u.reason}" for u in result.unmanaged)
        lines.append("")
    summary = result.summary()
    if summary.unchanged:
        detail = ", ".join(f"{kind}: {count}" for kind, count in sorted(result.unchanged.items()))
        lines.append(f"{count(summary.unchanged, 'resource')} unchanged ({detail}).")
    lines.append(style("bold", summary.line()))
    return "\n".join(lines) + "\n"


# The name the CLI calls.
render = render_text
