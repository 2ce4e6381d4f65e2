"""How a command opens its Schema Registry port (``reconciler.ports`` names these): from its target (the Cluster
profile's ``schemaRegistry:``, else ``SCHEMA_REGISTRY_URL``) or, for a fleet's cluster, from its Cluster profile
only; and how it is closed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from reconciler.base import errors
from reconciler.model import plans
from reconciler.registry.port import RegistryError, RegistryPort, RestRegistryPort
from reconciler.registry_access import settings
from reconciler.registry_access.http import HttpTransport

if TYPE_CHECKING:
    from reconciler.manifests.profiles import ClusterProfile
    from reconciler.target import Target


def named_by(
    target: Target,
    *,
    request_bound_s: float | None = None,
    writes: Sequence[plans.Change] = (),
    environ: Mapping[str, str] | None = None,
) -> RestRegistryPort | None:
    """The registry of ``target``'s Cluster profile (or ``SCHEMA_REGISTRY_URL``), no request waiting longer than
    ``request_bound_s``; ``None`` when none is named. ``writes``: the subject changes it is opened to apply (the
    one registry writes them all)."""
    explicit = target.bootstrap_server is not None or target.command_config is not None
    found = settings.settings_for(cluster=target.cluster, profiles=target.profiles, explicit=explicit, environ=environ)
    if found is None:
        return None
    return settings.open_registry(found, environ=environ, request_timeout_s=request_bound_s)


def in_profile(
    profile: ClusterProfile, *, request_timeout_s: float | None = None, writes: Sequence[plans.Change] = ()
) -> RestRegistryPort | None:
    """The registry ``profile`` names (``schemaRegistry:``); ``None`` when it names none."""
    if profile.schema_registry is None:
        return None
    return settings.open_registry(profile.schema_registry, request_timeout_s=request_timeout_s)


def close(registry: RegistryPort) -> None:
    """Close the HTTP connections of a port opened here."""
    transport = getattr(registry, "transport", None)
    if isinstance(transport, HttpTransport):
        transport.close()


def down(exc: errors.ReconcilerError) -> bool | None:
    """Whether ``exc`` says the registry could not be reached: no answer came (``None``: not the registry's error)."""
    return exc.status == 0 if isinstance(exc, RegistryError) else None


def unreadable(exc: errors.ReconcilerError, profile: str | None) -> errors.ReconcilerError:
    """What a fleet cluster's row says when its registry could not be read: the registry's own error."""
    return exc
