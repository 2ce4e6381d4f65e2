"""The ``SchemaSubject`` kind's declaration: written through the Schema Registry's REST API (port ``registry``),
which Kafka's ACLs do not govern. Levels, modes and new versions are written before the topics and connectors that
use them (``SCHEMA_SUBJECT``); deletes after the topics they served (``SCHEMA_SUBJECT_DELETE``)."""

from __future__ import annotations

from reconciler.kinds.schema_subject import payload as subject_payload
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.kinds.spec import (
    KindSpec,
    Part,
    PhaseDecoder,
    PhaseRunner,
    PhaseSpec,
    no_declared_configs,
    no_live_configs,
)
from reconciler.model import planfile, plans
from reconciler.model.kinds import Kind

# both phases: the subject write a change describes, carried out by the kind's ordered apply
_DECODE: Part[PhaseDecoder] = Part("reconciler.kinds.schema_subject.apply:decode")
_RUN: Part[PhaseRunner] = Part("reconciler.kinds.schema_subject.apply:run")

DECLARATION = KindSpec(
    kind=Kind.SCHEMA_SUBJECT,
    payload=subject_payload.SubjectPayload,
    phases=(
        PhaseSpec(plans.Phase.SCHEMA_SUBJECT_DELETE, frozenset({plans.Action.DELETE}), None, decode=_DECODE, run=_RUN),
        PhaseSpec(
            plans.Phase.SCHEMA_SUBJECT,
            frozenset({plans.Action.CREATE, plans.Action.UPDATE}),
            None,
            decode=_DECODE,
            run=_RUN,
        ),
    ),
    live_section=lambda live: None if (found := subject_state.live_subjects(live)) is None else found.subjects,
    desired_section=subject_state.declared_subjects,
    declared=lambda wanted: (
        (Kind.SCHEMA_SUBJECT.address(n), n, s.source) for n, s in subject_state.declared_subjects(wanted).items()
    ),
    snapshot_section="schema_subjects",
    owned_by_rules=lambda own: bool(subject_state.subject_rules(own)),
    port="registry",
    live_view=lambda subjects, name: subject_state.subject_view(subjects.get(name)),
    live_configs=no_live_configs,
    declared_configs=no_declared_configs,
    # -- the planner's parts
    plan=Part("reconciler.kinds.schema_subject.plan:plan_subjects"),
    fingerprint_rows=Part("reconciler.kinds.schema_subject.plan:fingerprint_rows"),
    scope=Part("reconciler.kinds.schema_subject.plan:SCOPE"),
    label="Schema Registry subjects",
    usage_topics=Part("reconciler.kinds.schema_subject.impact:usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.apply.verify:read_back_in_its_phase"),
    # -- the snapshot's and the renders' parts
    attribute_lines=Part("reconciler.kinds.schema_subject.render:attribute_lines"),
    snapshot=Part("reconciler.kinds.schema_subject.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.schema_subject.rows:FLEET_ROWS"),
    adopt=Part("reconciler.kinds.schema_subject.adopt:add"),
    # -- the manifests' parts
    manifest=Part("reconciler.kinds.schema_subject.documents:MANIFEST"),
    # -- the ports' parts
    read_for_plan=Part("reconciler.kinds.schema_subject.evidence:read_for_plan"),
    read_every=Part("reconciler.kinds.schema_subject.evidence:read_every"),
    read_to_apply=Part("reconciler.kinds.schema_subject.apply:read_to_apply"),
    read_offline=Part("reconciler.kinds.schema_subject.evidence:read_offline"),
)

# A saved plan's scope records the subjects' Ownership rules under this key (``plan.SCOPE``): its strict check of a
# plan file lets it through.
planfile.scope_rules(subject_state.SCOPE_KEY)
