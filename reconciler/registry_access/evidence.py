"""What a plan reads of the Schema Registry: the subjects it covers and the registry's own dry run of their changes.

Nothing is asked when no subject is declared or owned (``DesiredState.needs``). Otherwise the subjects read are
the declared ones and, when an Ownership ``schemaSubjects`` rule exists, the listed ones a rule owns
(``scope.to_read``); then the kind's diff of them is asked of the registry (``dryrun.read_evidence``: each new
version's compatibility check, who references each subject deleted, the versions of referenced subjects not
read), kept with the subjects for the planner to judge. A registry the target does not name leaves the subjects
unread (the planner says so and blocks them)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping

from reconciler.kinds.schema_subject import diff, dryrun, scope, views
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from reconciler.registry.port import RegistryPort
from reconciler.registry_access import settings
from reconciler.registry_access.http import HttpTransport
from reconciler.target import Target

DEFAULT_DEADLINE_S = 120.0


def port_of(target: Target, environ: Mapping[str, str] | None = None) -> RegistryPort | None:
    """The registry of ``target``'s Cluster profile (or ``SCHEMA_REGISTRY_URL``); ``None`` when none is named."""
    explicit = target.bootstrap_server is not None or target.command_config is not None
    found = settings.settings_for(cluster=target.cluster, profiles=target.profiles, explicit=explicit, environ=environ)
    return None if found is None else settings.open_registry(found, environ=environ)


def close(registry: RegistryPort) -> None:
    """Close the HTTP connections of a port ``port_of`` opened."""
    transport = getattr(registry, "transport", None)
    if isinstance(transport, HttpTransport):
        transport.close()


def read_for_plan(registry: RegistryPort, wanted: desired.DesiredState, *, deadline: float) -> views.LiveSubjects:
    """The subjects a plan of ``wanted`` covers, with the registry's dry run of their changes."""
    own = wanted.ownership
    rules = own.schema_subjects if Kind.SCHEMA_SUBJECT in own.managed_kinds else ()
    names = scope.to_read(registry, wanted.schema_subjects, rules=rules, deadline=deadline)
    modes = [n for n, s in wanted.schema_subjects.items() if s.mode is not None]
    live = views.read(registry, names, modes=modes, deadline=deadline)
    changes = diff.diff(wanted.schema_subjects, live, rules=rules, may_delete=own.may_delete(Kind.SCHEMA_SUBJECT))
    evidence = dryrun.read_evidence(changes, live, registry=registry, deadline=deadline)
    return dataclasses.replace(live, evidence=evidence)


def with_subjects(
    live: state.ClusterState,
    wanted: desired.DesiredState,
    target: Target,
    *,
    deadline_s: float | None = None,
) -> state.ClusterState:
    """``live`` with the subjects a plan of ``wanted`` covers, when it covers any and ``target`` names a registry."""
    if Kind.SCHEMA_SUBJECT not in wanted.needs():
        return live
    registry = port_of(target)
    if registry is None:
        return live
    deadline = time.monotonic() + (DEFAULT_DEADLINE_S if deadline_s is None else deadline_s)
    try:
        return dataclasses.replace(live, schema_subjects=read_for_plan(registry, wanted, deadline=deadline))
    finally:
        close(registry)


def with_all_subjects(live: state.ClusterState, target: Target) -> state.ClusterState:
    """``live`` with every subject the registry lists (unchanged when ``target`` names no registry): what
    ``snapshot`` and ``import`` read without manifests."""
    registry = port_of(target)
    if registry is None:
        return live
    deadline = time.monotonic() + DEFAULT_DEADLINE_S
    try:
        names = views.listed(registry, deadline=deadline)
        return dataclasses.replace(live, schema_subjects=views.read(registry, names, deadline=deadline))
    finally:
        close(registry)
