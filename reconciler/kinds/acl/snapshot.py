"""The ACLs' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part): the bindings in order
(``null`` when not read), and each binding as ``diff A B`` compares it.

Reading empties the parsed ``acls`` list as each binding is built, so a snapshot's parsed form is freed while its
state is built instead of both being held at once (see ``reconciler.snapshot.files``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.kinds.spec import SnapshotSection
from reconciler.model import state


def _acls(section: Any) -> Iterator[state.AclBinding]:
    """The bindings of an ``acls`` list, which is emptied (from its end) as each is built."""
    while section:
        yield state.AclBinding.from_dict(section.pop())


def _read_acls(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("acls")
    return {"acls": None if found is None else frozenset(_acls(found))}


SNAPSHOT = SnapshotSection(
    order=30,
    write=lambda live: {"acls": None if live.acls is None else [a.to_dict() for a in sorted(live.acls)]},
    read=_read_acls,
    resources=lambda live: {acl.address: acl.to_dict() for acl in live.acls or ()},
    summary=lambda acl: "",  # its address already says everything
)
