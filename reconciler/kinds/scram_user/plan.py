"""The SCRAM user kind's planner (its ``plan``, ``scope`` and ``fingerprint_rows`` parts): credentials created, re-set
on mechanism/iteration drift or on request, deleted.

A SCRAM password cannot be read back from Kafka (only mechanism and iteration count are), so the
planner never reports password drift. A password is (re-)set when the credential is created or
re-set for another reason, and when ``PlanOptions.rotate_scram_users`` names the user. The
``rotation`` marker of a declared user is informational: it is shown in the plan, but cannot be
compared with anything the cluster holds; see docs/plan.md for the rotation workflow.
Plans show the password's reference (``env:NAME``), never a password.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from reconciler.kinds import spec
from reconciler.model import desired, payloads, plans, shown, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.planner import common, views


def _after(user: desired.DesiredScramUser) -> payloads.ScramPayload:
    return payloads.ScramPayload(
        credentials={user.mechanism: user.iterations}, password=user.password.describe(), rotation=user.rotation
    )


def _before(user: str, creds: tuple[state.ScramCredential, ...]) -> payloads.ScramPayload | None:
    """The live credentials as ``model_views.scram_view`` shows them: by mechanism, ``None`` when there are none."""
    if not creds:
        return None
    return payloads.ScramPayload(name=user, credentials={c.mechanism: c.iterations for c in sorted(creds, key=_mech)})


def _mech(cred: state.ScramCredential) -> str:
    return cred.mechanism


def plan_scram(ctx: common.Context) -> None:
    """Add SCRAM-phase changes, unmanaged users and rotation warnings to ``ctx``."""
    wanted = ctx.desired.scram_users
    live = ctx.live.scram_users
    rotate = ctx.options.rotate_scram_users
    for name in sorted(rotate - wanted.keys()):
        ctx.warn(
            f"password rotation requested for {name!r}, which is not declared; ignored",
            code="rotation-undeclared",
            address=views.address(Kind.SCRAM_USER, name),
        )
    if live is None:
        if wanted:
            ctx.unreadable(
                Kind.SCRAM_USER,
                "SCRAM credentials could not be read from the cluster; SCRAM users are not planned",
                code="scram-unreadable",
            )
        return
    for name in sorted(wanted):
        _declared(ctx, wanted[name], live.get(name) or ())
    if not ctx.manages_undeclared(Kind.SCRAM_USER):
        return
    for name in sorted(live):
        creds = live[name]
        if name in wanted or not creds or not ctx.desired.ownership.owns_principal(f"User:{name}"):
            continue
        addr = views.address(Kind.SCRAM_USER, name)
        if not ctx.may_delete(Kind.SCRAM_USER):
            ctx.keep_unmanaged(kind=Kind.SCRAM_USER, name=name, address=addr)
            continue
        view = model_views.scram_view(name, creds)
        ctx.changes.append(
            plans.Change(
                address=addr,
                kind=Kind.SCRAM_USER,
                name=name,
                action=plans.Action.DELETE,
                phase=plans.Phase.SCRAM,
                before=_before(name, creds),
                attributes=shown.scram_attributes(_before(name, creds), None),
                reasons=("not declared; deletion is enabled for scram users",),
                warnings=("clients authenticating as this user will be refused",),
                fingerprint=views.fingerprint_of(view),
            )
        )


def _declared(ctx: common.Context, want: desired.DesiredScramUser, creds: tuple[state.ScramCredential, ...]) -> None:
    addr = views.address(Kind.SCRAM_USER, want.name)
    view = model_views.scram_view(want.name, creds)
    by_mech = {c.mechanism: c.iterations for c in creds}
    reasons: list[str] = []
    if not creds:
        action = plans.Action.CREATE
        reasons.append("declared in the manifests; the user has no SCRAM credential")
    else:
        action = plans.Action.UPDATE
        have = by_mech.get(want.mechanism)
        if have is None:
            reasons.append(f"no {want.mechanism} credential; it is set, with the password")
        elif have != want.iterations:
            reasons.append(f"iterations {have} -> {want.iterations}: the credential is re-set, with the password")
        for mech in sorted(by_mech.keys() - {want.mechanism}):
            reasons.append(f"the {mech} credential is not declared and is removed")
        if want.name in ctx.options.rotate_scram_users:
            reasons.append("password rotation requested")
    if not reasons:
        ctx.unchanged[Kind.SCRAM_USER] += 1
        return
    before, after = _before(want.name, creds), _after(want)
    ctx.changes.append(
        plans.Change(
            address=addr,
            kind=Kind.SCRAM_USER,
            name=want.name,
            action=action,
            phase=plans.Phase.SCRAM,
            before=before,
            after=after,
            attributes=shown.scram_attributes(before, after),
            reasons=tuple(reasons),
            fingerprint=views.fingerprint_of(view),
            source=common.source_text(want.source),
        )
    )


def _keep_users(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
    if live.scram_users is None:
        return live
    return dataclasses.replace(live, scram_users={u: c for u, c in live.scram_users.items() if keep(u, c)})


# The SCRAM users' part of a plan's scope (``reconciler.planner.scope``): the users whose principal the rules own.
SCOPE = spec.KindScope(
    rule_sets=(spec.RuleSet("principals", lambda own: own.principals, by_kind=True),),
    owns=lambda rules, user, _: any(p.matches(f"User:{user}") for p in rules.get("principals", ())),
    keep=_keep_users,
    count=lambda live: None if live.scram_users is None else sum(1 for c in live.scram_users.values() if c),
)


def scram_rows(live: state.ClusterState) -> list[Any] | None:
    """The SCRAM users' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``): each user's
    mechanisms and iterations (never a secret)."""
    if live.scram_users is None:
        return None
    return [
        (u, sorted((c.mechanism, c.iterations) for c in creds))
        for u, creds in sorted(live.scram_users.items())
        if creds
    ]
