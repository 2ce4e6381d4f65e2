"""Which files of a fleet output folder each step owns, and what each step removes when it supersedes them.

``fleet plan`` owns ``<cluster>/plan.json``, ``summary.json``, ``report.md``, ``report.html``, the Parquet
tables and ``history/``; ``fleet apply`` owns ``<cluster>/apply-report.json`` and ``apply-summary.json``.
A step removes the files of the steps it supersedes, so that no file left from an earlier step contradicts
the current one:

- a plan run removes the plan of every cluster it did not plan (``remove_stale_plans``), the previous
  apply's ``apply-summary.json`` (it applied plans that are gone) and every cluster's ``apply-report.json``
  except those of the clusters whose plans it keeps (``fleet plan --retry-failed``; ``remove_apply_files``);
- a failed plan run (its engine failed: Spark could not start, its job failed) supersedes nothing and removes
  nothing: the plans and apply files of the last successful run stay (``earlier_plans`` names the plans kept);
- an apply removes each cluster's ``apply-report.json`` before it starts on the cluster
  (``remove_apply_report``), so a cluster refused, skipped or not applied now shows no report from an
  earlier apply (a dry run's, say), and it replaces ``apply-summary.json``.

Only in a folder an earlier fleet run wrote (its ``summary.json`` says so), only these file names, and only
in folders named like a cluster: nothing else a user keeps there is touched; a cluster folder left empty goes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from pathlib import Path

from reconciler.base import fileio
from reconciler.fleet import planning, spec, summary

PLAN = "plan.json"
APPLY_REPORT = "apply-report.json"
APPLY_SUMMARY = "apply-summary.json"


def write_plan(out_dir: Path, outcome: planning.ClusterOutcome) -> Path | None:
    """``<cluster>/plan.json`` for a planned cluster (``None``: nothing to write)."""
    if outcome.plan_json is None:
        return None
    directory = out_dir / outcome.cluster
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / PLAN
    fileio.write_private_file(path, outcome.plan_json)
    return path


def _unlink(path: Path) -> None:
    path.unlink()
    with contextlib.suppress(OSError):
        if not any(path.parent.iterdir()):
            path.parent.rmdir()


def _cluster_files(out_dir: Path, name: str, *, keep: Collection[str]) -> list[Path]:
    return [
        p for p in sorted(out_dir.glob(f"*/{name}")) if p.parent.name not in keep and spec.valid_name(p.parent.name)
    ]


def earlier_plans(out_dir: Path, planned: Collection[str]) -> list[str]:
    """The clusters whose ``<cluster>/plan.json`` an earlier run wrote and this run did not plan (what a successful
    run removes with ``remove_stale_plans``, and a failed run keeps)."""
    if not summary.is_fleet_output(out_dir):
        return []
    return [p.parent.name for p in _cluster_files(out_dir, PLAN, keep=planned)]


def remove_stale_plans(out_dir: Path, planned: Collection[str]) -> list[str]:
    """Remove ``<cluster>/plan.json`` an earlier run left for a cluster this run did not plan; their names."""
    if not summary.is_fleet_output(out_dir):
        return []
    stale = _cluster_files(out_dir, PLAN, keep=planned)
    for path in stale:
        _unlink(path)
    return [p.parent.name for p in stale]


def remove_apply_files(out_dir: Path, *, kept: Collection[str]) -> list[str]:
    """A plan run's removal of the apply files it supersedes: ``apply-summary.json`` and every cluster's
    ``apply-report.json`` but those of the ``kept`` clusters (plans carried over); the files removed."""
    if not summary.is_fleet_output(out_dir):
        return []
    removed = []
    if (out_dir / APPLY_SUMMARY).is_file():
        (out_dir / APPLY_SUMMARY).unlink()
        removed.append(APPLY_SUMMARY)
    for path in _cluster_files(out_dir, APPLY_REPORT, keep=kept):
        _unlink(path)
        removed.append(f"{path.parent.name}/{APPLY_REPORT}")
    return removed


def remove_apply_report(out_dir: Path, cluster: str) -> None:
    """An apply's removal of the cluster's report of an earlier apply, before it starts on the cluster."""
    with contextlib.suppress(FileNotFoundError):
        (out_dir / cluster / APPLY_REPORT).unlink()
