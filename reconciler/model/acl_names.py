"""The four typed fields of an ACL binding: resource type, pattern type, operation and permission, as enums.

Each member is Kafka's name (the enum is a ``str``, so it prints, sorts, hashes and serialises as that name) and
carries Kafka's wire code (``code``, the ``AclOperation``/``ResourceType``/... codes of CreateAcls, DeleteAcls and
DescribeAcls) and a one-line description (``doc``, the hover text of the manifests' JSON Schema). Manifests are read
into these members, the desired and live states hold them, plans write their names and decode reads them back, and
the encoder sends ``code``: no later stage looks a string up again.

``UNKNOWN`` is what a broker reports for a code this release does not know; it is never accepted from a manifest
or a plan (``KNOWN`` lists the members that are), and the encoder refuses to send it.
"""

from __future__ import annotations

import enum
from typing import TypeVar

N = TypeVar("N", bound="KafkaName")


class KafkaName(str, enum.Enum):
    """Base of the four enums: value = Kafka's name, ``code`` = its wire code, ``doc`` = what it means."""

    code: int
    doc: str

    def __new__(cls, name: str, code: int, doc: str) -> KafkaName:
        member = str.__new__(cls, name)
        member._value_ = name
        member.code = code
        member.doc = doc
        return member

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(str.__str__(self), spec)

    @classmethod
    def known(cls: type[N]) -> tuple[N, ...]:
        """Every member a manifest or a plan may hold (all but ``UNKNOWN``), in Kafka's order."""
        return tuple(m for m in cls if m.name != "UNKNOWN")

    @classmethod
    def named(cls: type[N], value: object, *, field: str) -> N:
        """The member called ``value`` (a member is returned as it is); ``ValueError`` naming ``field`` otherwise."""
        if isinstance(value, cls):
            return value
        member = cls._value2member_map_.get(value) if isinstance(value, str) else None
        if member is None:
            names = ", ".join(cls.known())
            raise ValueError(f"{field}: {value!r} is not one of {names}")
        assert isinstance(member, cls)
        return member

    @classmethod
    def from_code(cls: type[N], code: int) -> N:
        """The member of a wire code; ``UNKNOWN`` for a code this release does not know."""
        table = _BY_CODE.get(cls)
        if table is None:
            table = _BY_CODE[cls] = {m.code: m for m in cls}
        member = table.get(code, cls["UNKNOWN"])
        assert isinstance(member, cls)
        return member


_BY_CODE: dict[type[KafkaName], dict[int, KafkaName]] = {}  # a read turns 4 codes per binding into members


class AclResourceType(KafkaName):
    """The kind of resource a binding is on."""

    TOPIC = ("TOPIC", 2, "A topic: produce to it, consume from it, describe or change it.")
    GROUP = ("GROUP", 3, "A consumer group (or share/streams group): join it, commit offsets, describe it.")
    CLUSTER = ("CLUSTER", 4, "The cluster itself (resource name kafka-cluster): cluster-wide admin rights.")
    TRANSACTIONAL_ID = ("TRANSACTIONAL_ID", 5, "A transactional id: a producer's transactions under that id.")
    DELEGATION_TOKEN = ("DELEGATION_TOKEN", 6, "A delegation token, by token id.")
    USER = ("USER", 7, "A user principal: create or describe delegation tokens on its behalf.")
    UNKNOWN = ("UNKNOWN", 0, "A resource type the broker reported that this release does not know.")


class AclPatternType(KafkaName):
    """How a binding's resource name matches."""

    LITERAL = ("LITERAL", 3, "The resource name exactly; the name * matches every resource of the type.")
    PREFIXED = ("PREFIXED", 4, "Every resource whose name starts with the resource name.")
    UNKNOWN = ("UNKNOWN", 0, "A pattern type the broker reported that this release does not know.")


class AclOperation(KafkaName):
    """What a binding allows or denies."""

    ALL = ("ALL", 2, "Every operation on the resource.")
    READ = ("READ", 3, "Consume from a topic; join a group and commit its offsets.")
    WRITE = ("WRITE", 4, "Produce to a topic; use a transactional id.")
    CREATE = ("CREATE", 5, "Create topics (on a topic or the cluster).")
    DELETE = ("DELETE", 6, "Delete a topic or a group, delete records.")
    ALTER = ("ALTER", 7, "Add partitions, create and delete ACLs (on the cluster), alter group offsets.")
    DESCRIBE = ("DESCRIBE", 8, "Read metadata, offsets and ACLs; needed next to READ and WRITE.")
    CLUSTER_ACTION = ("CLUSTER_ACTION", 9, "Broker-to-broker requests (replication, controller).")
    DESCRIBE_CONFIGS = ("DESCRIBE_CONFIGS", 10, "Read configs of topics, brokers or groups.")
    ALTER_CONFIGS = ("ALTER_CONFIGS", 11, "Change configs of topics, brokers or groups.")
    IDEMPOTENT_WRITE = ("IDEMPOTENT_WRITE", 12, "Idempotent produce (on the cluster).")
    CREATE_TOKENS = ("CREATE_TOKENS", 13, "Create delegation tokens (on a user).")
    DESCRIBE_TOKENS = ("DESCRIBE_TOKENS", 14, "Describe delegation tokens (on a user or token).")
    UNKNOWN = ("UNKNOWN", 0, "An operation the broker reported that this release does not know.")


class AclPermission(KafkaName):
    """Whether a binding grants or refuses its operation."""

    ALLOW = ("ALLOW", 3, "Grant the operation (unless a DENY binding matches).")
    DENY = ("DENY", 2, "Refuse the operation; a matching DENY wins over every ALLOW.")
    UNKNOWN = ("UNKNOWN", 0, "A permission the broker reported that this release does not know.")
