"""Where each cluster's two sides come from: manifests for the desired state, a snapshot or the wire for live.

``load_desired`` loads each distinct manifest set (paths + environment) once, however many clusters
share it. ``read_live_rows`` turns one ``ClusterTask`` into live rows: from a JSON snapshot, a Parquet
snapshot (the row model stored by ``write_parquet_snapshot``), or the cluster itself through
``KafkaAdapter``, with what the REST ports its Cluster profile names hold of the kinds the manifests
declare or own (``read_ports``: Kafka Connect's connectors and plugins with the validate endpoint's answers,
the Schema Registry's subjects, as ``plan`` reads them). It never raises for a cluster that cannot be read:
it returns the error row with the reason (a port that cannot be read included), so one cluster down does
not stop the fleet. Tasks hold no secret: connection secrets
are resolved where the task runs (on Spark, in the executor) from the environment or secret files.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from reconciler import operations
from reconciler import ports as rest_ports
from reconciler.base import errors
from reconciler.connection import layers as connection_sources
from reconciler.fleet import rows, spec
from reconciler.manifests import ClusterProfile
from reconciler.model import desired, state
from reconciler.snapshot import files

PARQUET_COLUMNS = ("kind", "name", "attribute", "value")
MIN_REQUEST_TIMEOUT_MS = 1000  # a read that starts just before the deadline still gets this long per request


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterTask:
    """Everything needed to read one cluster's live state, picklable and free of secrets."""

    name: str
    desired_key: str
    snapshot: str | None = None
    bootstrap: str | None = None
    command_config: str | None = None
    profile: str | None = None
    profiles: Mapping[str, ClusterProfile] = dataclasses.field(default_factory=dict)
    request_timeout_ms: int | None = None
    deadline_at: float | None = None  # the run's deadline (epoch seconds): no request waits past it


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredSet:
    """The desired state of one manifest set, or why it could not be loaded."""

    key: str
    desired: desired.DesiredState | None
    profiles: Mapping[str, ClusterProfile]
    error: str | None = None


def desired_key(cluster: spec.ClusterSpec) -> str:
    return "|".join([*(str(p) for p in cluster.manifests), f"env={cluster.environment or ''}"])


def load_desired(
    clusters: Iterable[spec.ClusterSpec], *, env: Mapping[str, str] | None = None
) -> dict[str, DesiredSet]:
    """Each distinct manifest set of the fleet, loaded once; invalid manifests are kept as an error."""
    out: dict[str, DesiredSet] = {}
    for cluster in clusters:
        key = desired_key(cluster)
        if key in out:
            continue
        try:
            result = operations.load_manifests(list(cluster.manifests), environment=cluster.environment, env=env)
        except errors.ValidationFailed as exc:
            problems = errors.errors_only(exc.diagnostics)
            first = problems[0].format() if problems else str(exc)
            out[key] = DesiredSet(key, None, {}, f"{len(problems)} error(s) in the manifests; first: {first}")
            continue
        out[key] = DesiredSet(key, result.desired, dict(result.profiles))
    return out


def placed_set(cluster: spec.ClusterSpec, loaded: DesiredSet, sets: dict[str, DesiredSet]) -> DesiredSet:
    """``loaded`` with its resources on the services of the REST ports ``cluster``'s Cluster profile names
    (``reconciler.ports.placed_on``: connectors on its Kafka Connect clusters, keyed ``<cluster>/<name>`` when it names
    several), kept in ``sets`` under a key of its own so clusters whose profiles name the same services share it; a
    placement error (an unknown or missing ``connectCluster``) is that set's error. ``loaded`` itself when nothing is to
    place. Without ``profile``, a cluster not reached by ``bootstrap`` or ``commandConfig`` (a snapshot included) takes
    the manifests' only Cluster profile, as ``plan`` does."""
    chosen = loaded.profiles.get(cluster.profile) if cluster.profile else None
    if chosen is None and not cluster.profile and not cluster.bootstrap and cluster.command_config is None:
        chosen = next(iter(loaded.profiles.values())) if len(loaded.profiles) == 1 else None
    services = rest_ports.services_in(chosen)
    if loaded.desired is None or not services:
        return loaded
    key = loaded.key + "".join(f"|{port}={','.join(names)}" for port, names in services.items())
    if key in sets:
        return sets[key]
    try:
        placed = rest_ports.placed_on(loaded.desired, services)
    except errors.ValidationFailed as exc:
        first = exc.diagnostics[0].format()
        sets[key] = DesiredSet(key, None, {}, f"{len(exc.diagnostics)} error(s) in the manifests; first: {first}")
        return sets[key]
    if placed is loaded.desired:  # it declares nothing to place
        return loaded
    sets[key] = DesiredSet(key, placed, loaded.profiles)
    return sets[key]


def make_task(cluster: spec.ClusterSpec, desired_set: DesiredSet) -> ClusterTask:
    return ClusterTask(
        name=cluster.name,
        desired_key=desired_set.key,
        snapshot=None if cluster.snapshot is None else str(cluster.snapshot),
        bootstrap=cluster.bootstrap,
        command_config=None if cluster.command_config is None else str(cluster.command_config),
        profile=cluster.profile,
        profiles=dict(desired_set.profiles),
        request_timeout_ms=cluster.request_timeout_ms,
    )


def _read_over_the_wire(task: ClusterTask, wanted: desired.DesiredState) -> state.ClusterState:
    from reconciler.kafka.adapter import KafkaAdapter

    settings = connection_sources.resolve(
        bootstrap_server=task.bootstrap,
        command_config=None if task.command_config is None else Path(task.command_config),
        profile_name=task.profile,
        profiles=task.profiles,
    )
    if task.request_timeout_ms is not None:
        settings = dataclasses.replace(settings, request_timeout_ms=task.request_timeout_ms)
    deadline_s = None
    if task.deadline_at is not None:
        left_ms = max(MIN_REQUEST_TIMEOUT_MS, int((task.deadline_at - time.time()) * 1000))
        settings = dataclasses.replace(settings, request_timeout_ms=min(settings.request_timeout_ms, left_ms))
        deadline_s = left_ms / 1000  # connecting and every wait end by the run's deadline, not only each request
    with KafkaAdapter(settings, deadline_s=deadline_s) as adapter:
        live = operations.read_live(adapter, wanted)
    return read_ports(task, wanted, live, request_bound_s=settings.request_timeout_ms / 1000)


def read_ports(
    task: ClusterTask, wanted: desired.DesiredState, live: state.ClusterState, *, request_bound_s: float
) -> state.ClusterState:
    """``live`` with what the REST ports the task's Cluster profile names hold of the kinds the manifests declare or
    own, read as ``plan`` reads them (``reconciler.ports.in_profile``: Kafka Connect's clusters several at once, one
    that cannot be read degrading only its connectors; the Schema Registry's subjects); else ``live`` as it is (the
    plan then says the port was not read). The services' environment variables (``KAFKA_CONNECT_URL``,
    ``SCHEMA_REGISTRY_URL``) are not used: one variable cannot name every cluster's. No request waits longer than
    ``request_bound_s`` (the cluster's request timeout) nor past the run's deadline (at least 1 s, as the Kafka
    reads). A port that cannot be read raises, naming the profile. The registry's dry run read with the subjects does
    not cross the fleet's rows: a fleet plan leaves a new version's compatibility undecided and blocks a subject's
    delete, saying so."""
    chosen = task.profiles.get(task.profile) if task.profile else None
    return rest_ports.in_profile(
        live,
        wanted,
        profile=chosen,
        profile_name=task.profile,
        request_timeout_s=request_bound_s,
        deadline_at=task.deadline_at,
        min_bound_s=MIN_REQUEST_TIMEOUT_MS / 1000,
    )


def within_deadline(task: ClusterTask, deadline_at: float | None) -> ClusterTask | None:
    """``task`` bounded by the run's deadline (epoch seconds), or ``None`` when the deadline has passed."""
    if deadline_at is None:
        return task
    if time.time() >= deadline_at:
        return None
    return dataclasses.replace(task, deadline_at=deadline_at)


def read_live_rows(task: ClusterTask, wanted: desired.DesiredState) -> list[rows.Row]:
    """The live rows of one cluster, or its error row (the reason never holds a secret)."""
    try:
        if task.snapshot is not None and task.snapshot.endswith(".parquet"):
            return read_parquet_snapshot(Path(task.snapshot))
        if task.snapshot is not None:
            return list(rows.live_rows(files.read_snapshot(Path(task.snapshot))))
        return list(rows.live_rows(_read_over_the_wire(task, wanted)))
    except errors.ReconcilerError as exc:
        return rows.error_rows(str(exc) or type(exc).__name__)
    except (OSError, ValueError, KeyError) as exc:
        return rows.error_rows(f"{type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------------- Parquet snapshots
def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise errors.ConfigError(
            "Parquet needs pyarrow: install kafka-reconciler[spark] (or pip install pyarrow)"
        ) from None
    return pyarrow


def parquet_available() -> bool:
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the installed extras
        return False
    return True


def write_parquet_snapshot(live: state.ClusterState, path: Path) -> None:
    """Store a live state as Parquet rows ``(kind, name, attribute, value)``: the fleet row model."""
    pa = _pyarrow()
    columns: list[list[str | None]] = [[], [], [], []]
    for row in rows.live_rows(live):
        for column, value in zip(columns, row, strict=True):
            column.append(value)
    table = pa.table(
        {name: pa.array(col, type=pa.string()) for name, col in zip(PARQUET_COLUMNS, columns, strict=True)}
    )
    pa.parquet.write_table(table, str(path), compression="zstd")


def read_parquet_snapshot(path: Path) -> list[rows.Row]:
    """The rows of a Parquet snapshot; a file without the four columns raises ``SnapshotError``."""
    pa = _pyarrow()
    try:
        table = pa.parquet.read_table(str(path), columns=list(PARQUET_COLUMNS))
    except (OSError, pa.lib.ArrowInvalid, KeyError) as exc:
        raise errors.SnapshotError(f"cannot read Parquet snapshot {path}: {exc}") from None
    data = [table.column(c).to_pylist() for c in PARQUET_COLUMNS]
    return list(zip(*data, strict=True))
