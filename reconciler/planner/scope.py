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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.model import desired, schema_subjects, state
from reconciler.model import entities as model_entities
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.planner import guards, views


def _patterns(items: Iterable[desired.NamePattern]) -> tuple[tuple[str, str], ...]:
    return tuple((p.kind, p.value) for p in items)


def _rules(pairs: Iterable[tuple[str, str]]) -> tuple[desired.NamePattern, ...]:
    return tuple(desired.NamePattern(kind, value) for kind, value in pairs)


@dataclasses.dataclass(frozen=True, slots=True)
class Scope:
    """What a plan covers: its kinds, the declared names per kind, and the ownership rules of managed kinds."""

    kinds: frozenset[Kind]
    declared: Mapping[Kind, frozenset[str]]  # Change.name of each declared resource
    topics: tuple[desired.NamePattern, ...] = ()  # topic rules (only when undeclared topics are managed)
    principals: Mapping[Kind, tuple[desired.NamePattern, ...]] = dataclasses.field(default_factory=dict)
    quota_entities: tuple[desired.NamePattern, ...] = ()
    internal_topics: tuple[desired.NamePattern, ...] = ()
    entities: Mapping[Kind, tuple[desired.NamePattern, ...]] = dataclasses.field(default_factory=dict)

    def has_entity(self, kind: Kind, name: str) -> bool:
        """Whether a group config or client-metrics subscription is declared or owned by the rules."""
        return name in self.declared.get(kind, frozenset()) or any(p.matches(name) for p in self.entities.get(kind, ()))

    connectors: tuple[desired.NamePattern, ...] = ()  # connector rules (only when undeclared ones are managed)
    subjects: tuple[desired.NamePattern, ...] = ()  # Schema Registry subject rules (likewise)

    def has_subject(self, name: str) -> bool:
        return name in self.declared.get(Kind.SCHEMA_SUBJECT, frozenset()) or any(
            p.matches(name) for p in self.subjects
        )

    def has_connector(self, name: str) -> bool:
        plain = name.rpartition("/")[2]  # a <cluster>/<name> key: a rule matches the key or the Connect name
        return name in self.declared.get(Kind.CONNECTOR, frozenset()) or any(
            p.matches(name) or p.matches(plain) for p in self.connectors
        )

    def has_topic(self, name: str, topic: state.TopicState | None = None) -> bool:
        if name in self.declared.get(Kind.TOPIC, frozenset()):
            return True
        if not any(p.matches(name) for p in self.topics):
            return False
        return not (guards.is_internal(name, topic) or any(p.matches(name) for p in self.internal_topics))

    def _owns_principal(self, kind: Kind, principal: str) -> bool:
        return any(p.matches(principal) for p in self.principals.get(kind, ()))

    def has_acl(self, binding: state.AclBinding) -> bool:
        return model_views.acl_name(binding) in self.declared.get(Kind.ACL, frozenset()) or self._owns_principal(
            Kind.ACL, binding.principal
        )

    def has_quota(self, entity: state.QuotaEntity) -> bool:
        name = model_views.quota_name(entity)
        if name in self.declared.get(Kind.QUOTA, frozenset()):
            return True
        user = dict(entity.parts).get("user")
        if user is not None and self._owns_principal(Kind.QUOTA, f"User:{user}"):
            return True
        return any(p.matches(name) for p in self.quota_entities)

    def has_scram(self, user: str) -> bool:
        return user in self.declared.get(Kind.SCRAM_USER, frozenset()) or self._owns_principal(
            Kind.SCRAM_USER, f"User:{user}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kinds": sorted(k.value for k in self.kinds),
            "declared": {k.value: sorted(v) for k, v in sorted(self.declared.items()) if v},
            "topics": [list(p) for p in _patterns(self.topics)],
            "principals": {k.value: [list(p) for p in _patterns(v)] for k, v in sorted(self.principals.items()) if v},
            "quota_entities": [list(p) for p in _patterns(self.quota_entities)],
            "internal_topics": [list(p) for p in _patterns(self.internal_topics)],
            **(
                {"entities": {k.value: [list(p) for p in _patterns(v)] for k, v in sorted(self.entities.items()) if v}}
                if any(self.entities.values())
                else {}
            ),
            **({"connectors": [list(p) for p in _patterns(self.connectors)]} if self.connectors else {}),
            **({"schema_subjects": [list(p) for p in _patterns(self.subjects)]} if self.subjects else {}),
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Scope:
        return cls(
            kinds=frozenset(Kind.parse(k) for k in doc.get("kinds", ())),
            declared={Kind.parse(k): frozenset(str(n) for n in v) for k, v in dict(doc.get("declared", {})).items()},
            topics=_rules(tuple(p) for p in doc.get("topics", ())),
            principals={Kind.parse(k): _rules(tuple(p) for p in v) for k, v in dict(doc.get("principals", {})).items()},
            quota_entities=_rules(tuple(p) for p in doc.get("quota_entities", ())),
            internal_topics=_rules(tuple(p) for p in doc.get("internal_topics", ())),
            entities={Kind.parse(k): _rules(tuple(p) for p in v) for k, v in dict(doc.get("entities", {})).items()},
            connectors=_rules(tuple(p) for p in doc.get("connectors", ())),
            subjects=_rules(tuple(p) for p in doc.get("schema_subjects", ())),
        )


def of(wanted: desired.DesiredState, kinds: frozenset[Kind]) -> Scope:
    """The scope of a plan of ``wanted`` over ``kinds``. Declared names the ownership rules already cover are not
    listed again, so a repository of 100,000 topics under one prefix rule stores one rule, not 100,000 names."""
    own = wanted.ownership
    managed = own.managed_kinds & kinds
    rules = Scope(
        kinds=kinds,
        declared={},
        topics=own.topics if Kind.TOPIC in managed else (),
        principals={k: own.principals for k in (Kind.ACL, Kind.QUOTA, Kind.SCRAM_USER) if k in managed},
        quota_entities=own.quota_entities if Kind.QUOTA in managed else (),
        internal_topics=own.internal_topics,
        entities={k: model_entities.rules(own, k) for k in model_entities.ENTITY_KINDS if k in managed},
        connectors=own.connectors if Kind.CONNECTOR in managed else (),
        subjects=tuple(r.pattern for r in own.schema_subjects) if Kind.SCHEMA_SUBJECT in managed else (),
    )
    declared = {
        Kind.TOPIC: frozenset(n for n in wanted.topics if not rules.has_topic(n)),
        Kind.ACL: frozenset(model_views.acl_name(b) for b in wanted.acls if not rules.has_acl(b)),
        Kind.QUOTA: frozenset(model_views.quota_name(e) for e in wanted.quotas if not rules.has_quota(e)),
        Kind.SCRAM_USER: frozenset(u for u in wanted.scram_users if not rules.has_scram(u)),
        Kind.BROKER_CONFIG: frozenset(wanted.broker_configs),
        **{
            k: frozenset(n for n in model_entities.desired_section(wanted, k) if not rules.has_entity(k, n))
            for k in model_entities.ENTITY_KINDS
        },
        Kind.CONNECTOR: frozenset(n for n in wanted.connectors if not rules.has_connector(n)),
        Kind.SCHEMA_SUBJECT: frozenset(n for n in wanted.schema_subjects if not rules.has_subject(n)),
    }
    return dataclasses.replace(rules, declared={k: v for k, v in declared.items() if k in kinds and v})


def scoped(live: state.ClusterState, scope: Scope) -> state.ClusterState:
    """``live`` with only the resources in ``scope`` (sections not read stay ``None``)."""
    declared_brokers = scope.declared.get(Kind.BROKER_CONFIG, frozenset())
    return dataclasses.replace(
        live,
        topics=None if live.topics is None else {n: t for n, t in live.topics.items() if scope.has_topic(n, t)},
        acls=None if live.acls is None else frozenset(b for b in live.acls if scope.has_acl(b)),
        quotas=None if live.quotas is None else {e: v for e, v in live.quotas.items() if scope.has_quota(e)},
        scram_users=None
        if live.scram_users is None
        else {u: c for u, c in live.scram_users.items() if scope.has_scram(u)},
        broker_configs=None
        if live.broker_configs is None
        else {b: c for b, c in live.broker_configs.items() if b in declared_brokers},
        group_configs=_entities_in(live, scope, Kind.GROUP_CONFIG),
        client_metrics=_entities_in(live, scope, Kind.CLIENT_METRICS),
        connect=None
        if live.connect is None
        else dataclasses.replace(
            live.connect, connectors={n: c for n, c in live.connect.connectors.items() if scope.has_connector(n)}
        ),
        schema_subjects=None
        if live.schema_subjects is None
        else dataclasses.replace(
            live.schema_subjects,
            subjects={n: s for n, s in live.schema_subjects.subjects.items() if scope.has_subject(n)},
        ),
    )


def _entities_in(live: state.ClusterState, scope: Scope, kind: Kind) -> model_entities.Section | None:
    section = model_entities.live_section(live, kind)
    return None if section is None else {n: c for n, c in section.items() if scope.has_entity(kind, n)}


def counts(live: state.ClusterState, scope: Scope) -> dict[str, int | None]:
    """Resources in scope per kind (``None`` for a section not read), to say what moved when the fingerprint differs."""
    sections: dict[Kind, Any] = {
        Kind.TOPIC: live.topics,
        Kind.ACL: live.acls,
        Kind.QUOTA: None if live.quotas is None else [v for v in live.quotas.values() if v],
        Kind.SCRAM_USER: None if live.scram_users is None else [c for c in live.scram_users.values() if c],
        Kind.BROKER_CONFIG: None if live.broker_configs is None else [c for c in live.broker_configs.values() if c],
        **{k: _present(model_entities.live_section(live, k)) for k in model_entities.ENTITY_KINDS},
        Kind.CONNECTOR: None if live.connect is None else live.connect.connectors,
        Kind.SCHEMA_SUBJECT: None
        if live.schema_subjects is None
        else [s for s in live.schema_subjects.subjects.values() if schema_subjects.subject_view(s) is not None],
    }
    return {k.value: None if sections[k] is None else len(sections[k]) for k in sorted(scope.kinds)}


def _present(section: model_entities.Section | None) -> list[Any] | None:
    return None if section is None else [c for c in section.values() if c]


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
