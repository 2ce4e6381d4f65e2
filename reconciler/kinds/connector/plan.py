"""The connector kind's planner (its ``plan``, ``scope`` and ``fingerprint_rows`` parts): Kafka Connect connector
changes (create, config update, state change, delete); validation, status and secrets.

The live side is ``ClusterState.connect`` (one read of every connector, the plugin list, the validate endpoint's
answers for the configs the plan changes, and the digests of the declared secrets). A connector whose config and
state match is counted as unchanged and never sent (an identical config PUT restarts it). Connect compares
configs as strings and replaces the whole config on a PUT, so a live key the manifest does not write is shown as
removed. A secret is compared by digest and shown only as changed. A field error from the validate endpoint, an
unknown class, a plugin version (``version:``, KIP-891) the workers do not have, or a secret that cannot be read is
an error at the manifest's line that blocks that connector only.
With several Connect clusters (``reconciler.model.connect_clusters``) connectors are keyed ``<cluster>/<name>``, each
checked against the plugins of its own cluster; a cluster that could not be read blocks only the connectors
declared on it (its live ones are not known, so none is deleted) and the others are planned.
A connector declared running whose connector or task Connect reports FAILED differs from its declaration: it is
planned as a ``restart`` naming what failed with the first line of its trace (apply restarts only what failed);
on a connector declared paused or stopped, or one not declared, FAILED is a warning. Connect's status carries no
time, so the plan cannot say since when. Connect keeps a deleted
connector's offsets (KIP-875): creates and deletes say so, and a declared reset names the offsets it deletes and
what the connector then reads again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.connect import plugins
from reconciler.connect import secrets as connect_secrets
from reconciler.kinds import spec
from reconciler.model import configs, desired, payloads, plans, shown, state
from reconciler.model import connect_clusters as clusters
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.planner import common, views

CONFIG = shown.CONNECTOR_CONFIG
KEPT_OFFSETS = (
    "Connect keeps the offsets of a deleted connector: one created later under this name resumes from them "
    "(resetOffsetsOnCreate: true resets them)"
)
MAX_OFFSETS_SHOWN = 5
OFFSETS_NOTE = (
    "the declared offsets differ from those last applied: the connector is stopped, its offsets altered "
    "(PATCH /connectors/{name}/offsets), then put back in its state"
)
SINK_KEYS = ("topics", "topics.regex")  # a sink connector names the topics it consumes; a source does not


def reset_note(want: desired.DesiredConnector) -> str:
    """What ``resetOffsetsOnCreate`` deletes for this connector and what it then reads again, said plainly.

    Connect's offsets API answers only for a connector that exists, so the plan cannot count the records the reset
    makes it read again: it names the offsets it deletes and where the connector starts instead."""
    unknown = (
        "; Connect shows no offsets of a connector that does not exist, so how many records that is is not known "
        "before the apply (none if Connect kept no offsets under this name)"
    )
    name = clusters.name_of(want.name)
    if any(key in want.config for key in SINK_KEYS):
        group = want.config.get("consumer.override.group.id", f"connect-{name}")
        start = want.config.get("consumer.override.auto.offset.reset", "earliest")
        return (
            f"resetOffsetsOnCreate: created stopped, then the offsets consumer group {group} committed are deleted "
            f"before it starts: it consumes its topics again from auto.offset.reset={start}, so records it "
            f"delivered before its deletion are delivered again" + unknown
        )
    return (
        f"resetOffsetsOnCreate: created stopped, then the source offsets Connect kept under the name {name} "
        "are deleted before it starts: it reads its input again from the start, so records it wrote before its "
        "deletion are written to its topics again" + unknown
    )


def kept_note(live: state.ConnectState, name: str) -> tuple[str, ...]:
    """What Connect keeps for a connector the plan deletes (``ConnectState.kept_offsets``; nothing if not read)."""
    kept = live.kept_offsets.get(name)
    if kept is None:
        return ()
    if not kept:
        return ("Connect holds no offsets for it yet",)
    shown = "; ".join(kept[:MAX_OFFSETS_SHOWN])
    more = f"; and {len(kept) - MAX_OFFSETS_SHOWN} more" if len(kept) > MAX_OFFSETS_SHOWN else ""
    return (f"offsets Connect keeps for it ({len(kept)} partition(s), partition -> offset): {shown}{more}",)


def failed_parts(c: state.ConnectorState) -> tuple[str, ...]:
    """What Connect reports FAILED of ``c``: ``connector`` and ``task <id>``, each with its trace's first line."""
    parts = [("connector", c.trace)] if c.state == "FAILED" else []
    parts += [(f"task {t.id}", t.trace) for t in c.tasks if t.state == "FAILED"]
    return tuple(f"{what}: {trace}" if trace else what for what, trace in parts)


def live_payload(c: state.ConnectorState, offsets: tuple[tuple[str, str], ...] = ()) -> payloads.ConnectorPayload:
    """The live connector as a plan payload: secrets (digests) shown only as redacted keys; ``offsets`` those
    Connect holds, for a connector whose declared offsets the plan alters."""
    config = {k: v for k, v in sorted(c.config.items()) if k != connect_secrets.RECORD_KEY}
    plain = {k: v for k, v in config.items() if not connect_secrets.is_hidden(v)}
    hidden = {k: v if v == connect_secrets.MASKED else plans.REDACTED for k, v in config.items() if k not in plain}
    return payloads.ConnectorPayload(plain, c.state.lower(), hidden, failed=failed_parts(c), offsets=offsets)


def wanted_payload(want: desired.DesiredConnector) -> payloads.ConnectorPayload:
    refs = {k: ref.describe() for k, ref in sorted(want.secrets.items())}
    config = dict(sorted(want.config.items()))
    return payloads.ConnectorPayload(config, want.state, refs, want.reset_offsets, offsets=want.offsets)


def _secrets_changed(
    want: desired.DesiredConnector, have: state.ConnectorState, digests: Mapping[str, str]
) -> frozenset[str]:
    """The declared secret keys whose live value is not the digest of the declared one (or that Connect lacks); a
    value the worker masks only when the digest recorded by the last apply differs (``connect.secrets``)."""
    record = connect_secrets.recorded(have.config)

    def changed(key: str) -> bool:
        held = have.config.get(key)
        if held == connect_secrets.MASKED:
            return key in record and record[key] != digests.get(key)
        return held is None or digests.get(key) != held

    return frozenset(k for k in want.secrets if changed(k))


def _masked(ctx: common.Context, want: desired.DesiredConnector, have: state.ConnectorState) -> list[str]:
    """Warn of each value the worker masks that no record lets the plan compare; the reasons of a change to the
    masked values a record lets it compare."""
    record = connect_secrets.recorded(have.config)
    masked = sorted(k for k, v in have.config.items() if v == connect_secrets.MASKED)
    blind = [k for k in masked if k not in record or k not in want.secrets]
    if blind:
        where = want.source or ""
        ctx.warn(
            f"{where}{': ' if where else ''}Kafka Connect masks the value of {', '.join(blind)} of connector "
            f"{want.name}: it cannot be compared, so the plan does not change it (an apply that writes this "
            "connector's config records the digests of its secrets, so later plans compare them)",
            code="connector-secret-masked",
            address=Kind.CONNECTOR.address(want.name),
        )
    seen = [k for k in masked if k in record and k in want.secrets]
    if not seen:
        return []
    return [f"Kafka Connect masks {', '.join(seen)}: compared by the digest recorded when this tool last wrote them"]


def _blockers(
    ctx: common.Context, want: desired.DesiredConnector, live: state.ConnectState, *, config_changes: bool
) -> None:
    """Error-level findings at the manifest's lines: unknown class, unreadable secret, validate field errors."""
    address = Kind.CONNECTOR.address(want.name)
    live = live.for_connector(want.name)

    def at(key: str) -> str:
        where = want.positions.get(key) or want.source
        return f"{where}: " if where is not None else ""

    if live.plugins is not None and not plugins.known_class(want.class_name, live.plugins):
        simple = {p.rsplit(".", 1)[-1]: p for p in live.plugins}
        close = configs.suggest(want.class_name.rsplit(".", 1)[-1], list(simple))
        hint = None if close is None else simple[close]
        listed = ", ".join(live.plugins) or "none"
        workers = (
            "the workers"
            if not live.clusters
            else f"the workers of Kafka Connect cluster {clusters.cluster_of(want.name)}"
        )
        message = f"{at('connector.class')}connector class {want.class_name!r} is not installed on {workers}"
        message += f"; did you mean {hint}?" if hint else f" (they have: {listed})"
        ctx.warn(message, code="connector-class-unknown", address=address, severity="error")
        return
    missing = plugins.missing_version(want, live)
    if missing is not None:
        ctx.warn(f"{at(plugins.VERSION)}{missing}", code="connector-version-unknown", address=address, severity="error")
        return
    if not config_changes:
        return
    for key, message in live.validation.get(want.name, ()):
        label = f"{key}: " if key else ""
        ctx.warn(f"{at(key)}{label}{message}", code="connector-invalid", address=address, severity="error")


def _acl_type(ctx: common.Context, want: desired.DesiredConnector, have: state.ConnectorState) -> None:
    """A connector whose worker's ACLs were derived as a source while Connect runs it as a sink (or the reverse):
    those ACLs do not give it the access it needs."""
    if want.acl_type is None or have.type not in ("source", "sink") or have.type == want.acl_type:
        return
    where = want.positions.get("connector.class") or want.source
    ctx.warn(
        f"{where}: connector {want.name} is a {have.type} connector on the Kafka Connect cluster, but the ACLs of "
        f"its worker are derived for a {want.acl_type}; set type: {have.type}",
        code="connector-acl-type",
        address=Kind.CONNECTOR.address(want.name),
    )


def _status(ctx: common.Context, c: state.ConnectorState) -> None:
    address = Kind.CONNECTOR.address(c.name)
    want = ctx.desired.connectors.get(c.name)
    if want is not None and want.state == "running" and failed_parts(c):
        return  # planned as a restart: its FAILED parts are the change's restart line
    if c.state == "FAILED":
        trace = f": {c.trace}" if c.trace else ""
        ctx.warn(f"connector {c.name} is FAILED{trace}", code="connector-failed", address=address)
    for task in c.tasks:
        if task.state == "FAILED":
            trace = f": {task.trace}" if task.trace else ""
            ctx.warn(
                f"connector {c.name} task {task.id} is FAILED{trace}", code="connector-task-failed", address=address
            )
    if c.state == "RUNNING" and not c.tasks:
        ctx.warn(f"connector {c.name} is RUNNING without any task", code="connector-no-task", address=address)


def plan_connectors(ctx: common.Context) -> None:
    """Add the connector changes, status warnings and unmanaged connectors to ``ctx``."""
    live = ctx.live.connect
    if live is None:
        if ctx.desired.connectors:
            ctx.unreadable(
                Kind.CONNECTOR,
                "the Kafka Connect cluster was not read (name it under connect: in the Cluster profile); "
                "connectors are not planned",
                code="connectors-unreadable",
            )
        return
    for name in sorted(ctx.desired.connectors):
        cluster = clusters.cluster_of(name)
        if cluster is not None and cluster in live.unreachable:
            _unreachable(ctx, ctx.desired.connectors[name], cluster)
            continue
        _plan_one(ctx, ctx.desired.connectors[name], live)
    for cluster, reason in sorted(live.unreachable.items()):
        ctx.warn(
            f"Kafka Connect cluster {cluster} could not be read ({reason}): its connectors are not planned (those "
            "declared on it are blocked; none of its live connectors is changed or deleted); the other Connect "
            "clusters are",
            code="connect-cluster-unreachable",
        )
    for name, c in sorted(live.connectors.items()):
        owned = name in ctx.desired.connectors or (
            ctx.manages_undeclared(Kind.CONNECTOR) and ctx.desired.ownership.owns_connector(name)
        )
        if owned:
            _status(ctx, c)
        if name in ctx.desired.connectors or not owned:
            continue
        address = Kind.CONNECTOR.address(name)
        if not ctx.may_delete(Kind.CONNECTOR):
            ctx.keep_unmanaged(kind=Kind.CONNECTOR, name=name, address=address)
            continue
        ctx.changes.append(
            plans.Change(
                address=address,
                kind=Kind.CONNECTOR,
                name=name,
                action=plans.Action.DELETE,
                phase=plans.Phase.CONNECTOR_DELETE,
                before=live_payload(c),
                reasons=("not declared; deletion is enabled for connectors", KEPT_OFFSETS, *kept_note(live, name)),
                fingerprint=views.fingerprint_of(model_views.connector_view(c)),
            )
        )


def _unreachable(ctx: common.Context, want: desired.DesiredConnector, cluster: str) -> None:
    """A blocked change for a connector declared on a Connect cluster that could not be read."""
    ctx.changes.append(
        plans.Change(
            address=Kind.CONNECTOR.address(want.name),
            kind=Kind.CONNECTOR,
            name=want.name,
            action=plans.Action.BLOCKED,
            phase=plans.Phase.CONNECTOR,
            reasons=(f"Kafka Connect cluster {cluster} could not be read: this connector is not planned",),
            source=common.source_text(want.source),
        )
    )


def _plan_one(ctx: common.Context, want: desired.DesiredConnector, live: state.ConnectState) -> None:
    have = live.connectors.get(want.name)
    address = Kind.CONNECTOR.address(want.name)
    digests = live.secret_digests.get(want.name, {})
    after = wanted_payload(want)
    before = None
    if have is None:
        attrs = shown.connector_attributes(None, after)
        reasons = ["declared; not on the Connect cluster", reset_note(want) if want.reset_offsets else KEPT_OFFSETS]
        action = plans.Action.CREATE
    else:
        _acl_type(ctx, want, have)
        masked = _masked(ctx, want, have)
        before = live_payload(have, live.current_offsets.get(want.name, ()))
        attrs = shown.connector_attributes(before, after, secrets_changed=_secrets_changed(want, have, digests))
        if not attrs:
            ctx.unchanged[Kind.CONNECTOR] += 1
            _blockers(ctx, want, live, config_changes=False)
            return
        reasons = ["config or state differs from the manifests"] if attrs[0].name != shown.RESTART else []
        if any(a.name == shown.OFFSETS for a in attrs):
            reasons.append(OFFSETS_NOTE)
        if attrs[-1].name == shown.RESTART:
            reasons.append("declared running; Kafka Connect reports it FAILED (its status carries no time)")
        reasons += masked
        action = plans.Action.UPDATE
    ctx.changes.append(
        plans.Change(
            address=address,
            kind=Kind.CONNECTOR,
            name=want.name,
            action=action,
            phase=plans.Phase.CONNECTOR,
            before=None if have is None else before,
            after=after,
            attributes=attrs,
            reasons=tuple(reasons),
            fingerprint=views.fingerprint_of(model_views.connector_view(have)),
            source=common.source_text(want.source),
        )
    )
    _blockers(ctx, want, live, config_changes=any(a.name.startswith(CONFIG) for a in attrs))


def _owns_connector(rules: spec.Rules, name: str, _: Any) -> bool:
    plain = name.rpartition("/")[2]  # a <cluster>/<name> key: a rule matches the key or the Connect name
    return any(p.matches(name) or p.matches(plain) for p in rules.get("connectors", ()))


def _keep_connectors(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
    if live.connect is None:
        return live
    kept = {n: c for n, c in live.connect.connectors.items() if keep(n, c)}
    return dataclasses.replace(live, connect=dataclasses.replace(live.connect, connectors=kept))


# The connectors' part of a plan's scope (``reconciler.planner.scope``).
SCOPE = spec.KindScope(
    rule_sets=(spec.RuleSet("connectors", lambda own: own.connectors),),
    owns=_owns_connector,
    keep=_keep_connectors,
    count=lambda live: None if live.connect is None else len(live.connect.connectors),
)


def connector_rows(live: state.ClusterState) -> list[Any] | None:
    """The connectors' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``): each one's config
    and target state."""
    if live.connect is None:
        return None
    return [
        (n, sorted(c.config.items()), model_views.connector_target_state(c.state))
        for n, c in sorted(live.connect.connectors.items())
    ]
