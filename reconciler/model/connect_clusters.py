"""Several Kafka Connect clusters per Kafka cluster: their names, the key that addresses a connector on one, and
the placement of each declared connector on the cluster it runs on.

A Cluster profile names one Connect cluster (``connect: {urls: ...}`` or ``KAFKA_CONNECT_URL``: the cluster named
``default``) or several (``connect: {clusters: {<name>: {urls: ...}}}``). A connector is keyed by its Connect name
alone when the profile has one Connect cluster, and by ``<cluster>/<name>`` when it has several, so plan files,
addresses (``connector/sinks/jdbc-out``) and snapshots written for one cluster read the same as before. Connect
cannot address a connector whose name holds ``/`` (``name_problem``, which the manifests and a plan file's keys are
checked with) and a cluster name holds none (``NAME``), so a key splits back without ambiguity.

A ``Connector`` names its cluster with ``connectCluster``: optional when the profile has one Connect cluster (it
must then be that cluster's name), required when it has several. ``place`` checks that and keys each connector; an
unknown or missing name is an error at the manifest's file:line:column listing the cluster names.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from reconciler.base import errors
from reconciler.model import desired

DEFAULT = "default"  # the name of the Connect cluster of the single form and of KAFKA_CONNECT_URL
FIELD = "connectCluster"  # the Connector manifest's field naming the Connect cluster it runs on
SEPARATOR = "/"
UNADDRESSABLE = re.compile(r"[/\\%{}\x00-\x1f\x7f-\x9f]")  # see name_problem
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")  # a Connect cluster's name: manifests.fields.ConnectClusterName


def key(cluster: str | None, name: str) -> str:
    """The key of connector ``name`` on ``cluster`` (``None``: the only Connect cluster, no prefix)."""
    return name if cluster is None else f"{cluster}{SEPARATOR}{name}"


def split(connector_key: str) -> tuple[str | None, str]:
    """``(cluster, name)`` of a key; cluster ``None`` for a key without one (the only Connect cluster)."""
    cluster, sep, name = connector_key.partition(SEPARATOR)
    return (cluster, name) if sep else (None, connector_key)


def name_of(connector_key: str) -> str:
    """The name Kafka Connect knows the connector by."""
    return split(connector_key)[1]


def cluster_of(connector_key: str) -> str | None:
    return split(connector_key)[0]


def name_problem(name: str) -> str | None:
    """Why Kafka Connect could not address a connector named ``name`` in its REST paths, or ``None``.

    Measured on a 4.3.1 worker: a name holding ``/``, ``\\`` or ``%`` is created by ``POST /connectors``, but
    every request on ``/connectors/<name, percent-encoded>`` answers 400, so the connector can never be read,
    changed or deleted; a name holding ``{`` or ``}`` answers 500 to its create (the connector is created, the
    answer's location cannot be built); Connect trims a name's leading and trailing whitespace, so the connector is
    created under another name; ISO control characters are refused."""
    found = sorted(set(UNADDRESSABLE.findall(name)))
    if found:
        shown = " ".join(repr(c)[1:-1] for c in found)
        if set(found) & set("/\\%"):
            why = "Kafka Connect answers 400 to every request on a connector so named: it could be created, never "
            why += "read, changed or deleted"
        elif set(found) & set("{}"):
            why = "Kafka Connect answers 500 to the create of a connector so named (after creating it)"
        else:
            why = "Kafka Connect refuses control characters in a connector name"
        return f"connector name {name!r} holds {shown}: {why}"
    if name != name.strip():
        return f"connector name {name!r} starts or ends with whitespace, which Kafka Connect trims from the name"
    return None


def key_problem(connector_key: str) -> str | None:
    """Why a plan file's connector key (``<cluster>/<name>`` or a name) names no connector this tool can address, or
    ``None``: as strict as the manifest's ``metadata.name`` and ``connectCluster``."""
    cluster, name = split(connector_key)
    if cluster is not None and not NAME.match(cluster):
        return f"{cluster!r} is not a Kafka Connect cluster name (letters, digits, '.', '_', '-')"
    return name_problem(name)


def place(wanted: desired.DesiredState, clusters: Sequence[str]) -> desired.DesiredState:
    """``wanted`` with each connector keyed for the profile's Connect clusters ``clusters`` (no change when the
    profile names none: the planner says connectors cannot be planned). Raises ``ValidationFailed`` with an error at
    each connector whose ``connectCluster`` the profile does not name, or that names none while the profile has
    several, and at each pair that lands on the same key."""
    if not clusters or not wanted.connectors:
        return wanted
    several = len(clusters) > 1
    listed = ", ".join(sorted(clusters))
    diags: list[errors.Diagnostic] = []
    placed: dict[str, desired.DesiredConnector] = {}
    for want in sorted(wanted.connectors.values(), key=lambda c: (c.source is None, str(c.source), c.name)):
        name = name_of(want.name)
        where = want.cluster_source or want.source
        if want.cluster is not None and want.cluster not in clusters:
            diags.append(
                _error(
                    where,
                    f"Kafka Connect cluster {want.cluster!r} is not in the Cluster profile "
                    f"(its Connect clusters: {listed})",
                )
            )
            continue
        if want.cluster is None and several:
            diags.append(
                _error(
                    want.source,
                    f"connector {name!r} does not name its Kafka Connect cluster, and the "
                    f"Cluster profile has several: set {FIELD} to one of {listed}",
                )
            )
            continue
        cluster = (want.cluster or clusters[0]) if several else None
        placed_key = key(cluster, name)
        first = placed.get(placed_key)
        if first is not None:
            diags.append(
                _error(
                    want.source,
                    f"Connector {name!r} is declared twice on the same Kafka Connect cluster (first at {first.source})",
                )
            )
            continue
        placed[placed_key] = dataclasses.replace(want, name=placed_key)
    if diags:
        raise errors.ValidationFailed(diags)
    return dataclasses.replace(wanted, connectors=dict(sorted(placed.items())))


def _error(where: desired.Source | None, message: str) -> errors.Diagnostic:
    if where is None:
        return errors.Diagnostic(message=message)
    return errors.Diagnostic(message=message, file=where.file, line=where.line, column=where.column)
