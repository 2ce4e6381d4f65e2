"""An ``Acl`` document's ``bindings`` entries from ACL bindings (``acl_entries``): bindings of one principal that
differ only in operation share an entry. Shared by the ACL kind's import (``kinds/acl/adopt.py``) and ``convert``
(``reconciler.convert.bundle``), so both write the same documents.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from reconciler.adopt.output import Flow
from reconciler.model import state
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType

_AclEntryKey = tuple[AclResourceType, AclPatternType, str, str, AclPermission]  # sorted by code: Kafka's order


def acl_entries(bindings: list[state.AclBinding]) -> list[dict[str, Any]]:
    """Acl ``bindings`` entries of one principal: bindings that differ only in operation share an entry."""
    groups: dict[_AclEntryKey, list[AclOperation]] = defaultdict(list)
    for b in bindings:
        groups[(b.resource_type, b.pattern_type, b.resource_name, b.host, b.permission)].append(b.operation)
    principal = bindings[0].principal
    out: list[dict[str, Any]] = []
    for (rtype, pattern, name, host, permission), ops in sorted(
        groups.items(), key=lambda item: (item[0][0].code, *item[0][1:])
    ):
        entry: dict[str, Any] = {"principal": principal, "resourceType": str(rtype)}  # YAML text, not the enum
        if rtype != "CLUSTER":
            entry["resourceName"] = name
        if pattern != "LITERAL":
            entry["patternType"] = str(pattern)
        ordered = [str(op) for op in sorted(set(ops), key=lambda op: op.code)]
        if len(ordered) == 1:
            entry["operation"] = ordered[0]
        else:
            entry["operations"] = Flow(ordered)
        if permission != "ALLOW":
            entry["permission"] = str(permission)
        if host != "*":
            entry["host"] = host
        out.append(entry)
    return out
