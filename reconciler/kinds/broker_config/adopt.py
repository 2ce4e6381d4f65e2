"""Import of dynamic broker configs (``add_broker_configs``, the kind's ``adopt`` part): ``brokers.yaml``, one
``BrokerConfig`` document for the cluster default and one per broker with configs set.

Secrets are left out (they are not managed from manifests), and so is a config the catalogue says is read-only, can
only be set per broker, or whose value it refuses, each with a note.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.adopt import values
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, ManifestFile
from reconciler.model import configs, state
from reconciler.model.kinds import Kind, Manifest


def add_broker_configs(job: Job) -> None:
    """``brokers.yaml``: the dynamic configs of the cluster default and of each broker, secrets left out."""
    if job.live.broker_configs is None:
        job.unread(Kind.BROKER_CONFIG, "dynamic broker configs")
        return
    docs: list[Document] = []
    entries = job.live.broker_configs
    for broker in sorted(entries, key=lambda b: (b != state.CLUSTER_DEFAULT, int(b) if b.isdigit() else 0, b)):
        kept = _broker_entry(job, broker, entries[broker])
        if not kept:
            continue
        label = "default" if broker == state.CLUSTER_DEFAULT else broker
        name = "cluster-default" if broker == state.CLUSTER_DEFAULT else f"broker-{broker}"
        docs.append(Document(Manifest.BROKER_CONFIG, name, {"broker": label, "configs": kept}))
    job.report.counts["broker config sets"] = len(docs)
    job.files.append(ManifestFile("brokers.yaml", docs))


def _broker_entry(job: Job, broker: str, found: Mapping[str, str | None]) -> dict[str, object]:
    address = Kind.BROKER_CONFIG.address(broker)
    kept: dict[str, object] = {}
    for key, text in sorted(found.items()):
        if text is None or key in job.live.broker_config_sensitive or configs.is_sensitive(key):
            job.report.note(address, f"{key} is a secret; secrets are not managed from manifests, left out "
                            "(the plan lists it as not declared)")  # fmt: skip
            continue
        meta = configs.BROKER_CONFIGS.get(key)
        problem = None
        if meta is not None and meta.update_mode == "read-only":
            problem = "read-only in this version's catalogue"
        elif meta is not None and meta.update_mode == "per-broker" and broker == state.CLUSTER_DEFAULT:
            problem = "can only be set per broker"
        elif meta is not None:
            problem = "; ".join(configs.validate_config(meta, text)) or None
        if problem:
            job.report.note(address, f"{key}={text} left out: {problem}")
            continue
        kept[key] = values.config_value(key, text)
    return kept
