"""Small manifest texts shared by the tests that write a manifest tree to disk (pre-commit, validate --tree,
the GitHub action): a TopicDefaults named ``compacted`` and a Topic that uses it."""

from __future__ import annotations

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
