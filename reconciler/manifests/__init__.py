"""The manifest language: ``load()`` reads YAML manifests into a validated, normalised ``DesiredState``.

Pipeline: find files (``loader.discover``) -> parse with positions (``yamlio``) -> check each document's
envelope and apply environment overlays -> validate against the kind's model (``models``) -> build the
desired state with Kafka's rules and cross-document checks (``build``). Every problem is collected as a
positioned ``Diagnostic``; any error raises ``errors.ValidationFailed`` carrying all of them. Kind-specific
rules have a module per kind: ``topics`` (defaults layering and Kafka's topic rules), ``roles`` (role grants
expanded to ACLs) and ``profiles`` (the ``Cluster`` kind as connection profiles). A resource kind's document is
added by the kind's manifest part (``parts.of``), which its declaration names.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from reconciler.base import errors, secret
from reconciler.manifests import build, loader, models, parts, yamlio
from reconciler.manifests.profiles import ClusterProfile
from reconciler.model import desired
from reconciler.model.kinds import Kind, Manifest

__all__ = ["ClusterProfile", "LoadResult", "load"]

# Build order: defaults and ownership before the documents that use them, the grants after the Acl documents (their
# bindings are not warned about as declared twice) and before the Connectors (which read the ConnectWorkers); then
# the other kinds, in ``Kind`` order, and the profiles.
_FIRST = (
    Manifest.TOPIC_DEFAULTS,
    Manifest.OWNERSHIP,
    Manifest.TOPIC,
    Manifest.ACL,
    *models.GRANT_KINDS,
)
_ORDER = (
    *_FIRST,
    *(kind.manifest for kind in Kind if kind.manifest not in _FIRST),
    Manifest.CLUSTER,
)


@dataclasses.dataclass
class LoadResult:
    """What the manifests declare, the connection profiles, and the warnings found on the way."""

    desired: desired.DesiredState
    profiles: dict[str, ClusterProfile]
    diagnostics: list[errors.Diagnostic]
    # the manifest parts of the kinds built here and of those whose documents were read, in ``Kind`` order
    kinds: tuple[parts.ManifestPart, ...] = ()


def load(paths: Sequence[Path], *, environment: str | None = None, env: Mapping[str, str] | None = None) -> LoadResult:
    """Load manifests from files and directories; ``env`` (default: the process environment) feeds ``${VAR}``.

    Callers that read large trees pause the garbage collector around it (``reconciler.base.collector``).
    """
    diags: list[errors.Diagnostic] = []
    files = loader.discover([Path(p) for p in paths], environment=environment, diags=diags)
    documents, order = _read(files, env=os.environ if env is None else env, diags=diags)
    builder = build.Builder(diags)
    # The documents that declare no kind's resources; a kind's document is added by its manifest part (``parts``).
    handlers: dict[str, Callable[[loader.Document], None]] = {
        Manifest.TOPIC_DEFAULTS: builder.topic_builder.add_defaults,
        Manifest.OWNERSHIP: builder.add_ownership,
        Manifest.CLUSTER: builder.add_cluster,
        **{kind: builder.add_grant for kind in models.GRANT_KINDS},
    }
    read: dict[str, parts.ManifestPart] = dict(parts.BUILT_IN)
    by_kind: dict[str, list[tuple[str, str]]] = {kind: [] for kind in _ORDER}
    for ident in order:
        by_kind[ident[0]].append(ident)
    # Each document is validated and built in one step, kind by kind in build order: its model (several times the
    # size of its plain data) is freed as soon as what it declares is in the desired state.
    for kind in _ORDER:
        for ident in by_kind[kind]:
            raw = documents[ident]
            if raw.broken or loader.crowded(raw, diags):
                continue
            doc = loader.validate(raw, ident[0], ident[1], diags)
            if doc is None:
                builder.check_failed_document(raw, ident[0], ident[1])
            elif kind in handlers:
                handlers[kind](doc)
            else:
                part = read[kind] = parts.of(kind)
                part.build(builder, doc)
    builder.topic_builder.check_collisions()
    builder.check_grant_topics()
    diags.sort(key=lambda d: (d.file or "", d.line or 0, d.column or 0))
    if errors.errors_only(diags):
        raise errors.ValidationFailed(diags)
    kinds = tuple(read[k.manifest] for k in Kind if k.manifest in read)
    return LoadResult(desired=builder.result(), profiles=builder.profiles, diagnostics=diags, kinds=kinds)


def _read(
    files: Sequence[tuple[Path, bool]], *, env: Mapping[str, str], diags: list[errors.Diagnostic]
) -> tuple[dict[tuple[str, str], yamlio.RawDocument], list[tuple[str, str]]]:
    """Every document of ``files`` by identity (overlay documents merged into their base), in first-seen order."""
    documents: dict[tuple[str, str], yamlio.RawDocument] = {}
    order: list[tuple[str, str]] = []
    everything: list[yamlio.RawDocument] = []
    for path, overlay in files:
        for raw in yamlio.read_documents(path, display=str(path), env=env, diags=diags):
            everything.append(raw)
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
    _refuse_referenced_secrets(everything, diags)
    return documents, order


def _secret_variables(node: object) -> set[str]:
    """The variables named by every secret reference (``passwordFrom``, ``keyPasswordFrom``, ``clientSecretFrom``,
    ... at any depth: a Cluster profile's ``connect`` and ``schemaRegistry`` blocks hold their own) under ``node``."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and key.endswith("From") and isinstance(value, dict):
                if isinstance(value.get("env"), str):
                    found.add(value["env"])
            else:
                found |= _secret_variables(value)
    elif isinstance(node, list):
        for item in node:
            found |= _secret_variables(item)
    return found


def _refuse_referenced_secrets(documents: list[yamlio.RawDocument], diags: list[errors.Diagnostic]) -> None:
    """A variable some manifest names as a secret (``passwordFrom: {env: NAME}``) is refused in ``${NAME}`` too:
    substituted, its value would be written into plans, PR comments and logs."""
    referenced: set[str] = set()
    for raw in documents:
        spec = raw.data.get("spec") if isinstance(raw.data, dict) else None
        ref = spec.get("username") if isinstance(spec, dict) else None
        if isinstance(ref, dict) and isinstance(ref.get("env"), str):
            referenced.add(ref["env"])
        referenced |= _secret_variables(spec)
    if not referenced or not any(raw.variables for raw in documents):
        return
    for raw in documents:
        for name, path, line, column in raw.variables:
            if name in referenced and not secret.is_secret_variable(name) and not yamlio.redacted(path):
                raw.broken = True
                diags.append(
                    errors.Diagnostic(
                        message=f"environment variable {name!r} holds a secret and cannot be substituted "
                        "into a manifest",
                        file=raw.file,
                        line=line,
                        column=column,
                        path=yamlio.format_path(path) or None,
                        hint="a manifest reads it as a secret (passwordFrom: {env: " + name + "}); "
                        "values in manifests end up in plans, PR comments and logs",
                    )
                )
