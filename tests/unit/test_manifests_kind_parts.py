"""A kind's manifest part, named by its declaration: the manifests validate and build its documents and its Ownership
rules through it (``reconciler.manifests.parts``), with the same positions, messages and hints as their own kinds'."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.base import errors
from reconciler.kinds import registry
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.manifests import check, models, ownership, parts
from reconciler.model import desired
from reconciler.model.kinds import Kind

H = "apiVersion: kafka-reconciler/v1\n"
SUBJECT = H + "kind: SchemaSubject\nmetadata: {name: %s}\nspec:\n  subject: %s\n  schema: {type: string}\n"
OWNERSHIP = H + "kind: Ownership\nmetadata: {name: repo}\nspec:\n"


def _load(root: Path, files: dict[str, str]) -> manifests.LoadResult:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    return manifests.load([root], env={})


def _refused(root: Path, files: dict[str, str]) -> list[tuple[str, int | None, int | None, str, str | None]]:
    with pytest.raises(errors.ValidationFailed) as failed:
        _load(root, files)
    prefix = str(root) + "/"
    return [
        ((d.file or "").replace(prefix, ""), d.line, d.column, d.message.replace(prefix, ""), d.hint)
        for d in failed.value.diagnostics
    ]


def test_subjects_and_their_ownership_rules_load_into_the_desired_state(tmp_path: Path) -> None:
    ownership = OWNERSHIP + (
        "  schemaSubjects:\n    - {prefix: legacy-, permanent: true}\n    - {glob: '*-value'}\n"
        "  delete: {schemaSubject: true}\n"
    )
    result = _load(tmp_path, {"o.yaml": ownership, "s.yaml": SUBJECT % ("orders", "orders-value")})
    wanted = result.desired
    declared = subject_state.declared_subjects(wanted)
    assert list(declared) == ["orders-value"]
    assert declared["orders-value"].topics == ("orders",)
    rules = [(r.pattern, r.permanent) for r in subject_state.subject_rules(wanted.ownership)]
    assert rules == [(desired.NamePattern("prefix", "legacy-"), True), (desired.NamePattern("glob", "*-value"), False)]
    assert wanted.ownership.delete[Kind.SCHEMA_SUBJECT] is True
    assert wanted.ownership.delete[Kind.TOPIC] is False


def test_an_ownership_without_a_kinds_own_rules_manages_no_subject(tmp_path: Path) -> None:
    result = _load(tmp_path, {"o.yaml": OWNERSHIP + "  topics: [{prefix: orders}]\n"})
    assert subject_state.subject_rules(result.desired.ownership) == ()
    assert result.desired.ownership.topics == (desired.NamePattern("prefix", "orders"),)


def test_a_subject_declared_twice_is_refused_at_the_second_naming_the_first(tmp_path: Path) -> None:
    found = _refused(tmp_path, {"a.yaml": SUBJECT % ("a", "orders-value"), "b.yaml": SUBJECT % ("b", "orders-value")})
    assert found == [
        ("b.yaml", 3, 18, "subject 'orders-value' is declared twice (first at a.yaml:1:1)", None),
    ]


def test_a_kinds_ownership_rule_is_checked_at_its_place_with_hints(tmp_path: Path) -> None:
    ownership = OWNERSHIP + "  schemaSubjects:\n    - {name: a, prefix: b}\n  schemaSubjets: []\n"
    found = _refused(tmp_path, {"o.yaml": ownership})
    assert found == [
        ("o.yaml", 6, 7, "give exactly one of name, prefix, glob or regex", None),
        ("o.yaml", 7, 3, "unknown field 'schemaSubjets'", "did you mean schemaSubjects?"),
    ]


def test_an_ownership_naming_only_its_own_fields_is_refused_as_before(tmp_path: Path) -> None:
    found = _refused(tmp_path, {"o.yaml": OWNERSHIP + "  topics: [{name: a, prefix: b}]\n  maxDeletes: -1\n"})
    assert [(line, message) for _, line, _, message, _ in found] == [
        (5, "give exactly one of name, prefix, glob or regex"),
        (6, "maxDeletes must be at least 0, got -1"),
    ]


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_each_kind_declares_the_manifest_part_its_documents_are_validated_and_built_with(kind: Kind) -> None:
    part = registry.spec(kind).manifest.get()
    assert isinstance(part, parts.ManifestPart)
    assert parts.of(kind.manifest) is part  # one record: a kind built by the manifests is named by its declaration
    assert models.DOCUMENTS[kind.manifest].model_fields["spec"].annotation is part.model
    assert part.delete_hover.endswith(".")
    spec = ownership.ownership_spec()
    for field in part.ownership:
        assert field in spec.model_fields and field not in models.OwnershipSpec.model_fields
        assert parts.ownership_kinds()[field] is kind  # its rules fill ``desired.Ownership.rules`` under its kind


def test_a_kinds_own_document_gets_the_hints_of_every_document(tmp_path: Path) -> None:
    typo = H + "kind: SchemaSubject\nmetadata: {name: a}\nspec:\n  schema: {type: string}\n  compatibilty: FULL\n"
    wrong_kind = H + "kind: SchemaSubjects\nmetadata: {name: b}\nspec: {}\n"
    found = _refused(tmp_path, {"a.yaml": typo, "b.yaml": wrong_kind})
    assert found == [
        ("a.yaml", 6, 3, "unknown field 'compatibilty'", "did you mean compatibility?"),
        ("b.yaml", 2, 7, "unknown kind 'SchemaSubjects'", "did you mean SchemaSubject?"),
    ]


def test_validate_counts_what_a_kinds_own_documents_declare(tmp_path: Path) -> None:
    """Regression: the summary of a tree of subjects said only "0 topics, ..., 0 cluster profiles"."""
    result = _load(tmp_path, {"s.yaml": SUBJECT % ("a", "orders-value") + "---\n" + SUBJECT % ("b", "payments-value")})
    assert check.summary(result) == (
        "valid: 0 topics, 0 ACLs, 0 quotas, 0 SCRAM users, 0 broker config sets, 2 schema subjects, 0 cluster profiles"
    )


def test_validate_counts_the_optional_kinds_only_when_declared(tmp_path: Path) -> None:
    topic = H + "kind: Topic\nmetadata: {name: orders}\nspec: {partitions: 1, replicationFactor: 1}\n"
    group = H + "kind: GroupConfig\nmetadata: {name: g}\nspec:\n  configs: {consumer.session.timeout.ms: 45000}\n"
    assert check.summary(_load(tmp_path, {"t.yaml": topic})) == (
        "valid: 1 topic, 0 ACLs, 0 quotas, 0 SCRAM users, 0 broker config sets, 0 cluster profiles"
    )
    assert check.summary(_load(tmp_path, {"g.yaml": group})) == (
        "valid: 1 topic, 0 ACLs, 0 quotas, 0 SCRAM users, 0 broker config sets, 1 group config set, 0 cluster profiles"
    )
