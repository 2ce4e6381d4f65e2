"""Every value an operation would send, checked against the bounds of the manifest field it came from.

A plan file is data anyone can edit and reseal, so ``decoded`` runs each value of each operation through these
checks before anything is read or written: a partition count must be an INT32 of at least 1, a replication factor
an INT16, a broker id an INT32; ACL fields are Kafka's enum names (never a wildcard such as ``ANY``); SCRAM
mechanisms and iterations, quota entities, keys and values, topic names and config values follow the same rules
the manifests are validated with (``reconciler.manifests.rules``, ``reconciler.model.configs``). A value outside
them raises ``Refused`` naming the field, so the encoder never meets a value it cannot write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from reconciler.manifests import rules
from reconciler.manifests.fields import INT16_MAX, INT32_MAX
from reconciler.model import configs, payloads, plans, state

SCRAM_MIN_ITERATIONS = 4096  # the ScramUser manifest's bounds (Kafka's own minimum and maximum)
SCRAM_MAX_ITERATIONS = 16384


class Refused(ValueError):
    """A value of an operation is outside the bounds of the manifest field it came from."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


def _whole(value: object, field: str, *, low: int, high: int, wire: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(field, f"{value!r} is not a whole number")
    if not low <= value <= high:
        raise Refused(field, f"{value} is out of range ({low}..{high}, a Kafka {wire})")
    return value


def partitions(value: object, field: str = "partitions") -> None:
    _whole(value, field, low=1, high=INT32_MAX, wire="INT32")


def replication_factor(value: object, field: str = "replication_factor") -> None:
    _whole(value, field, low=1, high=INT16_MAX, wire="INT16")


def broker_id(value: object, field: str) -> None:
    _whole(value, field, low=0, high=INT32_MAX, wire="INT32")


def topic_name(name: str) -> None:
    problems = rules.topic_name_problems(name)
    if problems:
        raise Refused("name", "; ".join(problems))


def replicas(assignment: Iterable[Sequence[int]], field: str = "assignment") -> None:
    """Replica lists: each non-empty, of INT32 broker ids, no broker twice."""
    for p, brokers in enumerate(assignment):
        if not brokers:
            raise Refused(f"{field}[{p}]", "an empty replica list")
        for b in brokers:
            broker_id(b, f"{field}[{p}]")
        if len(set(brokers)) != len(brokers):
            raise Refused(f"{field}[{p}]", f"a broker appears twice in {list(brokers)}")


def reassignment(targets: Mapping[int, Sequence[int]]) -> None:
    for p, brokers in targets.items():
        _whole(p, "assignment", low=0, high=INT32_MAX - 1, wire="INT32 partition index")
        replicas([brokers], field=f"assignment[{p}]")


def topic_configs(values: Mapping[str, str]) -> None:
    """A created topic's configs: known keys with valid values (a redacted value is read and checked at apply)."""
    for key, value in values.items():
        if value != plans.REDACTED:
            _problems(f"configs.{key}", configs.validate_topic_config(key, value))


# Group configs and client-metrics subscriptions: their keys and value types (reconciler.model.catalogue).
_ENTITY_CONFIGS = {"GROUP": configs.GROUP_CONFIGS, "CLIENT_METRICS": configs.CLIENT_METRICS_CONFIGS}


def config_ops(resource_type: str, name: str, ops: Iterable[payloads.ConfigOp]) -> None:
    """The resource a config change names, and each value it sets (a deleted key only has to be a name: the key
    being reset may be one the catalogue does not know, set out of band)."""
    entity = _ENTITY_CONFIGS.get(resource_type)
    if resource_type == "TOPIC":
        topic_name(name)
    elif entity is not None:
        if not name:
            raise Refused("name", "an empty name")
    elif name != state.CLUSTER_DEFAULT:
        if not name.isdigit() or len(name) > 10:
            raise Refused("name", f"{name!r} is not a broker id or {state.CLUSTER_DEFAULT}")
        broker_id(int(name), "name")
    for op in ops:
        field = f"config_ops.{op.key}"
        if not op.key:
            raise Refused("config_ops", "an empty config key")
        if op.action is not payloads.ConfigAction.SET or op.value == plans.REDACTED:
            continue
        if resource_type == "TOPIC":
            _problems(field, configs.validate_topic_config(op.key, op.value))
            continue
        if entity is not None:
            found = entity.get(op.key)
            if found is None:
                raise Refused(
                    field, f"{op.key!r} is not a {resource_type.lower().replace('_', '-')} config Kafka knows"
                )
            _problems(field, configs.validate_config(found, op.value))
            continue
        spec = configs.BROKER_CONFIGS.get(rules.listener_base(op.key))
        if spec is None:
            raise Refused(field, f"{op.key!r} is not a dynamic broker config Kafka knows")
        if spec.update_mode == "read-only":
            raise Refused(field, f"{op.key} is read-only: it can only be set in server.properties")
        _problems(field, configs.validate_config(spec, op.value))


def acl(binding: state.AclBinding) -> None:
    """Kafka's enum names for the four typed fields (``ANY``, ``MATCH`` and ``UNKNOWN`` would act as wildcards), a
    principal, a host, and an operation valid for the resource type, as the Acl manifest requires."""
    enums = {
        "resource_type": state.ACL_RESOURCE_TYPES,
        "pattern_type": state.ACL_PATTERN_TYPES,
        "operation": state.ACL_OPERATIONS,
        "permission": state.ACL_PERMISSIONS,
    }
    for field, allowed in enums.items():
        value = getattr(binding, field)
        if value not in allowed:  # UNKNOWN: a code a broker reported that this release does not know
            raise Refused(field, f"{str(value)!r} is not one of {', '.join(allowed)}")
    if not binding.resource_name:
        raise Refused("resource_name", "an empty resource name")
    _problems("principal", rules.principal_problems(binding.principal))
    _problems("host", rules.host_problems(binding.host))
    for field, problem in rules.acl_problems_by_field(
        resource_type=binding.resource_type,
        pattern_type=binding.pattern_type,
        resource_name=binding.resource_name,
        operation=binding.operation,
    ):
        raise Refused(field, problem)


def quota(entity: state.QuotaEntity, values: Mapping[str, float | None]) -> None:
    """An entity the ClientQuota manifest allows, and each value set a known key's finite, in-range number."""
    parts = dict(entity.parts)
    if any(name == "" for name in parts.values()):
        raise Refused("entity", "an empty entity name")
    _problems("entity", rules.quota_entity_problems(parts))
    for key, value in values.items():
        if value is None:
            continue  # removing a key set out of band: any key the broker holds
        _problems(f"values.{key}", rules.quota_key_problems(set(parts), key))
        try:
            configs.quota_value(key, value)
        except ValueError as exc:
            raise Refused(f"values.{key}", str(exc)) from None


def scram(user: str, upserts: Mapping[str, int], deletions: Iterable[str]) -> None:
    """A user name, known mechanisms, and iterations within the ScramUser manifest's bounds."""
    if not user:
        raise Refused("name", "an empty user name")
    for mechanism in [*upserts, *deletions]:
        if mechanism not in state.SCRAM_MECHANISMS:
            raise Refused("credentials", f"{mechanism!r} is not one of {', '.join(state.SCRAM_MECHANISMS)}")
    for mechanism, iterations in upserts.items():
        _whole(
            iterations,
            f"credentials.{mechanism}.iterations",
            low=SCRAM_MIN_ITERATIONS,
            high=SCRAM_MAX_ITERATIONS,
            wire="SCRAM iteration count",
        )


def _problems(field: str, problems: Sequence[str]) -> None:
    if problems:
        raise Refused(field, "; ".join(problems))
