"""What a plan reads of the Schema Registry: the subjects it covers and the registry's own dry run of their changes
(the kind's ``read_for_plan``, run over the registry ``reconciler.ports`` opened), and every subject the registry
lists (``read_every``: ``snapshot`` and ``import`` without manifests); from a snapshot, nothing more
(``read_offline``).

Nothing is asked when no subject is declared or owned (``DesiredState.needs``: the port is not even opened).
Otherwise the subjects read are the declared ones and, when an Ownership ``schemaSubjects`` rule exists, the listed
ones a rule owns (``scope.to_read``); then the kind's diff of them is asked of the registry
(``dryrun.read_evidence``: each new version's compatibility check, who references each subject deleted, the versions
of referenced subjects not read), kept with the subjects for the planner to judge. A registry the target does not
name leaves the subjects unread (the planner says so and blocks them)."""

from __future__ import annotations

import dataclasses

from reconciler.kinds.schema_subject import diff, dryrun, scope, views
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from reconciler.registry.port import RegistryPort


def subjects_for_plan(registry: RegistryPort, wanted: desired.DesiredState, *, deadline: float) -> views.LiveSubjects:
    """The subjects a plan of ``wanted`` covers, with the registry's dry run of their changes."""
    own, declared = wanted.ownership, subject_state.declared_subjects(wanted)
    rules = subject_state.subject_rules(own) if Kind.SCHEMA_SUBJECT in own.managed_kinds else ()
    names = scope.to_read(registry, declared, rules=rules, deadline=deadline)
    modes = [n for n, s in declared.items() if s.mode is not None]
    live = views.read(registry, names, modes=modes, deadline=deadline)
    changes = diff.diff(declared, live, rules=rules, may_delete=own.may_delete(Kind.SCHEMA_SUBJECT))
    evidence = dryrun.read_evidence(changes, live, registry=registry, deadline=deadline)
    return dataclasses.replace(live, evidence=evidence)


def read_for_plan(
    registry: RegistryPort, live: state.ClusterState, wanted: desired.DesiredState, *, deadline: float
) -> state.ClusterState:
    """``live`` with the subjects a plan of ``wanted`` covers (``subjects_for_plan``)."""
    return subject_state.with_live_subjects(live, subjects_for_plan(registry, wanted, deadline=deadline))


def read_offline(live: state.ClusterState, wanted: desired.DesiredState) -> state.ClusterState:
    """``live`` read from a snapshot as it is: a snapshot holds the subjects as read, not the registry's dry run (the
    plan leaves a new version's compatibility undecided and blocks a delete, saying so)."""
    return live


def read_every(registry: RegistryPort, live: state.ClusterState, *, deadline: float) -> state.ClusterState:
    """``live`` with every subject the registry lists."""
    names = views.listed(registry, deadline=deadline)
    return subject_state.with_live_subjects(live, views.read(registry, names, deadline=deadline))
