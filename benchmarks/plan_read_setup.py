"""Set-up for ``plan_read_bench``: manifests for N topics and M ACL bindings, and that state created on a broker.

Topics have 1 partition, RF 1 and 3 config overrides; ACL bindings are exact TOPIC bindings of 500 ``User:app-NNN``
principals, 20 to an ``Acl`` document; an ``Ownership`` document covers every topic and principal. The state is
created with the adapter's own batched writes (CreateTopics per ``batch`` topics, CreateAcls).
"""

from __future__ import annotations

import time
from pathlib import Path

from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import TopicSpec
from reconciler.model import desired
from reconciler.model.kinds import Kind

TEAMS = ("orders", "payments", "shipping", "search", "billing", "identity", "catalog", "fraud")
OPERATIONS = ("READ", "WRITE", "DESCRIBE", "DESCRIBE_CONFIGS")
TIMEOUT_MS = 300_000


def write_manifests(out: Path, *, topics: int, acls: int) -> list[str]:
    """Ownership, ``topics`` Topic documents in 20 files and ``acls`` bindings in Acl documents of 20 bindings."""
    names = [f"{TEAMS[i % len(TEAMS)]}.events-{i:06d}" for i in range(topics)]
    rules = "".join(f"    - prefix: {team}.\n" for team in TEAMS)
    (out / "ownership.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata:\n  name: bench\nspec:\n  topics:\n"
        f'{rules}  principals:\n    - regex: "User:app-.*"\n'
    )
    per_file = max(1, -(-topics // 20))
    for start in range(0, topics, per_file):
        docs = [
            "apiVersion: kafka-reconciler/v1\nkind: Topic\n"
            f"metadata:\n  name: {names[i]}\nspec:\n  partitions: 1\n  replicationFactor: 1\n  configs:\n"
            f"    retention.ms: {1 + i % 7}d\n    segment.bytes: 256MiB\n    max.message.bytes: 2MiB\n"
            for i in range(start, min(topics, start + per_file))
        ]
        (out / f"topics-{start // per_file:02d}.yaml").write_text("---\n".join(docs))
    if acls > len(OPERATIONS) * topics:
        raise SystemExit(f"at most {len(OPERATIONS) * topics} distinct ACL bindings for {topics} topics")
    docs = []
    for first in range(0, acls, 20):
        bindings = "".join(
            f"    - principal: User:app-{i % 500:03d}\n      operation: {OPERATIONS[i // topics]}\n"
            f"      resourceType: TOPIC\n      resourceName: {names[i % topics]}\n"
            for i in range(first, min(acls, first + 20))
        )
        docs.append(f"apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata:\n  name: acl-{first:06d}\n")
        docs[-1] += f"spec:\n  bindings:\n{bindings}"
    (out / "acls.yaml").write_text("---\n".join(docs))
    return names


def create_state(adapter: KafkaAdapter, wanted: desired.DesiredState, *, batch: int) -> None:
    """Create every declared topic (``batch`` per CreateTopics) and ACL binding; wait until Metadata shows them."""
    specs = [TopicSpec(t.name, t.partitions, t.replication_factor, configs=t.configs) for t in wanted.topics.values()]
    for i in range(0, len(specs), batch):
        started = time.perf_counter()
        results = adapter.create_topics(specs[i : i + batch], timeout_ms=TIMEOUT_MS)
        failed = [r.describe() for r in results if not r.ok and r.error_name != "TOPIC_ALREADY_EXISTS"]
        if failed:
            raise SystemExit(f"cannot create topics: {failed[:5]}")
        print(f"  created topics {i + 1}-{i + len(results)} in {time.perf_counter() - started:.1f}s", flush=True)
    pending = adapter.wait_topics_present(wanted.topics, timeout_s=900, poll_s=2.0)
    if pending:
        raise SystemExit(f"{len(pending)} topics have no leader after 15 minutes")
    results = adapter.create_acls(sorted(wanted.acls, key=lambda b: b.address))
    failed = [r.describe() for r in results if not r.ok]
    if failed:
        raise SystemExit(f"cannot create ACLs: {failed[:5]}")
    # The authorizer learns new bindings from the metadata log a moment after CreateAcls answers.
    deadline = time.monotonic() + 300
    while len(adapter.read_state(kinds=frozenset({Kind.ACL})).acls or ()) < len(wanted.acls):
        if time.monotonic() > deadline:
            raise SystemExit("the created ACLs are not all visible after 5 minutes")
        time.sleep(1.0)
