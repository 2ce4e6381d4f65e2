"""Subjects in the fleet row model: declared and live subjects cross the rows whole and plan the same, and the
compared rows join equal exactly when the diff sees no change (a reformatted schema joins equal)."""

from __future__ import annotations

import dataclasses
import json
import time
from collections import defaultdict
from collections.abc import Iterable

from reconciler.kinds.schema_subject import diff, rows, views
from reconciler.model import desired
from reconciler.registry import canonical
from reconciler.registry.port import Features, RestRegistryPort, SchemaVersion
from reconciler.registry.requests import Reference
from tests.support.registry_fake import FakeRegistry

ORDER = {"type": "record", "name": "Order", "namespace": "shop", "fields": [{"name": "id", "type": "long"}]}
PROTO = 'syntax = "proto3";\npackage shop.v1;\nmessage Click {\n  string page = 1;\n}\n'


def later() -> float:
    return time.monotonic() + 30


def section(found: Iterable[rows.Row]) -> dict[str, dict[str, str | None]]:
    out: dict[str, dict[str, str | None]] = defaultdict(dict)
    for kind, name, attribute, value in found:
        assert kind == rows.KIND
        out[name][attribute] = value
    return dict(out)


def compared(found: Iterable[rows.Row]) -> set[rows.Row]:
    return {r for r in found if not r[2].startswith("@")}


WANTED = {
    "orders-value": views.DesiredSubject(
        "orders-value",
        json.dumps(ORDER, indent=2),
        references=(Reference("shop.Customer", "customer-value", 3),),
        compatibility="FULL",
        mode="READWRITE",
        topics=("orders",),
        schema_origin="subjects/orders.avsc",
        source=desired.Source("subjects/orders.yaml", 4, 3, None),
    ),
    "clicks-value": views.DesiredSubject("clicks-value", PROTO, schema_type="PROTOBUF"),
}


def test_declared_subjects_cross_the_rows_whole() -> None:
    assert rows.rebuild_desired(section(rows.desired_rows(WANTED))) == WANTED


def test_live_subjects_cross_the_rows_whole_and_plan_the_same() -> None:
    port = RestRegistryPort(FakeRegistry())
    port.register("customer-value", json.dumps(ORDER), schema_type="AVRO", deadline=later())
    port.register("clicks-value", PROTO + "\n\n", schema_type="PROTOBUF", deadline=later())
    port.set_compatibility("NONE", "clicks-value", deadline=later())
    live = views.read(
        port, ["customer-value", "clicks-value", "orders-value"], modes=["clicks-value"], deadline=later()
    )
    back = rows.rebuild_live(rows.meta(live), section(rows.live_rows(live)))
    assert back is not None
    assert (back.subjects, back.features, back.global_level) == (live.subjects, live.features, live.global_level)
    assert diff.diff(WANTED, back) == diff.diff(WANTED, live)
    assert rows.rebuild_live(rows.meta(None), {}) is None


def test_compared_rows_join_equal_exactly_when_nothing_changes() -> None:

    latest = SchemaVersion(
        "orders-value", 2, 7, json.dumps(ORDER), "AVRO", (Reference("shop.Customer", "customer-value", 3),)
    )
    live = views.LiveSubjects(
        {"orders-value": views.LiveSubject("orders-value", latest, "FULL", "READWRITE")},
        Features(mode=True, schema_types=("AVRO",)),
    )
    wanted = {"orders-value": WANTED["orders-value"]}  # the same schema, indented otherwise
    assert [c.action.value for c in diff.diff(wanted, live)] == ["no-op"]
    assert compared(rows.desired_rows(wanted)) == compared(rows.live_rows(live))
    renamed = json.dumps({**ORDER, "name": "Order2"})
    changed = {"orders-value": dataclasses.replace(WANTED["orders-value"], schema=renamed)}
    assert [c.action.value for c in diff.diff(changed, live)] == ["update"]
    assert compared(rows.desired_rows(changed)) ^ compared(rows.live_rows(live)) == {
        ("schema_subject", "orders-value", "schema", canonical.normalize(renamed, "AVRO")),
        ("schema_subject", "orders-value", "schema", canonical.normalize(latest.schema, "AVRO")),
    }
