"""ACLs in the fleet row model (``reconciler.fleet.rows``): declared and live bindings as rows, and back.

Rows of kind ``acl`` are named by the binding (``model.views.acl_name``), with one compared ``binding`` row (its JSON)
and the declaration's ``@source``. ``ACLS`` is the kind's ``FleetRows`` (its declaration's ``rows``), with the
Ownership rules that name principals (those that name SCRAM users travel here too).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping

from reconciler.fleet.ownership_rows import patterns, unpatterns
from reconciler.fleet.rows import Row, as_json, source_of, source_text, text
from reconciler.kinds.spec import FleetRows
from reconciler.model import desired, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind


def _desired_acls(wanted: desired.DesiredState) -> Iterator[Row]:
    for binding, source in wanted.acls.items():
        name = model_views.acl_name(binding)
        yield (Kind.ACL, name, "binding", as_json(binding.to_dict()))
        if source is not None:
            yield (Kind.ACL, name, "@source", source_text(source))


def _live_acls(live: state.ClusterState) -> Iterator[Row]:
    for binding in live.acls or ():
        yield (Kind.ACL, model_views.acl_name(binding), "binding", as_json(binding.to_dict()))


def _binding(entry: Mapping[str, str | None]) -> state.AclBinding:
    return state.AclBinding.from_dict(json.loads(text(entry["binding"])))


ACLS = FleetRows(
    desired_rows=_desired_acls,
    rebuild_desired=lambda wanted, section: dataclasses.replace(
        wanted, acls={_binding(e): source_of(e.get("@source")) for e in section.values()}
    ),
    live_rows=_live_acls,
    rebuild_live=lambda live, section, meta: dataclasses.replace(
        live, acls=frozenset(_binding(e) for e in section.values())
    ),
    rules=lambda own: {"principals": patterns(own.principals)},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, principals=unpatterns(doc.get("principals", []))),
)
