"""How a plan made now differs from a saved one: ``apply PATHS --plan FILE`` refuses the saved plan when the
manifests, planned again, no longer produce it.

Two changes at the same address and phase are the same when they do the same thing: the same action, attributes
and desired payload. What is read at planning time (usage evidence in ``before``, reasons, warnings, impact) is
not compared: it changes from one read to the next without the plan meaning anything else.
"""

from __future__ import annotations

from reconciler.model import payloads, plans


def _change_key(c: plans.Change) -> tuple[object, ...]:
    """What a change does, without what is read at planning time (usage evidence, reasons, warnings)."""
    return (c.action, tuple(a.to_dict() for a in c.attributes), payloads.encode(c.after))


def differences(saved: plans.Plan, fresh: plans.Plan, *, limit: int = 5) -> list[str]:
    """How ``fresh`` differs from ``saved``, one entry per address and phase (at most ``limit``, then a count)."""
    old = {(c.address, c.phase): c for c in saved.changes}
    new = {(c.address, c.phase): c for c in fresh.changes}
    found: list[str] = []
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        where = f"{key[0]} ({key[1].label})"
        if after is None:
            found.append(f"{where} is no longer planned")
        elif before is None:
            found.append(f"{where} is planned now ({after.action.value}) but not in the saved plan")
        elif _change_key(before) != _change_key(after):
            found.append(f"{where} is planned differently now ({_summary(after)} instead of {_summary(before)})")
    if len(found) > limit:
        return [*found[:limit], f"and {len(found) - limit} more"]
    return found


def _summary(c: plans.Change) -> str:
    changed = [f"{a.name} -> {a.after}" for a in c.attributes if not a.sensitive][:3]
    return c.action.value + (f" {', '.join(changed)}" if changed else "")
