"""The Terraform-like terminal view of a plan.

``render_text(plan, color=...)`` returns the whole text; the CLI decides whether to colour it (a
TTY) and prints it. Colour is plain ANSI escape codes, so the text is the same with or without it
once the codes are stripped. ``group_lines`` renders one address and is reused by the markdown view.
"""

from __future__ import annotations

from reconciler import plan
from reconciler.render import values

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


def header_lines(info: plan.ClusterInfo) -> list[str]:
    """``Target: <address, protocol, profile>`` (when known), ``Cluster <id>, controller 1``, the brokers with racks."""
    cluster = info.cluster_id or "(unknown id)"
    controller = "unknown" if info.controller_id is None else str(info.controller_id)
    brokers = ", ".join(f"{b.id}" + (f" (rack {b.rack})" if b.rack else "") for b in info.brokers) or "(none read)"
    target = [f"Target: {info.target}"] if info.target else []
    return [*target, f"Cluster {cluster}, controller {controller}", f"Brokers: {brokers}"]


def group_lines(address: str, changes: list[plan.Change], *, color: bool = False) -> list[str]:
    """The lines of one address: header with symbol, then per phase its attributes, reasons and warnings."""
    style = _Style(color)
    action = values.strongest(changes)
    lines = [style(action.symbol, f"{action.symbol} {address}")]
    for change in changes:
        lines.append("    " + style("dim", f"# {change.phase.label}"))
        for attr in change.attributes:
            symbol, text = values.attribute_line(attr)
            if change.action is plan.Action.CREATE:
                symbol = "+"
            lines.append("    " + style(symbol, f"{symbol} {text}"))
        if change.action is plan.Action.BLOCKED:
            first, *rest = change.reasons or ("blocked",)
            lines.append("    " + style("!", f"blocked: {first}"))
            lines.extend(f"      {r}" for r in rest)
        else:
            lines.extend(f"    reason: {r}" for r in change.reasons)
        lines.extend("    " + style("warning", f"warning: {w}") for w in change.warnings)
    source = next((c.source for c in changes if c.source), None)
    if source:
        lines.append("    " + style("dim", f"declared at {source}"))
    return lines


def warning_line(warning: plan.PlanWarning, *, color: bool = False) -> str:
    style = _Style(color)
    where = f" ({warning.address})" if warning.address else ""
    return style(warning.severity if warning.severity == "error" else "warning", f"{warning.severity}: ") + (
        f"[{warning.code}] {warning.message}{where}"
    )


def render_text(result: plan.Plan, *, color: bool = False) -> str:
    """The full plan as terminal text, ending with the summary line."""
    style = _Style(color)
    lines = header_lines(result.cluster)
    lines.append("")
    groups = values.grouped(result.changes)
    if groups:
        lines.append("Changes, in the order apply runs them (+ create, ~ update, - delete, ! blocked):")
        lines.append("")
        for address, changes in groups:
            lines.extend("  " + line for line in group_lines(address, changes, color=color))
            lines.append("")
    if result.warnings:
        lines.append(style("bold", "Warnings:"))
        lines.extend("  " + warning_line(w, color=color) for w in result.warnings)
        lines.append("")
    if result.unmanaged:
        lines.append(style("bold", "Unmanaged (inside the ownership rules, not declared, kept):"))
        lines.extend(f"  {u.address}: {u.reason}" for u in result.unmanaged)
        lines.append("")
    summary = result.summary()
    if summary.unchanged:
        detail = ", ".join(f"{kind}: {count}" for kind, count in sorted(result.unchanged.items()))
        lines.append(f"{summary.unchanged} resource(s) unchanged ({detail}).")
    lines.append(style("bold", summary.line()))
    return "\n".join(lines) + "\n"


# The name the CLI calls.
render = render_text
