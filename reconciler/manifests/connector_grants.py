"""The ACLs a ``Connector`` needs, granted to the principal of the ``ConnectWorker`` grant it names (``worker``).

A connector's client connections are the worker's: Connect runs its producers and consumers with the worker's
credentials, so the rights a connector needs go to the worker grant's principal and host. The topics come from the
connector's own config, so they are written once:

- a sink reads the topics of its ``topics`` config (the key Connect defines for every sink): ``TOPIC READ`` and
  ``DESCRIBE`` on each, and ``GROUP READ`` on its consumer group ``<sinkGroupPrefix><connector name>``. A
  ``topics.regex`` sink reads topics its config does not name: its ``aclTopics`` lists them (names or prefixes),
  else it is an error at the ``topics.regex`` line (a regex cannot be granted: Kafka's ACLs match names and
  prefixes only).
- a source writes topics no key Connect defines names: ``aclTopics`` lists them, else the ``topic`` key (the one
  single-topic sources such as FileStreamSource use); neither is an error at ``worker``. ``TOPIC WRITE`` and
  ``DESCRIBE`` on each, and ``CREATE`` when the config has ``topic.creation.*`` keys (Connect then creates the
  topics it writes).

Whether a connector is a source or a sink is ``type``, else read from the class name (``...Source``,
``...SourceConnector``, ``...Sink``, ``...SinkConnector``); a class named otherwise needs ``type``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from reconciler.manifests import connector_spec, connectors, fields, loader, models, roles
from reconciler.model import configs
from reconciler.model.acl_names import AclOperation
from reconciler.model.identities import AclBinding

Error = Callable[..., None]
Path = tuple[str | int, ...]
WORKER: Path = ("spec", "worker")


@dataclasses.dataclass(frozen=True)
class Derived:
    """What a connector's ``worker`` stands for: its bindings, and the literal topics it names (with their paths)."""

    bindings: list[AclBinding]
    topics: list[tuple[Path, str]]
    origin: str
    kind: str  # source or sink


def kind_of(spec: connector_spec.ConnectorSpec) -> str | None:
    """``source`` or ``sink`` as declared, else from the class name; ``None`` when neither tells."""
    if spec.type is not None:
        return spec.type
    simple = spec.class_name.rsplit(".", 1)[-1]
    for kind in ("source", "sink"):
        if simple.endswith((kind.title(), f"{kind.title()}Connector")):
            return kind
    return None


def derive(
    doc: loader.Document, workers: Mapping[str, models.ConnectWorkerSpec | None], error: Error
) -> Derived | None:
    """The bindings ``doc``'s connector needs for its worker's principal; ``None`` when it names no worker or a
    problem was reported through ``error``. ``workers`` maps a ConnectWorker document that failed its model to
    ``None`` (its own errors are reported; nothing is derived from it)."""
    spec: connector_spec.ConnectorSpec = doc.spec
    plain = connectors.connect_name(doc)
    if spec.worker is None:
        for field, value in (("type", spec.type), ("aclTopics", spec.acl_topics)):
            if value is not None:
                error(
                    doc,
                    ("spec", field),
                    f"{field} is only used with worker (the ConnectWorker grant to give the connector's ACLs to)",
                    key=True,
                )
        return None
    if spec.worker in workers and workers[spec.worker] is None:
        return None
    worker = workers.get(spec.worker)
    if worker is None:
        guess = configs.suggest(spec.worker, list(workers))
        hint = f"did you mean {guess}?" if guess else "declare a ConnectWorker grant under that name"
        error(doc, WORKER, f"no ConnectWorker grant is named {spec.worker!r}", hint=hint)
        return None
    kind = kind_of(spec)
    if kind is None:
        error(
            doc,
            ("spec", "class"),
            f"cannot tell whether {spec.class_name} is a source or a sink connector from its name",
            hint="set type: source or type: sink",
        )
        return None
    found = _sink_topics(doc, error) if kind == "sink" else _source_topics(doc, error)
    if found is None:
        return None
    refs, paths = found
    if kind == "sink":
        out = roles.bindings(worker, roles.TOPIC, refs, (roles.READ, roles.DESCRIBE))
        out += roles.bindings(worker, roles.GROUP, [f"{worker.sink_group_prefix}{plain}"], (roles.READ,))
    else:
        creates = any(key.startswith("topic.creation.") for key in spec.config)
        ops = (roles.WRITE, roles.DESCRIBE, *((AclOperation.CREATE,) if creates else ()))
        out = roles.bindings(worker, roles.TOPIC, refs, ops)
    literal = [
        (path, name)
        for path, ref in zip(paths, refs, strict=True)
        if (isinstance(ref, str) or ref.name is not None) and (name := roles.resource(ref)[1]) != "*"
    ]
    origin = f"Connector {plain} via ConnectWorker {spec.worker}"
    return Derived(bindings=out, topics=literal, origin=origin, kind=kind)


def _listed(spec: connector_spec.ConnectorSpec) -> tuple[list[fields.RefField], list[Path]]:
    refs = list(spec.acl_topics or [])
    return refs, [("spec", "aclTopics", index) for index in range(len(refs))]


def _sink_topics(doc: loader.Document, error: Error) -> tuple[list[fields.RefField], list[Path]] | None:
    spec: connector_spec.ConnectorSpec = doc.spec
    plain = connectors.connect_name(doc)
    named = spec.config.get("topics")
    if named is not None:
        if spec.acl_topics is not None:
            error(
                doc,
                ("spec", "aclTopics"),
                "a sink's topics come from config.topics; aclTopics is for sources and topics.regex sinks",
                key=True,
            )
            return None
        path: Path = ("spec", "config", "topics")
        names = [n.strip() for n in connectors.text(named).split(",") if n.strip()]
        if not names:
            error(doc, path, "config.topics names no topic")
            return None
        return list(names), [path] * len(names)
    if spec.acl_topics is not None:
        return _listed(spec)
    if "topics.regex" in spec.config:
        error(
            doc,
            ("spec", "config", "topics.regex"),
            "the topics a topics.regex sink reads are not named in its config, so the ACLs of its worker cannot "
            "be derived (Kafka's ACLs match names and prefixes, not regular expressions)",
            hint="list them in aclTopics: [name, {prefix: x}]",
        )
        return None
    error(
        doc,
        WORKER,
        f"sink connector {plain!r} names no topics (config.topics) to grant its worker",
    )
    return None


def _source_topics(doc: loader.Document, error: Error) -> tuple[list[fields.RefField], list[Path]] | None:
    spec: connector_spec.ConnectorSpec = doc.spec
    plain = connectors.connect_name(doc)
    if spec.acl_topics is not None:
        return _listed(spec)
    named = spec.config.get("topic")
    if named is not None:
        return [connectors.text(named)], [("spec", "config", "topic")]
    error(
        doc,
        WORKER,
        f"the topics source connector {plain!r} writes are not named by a config key Connect defines, so the "
        "ACLs of its worker cannot be derived",
        hint="list them in aclTopics: [name, {prefix: x}] (e.g. the topic.prefix of a change-data-capture source)",
    )
    return None
