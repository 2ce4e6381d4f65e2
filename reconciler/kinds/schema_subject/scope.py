"""Which subjects a plan reads and depends on, and their fingerprints, so a saved plan goes stale when any changed.

A plan reads the declared subjects and, when Ownership ``schemaSubjects`` rules exist, every listed subject they own
(one ``GET /subjects`` more): with neither, it sends no registry request at all. Its scope is the same set, and
each subject's fingerprint covers what would make the plan come out differently: its latest version's number, id,
type, references and canonical schema, its own level and mode. A subject appearing, changing or going away in that
set changes the fingerprints; subjects outside it (another team's) never do. The registry's global level counts
too, as the level a subject without its own is checked under.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping

from reconciler.kinds.schema_subject import diff, views
from reconciler.registry import port as registry_port

GLOBAL = "(global level)"


def to_read(
    registry: registry_port.RegistryPort,
    declared: Iterable[str],
    *,
    rules: Iterable[diff.SubjectRule],
    deadline: float,
) -> tuple[str, ...]:
    """The subjects a plan reads: the declared ones, and the listed ones the rules own (listed only when a rule
    exists)."""
    rules = tuple(rules)
    names = set(declared)
    if rules:
        names |= {s for s in views.listed(registry, deadline=deadline) if diff.owning_rule(rules, s) is not None}
    return tuple(sorted(names))


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprints(live: views.LiveSubjects, names: Iterable[str]) -> Mapping[str, str]:
    """A fingerprint per subject of ``names`` held by ``live`` with a version or a setting, and the global level."""
    out = {GLOBAL: _digest(live.global_level)}
    for name in sorted(set(names)):
        view = views.subject_view(live.subjects.get(name))  # None: no version and no setting of its own
        if view is not None:
            out[name] = _digest(view)
    return out


def stale(saved: Mapping[str, str], now: Mapping[str, str]) -> tuple[str, ...]:
    """The subjects (and ``(global level)``) whose fingerprint differs between a saved plan and now."""
    return tuple(sorted(k for k in set(saved) | set(now) if saved.get(k) != now.get(k)))
