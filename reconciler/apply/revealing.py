"""The secrets a plan's writes need, read once before the first write: the SCRAM passwords it sets and the config
values it holds only redacted (found in the manifests at hand). A missing one refuses the apply, nothing written;
the values go only to the code that sends them (``apply.batch``), never to a report, a log or a message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reconciler.apply import decoded, secretref
from reconciler.apply.preflight import ImpossiblePlan, name_list
from reconciler.base import errors
from reconciler.connection.settings import Secret
from reconciler.model import plans

# (change address, config key) -> the value the plan holds redacted, as the manifests declare it.
Revealed = dict[tuple[str, str], Secret]


def reveal_redacted(ops: Iterable[decoded.Operation], *, reveal: secretref.Reveal | None) -> Revealed:
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
        ref = secretref.ref_from_data(wanted.password)
        if ref is None:
            raise secretref.SecretUnavailable(f"SCRAM user {wanted.user!r}: the plan names no password reference")
        out[wanted.user] = Secret(secretref.resolve(ref, user=wanted.user, environ=environ))
    return out
