"""The four ACL enum fields are typed from the manifest to the wire: one member per Kafka name, carrying its code.

A manifest's ``operation: describe-configs`` is read into ``AclOperation.DESCRIBE_CONFIGS``; the desired state, the
planner, the plan's change and the decoded write hold that member; the plan file writes Kafka's name (the format is
unchanged); the encoder sends the member's code, which is Kafka's (checked against kafka-python's own enums).
"""

from __future__ import annotations

import copy
import json
import re
import textwrap
from pathlib import Path

import pytest
from kafka.admin import ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourceType
from kafka.protocol.admin import CreateAclsRequest

from reconciler import manifests
from reconciler.apply import decoded
from reconciler.base import errors
from reconciler.kafka import encoders
from reconciler.model import plans, state
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType, KafkaName
from reconciler.planner import plan
from tests.support.fuzzing import GOLDEN_PLAN, reseal

H = "apiVersion: kafka-reconciler/v1\n"
ACLS = H + textwrap.dedent(
    """\
    kind: Acl
    metadata: {name: ops}
    spec:
      bindings:
        - principal: User:ops
          operations: [read, Describe-Configs]
          resourceType: topic
          resourceName: orders
          patternType: prefixed
          permission: deny
        - {principal: 'User:*', operation: DESCRIBE, resourceType: CLUSTER}
    """
)
ENUMS: list[tuple[type[KafkaName], object]] = [
    (AclResourceType, ResourceType),
    (AclPatternType, ACLResourcePatternType),
    (AclOperation, ACLOperation),
    (AclPermission, ACLPermissionType),
]
FIELDS = {"resource_type": AclResourceType, "pattern_type": AclPatternType, "operation": AclOperation,
          "permission": AclPermission}  # fmt: skip


def _typed(binding: state.AclBinding) -> bool:
    return all(type(getattr(binding, field)) is enum_cls for field, enum_cls in FIELDS.items())


def _load(tmp_path: Path, text: str) -> manifests.LoadResult:
    (tmp_path / "acls.yaml").write_text(text)
    return manifests.load([tmp_path], env={})


def test_manifest_acl_fields_are_read_into_enum_members(tmp_path: Path) -> None:
    bindings = sorted(_load(tmp_path, ACLS).desired.acls)
    assert [(b.resource_type, b.pattern_type, b.operation, b.permission) for b in bindings] == [
        (AclResourceType.CLUSTER, AclPatternType.LITERAL, AclOperation.DESCRIBE, AclPermission.ALLOW),
        (AclResourceType.TOPIC, AclPatternType.PREFIXED, AclOperation.DESCRIBE_CONFIGS, AclPermission.DENY),
        (AclResourceType.TOPIC, AclPatternType.PREFIXED, AclOperation.READ, AclPermission.DENY),
    ]
    assert all(_typed(b) for b in bindings)


def test_a_value_that_is_not_text_is_refused_as_not_an_operation_at_its_position(tmp_path: Path) -> None:
    """Regression: ``operation: 3`` passed the model as the text "3" and was refused later as an operation that
    "does not apply to TOPIC resources"; now it is refused like any other word that is not an operation."""
    text = H + "kind: Acl\nmetadata: {name: a}\nspec:\n  bindings:\n"
    text += "    - {principal: 'User:a', resourceType: TOPIC, resourceName: t, operation: 3}\n"
    text += "    - {principal: 'User:a', resourceType: topik, resourceName: t, operation: read}\n"
    with pytest.raises(errors.ValidationFailed) as failed:
        _load(tmp_path, text)
    found = [(d.line, d.column, d.message) for d in failed.value.diagnostics]
    names = ", ".join(AclOperation.known())
    assert found == [
        (6, 78, f"3 is not a valid ACL operation; expected one of {names}"),
        (7, 43, "'topik' is not a valid ACL resource type; did you mean TOPIC? expected one of TOPIC, GROUP, "
         "CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN, USER"),
    ]  # fmt: skip


def test_a_binding_holds_members_however_it_is_built_and_refuses_other_names() -> None:
    """Regression: a binding built with an operation named ``DENY`` (a permission) was accepted and compared as
    text; it is refused when built, naming the field."""
    assert _typed(state.AclBinding("TOPIC", "LITERAL", "t", "User:a", "*", "READ", "ALLOW"))
    with pytest.raises(ValueError, match="operation: 'DENY' is not one of ALL, READ"):
        state.AclBinding("TOPIC", "LITERAL", "t", "User:a", "*", "DENY", "ALLOW")
    with pytest.raises(ValueError, match="pattern_type: 'MATCH' is not one of LITERAL, PREFIXED"):
        state.AclBinding.from_dict({**_ORDERS.to_dict(), "pattern_type": "MATCH"})


_ORDERS = state.AclBinding(
    AclResourceType.TOPIC, AclPatternType.LITERAL, "orders", "User:a", "*", AclOperation.READ, AclPermission.ALLOW
)


def test_the_plan_carries_members_and_its_file_writes_kafka_names(tmp_path: Path) -> None:
    wanted = _load(tmp_path, ACLS).desired
    live = state.ClusterState(cluster_id="c", controller_id=1, brokers=(), topics={}, acls=frozenset())
    p = plan(wanted, live)
    created = [c for c in p.changes if c.phase is plans.Phase.ACL_CREATE]
    assert len(created) == 3
    doc = json.loads(json.dumps(p.to_json_dict()))
    assert {c["after"]["operation"] for c in doc["changes"]} == {"READ", "DESCRIBE_CONFIGS", "DESCRIBE"}
    ops = decoded.decode(plans.Plan.from_json_dict(doc))
    written = [op.want(decoded.WriteAcl).binding for op in ops.items]
    assert written == sorted(wanted.acls) and all(_typed(b) for b in written)


def test_every_member_sends_kafkas_own_code() -> None:
    """The codes the encoder sends are the member's ``code``: equal to kafka-python's enum of the same name, for every
    member (a member whose code drifted would write another operation than the plan shows)."""
    for ours, theirs in ENUMS:
        for member in ours:
            assert member.code == int(theirs[member.name]), member  # type: ignore[index]
    request = encoders.create_acls([_ORDERS])
    creation = request.creations[0]
    assert isinstance(request, CreateAclsRequest)
    assert (creation.resource_type, creation.resource_pattern_type, creation.operation, creation.permission_type) == (
        int(ResourceType.TOPIC),
        int(ACLResourcePatternType.LITERAL),
        int(ACLOperation.READ),
        int(ACLPermissionType.ALLOW),
    )


def test_a_code_this_release_does_not_know_reads_as_unknown_and_is_never_sent() -> None:
    assert AclOperation.from_code(99) is AclOperation.UNKNOWN
    assert AclResourceType.from_code(int(ResourceType.GROUP)) is AclResourceType.GROUP
    unknown = state.AclBinding(AclResourceType.UNKNOWN, AclPatternType.LITERAL, "t", "User:a", "*",
                               AclOperation.READ, AclPermission.ALLOW)  # fmt: skip
    with pytest.raises(ValueError, match="not an exact ACL binding \\(resource_type\\)"):
        encoders.create_acls([unknown])


@pytest.mark.parametrize("field", list(FIELDS))
def test_a_resealed_plan_with_an_acl_name_kafka_does_not_have_is_refused_naming_the_field(field: str) -> None:
    doc = copy.deepcopy(GOLDEN_PLAN)
    change = next(c for c in doc["changes"] if c["phase"] == "ACL_CREATE")
    change["after"][field] = "any"
    p = plans.Plan.from_json_dict(reseal(doc))
    with pytest.raises(errors.PlanFileError, match=re.escape(f"{change['address']}: {field}: 'any' is not one of")):
        decoded.decode(p)
