"""The identities of the resources that have no name of their own: an exact ACL binding and a client-quota entity,
with the words Kafka spells their fields with.

Both the desired state (what manifests declare) and the live state (what the cluster holds) are keyed by these, so
they live apart from either: loading manifests imports them without the live-state model.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType, N
from reconciler.model.kinds import Kind

# The members a manifest or a plan may hold, in Kafka's order (``UNKNOWN`` only comes from a broker).
ACL_OPERATIONS = AclOperation.known()
ACL_RESOURCE_TYPES = AclResourceType.known()
ACL_PATTERN_TYPES = AclPatternType.known()
ACL_PERMISSIONS = AclPermission.known()
QUOTA_ENTITY_TYPES = ("user", "client-id", "ip")
SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")


@dataclasses.dataclass(frozen=True, slots=True, order=True, init=False)
class AclBinding:
    """One exact ACL binding, as DescribeAcls returns it and CreateAcls/DeleteAcls take it.

    The four enum fields always hold members (``reconciler.model.acl_names``): a member is kept as it is, Kafka's
    name given as text (``"READ"``) is turned into its member when the binding is built, and any other text is a
    ``ValueError`` naming the field. Every reader gets the typed member, never text to look up again.
    """

    resource_type: AclResourceType  # TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN, USER
    pattern_type: AclPatternType  # LITERAL or PREFIXED
    resource_name: str
    principal: str  # "User:alice"
    host: str  # "*" for any host
    operation: AclOperation  # READ, WRITE, ...
    permission: AclPermission  # ALLOW or DENY

    def __init__(
        self,
        resource_type: AclResourceType | str,
        pattern_type: AclPatternType | str,
        resource_name: str,
        principal: str,
        host: str,
        operation: AclOperation | str,
        permission: AclPermission | str,
    ) -> None:
        put = object.__setattr__  # frozen
        put(self, "resource_type", _RESOURCE_TYPES.get(resource_type) or _named(AclResourceType, resource_type))
        put(self, "pattern_type", _PATTERN_TYPES.get(pattern_type) or _named(AclPatternType, pattern_type))
        put(self, "resource_name", resource_name)
        put(self, "principal", principal)
        put(self, "host", host)
        put(self, "operation", _OPERATIONS.get(operation) or _named(AclOperation, operation))
        put(self, "permission", _PERMISSIONS.get(permission) or _named(AclPermission, permission))

    @property
    def address(self) -> str:
        """Stable, readable identity used in plans: ``acl/User:alice/ALLOW/READ/TOPIC:LITERAL:orders@*``."""
        return (
            f"{Kind.ACL.prefix}{self.principal}/{self.permission}/{self.operation}/"
            f"{self.resource_type}:{self.pattern_type}:{self.resource_name}@{self.host}"
        )

    def to_dict(self) -> dict[str, str]:
        """Each field as text: the enum fields as Kafka's names."""
        return {name: str(getattr(self, name)) for name in _ACL_FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AclBinding:
        """From ``to_dict``'s form (``ValueError`` naming the field for a name that is not Kafka's); each text
        field's string is interned (a snapshot repeats the same few thousand)."""
        return cls(*(sys.intern(str(data[name])) for name in _ACL_FIELDS))


_ACL_FIELDS = tuple(f.name for f in dataclasses.fields(AclBinding))
# name -> member: a member hashes and compares as its name, so one lookup serves both (a snapshot builds thousands).
_RESOURCE_TYPES = {str(m): m for m in AclResourceType}
_PATTERN_TYPES = {str(m): m for m in AclPatternType}
_OPERATIONS = {str(m): m for m in AclOperation}
_PERMISSIONS = {str(m): m for m in AclPermission}
_FIELD_OF = {AclResourceType: "resource_type", AclPatternType: "pattern_type", AclOperation: "operation",
             AclPermission: "permission"}  # fmt: skip


def _named(enum_cls: type[N], value: object) -> N:
    """``ValueError`` naming the field for a value that is no member's name (``KafkaName.named``)."""
    return enum_cls.named(value, field=_FIELD_OF[enum_cls])


# Characters of a quota entity name that an address writes percent-encoded (as URL encoding does, which is how
# Kafka stores entity names in ZooKeeper): the part separator, the default marker's brackets, and ``%`` itself.
_QUOTA_ESCAPES = {c: f"%{ord(c):02X}" for c in "%,<>"}


def quota_name_text(name: str | None) -> str:
    """How a quota entity name is written in an address: ``<default>`` for the default entity, otherwise the name
    with ``%``, ``,``, ``<`` and ``>`` percent-encoded, so ``client-id="a,user=b"`` reads
    ``client-id=a%2Cuser=b`` and can never be taken for two parts (nor a name ``<default>`` for the default)."""
    if name is None:
        return "<default>"
    return "".join(_QUOTA_ESCAPES.get(c, c) for c in name)


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class QuotaEntity:
    """A client-quota entity: sorted ``(entity_type, name)`` pairs; a name of ``None`` is the default.

    ``QuotaEntity((("user", "alice"),))`` is user alice; ``QuotaEntity((("client-id", None), ("user", "bob")))``
    is the default client-id of user bob.
    """

    parts: tuple[tuple[str, str | None], ...]

    @classmethod
    def of(cls, **kwargs: str | None) -> QuotaEntity:
        """Build from keyword names: ``QuotaEntity.of(user="alice", client_id=None)``."""
        return cls(tuple(sorted((k.replace("_", "-"), v) for k, v in kwargs.items())))

    @property
    def address(self) -> str:
        """``quota/client-id=<default>,user=alice`` (parts in sorted order; names written by ``quota_name_text``)."""
        return Kind.QUOTA.address(",".join(f"{t}={quota_name_text(n)}" for t, n in self.parts))

    def to_list(self) -> list[dict[str, str | None]]:
        return [{"type": t, "name": n} for t, n in self.parts]

    @classmethod
    def from_list(cls, data: Iterable[Mapping[str, Any]]) -> QuotaEntity:
        return cls(tuple(sorted((str(d["type"]), None if d["name"] is None else str(d["name"])) for d in data)))
