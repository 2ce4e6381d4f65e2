"""Resolve SCRAM password references and redacted config values at write time only.

Password references are resolved with the shared resolver (``reconciler.connection.secrets``); this module adds the
plan-data forms of a reference and the lookup of sensitive config values, which a plan only holds as
``plan.REDACTED``, in the desired state. Values are returned to the caller that sends them and are never
logged, stored in a report or put in an exception message; errors name the user or resource and the
reference, not the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reconciler.connection import secrets
from reconciler.kinds import registry
from reconciler.model import desired
from reconciler.model.desired import SecretRef
from reconciler.model.kinds import Kind

SecretUnavailable = secrets.SecretUnavailable

# The reveal callback: (kind, resource name, config key) -> the secret value declared in the manifests, if any.
# Apply passes it to the code that sends a change whose plan holds ``plan.REDACTED`` in place of a value.
Reveal = Callable[[Kind, str, str], str | None]


def ref_from_data(data: Any) -> SecretRef | None:
    """A ``SecretRef`` from plan data: ``{"env": ...}``, ``{"file": ...}``, ``"env:NAME"`` or ``"file:PATH"``."""
    if isinstance(data, SecretRef):
        return data
    if isinstance(data, Mapping):
        env, file = data.get("env"), data.get("file")
        if env or file:
            return SecretRef(env=str(env) if env else None, file=str(file) if file else None)
        return None
    if isinstance(data, str):
        scheme, _, rest = data.partition(":")
        if scheme == "env" and rest:
            return SecretRef(env=rest)
        if scheme == "file" and rest:
            return SecretRef(file=rest)
    return None


def resolve(ref: SecretRef, *, user: str, environ: Mapping[str, str] | None = None) -> str:
    """The password; ``SecretUnavailable`` naming ``user`` and the reference when it is missing or empty."""
    return secrets.resolve(ref, what=f"SCRAM user {user!r}: password", environ=environ)


def declared_values(wanted: desired.DesiredState) -> Reveal:
    """Look up a config value as the manifests declare it (for values a plan holds redacted)."""

    def lookup(kind: Kind, name: str, key: str) -> str | None:
        configs = registry.spec(kind).declared_configs(wanted, name)
        return None if configs is None else configs.get(key)

    return lookup
