"""The ``Ownership`` document's model: what a repository manages and may delete, by name rule and per kind.

Its rule fields are those of the kinds the manifests build themselves (``parts.BUILT_IN``); a kind with a place of
its own adds its own (``parts.ManifestPart.ownership``) to the model built by ``ownership_spec``, which imports those
kinds' manifest parts (not their declarations). ``managedKinds`` and ``delete`` list every ``Kind``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, create_model, model_validator

from reconciler.manifests.fields import Flag, Name, Strict
from reconciler.model.kinds import Kind


class NamePatternSpec(Strict):
    """One name rule: exactly one of ``name``, ``prefix``, ``glob`` (fnmatch) or ``regex`` (full match)."""

    name: Name | None = None
    prefix: Name | None = None
    glob: Name | None = None
    regex: Name | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> NamePatternSpec:
        if sum(v is not None for v in (self.name, self.prefix, self.glob, self.regex)) != 1:
            raise ValueError("give exactly one of name, prefix, glob or regex")
        return self


# Every kind, by its Ownership key (``managedKinds``), and its ``delete`` flag (snake_case here, the key in YAML).
if TYPE_CHECKING:
    ManagedKind = str

    class DeletePolicySpec(Strict):
        """One ``Flag`` per kind (``Kind.value``)."""

else:
    ManagedKind = Literal[tuple(k.ownership_key for k in Kind)]
    DeletePolicySpec = create_model(
        "DeletePolicySpec",
        __base__=Strict,
        __doc__="Per kind, whether undeclared live resources matched by the ownership rules are deleted (default no).",
        __module__=__name__,
        **{k.value: (Flag, False) for k in Kind},
    )


class OwnershipSpec(Strict):
    """``Ownership`` spec: what this repository manages and may delete."""

    topics: list[NamePatternSpec] = Field(default_factory=list)
    principals: list[NamePatternSpec] = Field(default_factory=list)
    managed_kinds: list[ManagedKind] | None = None
    delete: DeletePolicySpec = Field(default_factory=DeletePolicySpec)
    quota_entities: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Client-quota entities managed by name, whatever their kind: user=<default>, client-id=batch, "
        "client-id=<default>, ip=10.0.0.1, ip=<default>, client-id=x,user=y (a name may also be user=y,client-id=x; a "
        "prefix, glob or regex lists client-id first).",
    )
    groups: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Name rules of the group ids whose dynamic group configs this repository manages.",
    )
    client_metrics: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Name rules of the client-metrics subscriptions this repository manages.",
    )
    internal_topics: list[NamePatternSpec] = Field(
        default_factory=list,
        description="More topic names to treat as internal (e.g. Kafka Connect storage topics with custom names).",
    )
    connectors: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Kafka Connect connectors managed by name: an undeclared one is shown as drift, or deleted "
        "with delete.connector.",
    )
    max_deletes: int | None = Field(
        default=None,
        strict=True,
        ge=0,
        description="Most resources one plan may delete (default 10); a plan deleting more is refused unless a run "
        "raises the limit with --max-deletes N.",
    )


@functools.cache
def ownership_spec() -> type[OwnershipSpec]:
    """``OwnershipSpec`` with the rule fields every kind adds (``parts.ManifestPart.ownership``)."""
    from reconciler.manifests import parts

    added: dict[str, Any] = dict(parts.ownership_fields())
    if not added:
        return OwnershipSpec
    model: type[OwnershipSpec] = create_model(
        "OwnershipSpec", __base__=OwnershipSpec, __doc__=OwnershipSpec.__doc__, __module__=__name__, **added
    )
    return model
