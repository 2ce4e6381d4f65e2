"""A plan's scope: the live resources whose change would make the plan come out differently, and their fingerprint.

A saved plan is **stale** when anything in its scope changed since it was made. The scope, per kind the plan covers:

* every resource the manifests declare (by name): a declared resource changed out of band would now be planned
  differently, even when the plan left it unchanged;
* when the Ownership rules manage undeclared resources of that kind (the kind is in ``managedKinds``): every live
  resource the rules own. Topics by the topic rules (internal topics excepted, as the planner excepts them); ACL
  bindings and SCRAM users by the principal rules; quotas by the principal rules (user entities) and the quota
  entity rules. An undeclared owned resource appearing, changing or going away changes what the plan deletes or
  lists as unmanaged.

Resources outside the scope (another team's topics, ACLs of principals the manifests do not own) never make a plan
stale. ``Scope`` is stored in the plan file (``scope``), with the fingerprint of the scoped live state
(``scope.fingerprint``) and the count per kind; apply reads the same kinds again, filters them the same way and
compares (``reconciler.apply.preflight.check_scope``).

Each kind says its part (``KindSpec.scope``, a ``reconciler.kinds.spec.KindScope``): the Ownership rules recorded for
it and under which key of the document, whether those rules own a live resource, and how to keep only the resources
in scope and count them. This module iterates the registry and names no kind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from reconciler.kinds import registry, spec
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from reconciler.planner import views

# A scope document's first rule keys, written even when they hold no rule, in this order (the format's first fields,
# kept byte for byte); every other key a kind's ``RuleSet`` names is written only when it holds a rule.
_WRITTEN_EMPTY = ("topics", "principals", "quota_entities", "internal_topics")


def _patterns(items: Iterable[desired.NamePattern]) -> list[list[str]]:
    return [[p.kind, p.value] for p in items]


def _rules(pairs: Iterable[Iterable[str]]) -> tuple[desired.NamePattern, ...]:
    return tuple(desired.NamePattern(kind, value) for kind, value in (tuple(p) for p in pairs))


def _part(kind: Kind) -> spec.KindScope:
    return registry.spec(kind).scope.get()


def _rule_sets() -> list[tuple[Kind, spec.RuleSet]]:
    """Every kind's recorded rule sets, in registry order."""
    return [(kind, rule_set) for kind in registry.KINDS for rule_set in _part(kind).rule_sets]


def _keys() -> dict[str, bool]:
    """Every key a kind records rules under (in registry order) -> whether it holds them by kind."""
    return {rule_set.key: rule_set.by_kind for _, rule_set in _rule_sets()}


def _sorted(value: Any) -> Any:
    """A by-kind object of rules with its kinds in name order; a list of rules as it is."""
    return dict(sorted(value.items())) if isinstance(value, dict) else value


@dataclasses.dataclass(frozen=True, slots=True)
class Scope:
    """What a plan covers: its kinds, the declared names per kind, and the recorded ownership rules per kind (by
    ``RuleSet.key``)."""

    kinds: frozenset[Kind]
    declared: Mapping[Kind, frozenset[str]]  # Change.name of each declared resource
    rules: Mapping[Kind, spec.Rules] = dataclasses.field(default_factory=dict)

    def has(self, kind: Kind, key: Any, value: Any = None) -> bool:
        """Whether the resource of ``kind`` with section key ``key`` (a name, an ACL binding, a quota entity) and live
        value ``value`` (``None``: not read, or declared) is declared or owned by the rules."""
        return self.contains(kind)(key, value)

    def contains(self, kind: Kind) -> Callable[[Any, Any], bool]:
        """``has`` for the resources of ``kind``, asked once per resource of a section."""
        part, names, rules = _part(kind), self.declared.get(kind, frozenset()), self.rules.get(kind, {})
        return lambda key, value: part.name(key) in names or part.owns(rules, key, value)

    def owns_undeclared(self, kind: Kind) -> bool:
        """Whether a rule recorded for ``kind`` may own undeclared resources of it (not only the declared ones are in
        scope)."""
        recorded = self.rules.get(kind, {})
        return any(recorded.get(r.key) for r in _part(kind).rule_sets if not r.always)

    def to_dict(self) -> dict[str, Any]:
        written: dict[str, Any] = {key: {} if by_kind else [] for key, by_kind in _keys().items()}
        for kind, rule_set in _rule_sets():
            found = _patterns(self.rules.get(kind, {}).get(rule_set.key, ()))
            if rule_set.by_kind and found:
                written[rule_set.key][kind.value] = found
            elif not rule_set.by_kind:
                written[rule_set.key] += found
        return {
            "kinds": sorted(k.value for k in self.kinds),
            "declared": {k.value: sorted(v) for k, v in sorted(self.declared.items()) if v},
            **{key: _sorted(written.get(key, [])) for key in _WRITTEN_EMPTY},
            **{key: _sorted(value) for key, value in written.items() if key not in _WRITTEN_EMPTY and value},
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Scope:
        rules: dict[Kind, dict[str, tuple[desired.NamePattern, ...]]] = {}
        for kind, rule_set in _rule_sets():
            found = doc.get(rule_set.key, {} if rule_set.by_kind else ())
            pairs = dict(found).get(kind.value, ()) if rule_set.by_kind else found
            rules.setdefault(kind, {})[rule_set.key] = _rules(pairs)
        return cls(
            kinds=frozenset(Kind.parse(k) for k in doc.get("kinds", ())),
            declared={Kind.parse(k): frozenset(str(n) for n in v) for k, v in dict(doc.get("declared", {})).items()},
            rules=rules,
        )


def of(wanted: desired.DesiredState, kinds: frozenset[Kind]) -> Scope:
    """The scope of a plan of ``wanted`` over ``kinds``. Declared names the ownership rules already cover are not
    listed again, so a repository of 100,000 topics under one prefix rule stores one rule, not 100,000 names."""
    own = wanted.ownership
    managed = own.managed_kinds & kinds
    rules: dict[Kind, spec.Rules] = {}
    for kind, rule_set in _rule_sets():
        if rule_set.always or kind in managed:
            rules[kind] = {**rules.get(kind, {}), rule_set.key: rule_set.rules(own)}
    declared: dict[Kind, frozenset[str]] = {}
    for kind, declaration in registry.KINDS.items():
        if kind not in kinds:
            continue
        part, owned = _part(kind), rules.get(kind, {})
        names = frozenset(part.name(k) for k in declaration.desired_section(wanted) if not part.owns(owned, k, None))
        if names:
            declared[kind] = names
    return Scope(kinds=kinds, declared=declared, rules=rules)


def scoped(live: state.ClusterState, scope: Scope) -> state.ClusterState:
    """``live`` with only the resources in ``scope`` (sections not read stay ``None``)."""
    for kind in registry.KINDS:
        live = _part(kind).keep(live, scope.contains(kind))
    return live


def counts(live: state.ClusterState, scope: Scope) -> dict[str, int | None]:
    """Resources in scope per kind (``None`` for a section not read), to say what moved when the fingerprint differs."""
    return {k.value: _part(k).count(live) for k in sorted(scope.kinds)}


def fingerprint(live: state.ClusterState, scope: Scope) -> tuple[dict[str, str], dict[str, int | None]]:
    """Per kind: the fingerprint of ``live`` restricted to ``scope`` (``views.live_fingerprint``), and the count."""
    inside = scoped(live, scope)
    prints = {k.value: views.live_fingerprint(inside, kinds=(k,)) for k in sorted(scope.kinds)}
    return prints, counts(inside, scope)


def changed(live: state.ClusterState, doc: Mapping[str, Any]) -> list[str]:
    """What moved in the scope of a plan whose ``Plan.scope`` is ``doc``: one entry per kind whose fingerprint
    differs (``acl: 4 -> 5 in scope``), or, for a kind not read now, why it could not be compared."""
    covered = Scope.from_dict(doc)
    prints, now = fingerprint(live, covered)
    then_prints, then = dict(doc.get("fingerprints", {})), dict(doc.get("counts", {}))
    out = []
    for kind in sorted(covered.kinds):
        key = kind.value
        if prints.get(key) == then_prints.get(key) or then.get(key) is None:
            continue  # the same, or not read when the plan was made (nothing of it was planned)
        if now.get(key) is None and then.get(key) is not None:
            out.append(f"{kind.heading}: could not be read now ({live.unavailable.get(kind, 'not read')})")
        elif now.get(key) != then.get(key):
            out.append(f"{kind.heading}: {then.get(key)} -> {now.get(key)} in scope")
        else:
            out.append(f"{kind.heading}: changed in scope")
    return out
