"""The library steps the commands share: load manifests, resolve a connection, read live state, plan.

Each function does one step of the flow (manifests -> desired state; connection options ->
``ConnectionSettings``; adapter -> ``ClusterState``; planner -> ``Plan``) so the CLI, the fleet
runner and tests call the same code with the same precedence rules.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler import connection, desired, errors, manifests, planner, secrets, state
from reconciler import plan as plan_model


def load_manifests(
    paths: Sequence[Path], *, environment: str | None = None, env: Mapping[str, str] | None = None
) -> manifests.LoadResult:
    """Load and validate manifests; raises ``ValidationFailed`` with every diagnostic."""
    return manifests.load(list(paths), environment=environment, env=env)


def profile_layer(
    profile: manifests.ClusterProfile, *, environ: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], Path | None]:
    """A connection-settings layer from a ``Cluster`` profile, and the properties file it names (if any).

    Secret references are resolved here, at connection time; errors name the profile and reference only.
    """
    what = f"cluster profile {profile.name!r}"
    layer: dict[str, Any] = {}
    if profile.bootstrap_servers:
        layer["bootstrap_servers"] = tuple(profile.bootstrap_servers)
    if profile.command_config is None or profile.security_protocol != "PLAINTEXT":
        layer["security_protocol"] = profile.security_protocol
    layer["sasl_mechanism"] = profile.sasl_mechanism
    if isinstance(profile.username, desired.SecretRef):
        layer["username"] = secrets.resolve(profile.username, what=f"{what}: username", environ=environ)
    else:
        layer["username"] = profile.username
    if profile.password is not None:
        layer["password"] = connection.Secret(
            secrets.resolve(profile.password, what=f"{what}: password", environ=environ)
        )
    for key in ("ssl_cafile", "ssl_certfile", "ssl_keyfile", "ssl_truststore_location", "ssl_keystore_location"):
        value = getattr(profile, key)
        layer[key] = None if value is None else str(value)
    for key in ("ssl_truststore_type", "ssl_keystore_type", "ssl_principal_mapping_rules", "oauth_token_endpoint_url",
                "oauth_client_id", "oauth_scope"):  # fmt: skip
        layer[key] = getattr(profile, key)
    if not profile.ssl_check_hostname:
        layer["ssl_check_hostname"] = False
    for key in ("ssl_key_password", "ssl_truststore_password", "ssl_keystore_password", "oauth_client_secret"):
        ref = getattr(profile, key)
        if ref is not None:
            label = key.replace("_", " ")
            layer[key] = connection.Secret(secrets.resolve(ref, what=f"{what}: {label}", environ=environ))
    return layer, profile.command_config


def resolve_connection(
    *,
    bootstrap_server: str | None = None,
    command_config: Path | None = None,
    profile_name: str | None = None,
    profiles: Mapping[str, manifests.ClusterProfile] | None = None,
    environ: Mapping[str, str] | None = None,
) -> connection.ConnectionSettings:
    """Connection settings with the documented precedence: flags > --command-config > profile > environment.

    ``profile_name`` selects a ``Cluster`` profile from the manifests; when it is not given and the manifests
    declare exactly one profile and no flag or ``KAFKA_BOOTSTRAP_SERVERS`` names a cluster, that profile is used,
    and the settings' ``origin`` says so (the plan and apply headers show it).
    """
    env = os.environ if environ is None else environ
    available = dict(profiles or {})
    chosen: manifests.ClusterProfile | None = None
    origin: str | None = None
    if profile_name is not None:
        if profile_name not in available:
            known = ", ".join(sorted(available)) or "none declared"
            raise errors.ConfigError(f"no Cluster profile named {profile_name!r} in the manifests (known: {known})")
        chosen = available[profile_name]
        origin = f"Cluster profile {profile_name!r} (--cluster)"
    elif (
        len(available) == 1
        and not bootstrap_server
        and command_config is None
        and not env.get("KAFKA_BOOTSTRAP_SERVERS")
    ):
        chosen = next(iter(available.values()))
        origin = (
            f"Cluster profile {chosen.name!r}, the only one in the manifests "
            "(no --cluster, --bootstrap-server, --command-config or KAFKA_BOOTSTRAP_SERVERS given)"
        )
    profile: dict[str, Any] = {}
    profile_properties: Path | None = None
    if chosen is not None:
        profile, profile_properties = profile_layer(chosen, environ=env)
    cli: dict[str, Any] = {}
    if bootstrap_server:
        cli["bootstrap_servers"] = bootstrap_server
    layers: list[Mapping[str, Any]] = [cli]
    if command_config is not None:
        layers.append(connection.properties_layer(command_config))
    layers.append(profile)
    if profile_properties is not None:
        layers.append(connection.properties_layer(profile_properties))
    layers.append(connection.env_layer(env))
    layers.append({"origin": origin})
    return connection.ConnectionSettings.from_layers(*layers)


def read_filters(
    wanted: desired.DesiredState,
) -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    """Topic and principal filters so the read covers only what the manifests and ownership rules need."""
    declared_topics = frozenset(wanted.topics)
    # Live topics whose names collide with a declared one ('.' and '_' alike) are read too: the planner blocks
    # such a create instead of letting the broker refuse it at apply.
    collision_keys = frozenset(desired.topic_collision_key(n) for n in declared_topics)
    ownership = wanted.ownership
    principals = {b.principal for b in wanted.acls}
    principals |= {f"User:{name}" for name in wanted.scram_users}
    for entity in wanted.quotas:
        principals |= {f"User:{n}" for t, n in entity.parts if t == "user" and n is not None}

    def topic_filter(name: str) -> bool:
        return (
            name in declared_topics or ownership.owns_topic(name) or desired.topic_collision_key(name) in collision_keys
        )

    if ownership.quota_entities:
        # Quota entities owned by name may name any user: read every principal (the planner applies ownership).
        return topic_filter, lambda _principal: True

    def principal_filter(principal: str) -> bool:
        return principal in principals or ownership.owns_principal(principal)

    return topic_filter, principal_filter


def read_live(adapter: Any, wanted: desired.DesiredState) -> state.ClusterState:
    """Read what ``wanted`` needs from the cluster, after checking the cluster supports it."""
    kinds = planner.planned_kinds(wanted)
    adapter.require(kinds)
    topic_filter, principal_filter = read_filters(wanted)
    live: state.ClusterState = adapter.read_state(
        kinds=kinds, topic_filter=topic_filter, principal_filter=principal_filter
    )
    return live


def make_plan(
    wanted: desired.DesiredState,
    live: state.ClusterState,
    *,
    rotate_passwords: Sequence[str] = (),
    target: str | None = None,
    adapter: Any = None,
    allow_delete_in_use: bool = False,
    in_use_window_ms: int | None = None,
) -> plan_model.Plan:
    """Run the pure planner with the command-line options; ``target`` (how the cluster was reached) goes into
    the plan's header.

    With an ``adapter``, the usage evidence of the topics the plan deletes is read first (``with_usage``), so
    each delete shows what it would destroy and one of a topic in use is blocked unless ``allow_delete_in_use``.
    """
    unknown = sorted(set(rotate_passwords) - set(wanted.scram_users))
    if unknown:
        raise errors.ConfigError(
            f"--rotate-password names SCRAM user(s) not declared in the manifests: {', '.join(unknown)}"
        )
    options = planner.PlanOptions(
        rotate_scram_users=frozenset(rotate_passwords),
        allow_delete_in_use=allow_delete_in_use,
        **({} if in_use_window_ms is None else {"in_use_window_ms": in_use_window_ms}),
    )
    if adapter is not None:
        live = with_usage(adapter, wanted, live)
    result = planner.plan(wanted, live, options=options)
    if target is None:
        return result
    return dataclasses.replace(result, cluster=dataclasses.replace(result.cluster, target=target))


def with_usage(adapter: Any, wanted: desired.DesiredState, live: state.ClusterState) -> state.ClusterState:
    """``live`` with the usage evidence of the topics a plan would delete (unchanged when it deletes none).

    The topics come from a first plan; the evidence is read for exactly those, in batched requests.
    """
    if live.topic_usage is not None:
        return live
    first = planner.plan(wanted, live)
    deleted = sorted(
        c.name for c in first.changes if c.kind == desired.KIND_TOPIC and c.phase is plan_model.Phase.TOPIC_DELETE
    )
    if not deleted:
        return live
    return dataclasses.replace(live, topic_usage=adapter.read_topic_usage(deleted))
