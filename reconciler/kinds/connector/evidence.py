"""What a plan reads from Kafka Connect: every connector and the plugins (two requests), then the validate endpoint
for each declared connector whose config differs, and the digests of the declared secrets.

A secret is resolved here (plan time) only to be digested and, for a changed config, sent to the validate endpoint
with the rest of the config; a reference that cannot be resolved becomes a field error of that connector (the plan
blocks it at the manifest's line). A connector whose config Connect already holds is not validated, so a plan with
no connector change costs two requests whatever the number of connectors; the configs that changed are validated
up to ``MAX_PARALLEL_VALIDATES`` at a time. For each connector the manifests delete, the offsets Connect keeps for
it are read (KIP-875's ``GET /connectors/{name}/offsets``), so the plan shows what a connector created again under
that name would resume from. These are the connector kind's reads, parts of its declaration (``read_into``,
``read_every``, ``offline``), which ``reconciler.ports`` runs over the port it opened (``reconciler.connect.opening``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from reconciler.connect import http, plugins
from reconciler.connect import secrets as connect_secrets
from reconciler.connect.port import ConnectPort
from reconciler.connection import secrets as secret_refs
from reconciler.model import connect_clusters as clusters
from reconciler.model import connector_offsets, desired, state
from reconciler.model.kinds import Kind

MAX_PARALLEL_VALIDATES = 8  # validate requests in flight at once (the worker validates each on its own thread)


def read_into(
    port: ConnectPort, live: state.ClusterState, wanted: desired.DesiredState, *, deadline: float
) -> state.ClusterState:
    """``live`` with the connectors a plan of ``wanted`` compares with (``read_for_plan``): the connector kind's
    ``read_for_plan`` over the port ``reconciler.ports`` opened. A plan that covers no connector does not open it."""
    return dataclasses.replace(live, connect=read_for_plan(port, wanted, deadline=deadline))


def read_every(port: ConnectPort, live: state.ClusterState, *, deadline: float) -> state.ClusterState:
    """``live`` with every connector and the plugins of the Connect clusters of ``port`` (secrets kept as digests):
    what ``snapshot`` and ``import`` read without manifests."""
    return dataclasses.replace(live, connect=port.read(deadline=deadline))


def secret_digests(
    wanted: desired.DesiredState, environ: Mapping[str, str] | None = None
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]], dict[str, tuple[tuple[str, str], ...]]]:
    """Per declared connector: the digests of its secrets, their resolved values (kept only for the validate
    request) and the references that cannot be resolved (as field errors)."""
    digests: dict[str, dict[str, str]] = {}
    values: dict[str, dict[str, str]] = {}
    problems: dict[str, tuple[tuple[str, str], ...]] = {}
    for name, want in sorted(wanted.connectors.items()):
        resolved: dict[str, str] = {}
        failed: list[tuple[str, str]] = []
        for key, ref in sorted(want.secrets.items()):
            try:
                resolved[key] = secret_refs.resolve(ref, what=f"connector {name}: {key}", environ=environ)
            except secret_refs.SecretUnavailable as exc:
                failed.append((key, str(exc)))
        digests[name] = {k: connect_secrets.digest(name, k, v) for k, v in resolved.items()}
        values[name] = resolved
        if failed:
            problems[name] = tuple(failed)
    return digests, values, problems


def offline(live: state.ClusterState, wanted: desired.DesiredState) -> state.ClusterState:
    """``live`` read from a snapshot, with the digests of the declared secrets (resolved here, no request): an
    offline plan compares secrets as a live plan does; Connect's validate endpoint is not asked (the field errors
    ``live`` already holds, from a fleet's live read, are kept; an unresolvable reference is its connector's)."""
    if live.connect is None or not wanted.connectors:
        return live
    digests, _, problems = secret_digests(wanted)
    validation = {**live.connect.validation, **problems}
    return dataclasses.replace(
        live, connect=dataclasses.replace(live.connect, secret_digests=digests, validation=validation)
    )


def read_for_plan(
    port: ConnectPort, wanted: desired.DesiredState, *, deadline: float, environ: Mapping[str, str] | None = None
) -> state.ConnectState:
    """The ``ConnectState`` the planner compares ``wanted``'s connectors with."""
    found = port.read(deadline=deadline, secret_keys={n: set(c.secrets) for n, c in wanted.connectors.items()})
    digests, values, validation = secret_digests(wanted, environ)
    checked: list[tuple[str, dict[str, str], frozenset[str]]] = []
    for name, want in sorted(wanted.connectors.items()):
        if name in validation or clusters.cluster_of(name) in found.unreachable:
            continue  # a Connect cluster not read: the plan blocks its connectors
        have = found.connectors.get(name)
        full = {**want.config, **values[name]}
        if have is not None and connect_secrets.same_config(name, full, have.config, want.secrets):
            continue
        on = found.for_connector(name)
        if on.plugins is not None and not plugins.known_class(want.class_name, on.plugins):
            continue  # the plan blocks it with the classes the workers have
        if plugins.missing_version(want, on) is not None:
            continue  # the plan blocks it with the versions the workers have
        checked.append((name, full, frozenset(want.secrets)))

    def validate(item: tuple[str, dict[str, str], frozenset[str]]) -> tuple[tuple[str, str], ...]:
        return port.validate(item[0], item[1], deadline=deadline, secret_keys=item[2])

    with ThreadPoolExecutor(max_workers=max(1, min(MAX_PARALLEL_VALIDATES, len(checked)))) as pool:
        validation.update(zip((name for name, _, _ in checked), pool.map(validate, checked), strict=True))
    kept = {name: offsets for name in deleted(wanted, found) if (offsets := _kept(port, name, deadline)) is not None}
    current = {name: port.offset_pairs(name, deadline=deadline) for name in altered(wanted, found)}
    return dataclasses.replace(
        found, validation=validation, secret_digests=digests, kept_offsets=kept, current_offsets=current
    )


def altered(wanted: desired.DesiredState, found: state.ConnectState) -> list[str]:
    """The live connectors whose declared offsets differ from those last applied (``connector_offsets``): the plan
    shows the offsets Connect holds for each before it alters them (one request each; none otherwise)."""
    record = connector_offsets.RECORD_KEY
    return [
        name
        for name, want in sorted(wanted.connectors.items())
        if want.offsets
        and name in found.connectors
        and found.connectors[name].config.get(record) != want.config.get(record)
    ]


def _kept(port: ConnectPort, name: str, deadline: float) -> tuple[str, ...] | None:
    """The offsets Connect keeps for ``name``; ``None`` when Connect answers with an error (a worker older than
    KIP-875's offsets API, a connector deleted meanwhile): the plan then only says that offsets are kept."""
    try:
        return port.offsets(name, deadline=deadline)
    except http.ConnectError as exc:
        if exc.unreachable:
            raise
        return None


def deleted(wanted: desired.DesiredState, found: state.ConnectState) -> list[str]:
    """The live connectors the manifests delete (owned, not declared, deletes allowed): the plan shows the offsets
    Connect keeps for each (one request each; none for a plan that deletes no connector)."""
    rules = wanted.ownership
    if Kind.CONNECTOR not in rules.managed_kinds or not rules.may_delete(Kind.CONNECTOR):
        return []
    return [n for n in sorted(found.connectors) if n not in wanted.connectors and rules.owns_connector(n)]
