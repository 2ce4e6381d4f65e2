"""Import of topics (``add_topics``, the kind's ``adopt`` part): ``topics.yaml``, one ``Topic`` document per topic
read, but those Kafka and (unless asked for) its tools run.

Each topic's configs are checked against the same rules the loader applies; a config this version does not know or
a value it refuses is left out with a note (the plan proposes resetting it), and a secret the broker does not return
is written as a variable the user sets. The topics imported are the Ownership document's.
"""

from __future__ import annotations

from typing import Any

from reconciler.adopt import values
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, ManifestFile
from reconciler.model import configs, state
from reconciler.model.kinds import Kind, Manifest
from reconciler.planner import guards


def add_topics(job: Job) -> None:
    """``topics.yaml``: the topics read, but those Kafka and (unless asked for) its tools run."""
    if job.live.topics is None:
        return
    found = job.live.topics
    docs: list[Document] = []
    tool_topics: list[str] = []
    for name in sorted(found):
        topic = found[name]
        if topic.internal or name.startswith("__"):
            continue
        if guards.is_internal(name, topic) and not job.include_tool_topics:
            tool_topics.append(name)
            continue
        if not topic.assignment:
            job.report.note(Kind.TOPIC.address(name), "no partitions in the metadata answer; left out")
            continue
        docs.append(_topic(job, topic))
        job.topics.append(name)
    if tool_topics:
        job.report.note(
            "topics",
            f"{len(tool_topics)} topic(s) run by Kafka tools (Connect, Schema Registry, MirrorMaker) were not "
            f"imported: {', '.join(tool_topics)}; import again with --include-tool-topics to manage them",
            severity="info",
        )
    job.report.counts["topics"] = len(docs)
    job.files.append(ManifestFile("topics.yaml", docs))


def _topic(job: Job, topic: state.TopicState) -> Document:
    address = Kind.TOPIC.address(topic.name)
    sizes = {len(r) for r in topic.assignment}
    rf = min(sizes)
    if len(sizes) > 1:
        job.report.note(
            address,
            f"partitions have different replica counts ({', '.join(map(str, sorted(sizes)))}); written as "
            f"replicationFactor {rf}, so the plan proposes a reassignment",
        )
    out: dict[str, object] = {}
    for key, text in sorted(topic.configs.items()):
        value = _topic_config(job, address, key, text=text, rf=rf, secret=key in topic.sensitive)
        if value is not None:
            out[key] = value
    spec: dict[str, Any] = {"partitions": topic.partitions, "replicationFactor": rf}
    if out:
        spec["configs"] = out
    return Document(Manifest.TOPIC, topic.name, spec)


def _topic_config(job: Job, address: str, key: str, *, text: str | None, rf: int, secret: bool) -> object | None:
    if secret or text is None or configs.is_sensitive(key):
        variable = job.variable("TOPIC", address.removeprefix(Kind.TOPIC.prefix), key)
        job.report.note(
            address,
            f"{key} is a secret the broker does not return; written as {variable}: set that variable",
            severity="todo",
        )
        return variable
    spec = configs.TOPIC_CONFIGS.get(key)
    if spec is None:
        job.report.note(address, f"{key}={text} is not a topic config this version knows; left out (the "
                        "plan proposes resetting it)")  # fmt: skip
        return None
    problems = configs.validate_config(spec, text)
    if not problems and key == "min.insync.replicas" and int(configs.canonical(key, text)) > rf:
        problems = [f"min.insync.replicas {text} is greater than the replication factor {rf}"]
    if problems:
        job.report.note(address, f"{key}={text} left out ({'; '.join(problems)}); the plan proposes resetting it")
        return None
    return values.config_value(key, text)
