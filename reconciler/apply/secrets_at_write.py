"""The secrets a plan's writes need, read once before the first write: the SCRAM passwords it sets (from their
password references) and the config values it holds only redacted (as the manifests at hand declare them).

A missing one refuses the apply, nothing written (``plan`` warns of an unset password reference beforehand:
``unset_secrets``). Password references are resolved with the shared resolver (``reconciler.connection.secrets``);
this module adds the plan-data forms of a reference and the lookup of sensitive config values, which a plan only
holds as ``plan.REDACTED``, in the desired state. The values go only to the code that sends them
(``apply.batch``), never to a report, a log or an exception message: errors name the user or resource and the
reference, not the value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from reconciler.apply import decoded
from reconciler.apply.preflight import ImpossiblePlan, name_list
from reconciler.base import errors
from reconciler.connection import secrets
from reconciler.connection.settings import Secret
from reconciler.kinds import registry
from reconciler.model import desired, payloads, plans
from reconciler.model.desired import SecretRef
from reconciler.model.kinds import Kind

SecretUnavailable = secrets.SecretUnavailable

# The reveal callback: (kind, resource name, config key) -> the secret value declared in the manifests, if any.
# Apply passes it to the code that sends a change whose plan holds ``plan.REDACTED`` in place of a value.
Reveal = Callable[[Kind, str, str], str | None]

# (change address, config key) -> the value the plan holds redacted, as the manifests declare it.
Revealed = dict[tuple[str, str], Secret]


def ref_from_data(data: Any) -> SecretRef | None:
    """A ``SecretRef`` from plan data: ``{"env": ...}``, ``{"file": ...}``, ``"env:NAME"`` or ``"file:PATH"``."""
    if isinstance(data, SecretRef):
        return data
    if isinstance(data, Mapping):
        env, file = data.get("env"), data.get("file")
        if env or file:
            return SecretRef(env=str(env) if env else None, file=str(file) if file else None)
        return None
    if isinstance(data, str):
        scheme, _, rest = data.partition(":")
        if scheme == "env" and rest:
            return SecretRef(env=rest)
        if scheme == "file" and rest:
            return SecretRef(file=rest)
    return None


def resolve(ref: SecretRef, *, user: str, environ: Mapping[str, str] | None = None) -> str:
    """The password; ``SecretUnavailable`` naming ``user`` and the reference when it is missing or empty."""
    return secrets.resolve(ref, what=f"SCRAM user {user!r}: password", environ=environ)


def declared_values(wanted: desired.DesiredState) -> Reveal:
    """Look up a config value as the manifests declare it (for values a plan holds redacted)."""

    def lookup(kind: Kind, name: str, key: str) -> str | None:
        configs = registry.spec(kind).declared_configs(wanted, name)
        return None if configs is None else configs.get(key)

    return lookup


def reveal_redacted(ops: Iterable[decoded.Operation], *, reveal: Reveal | None) -> Revealed:
    """The sensitive config values the plan holds only redacted, read once from the manifests; refuses the plan
    (nothing written) when the manifests are not at hand or do not declare one of them."""
    found: Revealed = {}
    missing = []
    for op in ops:
        for key in op.redacted:
            value = None if reveal is None else reveal(op.change.kind, op.change.name, key)
            if value is None:
                missing.append(f"{op.change.address} ({key})")
            else:
                found[(op.change.address, key)] = Secret(value)
    if missing:
        raise errors.PlanFileError(
            "the plan sets sensitive config values it holds only redacted: "
            f"{name_list(missing)}; apply with the manifests (PATHS) so the values can be read. Nothing was written."
        )
    return found


def resolve_secrets(ops: Iterable[decoded.Operation], *, environ: Mapping[str, str] | None) -> dict[str, Secret]:
    """Every SCRAM password the plan will set (user -> password), resolved now so that a missing one
    stops the apply before any write."""
    out: dict[str, Secret] = {}
    for op in ops:
        c = op.change
        if c.phase is not plans.Phase.SCRAM or c.action is plans.Action.DELETE:
            continue
        wanted = op.scram
        if wanted is None:
            raise ImpossiblePlan(op.problem or f"{c.address}: the plan names no credential to set")
        ref = ref_from_data(wanted.password)
        if ref is None:
            raise SecretUnavailable(f"SCRAM user {wanted.user!r}: the plan names no password reference")
        out[wanted.user] = Secret(resolve(ref, user=wanted.user, environ=environ))
    return out


def unset_secrets(changes: Iterable[plans.Change], *, environ: Mapping[str, str] | None = None) -> list[str]:
    """Why apply would refuse now for each SCRAM password reference ``changes`` set that cannot be resolved (an
    unset variable, a missing file): ``plan`` warns with these, naming the variable or file, never a value."""
    problems: list[str] = []
    for c in changes:
        if c.phase is not plans.Phase.SCRAM or c.action is plans.Action.DELETE:
            continue
        ref = ref_from_data(c.after.password) if isinstance(c.after, payloads.ScramPayload) else None
        if ref is None:
            continue
        try:
            resolve(ref, user=c.name, environ=environ)
        except SecretUnavailable as exc:
            problems.append(str(exc))
    return problems
