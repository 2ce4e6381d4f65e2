"""The registry of resource kinds: one declaration per kind (``DECLARATION`` in each module ``MODULES`` names: the
``declaration`` module of each kind's place, ``reconciler.kinds.places``), in ``Kind`` order. The stages reach a kind
only through here: ``spec(kind)`` for one kind, ``KINDS`` to iterate, ``phase(phase)`` for the kind and declaration of
an apply phase (the ports a kind is written through are ``reconciler.ports``').

The declarations are named, not imported by name, as plug-ins are: a kind's own package may then use the stage
frameworks (its parts, ``reconciler.kinds.spec.Part``) without a loop between the stages and the kinds. Adding a kind
is adding its place to ``reconciler.kinds.places.PLACES``. Importing this module imports every declaration: a stage
that needs one piece of one kind without the others (the manifests: a kind's manifest part) reaches it through
``places`` instead."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from reconciler.kinds.places import PLACES
from reconciler.kinds.spec import KindSpec, PhaseSpec
from reconciler.model import plans
from reconciler.model.kinds import Kind

# The modules that declare the kinds (each holds ``DECLARATION``), one in each kind's place.
MODULES = tuple(f"{place}.declaration" for place in PLACES.values())
_DECLARED: tuple[KindSpec, ...] = tuple(importlib.import_module(m).DECLARATION for m in MODULES)
KINDS: Mapping[Kind, KindSpec] = {d.kind: d for d in sorted(_DECLARED, key=lambda d: list(Kind).index(d.kind))}
PHASES: Mapping[plans.Phase, tuple[KindSpec, PhaseSpec]] = {p.phase: (d, p) for d in _DECLARED for p in d.phases}


def spec(kind: Kind) -> KindSpec:
    """The declaration of ``kind``."""
    return KINDS[kind]


def phase(p: plans.Phase) -> tuple[KindSpec, PhaseSpec]:
    """The kind that writes in apply phase ``p`` and its declaration of that phase."""
    return PHASES[p]
