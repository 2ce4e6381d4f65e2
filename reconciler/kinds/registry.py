"""The registry of resource kinds: one declaration per kind (``DECLARATION`` in each module ``MODULES`` names), in
``Kind`` order. The stages reach a kind only through here: ``spec(kind)`` for one kind, ``KINDS`` to iterate,
``phase(phase)`` for the kind and declaration of an apply phase (the ports a kind is written through are
``reconciler.ports``').

The declarations are named, not imported by name, as plug-ins are: a kind's own package may then use the stage
frameworks (its parts, ``reconciler.kinds.spec.Part``) without a loop between the stages and the kinds. Adding a kind
is adding its module to ``MODULES``."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from reconciler.kinds.spec import KindSpec, PhaseSpec
from reconciler.model import plans
from reconciler.model.kinds import Kind

# The modules that declare the kinds (each holds ``DECLARATION``).
MODULES = (
    "reconciler.kinds.topic.declaration",
    "reconciler.kinds.acl.declaration",
    "reconciler.kinds.quota.declaration",
    "reconciler.kinds.scram_user.declaration",
    "reconciler.kinds.broker_config.declaration",
    "reconciler.kinds.group_config.declaration",
    "reconciler.kinds.client_metrics.declaration",
    "reconciler.kinds.connector.declaration",
    "reconciler.kinds.schema_subject.declaration",
)
_DECLARED: tuple[KindSpec, ...] = tuple(importlib.import_module(m).DECLARATION for m in MODULES)
KINDS: Mapping[Kind, KindSpec] = {d.kind: d for d in sorted(_DECLARED, key=lambda d: list(Kind).index(d.kind))}
PHASES: Mapping[plans.Phase, tuple[KindSpec, PhaseSpec]] = {p.phase: (d, p) for d in _DECLARED for p in d.phases}


def spec(kind: Kind) -> KindSpec:
    """The declaration of ``kind``."""
    return KINDS[kind]


def phase(p: plans.Phase) -> tuple[KindSpec, PhaseSpec]:
    """The kind that writes in apply phase ``p`` and its declaration of that phase."""
    return PHASES[p]
