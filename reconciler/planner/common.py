"""What the per-kind planners share: the planning context that collects results, and the config diff.

The config diff is used for topic configs and dynamic broker configs alike. Desired values are
already Kafka's canonical strings; live values are compared as read first (the common, fast case)
and only canonicalised with ``configs.canonical`` when the raw strings differ.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Mapping

from reconciler.model import configs, defaults, desired, payloads, plans, state
from reconciler.model.kinds import Kind


@dataclasses.dataclass(frozen=True, slots=True)
class PlanOptions:
    """Choices that change what a plan contains, recorded in ``Plan.options``.

    ``rotate_scram_users`` names SCRAM users whose password is re-set even though nothing else
    changed (``--rotate-password USER``): a password cannot be read back, so the planner never
    detects password drift by itself. ``allow_delete_in_use`` and ``in_use_window_ms`` decide whether a topic
    the usage evidence shows in use may be deleted (see ``reconciler.kinds.topic.usage``); ``max_deletes`` raises or
    lowers the number of deletions a plan may hold for one run (see ``reconciler.planner.blast``).
    """

    rotate_scram_users: frozenset[str] = frozenset()
    allow_delete_in_use: bool = False  # delete topics even when the evidence says they are in use
    in_use_window_ms: int = defaults.IN_USE_WINDOW_MS  # a record newer than this makes a topic in use (0: off)
    max_deletes: int | None = None  # --max-deletes: this run's blast-radius limit (None: Ownership's or default)

    def to_dict(self) -> dict[str, object]:
        return {
            "rotate_scram_users": sorted(self.rotate_scram_users),
            "allow_delete_in_use": self.allow_delete_in_use,
            "in_use_window_ms": self.in_use_window_ms,
            **({} if self.max_deletes is None else {"max_deletes": self.max_deletes}),
        }


@dataclasses.dataclass(slots=True)
class Context:
    """Inputs of one planning run and the results collected so far."""

    desired: desired.DesiredState
    live: state.ClusterState
    options: PlanOptions
    changes: list[plans.Change] = dataclasses.field(default_factory=list)
    warnings: list[plans.PlanWarning] = dataclasses.field(default_factory=list)
    unmanaged: list[plans.Unmanaged] = dataclasses.field(default_factory=list)
    unchanged: Counter[Kind] = dataclasses.field(default_factory=Counter)

    def manages_undeclared(self, kind: Kind) -> bool:
        """Whether live resources of ``kind`` that are not declared are looked at (deleted or listed)."""
        return kind in self.desired.ownership.managed_kinds

    def may_delete(self, kind: Kind) -> bool:
        return self.desired.ownership.may_delete(kind)

    def keep_unmanaged(self, *, kind: Kind, name: str, address: str) -> None:
        label = kind.value.replace("_", " ") + "s"
        self.unmanaged.append(
            plans.Unmanaged(
                address=address,
                kind=kind,
                name=name,
                reason=f"not declared; would be deleted, but deletion is disabled for {label}",
            )
        )

    def unreadable(self, kind: Kind, message: str, *, code: str) -> None:
        """An error-level warning for a section that was needed but not read, with the adapter's reason."""
        reason = self.live.unavailable.get(kind)
        self.warn(f"{message} ({reason})" if reason else message, code=code, severity="error")

    def warn(self, message: str, *, code: str, address: str | None = None, severity: str = "warning") -> None:
        self.warnings.append(plans.PlanWarning(message=message, address=address, code=code, severity=severity))


@functools.lru_cache(maxsize=4096)
def is_sensitive(key: str) -> bool:
    """``configs.is_sensitive``, remembered: the planner asks about the same few keys many times."""
    return configs.is_sensitive(key)


def source_text(source: desired.Source | None) -> str | None:
    return None if source is None else str(source)


def shown(value: str | None, *, sensitive: bool) -> str | None:
    """A config value as a plan may hold it: sensitive values become ``plan.REDACTED``."""
    if value is None:
        return None
    return plans.REDACTED if sensitive else value


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigDiff:
    """The config writes that make one config map match (what apply sends), the map as the plan shows it before
    (``before``: sensitive values ``plan.REDACTED``), what the plan shows (derived from both), and undeclared keys that
    were left alone."""

    before: Mapping[str, str | None]
    ops: tuple[payloads.ConfigOp, ...]
    kept: tuple[str, ...]

    @property
    def attributes(self) -> tuple[plans.AttributeChange, ...]:
        return plans.config_attributes(self.before, self.ops)


def diff_configs(
    want: Mapping[str, str],
    have: Mapping[str, str | None],
    *,
    sensitive: Callable[[str], bool],
    default_of: Callable[[str], str | None],
    reset_undeclared: bool,
) -> ConfigDiff:
    """Set what differs, reset what is set live but not declared (when ``reset_undeclared``).

    A key set live to exactly the value it would fall back to is not reset: that is no change.

    A sensitive key cannot be compared: the cluster never returns its value. It is set when it is
    not set on the resource yet and otherwise left alone (change it by removing and re-adding the
    key, or by rotating the secret outside the plan).
    """
    before = {k: plans.REDACTED if sensitive(k) else have[k] for k in sorted(have)}
    if want == have:
        return ConfigDiff(before, (), ())
    ops: list[payloads.ConfigOp] = []
    for key in sorted(want):
        value = want[key]
        if have.get(key) == value:
            continue
        secret = sensitive(key)
        if key in have and (secret or configs.same_value(key, value, have.get(key))):
            continue
        ops.append(payloads.ConfigOp.set(key, plans.REDACTED if secret else value))
    kept: list[str] = []
    for key in sorted(have.keys() - want.keys()):
        if not reset_undeclared:
            kept.append(key)
            continue
        secret = sensitive(key)
        default = default_of(key)
        if not secret and default is not None and configs.same_value(key, default, have[key]):
            continue  # removing it changes nothing: the value it falls back to is the one it has
        ops.append(payloads.ConfigOp.delete(key, shown(default, sensitive=secret)))
    return ConfigDiff(before, tuple(ops), tuple(kept))
