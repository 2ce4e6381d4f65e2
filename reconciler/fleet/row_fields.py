"""The row fields the Kafka kinds' fleet rows (each kind's ``rows`` part) are written with, beside ``fleet.rows``'s.

The attribute prefixes of quota values and SCRAM credentials, a row entry's configs as declared, and the rows of a
config entity (group configs and client-metrics subscriptions: an ``@exists`` row and one ``configs.<key>`` row per
config, both sides) and back, which both config-entity kinds write theirs with.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from reconciler.fleet.rows import CONFIG_PREFIX, Row, declared_config, prefixed, source_of, source_text, text
from reconciler.kinds.spec import RowSection
from reconciler.model import desired, entities
from reconciler.model.kinds import Kind

VALUE_PREFIX = "values."
CREDENTIAL_PREFIX = "credentials."


def configs(entry: Mapping[str, str | None]) -> dict[str, str]:
    """The declared configs of a row entry (none null)."""
    return {k: text(v) for k, v in prefixed(entry, CONFIG_PREFIX).items()}


def desired_entities(kind: Kind, found: Mapping[str, desired.DesiredEntityConfig]) -> Iterator[Row]:
    """The rows of the declared config entities ``found`` of ``kind``."""
    for name, entry in found.items():
        yield (kind, name, "@exists", None)
        for key, value in entry.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, declared_config(key, value))
        if entry.source is not None:
            yield (kind, name, "@source", source_text(entry.source))


def declared_entities(section: RowSection) -> dict[str, desired.DesiredEntityConfig]:
    """The declared config entities ``desired_entities`` made ``section`` from."""
    return {
        name: desired.DesiredEntityConfig(name=name, configs=configs(e), source=source_of(e.get("@source")))
        for name, e in section.items()
    }


def live_entities(kind: Kind, found: entities.Section | None) -> Iterator[Row]:
    """The rows of the live config entities ``found`` of ``kind``."""
    for name, found_configs in (found or {}).items():
        yield (kind, name, "@exists", None)
        for key, value in found_configs.items():
            yield (kind, name, CONFIG_PREFIX + key, value)


def entity_configs(section: RowSection) -> dict[str, dict[str, str | None]]:
    """The live config entities ``live_entities`` made ``section`` from."""
    return {name: prefixed(e, CONFIG_PREFIX) for name, e in section.items()}
