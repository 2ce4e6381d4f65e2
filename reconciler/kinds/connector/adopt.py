"""Import of Kafka Connect connectors: one ``Connector`` document per live connector, read back to its live config.

Each connector becomes ``class``, ``tasksMax``, ``state`` and its other config keys as the strings Connect holds, so
the plan right after an import shows no change for it. A secret is never read in clear (the port keeps only a
digest): it becomes ``secrets: {key: {env: CONNECTOR_<NAME>_<KEY>}}``, listed among the variables to set before a
plan (until then the plan shows it as changed). A connector whose state is not one a manifest declares (FAILED,
UNASSIGNED) is imported as running, with a note. The live connectors are read when the import is pointed at a
Kafka Connect cluster (``KAFKA_CONNECT_URL``). ``add`` is the kind's ``adopt`` part.
"""

from __future__ import annotations

import re
from typing import Any

from reconciler.adopt.adoption_report import AdoptionReport
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, ManifestFile
from reconciler.connect import secrets as connect_secrets
from reconciler.manifests.connectors import VERSION
from reconciler.model import connect_clusters as clusters
from reconciler.model import connector_offsets, state
from reconciler.model.kinds import Kind, Manifest

STATES = {"RUNNING": "running", "PAUSED": "paused", "STOPPED": "stopped"}


def variable(name: str, key: str) -> str:
    """The environment variable an imported secret is read from: ``CONNECTOR_ORDERS_SINK_DB_PASSWORD``."""
    return re.sub(r"[^A-Z0-9_]", "_", f"CONNECTOR_{name}_{key}".upper())


def document(c: state.ConnectorState, report: AdoptionReport, *, several: bool = False) -> Document | None:
    """The Connector document of live connector ``c`` (``several``: keyed ``<cluster>/<name>``, the document names
    its cluster with ``connectCluster``); ``None`` (with a note) when it cannot be declared."""
    address = Kind.CONNECTOR.address(c.name)
    tasks = c.config.get("tasks.max", "1")
    if not c.class_name or not tasks.isdigit() or int(tasks) < 1:
        report.note(address, f"left out: connector.class {c.class_name!r}, tasks.max {tasks!r} cannot be declared")
        return None
    spec: dict[str, Any] = {"class": c.class_name, "tasksMax": int(tasks), "state": STATES.get(c.state, "running")}
    if c.state not in STATES:
        report.note(address, f"Connect reports it {c.state}: imported as running")
    if "tasks.max" not in c.config:
        report.note(address, "tasks.max was not set: written as tasksMax: 1 (Connect's default)")
    if c.config.get(VERSION):
        spec["version"] = c.config[VERSION]
    left_out = ("connector.class", "tasks.max", VERSION, connect_secrets.RECORD_KEY, connector_offsets.RECORD_KEY)
    rest = {k: v for k, v in sorted(c.config.items()) if k not in left_out}
    spec["config"] = {k: v for k, v in rest.items() if not connect_secrets.is_hidden(v)}
    hidden = sorted(k for k, v in rest.items() if connect_secrets.is_hidden(v))
    if hidden:
        spec["secrets"] = {k: {"env": variable(c.name, k)} for k in hidden}
        report.variables += [variable(c.name, k) for k in hidden]
    if several:
        cluster, name = clusters.split(c.name)
        return Document(Manifest.CONNECTOR, name, {"connectCluster": cluster, **spec})
    return Document(Manifest.CONNECTOR, c.name, spec)


def add(job: Job) -> None:
    """Append ``connectors.yaml`` (when the Connect cluster was read and has connectors) and count them."""
    files, report, live = job.files, job.report, job.live
    if live.connect is None:
        return
    several = bool(live.connect.clusters)
    for cluster, reason in sorted(live.connect.unreachable.items()):
        report.note(f"connect cluster {cluster}", f"could not be read ({reason}): its connectors are not imported")
    connectors = sorted(live.connect.connectors.values(), key=lambda c: c.name)
    docs = [d for c in connectors if (d := document(c, report, several=several))]
    report.counts["connectors"] = len(docs)
    if docs:
        files.append(ManifestFile("connectors.yaml", docs))
