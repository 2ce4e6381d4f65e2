"""Connector secrets: which config keys are secrets, their digests, and live configs with the values taken out.

Kafka Connect returns a connector's config in clear. The port replaces every secret value as soon as it is read
(``redact``): a key the manifests declare under ``secrets``, or one whose name says it is a secret, holds
``MARKER`` plus a digest of the value instead. The planner compares that digest with the digest of the value the
manifests' reference resolves to at plan time, so a changed secret is shown as changed and never printed; the
digest is salted with the connector and key (a weak password is not looked up in a table of common digests) and
truncated. A config-provider placeholder (``${file:/path:key}``) is what Connect stores, not a secret: kept as is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from reconciler.manifests import connectors as manifest_connectors
from reconciler.model import connector_defaults

MARKER = "(sensitive value) sha256:"


def digest(connector: str, key: str, value: str) -> str:
    """The marker and salted digest that stand for ``value`` of ``key`` in ``connector``."""
    blob = "\0".join(("kafka-reconciler/connect-secret/1", connector, key, value)).encode()
    return MARKER + hashlib.sha256(blob).hexdigest()[:32]


def is_secret(key: str, value: str, declared: Iterable[str] = ()) -> bool:
    """Whether a live value must not be kept: a declared secret key or a key named like one, not a placeholder."""
    if manifest_connectors.PLACEHOLDER.match(value):
        return False
    return key in declared or manifest_connectors.looks_secret(key)


def redact(connector: str, config: Mapping[str, str], declared: Iterable[str] = ()) -> dict[str, str]:
    """``config`` with each secret value replaced by its digest (``digest``)."""
    keys = frozenset(declared)
    return {k: digest(connector, k, v) if is_secret(k, v, keys) else v for k, v in config.items()}


def is_digest(value: str) -> bool:
    return value.startswith(MARKER)


def same_config(connector: str, want: Mapping[str, str], have: Mapping[str, str], declared: Iterable[str]) -> bool:
    """Whether Connect holds ``want`` (values in clear) as ``have`` (secrets as digests): the same keys, equal
    strings, secrets equal by digest; a key Connect defaults (``tasks.max``) compared as Connect runs it."""
    keys = frozenset(declared)
    want, have = connector_defaults.as_run(want), connector_defaults.as_run(have)
    return want.keys() == have.keys() and all(
        have[k] == (digest(connector, k, v) if is_secret(k, v, keys) else v) for k, v in want.items()
    )
