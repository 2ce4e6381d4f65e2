"""The group configs' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part): each group and
the configs set on it, left out when not read, built as every entity kind's (``reconciler.snapshot.sections``)."""

from __future__ import annotations

from reconciler.model.kinds import Kind
from reconciler.snapshot.sections import entity_section

SNAPSHOT = entity_section(Kind.GROUP_CONFIG, order=70)
