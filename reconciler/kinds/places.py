"""Where each resource kind lives: its place, the package ``reconciler.kinds.<kind>`` (``PLACES``, in ``Kind`` order).

A light table: it imports no declaration, so a stage that needs one piece of one kind reaches it here without loading
every kind's declaration (and the plan, apply and snapshot code they name) as ``reconciler.kinds.registry`` does. The
registry derives the modules it loads from it (``<place>.declaration``). The manifests find a kind's manifest part by
convention (``manifest``): ``MANIFEST`` in ``<place>.documents``, which its declaration names as its ``manifest`` part
(``tests/unit/test_kinds_registry.py`` holds the two together); the older kinds' parts are records of the manifests
package instead (``reconciler.manifests.parts.BUILT_IN``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from reconciler.model.kinds import Kind

# Each kind's place, in ``Kind`` order (adding a kind is adding its line).
PLACES: Mapping[Kind, str] = {
    Kind.TOPIC: "reconciler.kinds.topic",
    Kind.ACL: "reconciler.kinds.acl",
    Kind.QUOTA: "reconciler.kinds.quota",
    Kind.SCRAM_USER: "reconciler.kinds.scram_user",
    Kind.BROKER_CONFIG: "reconciler.kinds.broker_config",
    Kind.GROUP_CONFIG: "reconciler.kinds.group_config",
    Kind.CLIENT_METRICS: "reconciler.kinds.client_metrics",
    Kind.CONNECTOR: "reconciler.kinds.connector",
    Kind.SCHEMA_SUBJECT: "reconciler.kinds.schema_subject",
}
MANIFEST_MODULE = "documents"  # the module of a kind's place holding its manifest part
MANIFEST = "MANIFEST"  # the manifest part's name in that module


def manifest_where(kind: Kind) -> str:
    """Where ``kind``'s manifest part is by convention: ``"<place>.documents:MANIFEST"`` (a ``Part`` string)."""
    return f"{PLACES[kind]}.{MANIFEST_MODULE}:{MANIFEST}"


def manifest(kind: Kind) -> Any:
    """``kind``'s manifest part by convention (``manifest_where``), its module imported on first use."""
    module, _, attribute = manifest_where(kind).partition(":")
    return getattr(importlib.import_module(module), attribute)
