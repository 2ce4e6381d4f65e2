"""Small manifest texts shared by the tests that write manifests to disk: a TopicDefaults named ``compacted`` and a
Topic that uses it (pre-commit, validate --tree, the GitHub action), and plain Topic documents by name and shape."""

from __future__ import annotations

from collections.abc import Mapping

DEFAULTS = """\
apiVersion: kafka-reconciler/v1
kind: TopicDefaults
metadata: {name: compacted}
spec:
  partitions: 3
  replicationFactor: 1
  configs: {cleanup.policy: compact}
"""


def topic_text(partitions: str, *, name: str = "orders.state") -> str:
    """A Topic using the ``compacted`` defaults; ``partitions`` is written as given (it may be invalid)."""
    return f"""\
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {{name: {name}}}
spec:
  defaults: compacted
  partitions: {partitions}
"""


def topic_documents(specs: Mapping[str, tuple[int, int, Mapping[str, str]]]) -> str:
    """Topic manifests, one document per ``name -> (partitions, replication factor, configs)``."""
    docs = []
    for name, (partitions, rf, configs) in specs.items():
        lines = [
            "apiVersion: kafka-reconciler/v1",
            "kind: Topic",
            f'metadata: {{name: "{name}"}}',
            "spec:",
            f"  partitions: {partitions}",
            f"  replicationFactor: {rf}",
        ]
        if configs:
            lines.append("  configs:")
            lines += [f'    {k}: "{v}"' for k, v in configs.items()]
        docs.append("\n".join(lines))
    return "\n---\n".join(docs) + "\n"
