"""The shipped examples load, the committed JSON Schemas are current and accept them, and the docs cover every field."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from reconciler import manifests
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.manifests import fields, models, schema
from reconciler.model.kinds import Kind

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
YAML_FILES = sorted(p for d in ("platform", "environments", "schema-registry") for p in (EXAMPLES / d).rglob("*.y*ml"))


def test_platform_example_loads_for_a_single_node_broker() -> None:
    result = manifests.load([EXAMPLES / "platform"], env={})
    assert result.diagnostics == []
    topics = result.desired.topics
    assert {"orders.created", "payments.settled", "connect-offsets"} <= set(topics)
    assert {t.replication_factor for t in topics.values()} == {1}
    assert result.profiles["local"].bootstrap_servers == ["127.0.0.1:9092"]
    assert result.desired.scram_users["payments-service"].password.env == "PAYMENTS_SCRAM_PASSWORD"
    assert result.desired.ownership.may_delete(Kind.TOPIC)
    assert "<default>" in result.desired.broker_configs
    assert result.desired.group_configs["payments-service"].configs["consumer.session.timeout.ms"] == "60000"
    assert result.desired.client_metrics["platform-producers"].configs["interval.ms"] == "60000"
    origins = {s.origin for s in result.desired.acls.values() if s is not None}
    assert {"Producer orders-service", "Consumer payments-service", "StreamsApp orders-enricher"} <= origins


@pytest.mark.parametrize(
    ("environment", "partitions", "replication"),
    [(None, 3, 1), ("dev", 3, 1), ("prod", 12, 3)],
)
def test_environment_example(environment: str | None, partitions: int, replication: int) -> None:
    result = manifests.load([EXAMPLES / "environments"], environment=environment, env={})
    events = result.desired.topics["checkout.events"]
    assert (events.partitions, events.replication_factor) == (partitions, replication)
    assert ("checkout.scratch" in result.desired.topics) == (environment == "dev")


def test_schema_registry_example_declares_a_subject_from_its_schema_file() -> None:
    result = manifests.load([EXAMPLES / "schema-registry"], env={})
    [subject] = subject_state.declared_subjects(result.desired).values()
    assert subject.subject == "orders.created-value"  # TopicNameStrategy: <topic>-value
    assert subject.compatibility == "BACKWARD" and subject.topics == ("orders.created",)
    assert subject.schema == (EXAMPLES / "schema-registry" / "schemas" / "order-created.avsc").read_text()


def test_generator_output_loads(tmp_path: Path) -> None:
    generator = _generator()
    names = generator.generate(tmp_path, topics=120, acls=30, files=5)
    result = manifests.load([tmp_path], env={})
    assert sorted(result.desired.topics) == sorted(names)
    assert len(result.desired.acls) == 30
    assert {t.replication_factor for t in result.desired.topics.values()} == {3}


_MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.M)


def _documents_without_their_modeline(path: Path) -> list[str]:
    """Each document of ``path`` whose own comments hold no modeline to its kind's schema (or manifest.json):
    yaml-language-server binds a modeline to the document it is in, not to the file."""
    wrong = []
    for index, document in enumerate(re.split(r"^---[ \t]*$", path.read_text(encoding="utf-8"), flags=re.M)):
        kind = re.search(r"^kind: (\w+)", document, re.M)
        if kind is None:
            continue
        target = _MODELINE.search(document)
        if target is None or Path(target.group(1)).name not in (f"{kind.group(1)}.json", "manifest.json"):
            wrong.append(f"{path.name} document {index + 1} ({kind.group(1)})")
        elif not (path.parent / target.group(1)).is_file():
            wrong.append(f"{path.name} document {index + 1}: {target.group(1)} does not exist")
    return wrong


def test_every_document_of_the_examples_and_the_generated_files_has_its_modeline(tmp_path: Path) -> None:
    """Regression: examples/connect (7 documents) and examples/generate.py's files had one modeline at the top of
    the file (tests/tooling/test_yaml_language_server_documents.py shows what the editor does with that)."""
    _generator().generate(tmp_path, topics=40, acls=5, files=4, schemas=os.path.relpath(ROOT / "schemas", tmp_path))
    files = sorted(EXAMPLES.rglob("*.yaml")) + sorted(tmp_path.rglob("*.yaml"))
    assert len(files) > 15
    assert [w for f in files for w in _documents_without_their_modeline(f)] == []


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("examples_generate", EXAMPLES / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("folder", ["schemas", "reconciler/schemas"])
def test_committed_schemas_are_current(folder: str, tmp_path: Path) -> None:
    """The repository's top-level schemas/ (what modelines point at) and the package's copy (shipped in the wheel)
    are both real folders of real files, byte for byte what the generator writes today."""
    committed_dir = ROOT / folder
    assert committed_dir.is_dir() and not committed_dir.is_symlink(), f"{folder}/ must be a real folder"
    written = schema.write(tmp_path)
    committed = sorted(p.name for p in committed_dir.glob("*.json"))
    assert committed == sorted(p.name for p in written), "regenerate with: python -m reconciler.manifests.schema"
    for path in written:
        target = committed_dir / path.name
        assert not target.is_symlink(), f"{folder}/{path.name} must be a file, not a link"
        assert target.read_text() == path.read_text(), (
            f"{folder}/{path.name} is stale; regenerate with: python -m reconciler.manifests.schema"
        )


def test_the_generator_writes_both_copies_from_a_source_checkout() -> None:
    assert schema.default_targets() == [ROOT / "reconciler" / "schemas", ROOT / "schemas"]


@pytest.mark.parametrize("path", YAML_FILES, ids=[str(p.relative_to(EXAMPLES)) for p in YAML_FILES])
def test_example_files_match_their_schema_modeline(path: Path) -> None:
    first = path.read_text().splitlines()[0]
    match = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
    assert match, f"{path} must start with a yaml-language-server modeline"
    schema_path = (path.parent / match.group(1)).resolve()
    assert schema_path.is_file(), f"{path}: modeline points at a missing schema {schema_path}"
    assert schema_path.parent == ROOT / "schemas", f"{path}: modelines point at the top-level schemas/ folder"
    for document in YAML(typ="safe").load_all(path.read_text()):
        target = schema_path
        if schema_path.name == "manifest.json":
            target = ROOT / "schemas" / f"{document['kind']}.json"
        else:
            assert schema_path.name == f"{document['kind']}.json", f"{path}: mixed kinds need schemas/manifest.json"
        validator = jsonschema.Draft202012Validator(json.loads(target.read_text()))
        problems = [e.message for e in validator.iter_errors(document)]
        assert problems == [], f"{path}: {document['metadata']['name']}: {problems}"


def test_combined_schema_dispatches_on_kind() -> None:
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry().with_resources(
        (name, Resource.from_contents(body)) for name, body in schema.all_schemas().items()
    )
    validator = jsonschema.Draft202012Validator(schema.all_schemas()["manifest.json"], registry=registry)
    for path in YAML_FILES:
        for document in YAML(typ="safe").load_all(path.read_text()):
            assert list(validator.iter_errors(document)) == [], path
    wrong = {"apiVersion": "kafka-reconciler/v1", "kind": "Consumer", "metadata": {"name": "c"}, "spec": {"topics": []}}
    assert list(validator.iter_errors(wrong)) != []


def test_schema_rejects_what_the_models_reject() -> None:
    validator = jsonschema.Draft202012Validator(schema.kind_schema("Topic"))
    bad = {
        "apiVersion": "kafka-reconciler/v1",
        "kind": "Topic",
        "metadata": {"name": "a"},
        "spec": {"partitions": 0, "replicationFactr": 1, "configs": {"retention.mss": 1}},
    }
    messages = sorted(e.message for e in validator.iter_errors(bad))
    assert len(messages) == 3, messages


def _aliases(model: Any, seen: set[str]) -> set[str]:
    names: set[str] = set()
    for name, field in model.model_fields.items():
        names.add(field.alias or name)
        for candidate in _nested_models(field.annotation):
            if candidate.__name__ not in seen:
                seen.add(candidate.__name__)
                names |= _aliases(candidate, seen)
    return names


def _nested_models(annotation: Any) -> list[Any]:
    found = []
    if isinstance(annotation, type) and issubclass(annotation, fields.Strict):
        found.append(annotation)
    for arg in getattr(annotation, "__args__", ()) or ():
        found.extend(_nested_models(arg))
    for meta in getattr(annotation, "__metadata__", ()) or ():
        found.extend(_nested_models(meta))
    return found


def test_docs_mention_every_kind_and_field() -> None:
    text = (ROOT / "docs" / "manifests.md").read_text()
    missing = [f"## {kind}" for kind in models.DOCUMENTS if f"## {kind}" not in text and f"### {kind}" not in text]
    fields = set()
    for document in models.DOCUMENTS.values():
        fields |= _aliases(document, set())
    missing += sorted(f for f in fields if f"`{f}`" not in text)
    assert missing == []
