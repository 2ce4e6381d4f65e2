"""Client quotas in the fleet row model (``reconciler.fleet.rows``): declared and live quotas as rows, and back.

Rows of kind ``quota`` are named by the quota entity (``model.views.quota_name``): the entity itself in ``@entity``
(JSON) and one ``values.<key>`` row per quota value (JSON numbers), with the declaration's ``@source``. ``QUOTAS`` is
the kind's ``FleetRows`` (its declaration's ``rows``), with the Ownership rules that name quota entities.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping

from reconciler.fleet.ownership_rows import patterns, unpatterns
from reconciler.fleet.row_fields import VALUE_PREFIX
from reconciler.fleet.rows import Row, as_json, prefixed, source_of, source_text, text
from reconciler.kinds.spec import FleetRows, RowSection
from reconciler.model import desired, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind


def _desired_quotas(wanted: desired.DesiredState) -> Iterator[Row]:
    for entity, quota in wanted.quotas.items():
        name = model_views.quota_name(entity)
        yield (Kind.QUOTA, name, "@entity", as_json(entity.to_list()))
        for key, number in quota.values.items():
            yield (Kind.QUOTA, name, VALUE_PREFIX + key, as_json(number))
        if quota.source is not None:
            yield (Kind.QUOTA, name, "@source", source_text(quota.source))


def _entity(entry: Mapping[str, str | None]) -> state.QuotaEntity:
    return state.QuotaEntity.from_list(json.loads(text(entry["@entity"])))


def _values(entry: Mapping[str, str | None]) -> dict[str, float]:
    return {k: json.loads(text(v)) for k, v in prefixed(entry, VALUE_PREFIX).items()}


def _rebuild_desired_quotas(wanted: desired.DesiredState, section: RowSection) -> desired.DesiredState:
    quotas = {}
    for e in section.values():
        entity = _entity(e)
        quotas[entity] = desired.DesiredQuota(entity=entity, values=_values(e), source=source_of(e.get("@source")))
    return dataclasses.replace(wanted, quotas=quotas)


def _live_quotas(live: state.ClusterState) -> Iterator[Row]:
    for entity, values in (live.quotas or {}).items():
        name = model_views.quota_name(entity)
        yield (Kind.QUOTA, name, "@entity", as_json(entity.to_list()))
        for key, number in values.items():
            yield (Kind.QUOTA, name, VALUE_PREFIX + key, as_json(number))


QUOTAS = FleetRows(
    desired_rows=_desired_quotas,
    rebuild_desired=_rebuild_desired_quotas,
    live_rows=_live_quotas,
    rebuild_live=lambda live, section, meta: dataclasses.replace(
        live, quotas={_entity(e): _values(e) for e in section.values()}
    ),
    rules=lambda own: {"quota_entities": patterns(own.quota_entities)},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, quota_entities=unpatterns(doc.get("quota_entities", []))),
)
