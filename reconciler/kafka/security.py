"""ACLs, client quotas and SCRAM credentials: reading them in one request each, and their batched writes.

Reads: one DescribeAcls with an ANY filter (``SECURITY_DISABLED`` becomes a plain reason, not an error), one
DescribeClientQuotas matching every entity, one DescribeUserScramCredentials for all users. Writes (the methods
of ``SecurityWrites``, a mixin of ``KafkaAdapter``) follow the rules of ``reconciler.kafka.write``: packed under
the controller's limits (``limits``), one ``ItemResult`` per entity, in input order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kafka.admin import (
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourceType,
)
from kafka.protocol.admin import (
    DescribeAclsRequest,
    DescribeClientQuotasRequest,
    DescribeUserScramCredentialsRequest,
)

from reconciler.kafka import codes, encoders, limits, write
from reconciler.kafka import wire as wire_mod
from reconciler.kafka.results import ItemResult, ScramDeletion, ScramUpsert
from reconciler.model import state
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType

NameFilter = Callable[[str], bool]

# Targeted ACL and quota reads send one request per principal or entity; beyond this many, one full read.
MAX_TARGETED = 20
_SECURITY_DISABLED = 54
_MATCH_EXACT = 0
_MATCH_DEFAULT = 1
_SCRAM_MECHANISMS = encoders.SCRAM_MECHANISMS


# ------------------------------------------------------------------------------------------- reads
def read_acls(
    wire: wire_mod.Wire,
    *,
    principal_filter: NameFilter | None = None,
    principals: frozenset[str] | None = None,
) -> tuple[frozenset[state.AclBinding] | None, str | None]:
    """Every ACL binding (one DescribeAcls, ANY filter), or ``(None, reason)`` when there is no authorizer.

    With ``principals`` (at most ``MAX_TARGETED`` of them), only their bindings: one DescribeAcls each.
    """
    if principals is not None and len(principals) <= MAX_TARGETED:
        found: set[state.AclBinding] = set()
        for principal in sorted(principals):
            some, reason = _describe_acls(wire, principal=principal, principal_filter=principal_filter)
            if some is None:
                return None, reason
            found |= some
        return frozenset(found), None
    if principals is not None:
        wanted = principals
        principal_filter = _and(principal_filter, lambda p: p in wanted)
    return _describe_acls(wire, principal=None, principal_filter=principal_filter)


def _and(first: NameFilter | None, second: NameFilter) -> NameFilter:
    return second if first is None else (lambda n: first(n) and second(n))


def acls_on(
    wire: wire_mod.Wire, *, node: int, principals: frozenset[str], timeout_ms: int
) -> frozenset[state.AclBinding] | None:
    """What broker ``node``'s own authorizer holds of the bindings of ``principals`` (one DescribeAcls each, or one
    full read beyond ``MAX_TARGETED``); ``None`` when it has no authorizer."""
    targets: list[str | None] = list(sorted(principals)) if len(principals) <= MAX_TARGETED else [None]
    found: set[state.AclBinding] = set()
    for principal in targets:
        some, _ = _describe_acls(
            wire, principal=principal, principal_filter=principals.__contains__, node=node, timeout_ms=timeout_ms
        )
        if some is None:
            return None
        found |= some
    return frozenset(found)


def _describe_acls(
    wire: wire_mod.Wire,
    *,
    principal: str | None,
    principal_filter: NameFilter | None,
    node: int | None = None,
    timeout_ms: int | None = None,
) -> tuple[frozenset[state.AclBinding] | None, str | None]:
    request = DescribeAclsRequest(
        resource_type_filter=ResourceType.ANY,
        resource_name_filter=None,
        pattern_type_filter=ACLResourcePatternType.ANY,
        principal_filter=principal,
        host_filter=None,
        operation=ACLOperation.ANY,
        permission_type=ACLPermissionType.ANY,
    )
    response = wire.send(request, node=node, timeout_ms=timeout_ms)
    if response.error_code == _SECURITY_DISABLED:
        return None, (
            "the cluster has no authorizer configured (SECURITY_DISABLED): ACLs cannot be read or managed; "
            "set authorizer.class.name on the brokers or stop managing ACLs for this cluster"
        )
    wire.check_top_level(response, api="DescribeAcls")
    bindings = set()
    for resource in response.resources:
        for acl in resource.acls:
            principal = str(acl.principal)
            if principal_filter is not None and not principal_filter(principal):
                continue
            bindings.add(
                state.AclBinding(
                    resource_type=AclResourceType.from_code(resource.resource_type),
                    pattern_type=AclPatternType.from_code(resource.pattern_type),
                    resource_name=str(resource.resource_name),
                    principal=principal,
                    host=str(acl.host),
                    operation=AclOperation.from_code(acl.operation),
                    permission=AclPermission.from_code(acl.permission_type),
                )
            )
    return frozenset(bindings), None


def read_quotas(
    wire: wire_mod.Wire,
    *,
    principal_filter: NameFilter | None = None,
    entities: frozenset[state.QuotaEntity] | None = None,
) -> dict[state.QuotaEntity, dict[str, float]]:
    """Every client-quota entity and its values (one DescribeClientQuotas matching everything).

    With a ``principal_filter``, entities naming a user are kept only when ``User:<name>`` matches; entities
    without a named user (client-id, ip, default user) are always kept. With ``entities`` (at most
    ``MAX_TARGETED``), only those: one strict DescribeClientQuotas each.
    """
    if entities is not None and len(entities) <= MAX_TARGETED:
        found: dict[state.QuotaEntity, dict[str, float]] = {}
        for entity in sorted(entities, key=lambda e: e.address):  # a default entity's name is None: no "<"
            components = [
                DescribeClientQuotasRequest.ComponentData(
                    entity_type=t, match_type=_MATCH_DEFAULT if n is None else _MATCH_EXACT, match=n
                )
                for t, n in entity.parts
            ]
            found |= _describe_quotas(wire, components=components, strict=True, principal_filter=principal_filter)
        return found
    everything = _describe_quotas(wire, components=[], strict=False, principal_filter=principal_filter)
    return everything if entities is None else {e: v for e, v in everything.items() if e in entities}


def _describe_quotas(
    wire: wire_mod.Wire, *, components: list[Any], strict: bool, principal_filter: NameFilter | None
) -> dict[state.QuotaEntity, dict[str, float]]:
    response = wire.send(DescribeClientQuotasRequest(components=components, strict=strict))
    wire.check_top_level(response, api="DescribeClientQuotas")
    quotas: dict[state.QuotaEntity, dict[str, float]] = {}
    for entry in response.entries or []:
        parts = tuple(
            sorted((str(e.entity_type), None if e.entity_name is None else str(e.entity_name)) for e in entry.entity)
        )
        user = next((n for t, n in parts if t == "user" and n is not None), None)
        if principal_filter is not None and user is not None and not principal_filter(f"User:{user}"):
            continue
        quotas[state.QuotaEntity(parts)] = {str(v.key): float(v.value) for v in entry.values}
    return quotas


def read_scram(
    wire: wire_mod.Wire, *, principal_filter: NameFilter | None = None, users: frozenset[str] | None = None
) -> dict[str, tuple[state.ScramCredential, ...]]:
    """Every SCRAM user with its mechanisms and iterations (one DescribeUserScramCredentials, all users);
    with ``users``, only those (an empty list would mean every user, so none sends nothing)."""
    if users is not None and not users:
        return {}
    named = None if users is None else [DescribeUserScramCredentialsRequest.UserName(name=u) for u in sorted(users)]
    response = wire.send(DescribeUserScramCredentialsRequest(users=named))
    wire.check_top_level(response, api="DescribeUserScramCredentials")
    found: dict[str, tuple[state.ScramCredential, ...]] = {}
    for result in response.results:
        user = str(result.user)
        if result.error_code or (principal_filter is not None and not principal_filter(f"User:{user}")):
            continue
        found[user] = tuple(
            sorted(
                (
                    state.ScramCredential(_SCRAM_MECHANISMS.get(int(c.mechanism), "UNKNOWN"), int(c.iterations))
                    for c in result.credential_infos
                ),
                key=lambda c: c.mechanism,
            )
        )
    return found


# ------------------------------------------------------------------------------------------- ACLs
_OK = ItemResult(key="", error_code=0, error_name=None, message=None)


class SecurityWrites:
    """The ACL, client quota and SCRAM credential writes of ``KafkaAdapter`` (a mixin over its wire)."""

    _wire: wire_mod.Wire

    def create_acls(self, bindings: Sequence[state.AclBinding]) -> list[ItemResult]:
        """CreateAcls; the response lists results in request order."""
        wire = self._wire

        def send(chunk: Sequence[state.AclBinding]) -> list[ItemResult]:
            response = wire.send(encoders.create_acls(chunk))
            throttle = codes.throttle_of(response)
            return [
                write.item(b.address, r.error_code, r.error_message, throttle_ms=throttle)
                for b, r in zip(chunk, response.results, strict=True)
            ]

        return limits.send_within_limit(bindings, weight=write.one_record, send=send, key=lambda b: b.address)

    def delete_acls(self, bindings: Sequence[state.AclBinding]) -> list[ItemResult]:
        """DeleteAcls with one EXACT-match filter per binding; ``extra["deleted"]`` counts what it removed."""
        wire = self._wire

        def send(chunk: Sequence[state.AclBinding]) -> list[ItemResult]:
            response = wire.send(encoders.delete_acls(chunk))
            throttle = codes.throttle_of(response)
            out: list[ItemResult] = []
            for b, r in zip(chunk, response.filter_results, strict=True):
                code, message = int(r.error_code), r.error_message
                failed = next((m for m in r.matching_acls if m.error_code), None)
                if not code and failed is not None:
                    code, message = int(failed.error_code), failed.error_message
                out.append(write.item(b.address, code, message, throttle_ms=throttle, deleted=len(r.matching_acls)))
            return out

        # An exact filter matches at most one binding: one record each.
        return limits.send_within_limit(
            bindings,
            weight=write.one_record,
            send=send,
            refused=lambda r: limits.too_large(r, overflow_per_item=True),
            key=lambda b: b.address,
        )

    # ------------------------------------------------------------------------------ quotas and SCRAM

    def alter_client_quotas(
        self,
        changes: Mapping[state.QuotaEntity, Mapping[str, float | None]],
        *,
        validate_only: bool = False,
    ) -> list[ItemResult]:
        """AlterClientQuotas: per entity, ``key -> value`` sets and ``key -> None`` removes."""
        wire = self._wire

        def send(chunk: Sequence[state.QuotaEntity]) -> list[ItemResult]:
            response = wire.send(encoders.alter_client_quotas(changes, chunk, validate_only=validate_only))
            throttle = codes.throttle_of(response)
            found: dict[state.QuotaEntity, ItemResult] = {}
            for r in response.entries:
                entity = state.QuotaEntity(tuple(sorted((str(e.entity_type), e.entity_name) for e in r.entity)))
                found[entity] = write.item(entity.address, r.error_code, r.error_message, throttle_ms=throttle)
            return [
                found.get(e) or write.item(e.address, -1, "no result for this entity in the response") for e in chunk
            ]

        # One ClientQuotaRecord per key.
        return limits.send_within_limit(
            list(changes), weight=lambda e: len(changes[e]), send=send, key=lambda e: e.address
        )

    def alter_scram_credentials(
        self, *, upserts: Sequence[ScramUpsert] = (), deletions: Sequence[ScramDeletion] = ()
    ) -> list[ItemResult]:
        """AlterUserScramCredentials; passwords are salted here (PBKDF2 via kafka-python), never sent in clear.

        Kafka answers once per user and refuses a user named twice in one request ("cannot be altered twice"),
        so alterations go out in rounds: round n holds the n-th alteration of every user (upserts before
        deletions, so a user keeps a working credential while switching mechanisms). That is one request
        unless a user changes several mechanisms at once. Results are one per distinct user, in first-seen
        order; a user whose alteration fails is not altered further.
        """
        wire = self._wire
        per_user = encoders.scram_alterations(upserts, deletions)
        results: dict[str, ItemResult] = {}
        rounds = max((len(v) for v in per_user.values()), default=0)
        for n in range(rounds):
            batch = [alts[n] for user, alts in per_user.items() if n < len(alts) and results.get(user, _OK).ok]
            if not batch:
                break
            request = encoders.alter_user_scram_credentials(batch)
            response = wire.send(request)
            throttle = codes.throttle_of(response)
            for r in response.results:
                results[str(r.user)] = write.item(str(r.user), r.error_code, r.error_message, throttle_ms=throttle)
        return [results.get(u) or write.item(u, -1, "no result for this user in the response") for u in per_user]
