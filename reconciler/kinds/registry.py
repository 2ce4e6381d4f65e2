"""The registry of resource kinds: one declaration per kind (``reconciler.kinds.<kind>.DECLARATION``), in
``Kind`` order. The stages reach a kind only through here: ``spec(kind)`` for one kind, ``KINDS`` to iterate,
``phase(phase)`` for the kind and declaration of an apply phase, ``writes_through`` for the ports a plan needs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reconciler.kinds import acl, broker_config, client_metrics, connector, group_config, quota, scram_user, topic
from reconciler.kinds.schema_subject import declaration as schema_subject
from reconciler.kinds.spec import KindSpec, PhaseSpec
from reconciler.model import plans
from reconciler.model.kinds import Kind

_DECLARED = (
    topic.DECLARATION,
    acl.DECLARATION,
    quota.DECLARATION,
    scram_user.DECLARATION,
    broker_config.DECLARATION,
    group_config.DECLARATION,
    client_metrics.DECLARATION,
    connector.DECLARATION,
    schema_subject.DECLARATION,
)
KINDS: Mapping[Kind, KindSpec] = {d.kind: d for d in sorted(_DECLARED, key=lambda d: list(Kind).index(d.kind))}
PHASES: Mapping[plans.Phase, tuple[KindSpec, PhaseSpec]] = {p.phase: (d, p) for d in _DECLARED for p in d.phases}


def spec(kind: Kind) -> KindSpec:
    """The declaration of ``kind``."""
    return KINDS[kind]


def phase(p: plans.Phase) -> tuple[KindSpec, PhaseSpec]:
    """The kind that writes in apply phase ``p`` and its declaration of that phase."""
    return PHASES[p]


def writes_through(changes: Iterable[plans.Change], port: str) -> bool:
    """Whether any of ``changes`` is of a kind written through ``port`` (``"connect"``: a Kafka Connect cluster;
    ``"registry"``: a Schema Registry)."""
    return any(KINDS[c.kind].port == port for c in changes)
