"""The plan's live read of the Schema Registry (``reconciler.registry_access.evidence``): nothing is opened or asked
when no subject is declared or owned, whatever registry the command names; declared subjects are read with the
registry's own check of their new versions."""

from __future__ import annotations

import dataclasses
import json

import pytest

from reconciler.kinds.schema_subject import dryrun
from reconciler.model import desired, state
from reconciler.model.schema_subjects import DesiredSubject
from reconciler.registry import port as registry_port
from reconciler.registry_access import evidence, settings
from reconciler.target import Target
from tests.support.kind_samples import LIVE, WANTED
from tests.support.registry_fake import FakeRegistry

V1 = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]}


def test_no_subject_declared_or_owned_opens_no_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(settings.REGISTRY_URL_ENV, "http://registry.invalid:8081")

    def refuse(*_a: object, **_k: object) -> registry_port.RegistryPort:
        raise AssertionError("the registry was opened")

    monkeypatch.setattr(settings, "open_registry", refuse)
    live = dataclasses.replace(LIVE, schema_subjects=None)
    wanted = dataclasses.replace(WANTED, schema_subjects={})
    assert evidence.with_subjects(live, wanted, Target()) is live


def test_declared_subjects_are_read_with_the_registrys_check(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRegistry()  # Confluent's answers, on the port's own request builders
    port = registry_port.RestRegistryPort(fake)
    subject = "orders-value"
    port.register(subject, json.dumps(V1), schema_type="AVRO", deadline=1e12)
    monkeypatch.setattr(evidence, "port_of", lambda target, environ=None: port)
    v2 = {**V1, "fields": [*V1["fields"], {"name": "note", "type": "string"}]}  # no default: BACKWARD refuses it
    wanted = desired.DesiredState(schema_subjects={subject: DesiredSubject(subject, json.dumps(v2))})
    live = evidence.with_subjects(dataclasses.replace(LIVE, schema_subjects=None), wanted, Target())
    found = live.schema_subjects
    assert found is not None and found.subjects[subject].latest is not None
    assert isinstance(found.evidence, dryrun.Evidence) and found.evidence.answers[subject][0].compatible is False
    assert any(r.path.startswith("/compatibility/subjects/orders-value") for r in fake.requests)
    assert isinstance(live, state.ClusterState)
