"""Field types shared by the manifest models: the strict base model and the annotated value types.

``Strict`` is the base of every manifest model; the annotated types accept Kafka's spellings in any case (with
did-you-mean for a near miss) and bound integers by the type Kafka's wire protocol gives them.
"""

from __future__ import annotations

import difflib
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic.alias_generators import to_camel

from reconciler.model import identities
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType, KafkaName


class Strict(BaseModel):
    """Base of every manifest model: unknown fields are errors, YAML keys are camelCase."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        coerce_numbers_to_str=True,
        frozen=True,
        defer_build=True,  # built on first use: a run validates only the kinds its manifests contain
    )


def _normaliser(values: tuple[str, ...], *, what: str) -> BeforeValidator:
    """Accept ``read``, ``Read``, ``READ`` or ``describe-configs`` and keep Kafka's spelling (the member itself when
    ``values`` are enum members); anything else, text or not, is refused naming the choices."""
    table = {v.replace("_", "").replace("-", "").lower(): v for v in values}
    exact = {v: v for v in values}

    def normalise(raw: object) -> object:
        found = exact.get(raw) if isinstance(raw, str) else None
        if found is not None:
            return found
        if not isinstance(raw, str):
            raise ValueError(f"{raw!r} is not a valid {what}; expected one of {', '.join(values)}")
        found = table.get(raw.replace("_", "").replace("-", "").lower())
        if found is None:
            close = difflib.get_close_matches(raw.upper().replace("-", "_"), values, n=1, cutoff=0.6)
            guess = f"did you mean {close[0]}? " if close else ""
            raise ValueError(f"{raw!r} is not a valid {what}; {guess}expected one of {', '.join(values)}")
        return found

    return BeforeValidator(normalise)


def _enum_schema(values: tuple[str, ...]) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "enum": sorted({*values, *(v.lower() for v in values)})})


def _documented_enum_schema(members: tuple[KafkaName, ...]) -> WithJsonSchema:
    """Kafka's names and their lower-case spellings, each with its meaning as hover text (``markdownEnumDescriptions``,
    read by VS Code's YAML and JSON support and yaml-language-server)."""
    spellings = sorted((spelling, m) for m in members for spelling in {str(m), str(m).lower()})
    return WithJsonSchema(
        {
            "type": "string",
            "enum": [spelling for spelling, _ in spellings],
            "markdownEnumDescriptions": [f"`{m}`: {m.doc}" for _, m in spellings],
        }
    )


_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
_SASL = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "AWS_MSK_IAM", "GSSAPI")
_STORE_TYPES = ("PEM", "PKCS12", "JKS")
# The ACL fields are read into their enum members (reconciler.model.acl_names), the one type they keep to the wire.
_OPERATIONS, _RESOURCE_TYPES = identities.ACL_OPERATIONS, identities.ACL_RESOURCE_TYPES
_PATTERN_TYPES, _PERMISSIONS = identities.ACL_PATTERN_TYPES, identities.ACL_PERMISSIONS
Operation = Annotated[
    AclOperation, _normaliser(_OPERATIONS, what="ACL operation"), _documented_enum_schema(_OPERATIONS)
]
ResourceType = Annotated[
    AclResourceType, _normaliser(_RESOURCE_TYPES, what="ACL resource type"), _documented_enum_schema(_RESOURCE_TYPES)
]
PatternType = Annotated[
    AclPatternType, _normaliser(_PATTERN_TYPES, what="ACL pattern type"), _documented_enum_schema(_PATTERN_TYPES)
]
Permission = Annotated[
    AclPermission, _normaliser(_PERMISSIONS, what="ACL permission"), _documented_enum_schema(_PERMISSIONS)
]
Mechanism = Annotated[
    str, _normaliser(identities.SCRAM_MECHANISMS, what="SCRAM mechanism"), _enum_schema(identities.SCRAM_MECHANISMS)
]
SecurityProtocol = Annotated[str, _normaliser(_PROTOCOLS, what="security protocol"), _enum_schema(_PROTOCOLS)]
SaslMechanism = Annotated[str, _normaliser(_SASL, what="SASL mechanism"), _enum_schema(_SASL)]
StoreType = Annotated[str, _normaliser(_STORE_TYPES, what="store type"), _enum_schema(_STORE_TYPES)]

Scalar = str | int | float | bool
ConfigValue = Annotated[
    Scalar | list[Scalar],
    Field(description="A Kafka config value; durations (7d, 12h) and sizes (1GiB, 512MB) are converted."),
]
Configs = dict[str, ConfigValue]
Name = Annotated[str, Field(min_length=1)]
# A Kafka Connect cluster's name in the Cluster profile: letters, digits, '.', '_', '-' (no '/', which keys split on);
# model.connect_clusters.NAME, written out here so that validate without a Connector does not import that module.
ConnectClusterName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")]

# Integer fields are strict (``true`` and ``"3"`` are refused, not read as 1 and 3) and bounded by the type Kafka's
# wire protocol gives them, so a value the encoder cannot write is refused at validate with its position.
INT16_MAX = 32767
INT32_MAX = 2147483647
Partitions = Annotated[int, Field(strict=True, ge=1, le=INT32_MAX)]  # CreateTopics / CreatePartitions: INT32
ReplicationFactor = Annotated[int, Field(strict=True, ge=1, le=INT16_MAX)]  # CreateTopics: INT16
BrokerId = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]  # replica assignments: INT32
Flag = Annotated[bool, Field(strict=True)]  # only YAML true/false, not "yes" or 1


class SecretRefSpec(Strict):
    """Where a secret comes from: an environment variable or a file (relative to the manifest's directory)."""

    env: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None = None
    file: Name | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> SecretRefSpec:
        if (self.env is None) == (self.file is None):
            raise ValueError("give exactly one of env or file")
        return self


class ResourceRef(Strict):
    """A resource named exactly (``name``) or by prefix (``prefix``); a plain string means ``name``."""

    name: Name | None = None
    prefix: Name | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> ResourceRef:
        if (self.name is None) == (self.prefix is None):
            raise ValueError("give exactly one of name or prefix")
        return self


RefField = Name | ResourceRef
