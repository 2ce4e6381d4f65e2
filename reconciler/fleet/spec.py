"""``fleet.yaml``: the list of clusters a fleet plan covers, validated with positions for every problem.

The file is read with the manifests' YAML reader (``manifests.yamlio``), which records the line and
column of every key and value, and validated with strict pydantic models; each problem becomes an
``errors.Diagnostic`` naming file, line and column, and all of them are raised together as
``errors.ValidationFailed``. Relative paths are resolved against the directory of ``fleet.yaml``.
Field names are camelCase in YAML, as in the manifests.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
from pydantic.alias_generators import to_camel

from reconciler.base import errors
from reconciler.manifests import yamlio

NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
# Files the run writes next to the per-cluster directories: no cluster may be named like one.
RESERVED_NAMES = frozenset(
    {"summary.json", "report.md", "report.html", "clusters.parquet", "drift.parquet", "apply-summary.json", "history"}
)


# Labels group the clusters in the report (environment, team, region, ...): short keys, plain values.
LabelKey = Annotated[str, pydantic.StringConstraints(pattern=r"^[a-z][a-z0-9_.-]{0,39}$")]
LabelValue = Annotated[str, pydantic.StringConstraints(min_length=1, max_length=100)]
LABEL_ORDER = ("environment", "team", "region")  # the report groups by these first, then by any other key


class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True)


class Defaults(_Strict):
    """Values every cluster entry falls back to."""

    manifests: list[str] | str | None = None
    environment: str | None = None
    request_timeout_ms: int | None = pydantic.Field(default=None, gt=0)
    labels: dict[LabelKey, LabelValue] | None = None


class ClusterEntry(_Strict):
    """One cluster: where its manifests are, and how to read its live state (a connection or a snapshot)."""

    name: str = pydantic.Field(pattern=f"^{NAME_PATTERN}$")
    manifests: list[str] | str | None = None
    environment: str | None = None
    profile: str | None = None
    bootstrap: str | None = None
    command_config: str | None = None
    snapshot: str | None = None
    request_timeout_ms: int | None = pydantic.Field(default=None, gt=0)
    labels: dict[LabelKey, LabelValue] | None = None

    @pydantic.model_validator(mode="after")
    def _snapshot_or_connection(self) -> ClusterEntry:
        if self.snapshot is not None and (self.profile or self.bootstrap or self.command_config):
            raise ValueError("give either snapshot or a connection (profile, bootstrap, commandConfig), not both")
        return self


class FleetFile(_Strict):
    """The whole ``fleet.yaml`` document."""

    version: Literal[1] = 1
    defaults: Defaults = Defaults()
    clusters: list[ClusterEntry] = pydantic.Field(min_length=1)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterSpec:
    """One cluster of the fleet, with defaults applied and paths made absolute."""

    name: str
    manifests: tuple[Path, ...]
    environment: str | None = None
    profile: str | None = None
    bootstrap: str | None = None
    command_config: Path | None = None
    snapshot: Path | None = None
    request_timeout_ms: int | None = None
    labels: tuple[tuple[str, str], ...] = ()  # defaults' labels, then the cluster's; environment included

    @property
    def source(self) -> str:
        """Where the live state comes from, for messages (never a credential)."""
        if self.snapshot is not None:
            return f"snapshot {self.snapshot}"
        if self.bootstrap:
            return f"bootstrap {self.bootstrap}"
        if self.profile:
            return f"profile {self.profile}"
        if self.command_config is not None:
            return f"command config {self.command_config}"
        return "the manifests' only Cluster profile"


@dataclasses.dataclass(frozen=True, slots=True)
class FleetSpec:
    """The clusters of a fleet plan, in file order."""

    clusters: tuple[ClusterSpec, ...]
    source: str | None = None


def _paths(value: list[str] | str | None, base: Path) -> tuple[Path, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    return tuple(_resolve(v, base) for v in items)


def _resolve(value: str, base: Path) -> Path:
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else base / path


def _message(err: Mapping[str, Any]) -> str:
    kind = str(err["type"])
    loc = tuple(err["loc"])
    if "labels" in loc[:-1]:
        if loc[-1] == "[key]":
            return (
                f"label {err.get('input')!r}: a label is lowercase letters, digits, '_', '.' or '-', starting with a "
                "letter, at most 40 characters"
            )
        return f"label {loc[-1]}: {str(err['msg']).lower()}"
    if kind not in ("missing", "extra_forbidden") and (not loc or not isinstance(loc[-1], str)):
        return str(err["msg"]).removeprefix("Value error, ")
    field = to_camel(str(loc[-1])) if loc else "document"
    if kind == "missing":
        return f"missing required field {field!r}"
    if kind == "extra_forbidden":
        return f"unknown field {field!r}"
    if kind == "string_pattern_mismatch":
        return f"{field} {err.get('input')!r} must be letters, digits, '.', '_' or '-' (it names a directory)"
    return f"{field}: {str(err['msg']).removeprefix('Value error, ')}"


def _camel_path(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    """The YAML path of a pydantic error location: fields in camelCase; label keys as written, ``[key]`` dropped."""
    at = loc.index("labels") + 1 if "labels" in loc else len(loc)
    fields = tuple(to_camel(p) if isinstance(p, str) else int(p) for p in loc[:at])
    return (*fields, *(str(p) for p in loc[at:] if p != "[key]"))


def parse(raw: yamlio.RawDocument) -> FleetSpec:
    """Validate one parsed ``fleet.yaml`` document; raises ``ValidationFailed`` with positioned diagnostics."""
    diags: list[errors.Diagnostic] = []
    try:
        doc = FleetFile.model_validate(raw.data)
    except pydantic.ValidationError as exc:
        for err in exc.errors(include_url=False):
            path = _camel_path(tuple(err["loc"]))
            key = str(err["type"]) in ("missing", "extra_forbidden")
            diags.append(raw.diagnostic(path[:-1] if err["type"] == "missing" else path, _message(err), key=key))
        raise errors.ValidationFailed(diags) from None
    seen: dict[str, int] = {}
    for index, entry in enumerate(doc.clusters):
        if entry.name in seen:
            where = raw.position(("clusters", seen[entry.name], "name"))
            diags.append(
                raw.diagnostic(
                    ("clusters", index, "name"),
                    f"cluster {entry.name!r} is listed twice (first at line {where[1]})",
                )
            )
        seen.setdefault(entry.name, index)
        if entry.name in RESERVED_NAMES:
            diags.append(
                raw.diagnostic(
                    ("clusters", index, "name"), f"{entry.name!r} is the name of a summary file; rename the cluster"
                )
            )
        if entry.manifests is None and doc.defaults.manifests is None:
            diags.append(
                raw.diagnostic(
                    ("clusters", index),
                    f"cluster {entry.name!r} has no manifests",
                    hint="set manifests on the cluster or under defaults",
                )
            )
    if diags:
        raise errors.ValidationFailed(diags)
    base = raw.directory
    clusters = []
    for entry in doc.clusters:
        clusters.append(
            ClusterSpec(
                name=entry.name,
                manifests=_paths(entry.manifests if entry.manifests is not None else doc.defaults.manifests, base),
                environment=entry.environment if entry.environment is not None else doc.defaults.environment,
                profile=entry.profile,
                bootstrap=entry.bootstrap,
                command_config=None if entry.command_config is None else _resolve(entry.command_config, base),
                snapshot=None if entry.snapshot is None else _resolve(entry.snapshot, base),
                request_timeout_ms=entry.request_timeout_ms or doc.defaults.request_timeout_ms,
                labels=_labels(doc.defaults, entry),
            )
        )
    return FleetSpec(clusters=tuple(clusters), source=raw.file)


def _labels(defaults: Defaults, entry: ClusterEntry) -> tuple[tuple[str, str], ...]:
    """A cluster's labels: the defaults' and its own (its own win), ``environment`` from the overlay unless a label
    sets it; in ``LABEL_ORDER``, then by key."""
    merged = {**(defaults.labels or {}), **(entry.labels or {})}
    environment = entry.environment if entry.environment is not None else defaults.environment
    if environment is not None:
        merged.setdefault("environment", environment)
    rank = {k: i for i, k in enumerate(LABEL_ORDER)}
    return tuple(sorted(merged.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def load_fleet(path: Path, *, env: Mapping[str, str] | None = None) -> FleetSpec:
    """Read and validate ``fleet.yaml`` (``${VAR}`` substituted from ``env``, default the process environment)."""
    diags: list[errors.Diagnostic] = []
    documents = yamlio.read_documents(path, display=str(path), env=os.environ if env is None else env, diags=diags)
    problems = errors.errors_only(diags)
    if problems:
        raise errors.ValidationFailed(diags)
    if len(documents) != 1:
        raise errors.ValidationFailed(
            [errors.Diagnostic(message=f"expected one YAML document, found {len(documents)}", file=str(path))]
        )
    raw = documents[0]
    if not isinstance(raw.data, dict):
        raise errors.ValidationFailed([raw.diagnostic((), "fleet.yaml must be a mapping with a 'clusters' list")])
    return parse(raw)


def valid_name(name: str) -> bool:
    """Whether ``name`` may name a cluster; the runner removes a stale ``<name>/plan.json`` only for such names."""
    return re.fullmatch(NAME_PATTERN, name) is not None
