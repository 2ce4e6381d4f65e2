"""``validate`` without a terminal: check manifests, or each manifest tree and environment, offline.

Every problem is reported once even when several environments of a tree share it; each valid run gives one
summary line of what it declares.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from reconciler import manifests
from reconciler.base import collector, errors, terminal
from reconciler.manifests import parts


@dataclasses.dataclass(frozen=True)
class Validation:
    """The diagnostics (errors and warnings, each once), one summary per valid run, and whether any run failed."""

    diagnostics: list[errors.Diagnostic]
    summaries: list[str]
    failed: bool


_ALWAYS_COUNTED = (parts.TOPIC, parts.ACL, parts.QUOTA, parts.SCRAM_USER, parts.BROKER_CONFIG)  # even when none


def summary(result: manifests.LoadResult) -> str:
    """``valid: 3 topics, 1 ACL, ...``: what valid manifests declare."""
    d, n = result.desired, terminal.count
    # every other kind, counted when it declares something ("1 group config set", "2 schema subjects")
    sections = ((parts.declared_in(part, d), part.noun) for part in result.kinds if part not in _ALWAYS_COUNTED)
    more = [n(len(section), noun) for section, noun in sections if section]
    return (
        f"valid: {n(len(d.topics), 'topic')}, {n(len(d.acls), 'ACL')}, {n(len(d.quotas), 'quota')}, "
        f"{n(len(d.scram_users), 'SCRAM user')}, {n(len(d.broker_configs), 'broker config set')}, "
        + "".join(f"{m}, " for m in more)
        + f"{n(len(result.profiles), 'cluster profile')}"
    )


def connect_placement(result: manifests.LoadResult) -> list[errors.Diagnostic]:
    """The errors of placing the connectors on the Connect clusters of each Cluster profile that names some
    (``connectCluster`` unknown there, or missing where it has several), each naming the profile when several
    profiles name Connect clusters; none when no profile names one (``KAFKA_CONNECT_URL`` is the plan's to read)."""
    if not result.desired.connectors:
        return []
    from reconciler.model import connect_clusters

    named = {name: tuple(p.connect_clusters) for name, p in sorted(result.profiles.items()) if p.connect_clusters}
    out: list[errors.Diagnostic] = []
    for name, clusters in named.items():
        try:
            connect_clusters.place(result.desired, clusters)
        except errors.ValidationFailed as exc:
            suffix = f" (Cluster profile {name})" if len(named) > 1 else ""
            out += [dataclasses.replace(d, message=d.message + suffix) for d in exc.diagnostics]
    return out


def validate(
    paths: Sequence[Path], *, environment: str | None = None, tree: bool = False, roots: Sequence[Path] = ()
) -> Validation:
    """Validate ``paths`` as one set of manifests, or with ``tree`` each file as the whole tree it belongs to
    (files that are not kafka-reconciler manifests skipped, with a note).

    A tree is validated in ``environment``, or without one and then in each environment it declares.
    """
    runs: list[tuple[list[Path], str | None, str]] = [(list(paths), environment, "")]
    notes: list[str] = []
    if tree:
        from reconciler.manifests import tree as trees

        runs = []
        wanted, skipped = trees.manifest_files(paths)
        if skipped:
            names = ", ".join(str(p) for p in skipped[:5]) + (
                f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
            )
            notes.append(
                f"skipped {terminal.count(len(skipped), 'file')} that are not kafka-reconciler manifests "
                f"(no apiVersion: kafka-reconciler/...): {names}"
            )
        for t in trees.trees(wanted, roots=roots):
            envs = [environment] if environment is not None else [None, *t.environments]
            runs += [(list(t.paths), env, f"{t.label}{f' ({env})' if env else ''}: ") for env in envs]
    diagnostics: list[errors.Diagnostic] = []
    summaries: list[str] = []
    failed = False
    seen: set[str] = set()
    for run_paths, env, label in runs:
        try:
            with collector.paused():
                result = manifests.load(run_paths, environment=env)
        except errors.ValidationFailed as exc:
            found, line = exc.diagnostics, None
        else:
            placement = connect_placement(result)
            found, line = result.diagnostics + placement, None if placement else summary(result)
        for d in found:
            if d.format() not in seen:  # a base error shows once, not once per environment
                seen.add(d.format())
                diagnostics.append(d)
        failed = failed or line is None
        if line is not None:
            summaries.append(label + line)
    return Validation(diagnostics=diagnostics, summaries=summaries + notes, failed=failed)
