"""SCRAM users in the fleet row model (``reconciler.fleet.rows``): declared and live users as rows, and back.

Rows of kind ``scram_user`` are named by the user: one ``credentials.<mechanism>`` row with its iterations on both
sides; the declared password's reference (never a password), rotation and source, and the live credentials, in ``@``
rows. ``SCRAM_USERS`` is the kind's ``FleetRows`` (its declaration's ``rows``); the Ownership rules that name SCRAM
users (principals) travel with the ACLs.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

from reconciler.fleet.row_fields import CREDENTIAL_PREFIX
from reconciler.fleet.rows import Row, as_json, prefixed, source_of, source_text, text
from reconciler.kinds.spec import FleetRows, RowSection
from reconciler.model import desired, state
from reconciler.model.kinds import Kind


def _desired_scram(wanted: desired.DesiredState) -> Iterator[Row]:
    kind = Kind.SCRAM_USER
    for name, user in wanted.scram_users.items():
        yield (kind, name, CREDENTIAL_PREFIX + user.mechanism, str(user.iterations))
        yield (kind, name, "@password", as_json(dataclasses.asdict(user.password)))
        if user.rotation is not None:
            yield (kind, name, "@rotation", user.rotation)
        if user.source is not None:
            yield (kind, name, "@source", source_text(user.source))


def _rebuild_desired_scram(wanted: desired.DesiredState, section: RowSection) -> desired.DesiredState:
    scram = {}
    for name, e in section.items():
        ((mechanism, iterations),) = prefixed(e, CREDENTIAL_PREFIX).items()
        scram[name] = desired.DesiredScramUser(
            name=name,
            mechanism=mechanism,
            iterations=int(text(iterations)),
            password=desired.SecretRef(**json.loads(text(e["@password"]))),
            rotation=e.get("@rotation"),
            source=source_of(e.get("@source")),
        )
    return dataclasses.replace(wanted, scram_users=scram)


def _live_scram(live: state.ClusterState) -> Iterator[Row]:
    for user, creds in (live.scram_users or {}).items():
        yield (Kind.SCRAM_USER, user, "@credentials", as_json([[c.mechanism, c.iterations] for c in creds]))
        for cred in creds:
            yield (Kind.SCRAM_USER, user, CREDENTIAL_PREFIX + cred.mechanism, str(cred.iterations))


def _rebuild_live_scram(live: state.ClusterState, section: RowSection, meta: Any) -> state.ClusterState:
    scram = {
        user: tuple(state.ScramCredential(str(m), int(i)) for m, i in json.loads(text(e["@credentials"])))
        for user, e in section.items()
    }
    return dataclasses.replace(live, scram_users=scram)


SCRAM_USERS = FleetRows(  # the principals rules that name SCRAM users travel with the ACLs
    desired_rows=_desired_scram,
    rebuild_desired=_rebuild_desired_scram,
    live_rows=_live_scram,
    rebuild_live=_rebuild_live_scram,
)
