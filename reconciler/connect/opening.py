"""How a command opens its Kafka Connect port (``reconciler.ports`` names these): from its target (the Cluster
profile's ``connect:``, else ``KAFKA_CONNECT_URL``) or, for a fleet's cluster, from its Cluster profile only; and
how it is closed. A port opened to apply a plan's connector changes covers only the Connect clusters their keys
(``<cluster>/<name>``) name, when the profile names several."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from reconciler.base import errors
from reconciler.connect import http, settings
from reconciler.connect.multi import MultiConnectPort
from reconciler.connect.port import ConnectPort, RestConnectPort
from reconciler.manifests.profiles import ClusterProfile, ConnectProfile
from reconciler.model import connect_clusters, desired, plans

Opened = RestConnectPort | MultiConnectPort


class Target(Protocol):
    """What a command was pointed at (``operations.Target``): its flags and the manifests' Cluster profiles."""

    @property
    def cluster(self) -> str | None: ...
    @property
    def bootstrap_server(self) -> str | None: ...
    @property
    def command_config(self) -> Path | None: ...
    @property
    def profiles(self) -> Mapping[str, ClusterProfile]: ...


def connect_profiles(target: Target) -> dict[str, ConnectProfile]:
    """The Kafka Connect clusters of the profile ``target`` uses (its ``connect:``), else ``KAFKA_CONNECT_URL``'s."""
    named = target.bootstrap_server is not None or target.command_config is not None
    return settings.profiles_for(cluster=target.cluster, profiles=target.profiles, explicit=named)


def port_of(target: Target, *, only: Collection[str] | None = None) -> Opened | None:
    """The port of the Kafka Connect clusters ``target``'s profile names (``only``: those of them named there, as
    the clusters an apply writes to; a port over several keeps their connectors' keys ``<cluster>/<name>``)."""
    found = connect_profiles(target)
    if only is not None and len(found) > 1:
        found = {name: p for name, p in found.items() if name in only}
        if len(found) == 1:  # still keyed <cluster>/<name>, as the plan's connectors are
            name, profile = next(iter(found.items()))
            return settings.port_for(profile, cluster=name)
    return settings.ports_for(found)


def bound_requests(port: ConnectPort, seconds: float) -> None:
    """No request of ``port`` (of each of its Connect clusters) waits longer than ``seconds``."""
    for one in port.ports.values() if isinstance(port, MultiConnectPort) else (port,):
        if isinstance(one, RestConnectPort):
            one.client.request_timeout_s = min(one.client.request_timeout_s, seconds)


def _clusters(writes: Sequence[plans.Change]) -> set[str]:
    """The Connect clusters the keys of connector changes name (``<cluster>/<name>``; the whole key otherwise)."""
    return {c.name.partition("/")[0] for c in writes}


def named_by(
    target: Target, *, request_bound_s: float | None = None, writes: Sequence[plans.Change] = ()
) -> Opened | None:
    """The port of the Kafka Connect clusters ``target`` names (``port_of``; with ``writes``, only those
    their keys name); no request waits longer than ``request_bound_s``. ``None`` when none is named."""
    port = port_of(target, only=_clusters(writes) if writes else None)
    if port is not None and request_bound_s is not None:
        bound_requests(port, request_bound_s)
    return port


def in_profile(
    profile: ClusterProfile, *, request_timeout_s: float | None = None, writes: Sequence[plans.Change] = ()
) -> Opened | None:
    """The port of the Kafka Connect clusters ``profile`` names (``None``: it names none); with ``writes`` and several
    clusters, only those their keys name (``ConfigError`` when they name none of them)."""
    found = dict(profile.connect_clusters)
    if not found:
        return None
    bound = http.DEFAULT_REQUEST_TIMEOUT_S if request_timeout_s is None else request_timeout_s
    if writes and len(found) > 1:
        only = _clusters(writes)
        found = {name: c for name, c in found.items() if name in only}
        if not found:
            raise errors.ConfigError(
                f"the plan's connectors name no Kafka Connect cluster of Cluster profile {profile.name} "
                f"({', '.join(profile.connect_clusters)})"
            )
        if len(found) == 1:  # still keyed <cluster>/<name>, as the plan's connectors are
            name, one = next(iter(found.items()))
            return settings.port_for(one, cluster=name, request_timeout_s=bound)
    return settings.ports_for(found, request_timeout_s=bound)


class _Placement:
    """Connectors on the Kafka Connect clusters a target or a Cluster profile names (``ports.Placement``)."""

    def named_by(self, target: Target) -> tuple[str, ...]:
        return tuple(connect_profiles(target))

    def in_profile(self, profile: ClusterProfile) -> tuple[str, ...]:
        return tuple(profile.connect_clusters)

    def place(self, wanted: desired.DesiredState, services: tuple[str, ...]) -> desired.DesiredState:
        return connect_clusters.place(wanted, services)


PLACEMENT = _Placement()


def down(exc: errors.ReconcilerError) -> bool | None:
    """Whether ``exc`` says Kafka Connect could not be reached (``None``: not Kafka Connect's error)."""
    return exc.unreachable if isinstance(exc, http.ConnectError) else None


def close(port: Opened) -> None:
    """Close the connections of an opened port."""
    port.close()


def unreadable(exc: errors.ReconcilerError, profile: str | None) -> errors.ReconcilerError:
    """What a fleet cluster's row says when Kafka Connect (every Connect cluster of Cluster profile ``profile``)
    could not be read."""
    if not isinstance(exc, http.ConnectError):
        return exc
    return http.ConnectError(
        f"the Kafka Connect cluster of Cluster profile {profile} could not be read: {exc}", status=exc.status
    )
