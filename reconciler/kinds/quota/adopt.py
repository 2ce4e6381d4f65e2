"""Import of client quotas (``add_quotas``, the kind's ``adopt`` part): ``quotas.yaml``, one ``ClientQuota``
document per entity a manifest can name, its values readable (byte rates in KiB/MiB/GiB when exact).

A key the entity cannot carry is left out with a note, as is an entity literally named ``default`` (a manifest cannot
tell it from the default entity). The users quotas are imported for are principals of the Ownership document.
"""

from __future__ import annotations

from reconciler.adopt import values
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, FlowMap, ManifestFile
from reconciler.manifests import rules
from reconciler.model.kinds import Kind, Manifest

_QUOTA_FIELDS = {"user": "user", "client-id": "clientId", "ip": "ip"}


def add_quotas(job: Job) -> None:
    """``quotas.yaml``: the client quotas of entities a manifest can name."""
    if job.live.quotas is None:
        job.unread(Kind.QUOTA, "client quotas")
        return
    docs: list[Document] = []
    for entity, found in sorted(job.live.quotas.items(), key=lambda item: item[0].address):
        if not found:
            continue
        address = entity.address
        parts = dict(entity.parts)
        if "default" in parts.values():
            job.report.note(address, "an entity literally named 'default' cannot be told apart from the "
                            "default entity in a manifest; left out")  # fmt: skip
            continue
        kept: dict[str, object] = {}
        for key, number in sorted(found.items()):
            problems = rules.quota_key_problems(set(parts), key)
            if problems:
                job.report.note(address, f"{key} left out: {'; '.join(problems)}")
                continue
            kept[key] = values.quota_value(key, number)
        if not kept:
            continue
        spec_entity = FlowMap(
            (_QUOTA_FIELDS[t], "default" if n is None else n) for t, n in entity.parts if t in _QUOTA_FIELDS
        )
        docs.append(
            Document(
                Manifest.CLIENT_QUOTA,
                address.removeprefix(Kind.QUOTA.prefix),
                {"entity": spec_entity, "values": kept},
            )
        )
        user = parts.get("user")
        if user is not None:
            job.principals.add(f"User:{user}")
    job.report.counts["client quotas"] = len(docs)
    job.files.append(ManifestFile("quotas.yaml", docs))
