"""The model's per-kind sections: what a kind declared in a place of its own keeps in the desired state, the live
state and Ownership (``sections``, ``rules``), and what the model reads of them without naming the kind (which kinds
a live read must cover, which scope fields a saved plan may hold)."""

from __future__ import annotations

import pytest

from reconciler.kinds import registry
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.model import desired, planfile
from reconciler.model.kinds import Kind
from tests.support.kind_samples import LIVE, WANTED

KIND = Kind.SCHEMA_SUBJECT
RULE = subject_state.SubjectRule(desired.NamePattern("prefix", "team-"))


def test_a_kind_declared_in_a_section_is_read() -> None:
    declared = subject_state.with_declared_subjects(desired.DesiredState(), subject_state.declared_subjects(WANTED))
    assert declared.needs() == frozenset({KIND})
    assert desired.DesiredState().needs() == frozenset()


def test_a_kind_owned_by_its_rules_is_read_only_when_managed() -> None:
    owning = subject_state.with_subject_rules(desired.Ownership(), (RULE,))
    assert desired.DesiredState(ownership=owning).needs() == frozenset({KIND})
    unmanaged = desired.Ownership(rules=owning.rules, managed_kinds=frozenset(Kind) - {KIND})
    assert desired.DesiredState(ownership=unmanaged).needs() == frozenset()


def test_a_section_set_to_nothing_is_left_out_so_equal_states_compare_equal() -> None:
    held = subject_state.live_subjects(LIVE)
    assert held is not None
    unread = subject_state.with_live_subjects(LIVE, None)
    assert KIND not in unread.sections and subject_state.live_subjects(unread) is None
    assert subject_state.with_live_subjects(unread, held) == LIVE
    assert subject_state.with_declared_subjects(WANTED, {}).sections == {}
    assert subject_state.with_subject_rules(desired.Ownership(rules={KIND: (RULE,)}), ()) == desired.Ownership()


def test_a_saved_plans_scope_holds_only_the_rule_fields_the_kinds_registered() -> None:
    assert registry.spec(KIND).scope.get().rule_sets[0].key == subject_state.SCOPE_KEY
    assert planfile.scope_section({subject_state.SCOPE_KEY: [["prefix", "team-"]]}) is not None
    with pytest.raises(TypeError, match=r"^scope has unexpected field\(s\) not_a_kinds_rules$"):
        planfile.scope_section({"not_a_kinds_rules": [["prefix", "team-"]]})
    with pytest.raises(TypeError, match=r"scope\.schema_subjects\[0\] must be a \[kind, value\] pair of strings"):
        planfile.scope_section({subject_state.SCOPE_KEY: [["prefix"]]})
    with pytest.raises(ValueError, match="registered already"):
        planfile.scope_rules(subject_state.SCOPE_KEY)
