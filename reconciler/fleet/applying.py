"""``run_fleet_apply``: apply the per-cluster plans of one fleet plan output folder, several clusters at once.

The folder a ``fleet plan`` run wrote is the input: its ``summary.json`` names the run and records,
per cluster, the checksum of the plan file it wrote. A cluster is applied only when that run planned
it and its ``<cluster>/plan.json`` is there with exactly that checksum: a missing plan, a plan the
run did not write (left behind, copied in, re-planned since) or a run other than the one asked for
(``run_id``) is never applied. Each cluster is then applied as ``apply --plan`` does it, through
``operations.prepare_apply`` and ``operations.apply``: the plan must be for this cluster and not
stale (the live state it was made against is checked first), the connection must have the rights
the changes need, the self-lockout guard holds, and the apply has its deadline. Changes written through a
REST port (Kafka Connect, a Schema Registry) go through the service the cluster's Cluster profile
names, the one ``fleet plan`` read (``reconciler.ports``).

Clusters run on a small thread pool (``concurrency``); a cluster that fails, is refused or is down
never stops the others. Connections come from ``fleet.yaml`` (bootstrap, commandConfig, profile of
the cluster's manifests), as for ``fleet plan``. Each cluster's apply report goes to
``<cluster>/apply-report.json`` and the run's outcome to ``apply-summary.json``.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import functools
import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler import manifests, operations
from reconciler import ports as rest_ports
from reconciler.apply import lock as apply_lock
from reconciler.apply.apply_report import ApplyReport
from reconciler.base import errors, fileio, interrupt
from reconciler.fleet import lock, outputs, planning, report_html, sources, spec, summary
from reconciler.fleet.apply_results import (
    APPLIED,
    FAILED,
    NO_CHANGES,
    NOT_APPLIED,
    OK_STATUSES,
    PARTIAL,
    REFUSED,
    SKIPPED,
    STATUSES,
    UNREACHABLE,
    VALIDATED,
    ClusterApply,
    FleetApplyResult,
)
from reconciler.model import plans

APPLY_FORMAT = "kafka-reconciler/fleet-apply"
APPLY_SUMMARY = outputs.APPLY_SUMMARY
APPLY_REPORT = outputs.APPLY_REPORT
CONCURRENCY = 4


@dataclasses.dataclass(frozen=True, slots=True)
class PlannedCluster:
    """A cluster of the plan run, with its plan when the run's checks pass (else ``problem`` says why not)."""

    spec: spec.ClusterSpec
    plan: plans.Plan | None
    problem: str | None


def read_run(out_dir: Path) -> dict[str, Any]:
    """The ``summary.json`` of a fleet plan output folder; ``ConfigError`` when there is none."""
    path = out_dir / "summary.json"
    if not summary.is_fleet_output(out_dir):
        raise errors.ConfigError(f"{path}: not found or not a fleet plan summary; run fleet plan --out {out_dir} first")
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def _check_plan(out_dir: Path, entry: Mapping[str, Any] | None, *, run_id: str) -> tuple[plans.Plan | None, str | None]:
    if entry is None:
        return None, f"not in plan run {run_id}"
    if entry.get("status") != planning.STATUS_PLANNED:
        return None, f"not planned in run {run_id} ({entry.get('status')}: {entry.get('reason')})"
    name = str(entry["name"])
    path = out_dir / name / "plan.json"
    if not path.is_file():
        return None, f"{path} is missing"
    try:
        p = plans.Plan.load(path)
    except errors.ReconcilerError as exc:
        return None, str(exc)
    found = p.to_json_dict()["checksum"]
    if found != entry.get("plan_checksum"):
        return None, f"{path} is not the plan run {run_id} wrote (checksum {str(found)[:12]}...); re-run fleet plan"
    return p, None


def planned_clusters(
    fleet: spec.FleetSpec, out_dir: Path, *, run_id: str | None = None
) -> tuple[str, list[PlannedCluster]]:
    """The run id of ``out_dir`` and each cluster of ``fleet`` with its checked plan.

    ``ConfigError`` when the folder holds no fleet plan, or one of another run than ``run_id``.
    """
    doc = read_run(out_dir)
    found = str(doc["run"]["id"])
    if run_id is not None and run_id != found:
        raise errors.ConfigError(
            f"{out_dir / 'summary.json'} is run {found}, not {run_id}: the folder was planned again; "
            "review its report and apply that run"
        )
    entries = {str(c["name"]): c for c in doc.get("clusters", [])}
    out = []
    for cluster in fleet.clusters:
        p, problem = _check_plan(out_dir, entries.get(cluster.name), run_id=found)
        if p is not None and cluster.snapshot is not None:
            p, problem = None, "planned from a snapshot: give it a connection (bootstrap, profile) to apply it"
        out.append(PlannedCluster(cluster, p, problem))
    return found, out


def _target(cluster: spec.ClusterSpec, loaded: manifests.LoadResult | None) -> operations.Target:
    return operations.Target(
        cluster=cluster.profile,
        bootstrap_server=cluster.bootstrap,
        command_config=cluster.command_config,
        profiles={} if loaded is None else loaded.profiles,
    )


def _runnable(
    items: Sequence[PlannedCluster],
    desired_sets: Mapping[str, sources.DesiredSet],
    *,
    done: Callable[[ClusterApply], None],
) -> list[tuple[PlannedCluster, manifests.LoadResult]]:
    """The clusters to apply, each with its manifests; the others are ``done`` at once (no plan, or manifests
    that do not load)."""
    runnable = []
    for item in items:
        if item.plan is None:
            done(ClusterApply(item.spec.name, NOT_APPLIED, item.problem, 1))
            continue
        loaded_set = desired_sets[sources.desired_key(item.spec)]
        if loaded_set.desired is not None:  # with its connectors on its profile's Connect clusters, as planned
            loaded_set = sources.placed_set(item.spec, loaded_set, dict(desired_sets))
        if loaded_set.desired is None:
            done(ClusterApply(item.spec.name, REFUSED, f"manifests: {loaded_set.error}", 1))
            continue
        loaded = manifests.LoadResult(loaded_set.desired, dict(loaded_set.profiles), [])
        runnable.append((item, loaded))
    return runnable


def _summary(
    ordered: Sequence[ClusterApply],
    *,
    plan_run: str,
    started_at: datetime.datetime,
    seconds: float,
    dry_run: bool,
) -> dict[str, Any]:
    """The apply summary document (``APPLY_SUMMARY``): the run applied, when, how long, and each cluster."""
    return {
        "format": APPLY_FORMAT,
        "version": 1,
        "plan_run": plan_run,
        "apply_id": uuid.uuid4().hex,
        "started_at": started_at.isoformat(),
        "duration_s": round(seconds, 3),
        "dry_run": dry_run,
        "status": "partial" if any(c.status not in OK_STATUSES for c in ordered) else "complete",
        "outcomes": status_counts(ordered),
        "clusters": [c.to_dict() for c in ordered],
    }


def status_counts(clusters: Sequence[ClusterApply]) -> dict[str, int]:
    """How many clusters had each outcome (every outcome listed, in ``STATUSES`` order)."""
    counts = dict.fromkeys(STATUSES, 0)
    for c in clusters:
        counts[c.status] += 1
    return counts


def _refusal(exc: errors.ReconcilerError) -> str:
    """``unreachable`` for a cluster (or the service of a REST port its plan writes through: a Kafka Connect cluster,
    its Schema Registry) that could not be reached, else ``refused``."""
    down = rest_ports.down(exc)
    if down is None:
        down = isinstance(exc, errors.ConnectionFailed) and not isinstance(exc, errors.AuthenticationFailed)
    return UNREACHABLE if down else REFUSED


def ports_of(cluster: spec.ClusterSpec, loaded: manifests.LoadResult | None, p: plans.Plan) -> dict[str, Any]:
    """The REST ports a cluster's plan is applied through, by name: those the cluster's Cluster profile names, as
    ``fleet plan`` read them (``reconciler.ports.to_apply_in_profile``; Kafka Connect: with several Connect clusters,
    only those its connector keys name). ``ConfigError`` (the cluster is refused, nothing written) when the plan
    writes through a port the profile does not name."""
    chosen = None if loaded is None or cluster.profile is None else loaded.profiles.get(cluster.profile)
    return rest_ports.to_apply_in_profile(p, cluster=cluster.name, profile=chosen, profile_name=cluster.profile)


def _apply_one(
    item: PlannedCluster,
    *,
    loaded: manifests.LoadResult | None,
    out_dir: Path,
    dry_run: bool,
    timeout_s: float | None,
    deadline_at: float | None,
    cluster_lock: apply_lock.LockRequest | None = None,
) -> ClusterApply:
    name = item.spec.name
    started = time.monotonic()
    p = item.plan
    assert p is not None
    if interrupt.requested():
        return ClusterApply(name, SKIPPED, "not started: the run was interrupted (Ctrl-C)")
    if deadline_at is not None:
        left = deadline_at - time.time()
        if left <= 0:
            return ClusterApply(name, SKIPPED, "not started: the run's deadline (--deadline) had passed")
        timeout_s = left if timeout_s is None else min(timeout_s, left)
    if not operations.has_work(p):
        return ClusterApply(name, NO_CHANGES)
    opened: dict[str, Any] = {}
    try:
        opened = ports_of(item.spec, loaded, p)
        adapter, ops = operations.prepare_apply(
            p, target=_target(item.spec, loaded), timeout_s=timeout_s, dry_run=dry_run
        )
        report = operations.apply(
            p,
            adapter,
            dry_run=dry_run,
            timeout_s=timeout_s,
            loaded=loaded,
            ports=opened,
            lock=cluster_lock,
            ops=ops,  # decoded once, by prepare_apply; each cluster's thread hands its own plan's operations on
        )
    except errors.ReconcilerError as exc:  # raised before any write (apply_plan's contract)
        return ClusterApply(name, _refusal(exc), str(exc) or type(exc).__name__, 1, seconds=time.monotonic() - started)
    except Exception as exc:  # one cluster's surprise never stops the others
        return ClusterApply(name, FAILED, f"{type(exc).__name__}: {exc}", 1, seconds=time.monotonic() - started)
    finally:
        rest_ports.close(opened)
    path = out_dir / name / APPLY_REPORT
    fileio.write_file(path, report.to_json())  # a report: nothing secret in it, so the umask decides
    return _applied(name, report, path=path, dry_run=dry_run, seconds=time.monotonic() - started)


def _applied(name: str, report: ApplyReport, *, path: Path, dry_run: bool, seconds: float) -> ClusterApply:
    """The outcome of a cluster whose apply ran: its report's exit code, its first failures, its counts."""
    failed = report.failed()
    reason = None
    if report.exit_code:
        reason = "; ".join(f"{i.address}: {i.outcome.value}" for i in failed[:3]) or "did not converge"
        if len(failed) > 3:
            reason += f" (and {len(failed) - 3} more)"
    status = PARTIAL if report.exit_code else VALIDATED if dry_run else APPLIED
    return ClusterApply(name, status, reason, report.exit_code, report.counts(), path, seconds)


def run_fleet_apply(
    fleet: spec.FleetSpec,
    *,
    out_dir: Path,
    run_id: str | None = None,
    concurrency: int = CONCURRENCY,
    dry_run: bool = False,
    timeout_s: float | None = None,
    deadline_s: float | None = None,
    env: Mapping[str, str] | None = None,
    on_done: Callable[[ClusterApply], None] | None = None,
    planned: Sequence[PlannedCluster] | None = None,
    cluster_lock: apply_lock.LockRequest | None = None,
) -> FleetApplyResult:
    """Apply the plans of the fleet plan run in ``out_dir`` to the clusters of ``fleet``.

    Each cluster's apply holds that cluster's apply lock as ``cluster_lock`` asks (``None``: not taken); a cluster
    whose lock another apply holds is ``refused``.
    After a Ctrl-C (``reconciler.base.interrupt``) no cluster starts (``skipped``) and the result says so.

    ``run_id`` pins the run (the one whose report was reviewed). ``timeout_s`` bounds each cluster's
    apply (default: as ``apply``), ``deadline_s`` the whole run (a cluster not started by then is
    ``skipped``). ``env`` feeds ``${VAR}`` in the manifests, read for connection profiles and the
    sensitive values a plan holds redacted. ``planned`` is ``planned_clusters``' answer when the
    caller already has it (it showed it before asking for confirmation). ``on_done`` is called per
    cluster as it finishes.
    """
    if concurrency < 1:
        raise errors.ConfigError(f"concurrency must be at least 1, got {concurrency}")
    if deadline_s is not None and deadline_s <= 0:
        raise errors.ConfigError(f"the run deadline must be positive, got {deadline_s} s")
    with lock.hold(out_dir, command=lock.command_line(), create=False):
        return _run(
            fleet,
            out_dir=out_dir,
            run_id=run_id,
            concurrency=concurrency,
            dry_run=dry_run,
            timeout_s=timeout_s,
            deadline_s=deadline_s,
            env=env,
            on_done=on_done,
            planned=planned,
            cluster_lock=cluster_lock,
        )


def _run(
    fleet: spec.FleetSpec,
    *,
    out_dir: Path,
    run_id: str | None,
    concurrency: int,
    dry_run: bool,
    timeout_s: float | None,
    deadline_s: float | None,
    env: Mapping[str, str] | None,
    on_done: Callable[[ClusterApply], None] | None,
    planned: Sequence[PlannedCluster] | None,
    cluster_lock: apply_lock.LockRequest | None,
) -> FleetApplyResult:
    """``run_fleet_apply`` once the folder is locked."""
    clock = time.monotonic()
    started_at = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    deadline_at = None if deadline_s is None else time.time() + deadline_s
    if planned is None:
        found, items = planned_clusters(fleet, out_dir, run_id=run_id)
    else:
        found, items = read_run(out_dir)["run"]["id"], list(planned)
    for item in items:  # a cluster refused, skipped or not applied now keeps no report of an earlier apply
        outputs.remove_apply_report(out_dir, item.spec.name)
    desired_sets = sources.load_desired([i.spec for i in items if i.plan is not None], env=env)
    results: dict[str, ClusterApply] = {}
    lock = threading.Lock()

    def done(result: ClusterApply) -> None:
        with lock:
            results[result.name] = result
        if on_done is not None:
            on_done(result)

    runnable = _runnable(items, desired_sets, done=done)
    if runnable:
        workers = min(concurrency, len(runnable))
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fleet-apply") as pool:
            apply_one = functools.partial(
                _apply_one, out_dir=out_dir, dry_run=dry_run, timeout_s=timeout_s, deadline_at=deadline_at
            )
            futures = [
                pool.submit(apply_one, item, loaded=loaded, cluster_lock=cluster_lock) for item, loaded in runnable
            ]
            for future in concurrent.futures.as_completed(futures):
                done(future.result())
    ordered = tuple(results[i.spec.name] for i in items)
    seconds = time.monotonic() - clock
    doc = _summary(ordered, plan_run=found, started_at=started_at, seconds=seconds, dry_run=dry_run)
    fileio.write_file(out_dir / APPLY_SUMMARY, json.dumps(doc, indent=2) + "\n")
    report_html.rewrite_after_apply(out_dir, doc)  # the apply results beside the plans
    return FleetApplyResult(run_id=found, clusters=ordered, summary=doc, seconds=seconds, dry_run=dry_run)
