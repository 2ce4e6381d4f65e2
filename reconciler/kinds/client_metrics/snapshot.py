"""The client-metrics subscriptions' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part):
each subscription and its settings, left out when not read, built as every entity kind's
(``reconciler.snapshot.sections``)."""

from __future__ import annotations

from reconciler.model.kinds import Kind
from reconciler.snapshot.sections import entity_section

SNAPSHOT = entity_section(Kind.CLIENT_METRICS, order=80)
