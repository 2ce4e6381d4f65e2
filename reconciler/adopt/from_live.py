"""Adopting a live cluster (the ``import`` command): manifests that describe it exactly, so the first plan is empty.

``build_adoption(live)`` turns a ``ClusterState`` into manifest files (pure); ``adopt_cluster`` also writes
them. Each kind's import is its declaration's ``adopt`` part, run in ``Kind`` order on one ``job.Job``: every
resource is checked against the same rules the loader applies, and anything the manifest language cannot hold (a
secret value, a Group: principal, a config this version does not know) is left out with a note instead of producing
files that fail to load. The Ownership document names exactly the imported topics and principals (and the other
resources the kinds name by rule), with every delete policy off.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reconciler.adopt import output
from reconciler.adopt.adoption_report import AdoptionReport
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, Flow, ManifestFile
from reconciler.kinds import registry
from reconciler.model import state
from reconciler.model.kinds import Kind, Manifest

if TYPE_CHECKING:
    from reconciler.kafka.port import AdminPort


def _add_ownership(job: Job) -> None:
    spec: dict[str, Any] = {
        "topics": [{"name": t} for t in job.topics],
        "principals": [{"name": p} for p in sorted(job.principals)],
    }
    for field, names in job.owned.items():
        if names:
            spec[field] = [{"name": n} for n in names]
    live = job.live
    unread = {k for k, d in registry.KINDS.items() if k in live.unavailable or d.live_section(live) is None}
    if unread:
        spec["managedKinds"] = Flow(k.ownership_key for k in Kind if k not in unread)
    spec["delete"] = {k.ownership_key: False for k in Kind}
    comments = [
        "Exactly what was imported: these topics and principals are managed, nothing else is looked at.",
        "Deletes are off: enable them per kind once plans have stayed empty for a while (docs/adopting.md).",
    ]
    job.files.append(
        ManifestFile("ownership.yaml", [Document(Manifest.OWNERSHIP, "imported", spec, comments=comments)])
    )


def build_adoption(
    live: state.ClusterState, *, include_tool_topics: bool = False
) -> tuple[list[ManifestFile], AdoptionReport]:
    """The manifest files describing ``live`` and the report of what could not be expressed (no I/O)."""
    job = Job(live, include_tool_topics=include_tool_topics)
    for declared in registry.KINDS.values():
        declared.adopt.get()(job)
    _add_ownership(job)
    job.report.intro = [
        f"Manifests written from the live state of cluster `{live.cluster_id}` ({len(live.brokers)} broker(s)).",
        "Only what is set on each resource was imported (topic configs at their defaults are not written).",
    ]
    job.report.next_steps = [
        "Review the files; rename or split them as your team likes (file names do not matter).",
        "Commit, then run `kafka-reconciler plan` against the cluster: it must show no changes.",
        "Enable deletes in ownership.yaml one kind at a time, once plans have stayed empty.",
    ]
    job.report.variables.sort()
    return job.files, job.report


def read_for_adoption(adapter: AdminPort) -> state.ClusterState:
    """Everything the cluster lets ``adapter`` read; a kind whose admin APIs are missing is recorded as unavailable."""
    missing = {k.value: "; ".join(reasons) for k in Kind if (reasons := adapter.missing_apis([k]))}
    live = adapter.read_state(kinds=frozenset(k for k in Kind if k.value not in missing))
    return dataclasses.replace(live, unavailable={**missing, **live.unavailable})


def adopt_cluster(
    live: state.ClusterState, *, out_dir: Path, force: bool, include_tool_topics: bool = False
) -> AdoptionReport:
    """Write manifests for ``live`` into ``out_dir`` (refusing a non-empty directory unless ``force``)."""
    files, report = build_adoption(live, include_tool_topics=include_tool_topics)
    existing = output.prepare_out_dir(out_dir, force=force)
    report.out_dir = out_dir
    report.files, report.leftovers = output.write_output(
        out_dir, files, extra={**report.texts, "IMPORT.md": report.markdown()}, existing=existing
    )
    return report
