"""The manifest language: ``load()`` reads YAML manifests into a validated, normalised ``DesiredState``.

Pipeline: find files (``loader.discover``) -> parse with positions (``yamlio``) -> check each document's
envelope and apply environment overlays -> validate against the kind's model (``models``) -> build the
desired state with Kafka's rules and cross-document checks (``build``). Every problem is collected as a
positioned ``Diagnostic``; any error raises ``errors.ValidationFailed`` carrying all of them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from reconciler import desired, errors
from reconciler.manifests import build, loader, models, yamlio
from reconciler.manifests.profiles import ClusterProfile

__all__ = ["ClusterProfile", "LoadResult", "load"]

# Build order: defaults and ownership before the documents that use them.
_ORDER = (
    "TopicDefaults",
    "Ownership",
    "Topic",
    "Acl",
    *models.GRANT_KINDS,
    "ClientQuota",
    "ScramUser",
    "BrokerConfig",
    "Cluster",
)


@dataclasses.dataclass
class LoadResult:
    """What the manifests declare, the connection profiles, and the warnings found on the way."""

    desired: desired.DesiredState
    profiles: dict[str, ClusterProfile]
    diagnostics: list[errors.Diagnostic]


def load(paths: Sequence[Path], *, environment: str | None = None, env: Mapping[str, str] | None = None) -> LoadResult:
    """Load manifests from files and directories; ``env`` (default: the process environment) feeds ``${VAR}``."""
    diags: list[errors.Diagnostic] = []
    variables = os.environ if env is None else env
    files = loader.discover([Path(p) for p in paths], environment=environment, diags=diags)
    documents: dict[tuple[str, str], yamlio.RawDocument] = {}
    order: list[tuple[str, str]] = []
    for path, overlay in files:
        for raw in yamlio.read_documents(path, display=str(path), env=variables, diags=diags):
            ident = loader.identity(raw, diags)
            if ident is None:
                continue
            first = documents.get(ident)
            if first is None:
                documents[ident] = raw
                order.append(ident)
            elif overlay:
                loader.merge_overlay(first, raw)
            else:
                where = f"{first.file}:{first.line}:{first.column}"
                message = f"{ident[0]} {ident[1]!r} is declared twice (first at {where})"
                diags.append(raw.diagnostic(("metadata", "name"), message))
    validated: dict[str, list[loader.Document]] = {kind: [] for kind in _ORDER}
    builder = build.Builder(diags)
    for ident in order:
        raw = documents[ident]
        if raw.broken:
            continue
        doc = loader.validate(raw, ident[0], ident[1], diags)
        if doc is not None:
            validated[doc.kind].append(doc)
        elif ident[0] in ("Topic", "TopicDefaults"):
            spec = raw.data.get("spec")
            topic_configs = spec.get("configs") if isinstance(spec, dict) else None
            if isinstance(topic_configs, dict):
                readable = {k: v for k, v in topic_configs.items() if not isinstance(v, dict)}
                builder.topic_builder.check_raw_configs(raw, readable)
    handlers: dict[str, Callable[[loader.Document], None]] = {
        "TopicDefaults": builder.topic_builder.add_defaults,
        "Ownership": builder.add_ownership,
        "Topic": builder.topic_builder.add_topic,
        "Acl": builder.add_acl,
        "ClientQuota": builder.add_quota,
        "ScramUser": builder.add_scram,
        "BrokerConfig": builder.add_broker_config,
        "Cluster": builder.add_cluster,
        **{kind: builder.add_grant for kind in models.GRANT_KINDS},
    }
    for kind in _ORDER:
        for doc in validated[kind]:
            handlers[kind](doc)
    builder.topic_builder.check_collisions()
    builder.check_grant_topics()
    diags.sort(key=lambda d: (d.file or "", d.line or 0, d.column or 0))
    if errors.errors_only(diags):
        raise errors.ValidationFailed(diags)
    return LoadResult(desired=builder.result(), profiles=builder.profiles, diagnostics=diags)
