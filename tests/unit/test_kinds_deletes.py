"""Mass-delete counting over the kinds registry: with every kind managed and deletes allowed, a plan that finds one
undeclared resource of each kind deletes each one whose declaration has a delete phase, and the limit counts every
one of them by kind. A new kind whose deletes the limit did not count fails here."""

from __future__ import annotations

from reconciler import planner
from reconciler.kinds import registry
from reconciler.kinds.schema_subject.state import SubjectRule
from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.planner import blast
from tests.support.fleet import offline
from tests.support.kind_samples import LIVE

EVERYTHING = (d.NamePattern("prefix", ""),)
OWN_ALL = d.Ownership(
    topics=EVERYTHING,
    principals=EVERYTHING,
    quota_entities=EVERYTHING,
    groups=EVERYTHING,
    client_metrics=EVERYTHING,
    connectors=EVERYTHING,
    rules={Kind.SCHEMA_SUBJECT: (SubjectRule(EVERYTHING[0]),)},
    delete=dict.fromkeys(registry.KINDS, True),
    max_deletes=0,
)


def test_every_kind_with_a_delete_phase_is_deleted_and_counted_against_the_limit() -> None:
    wanted = d.DesiredState(ownership=OWN_ALL)
    p = planner.plan(wanted, offline(wanted, LIVE))
    deletable = {
        k for k, spec in registry.KINDS.items() if any(plans.Action.DELETE in ph.actions for ph in spec.phases)
    }
    deleted = {c.kind for c in p.changes if c.action is plans.Action.DELETE}
    assert deleted == deletable
    [limit] = [w for w in p.warnings if w.code == blast.CODE]
    assert limit.severity == "error"
    for kind in deletable:
        assert f"{kind.heading}: 1" in limit.message, (kind, limit.message)
