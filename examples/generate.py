"""Write a large synthetic manifest tree (N topics, M ACL bindings) for benchmarks and load-time checks.

Usage: ``python examples/generate.py OUT_DIR --topics 10000 --acls 2000 [--files 20]``. Topics are
spread over ``--files`` files in per-team directories, each directory with a directory-scoped
TopicDefaults, so the output exercises defaults, human values and multi-document files. The output is
deterministic for given arguments. Each document starts with its own ``yaml-language-server`` modeline (the
server binds one to the document it is in, not to the file), pointing at its kind's schema.
"""

from __future__ import annotations

import argparse
from pathlib import Path

MODELINE = "# yaml-language-server: $schema={schemas}/{kind}.json\n"
TEAMS = ("orders", "payments", "shipping", "search", "billing", "identity", "catalog", "fraud")


def _start(kind: str, schemas: str) -> str:
    """A document's first lines: the separator, its modeline (every document's own), its apiVersion and kind."""
    return "---\n" + MODELINE.format(schemas=schemas, kind=kind) + f"apiVersion: kafka-reconciler/v1\nkind: {kind}\n"


def _topic(name: str, index: int, schemas: str) -> str:
    configs = ["    retention.ms: 3d"] if index % 3 else ["    cleanup.policy: compact", "    segment.bytes: 256MiB"]
    return (
        _start("Topic", schemas) + f'metadata:\n  name: {name}\n  labels: {{generated: "true"}}\n'
        f"spec:\n  partitions: {1 + index % 12}\n  configs:\n" + "\n".join(configs) + "\n"
    )


def _acl(index: int, topic: str, schemas: str) -> str:
    return (
        _start("Acl", schemas) + f"metadata:\n  name: acl-{index:06d}\n"
        "spec:\n  bindings:\n"
        f"    - principal: User:app-{index % 500:03d}\n"
        "      operation: READ\n      resourceType: TOPIC\n"
        f"      resourceName: {topic}\n"
    )


def _defaults(team: str, schemas: str) -> str:
    return (
        _start("TopicDefaults", schemas) + f"metadata:\n  name: {team}-defaults\n"
        "spec:\n  scope: directory\n  replicationFactor: 3\n  configs:\n    min.insync.replicas: 2\n"
    )


def generate(out: Path, *, topics: int, acls: int, files: int = 20, schemas: str = "../../schemas") -> list[str]:
    """Write the tree under ``out``; returns the topic names."""
    names = [f"{TEAMS[i % len(TEAMS)]}.events-{i:06d}" for i in range(topics)]
    per_file = max(1, -(-topics // max(1, files)))
    for team in TEAMS:
        directory = out / team
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "_defaults.yaml").write_text(_defaults(team, "../" + schemas))
    buckets: dict[Path, list[str]] = {}
    for start in range(0, topics, per_file):
        chunk = range(start, min(topics, start + per_file))
        team = TEAMS[(start // per_file) % len(TEAMS)]
        path = out / team / f"topics-{start // per_file:04d}.yaml"
        buckets[path] = [_topic(names[i], i, "../" + schemas) for i in chunk]
    for path, docs in buckets.items():
        path.write_text("".join(docs))
    if acls:
        (out / "acls.yaml").write_text(
            "".join(_acl(i, names[i % len(names)] if names else "t", schemas) for i in range(acls))
        )
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path)
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--acls", type=int, default=1000)
    parser.add_argument("--files", type=int, default=20)
    args = parser.parse_args()
    generate(args.out, topics=args.topics, acls=args.acls, files=args.files)
    print(f"wrote {args.topics} topics and {args.acls} ACL bindings under {args.out}")


if __name__ == "__main__":
    main()
