"""Import of SCRAM users (``add_scram_users``, the kind's ``adopt`` part): ``users.yaml``, one ``ScramUser`` per user
with a credential this version can declare, its password read from a variable the user sets (Kafka never returns
it). The users imported are principals of the Ownership document.
"""

from __future__ import annotations

from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, FlowMap, ManifestFile
from reconciler.model import state
from reconciler.model.kinds import Kind, Manifest


def add_scram_users(job: Job) -> None:
    """``users.yaml``: one credential per user, its password from a variable the user sets."""
    if job.live.scram_users is None:
        job.unread(Kind.SCRAM_USER, "SCRAM users")
        return
    docs: list[Document] = []
    for user, creds in sorted(job.live.scram_users.items()):
        known = {c.mechanism: c.iterations for c in creds if c.mechanism in state.SCRAM_MECHANISMS}
        address = Kind.SCRAM_USER.address(user)
        if not known:
            if creds:
                job.report.note(address, "no credential with a mechanism this version knows; left out")
            continue
        mechanism = "SCRAM-SHA-512" if "SCRAM-SHA-512" in known else "SCRAM-SHA-256"
        iterations = known[mechanism]
        if not 4096 <= iterations <= 16384:
            job.report.note(address, f"{iterations} iterations is outside 4096..16384; left out")
            continue
        if len(known) > 1:
            job.report.note(
                address,
                "has both SCRAM-SHA-256 and SCRAM-SHA-512 credentials; a ScramUser holds one, so "
                f"{mechanism} was written and the plan proposes removing the other",
            )
        variable = job.variable("SCRAM_PASSWORD", user)
        spec = {"mechanism": mechanism, "iterations": iterations, "passwordFrom": FlowMap(env=variable.name)}
        comments = [
            f"TODO: export {variable.name} with this user's current password before the first apply.",
            "Kafka never returns SCRAM passwords; apply sends it only when the credential is (re)set.",
        ]
        docs.append(Document(Manifest.SCRAM_USER, user, spec, comments=comments))
        job.principals.add(f"User:{user}")
    job.report.counts["SCRAM users"] = len(docs)
    job.files.append(ManifestFile("users.yaml", docs))
