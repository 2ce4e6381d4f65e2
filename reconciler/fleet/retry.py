"""``fleet plan --retry-failed SUMMARY``: plan again only the clusters an earlier run could not plan.

``retry_selection`` picks, from ``fleet.yaml``, the clusters that ``SUMMARY`` lists as failed, unreadable
or skipped. When the retry writes into the folder of ``SUMMARY`` itself, the clusters that run did plan and
that were not applied since (``applied_since``) are carried into the new summary unchanged
(``carried_outcomes``): their plan files stay (each checked against the checksum the earlier run recorded),
their counts and drift come from that run's summary and ``drift.parquet``, and their entry names the run that
planned them (``planned_in_run``); every other cluster is planned again. The folder then again describes the
whole fleet, and ``fleet apply`` takes the carried plans as well as the new ones.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from reconciler.base import errors
from reconciler.fleet import planning, sources, spec, summary
from reconciler.model import plans


def load_previous(path: Path) -> dict[str, Any]:
    """The fleet summary at ``path`` (a ``summary.json`` or the folder holding it); ``ConfigError`` otherwise."""
    file = path / "summary.json" if path.is_dir() else path
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise errors.ConfigError(f"--retry-failed {file}: cannot read it as a fleet summary: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != summary.SUMMARY_FORMAT:
        raise errors.ConfigError(f"--retry-failed {file}: not a fleet plan summary.json")
    doc["_path"] = str(file)
    return doc


def not_planned(previous: Mapping[str, Any]) -> list[str]:
    """The clusters the earlier run could not plan (failed, unreadable, skipped), in name order."""
    return sorted(str(c["name"]) for c in previous.get("clusters", []) if c.get("status") != planning.STATUS_PLANNED)


def retry_selection(fleet: spec.FleetSpec, previous: Mapping[str, Any]) -> spec.FleetSpec:
    """The clusters of ``fleet`` that the earlier run could not plan (in file order)."""
    wanted = set(not_planned(previous))
    return dataclasses.replace(fleet, clusters=tuple(c for c in fleet.clusters if c.name in wanted))


def _drift_of(folder: Path, names: set[str]) -> dict[str, list[planning.Drift]]:
    out: dict[str, list[planning.Drift]] = {n: [] for n in names}
    path = folder / "drift.parquet"
    if not names or not path.is_file() or not sources.parquet_available():
        return out
    import pyarrow.parquet as pq

    columns = ["cluster", "kind", "name", "action", "attributes", "names"]
    for row in pq.read_table(str(path), columns=columns).to_pylist():
        if row["cluster"] in out:
            out[row["cluster"]].append(
                planning.Drift(row["kind"], row["name"], row["action"], int(row["attributes"]), tuple(row["names"]))
            )
    return out


def applied_since(previous: Mapping[str, Any], out_dir: Path) -> set[str]:
    """The clusters whose plan of the earlier run was applied since (its plan no longer describes the cluster).

    Read from the apply files in ``out_dir``: a ``<cluster>/apply-report.json`` of a real apply (not a dry
    run; a plan run removes the reports of the plans it replaces, so one left belongs to this run's plan), and
    the clusters ``apply-summary.json`` lists as applied or partial for this run.
    """
    from reconciler.fleet import outputs

    found: set[str] = set()
    for entry in previous.get("clusters", []):
        name = str(entry["name"])
        try:
            report = json.loads((out_dir / name / outputs.APPLY_REPORT).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(report, dict) and report.get("dry_run") is False:
            found.add(name)
    try:
        applied = json.loads((out_dir / outputs.APPLY_SUMMARY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return found
    if isinstance(applied, dict) and applied.get("plan_run") == previous["run"]["id"] and not applied.get("dry_run"):
        found |= {str(c["name"]) for c in applied.get("clusters", []) if c.get("status") in ("applied", "partial")}
    return found


def same_folder(previous: Mapping[str, Any], out_dir: Path) -> bool:
    """Whether the retry writes into the folder of the summary it retries."""
    return Path(str(previous["_path"])).parent.resolve() == out_dir.resolve()


def carried_outcomes(
    previous: Mapping[str, Any],
    *,
    fleet: spec.FleetSpec,
    out_dir: Path,
    skip: Collection[str] = (),
) -> list[planning.ClusterOutcome]:
    """The planned clusters of the earlier run, as outcomes of the new run, when it writes into the same folder.

    Only clusters still in ``fleet``, not in ``skip`` (applied since: ``applied_since``), whose plan file is still
    the one the earlier run recorded.
    """
    folder = Path(str(previous["_path"])).parent
    if not same_folder(previous, out_dir):
        return []
    known = {c.name for c in fleet.clusters} - set(skip)
    entries = [
        c for c in previous.get("clusters", []) if c.get("status") == planning.STATUS_PLANNED and c["name"] in known
    ]
    kept = []
    for entry in entries:
        try:
            checksum = plans.Plan.load(out_dir / entry["name"] / "plan.json").to_json_dict()["checksum"]
        except errors.ReconcilerError:
            continue
        if checksum == entry.get("plan_checksum"):
            kept.append(entry)
    drift = _drift_of(folder, {str(e["name"]) for e in kept})
    run_id = str(previous["run"]["id"])
    return [
        planning.ClusterOutcome(
            cluster=str(e["name"]),
            status=planning.STATUS_PLANNED,
            drift=tuple(drift[str(e["name"])]),
            differing=int(e.get("resources_differing", 0)),
            digest=planning.PlanDigest(
                cluster_id=e.get("cluster_id"),
                checksum=str(e["plan_checksum"]),
                counts={a: int(n) for a, n in e["counts"].items()},
                by_kind={k: {a: int(n) for a, n in v.items()} for k, v in e.get("by_kind", {}).items()},
                warnings=int(e.get("warnings", 0)),
                errors=int(e.get("errors", 0)),
                impact=e.get("impact"),
            ),
            planned_in=str(e.get("planned_in_run") or run_id),
        )
        for e in kept
    ]
