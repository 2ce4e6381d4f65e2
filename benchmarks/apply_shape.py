"""The production-like shape ``apply_bench`` writes as manifests: topics with a partition mix, 3 configs, ACLs.

Partition counts follow a fixed mix from 1 to 48 (mean 5.9 per topic), every topic has RF 1 (one broker) and
three config overrides, ACL bindings are exact TOPIC bindings (each topic in turn, 4 operations, ``User:app-NNN``
principals), and an ``Ownership`` document covers the run's topic prefix and principals (topics left out
are deleted).
The same generator writes the variants the scenarios apply: some configs changed, some topics left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

# (partitions, share of topics in percent): mean 0.40*1 + 0.25*3 + 0.15*6 + 0.12*12 + 0.06*24 + 0.02*48 = 5.89
MIX = ((1, 40), (3, 25), (6, 15), (12, 12), (24, 6), (48, 2))
_SLOTS = [p for p, share in MIX for _ in range(share)]
OPERATIONS = ("READ", "WRITE", "DESCRIBE", "DESCRIBE_CONFIGS")
PRINCIPALS = 500


def partitions(i: int) -> int:
    """Partition count of topic ``i``: the mix, spread evenly over the indices (37 is prime to 100)."""
    return _SLOTS[(i * 37) % len(_SLOTS)]


@dataclasses.dataclass(frozen=True)
class Shape:
    """``topics`` topics named ``<prefix>.events-NNNNNN`` and ``acls`` bindings on them.

    ``each``: that many partitions for every topic instead of the mix (0: the mix); ``principal``: the bindings'
    principals are ``User:<principal>-NNN`` (the Ownership document owns ``User:<principal>-.*``).
    """

    prefix: str
    topics: int
    acls: int
    each: int = 0
    principal: str = "app"

    def name(self, i: int) -> str:
        return f"{self.prefix}.events-{i:06d}"

    @property
    def partitions_total(self) -> int:
        return sum(self.partitions(i) for i in range(self.topics))

    def partitions(self, i: int) -> int:
        return self.each or partitions(i)

    def write(
        self,
        out: Path,
        *,
        retention_days: dict[int, int] | None = None,
        left_out: Iterable[int] = (),
        grown: Iterable[int] = (),
    ) -> list[str]:
        """Write the manifests into ``out`` (replacing them); ``retention_days`` overrides some topics' value,
        the ``grown`` topics have 2 partitions more."""
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.yaml"):
            old.unlink()
        changed = retention_days or {}
        skipped, more = set(left_out), set(grown)
        (out / "ownership.yaml").write_text(
            "apiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata:\n  name: bench\nspec:\n  topics:\n"
            f'    - prefix: {self.prefix}.\n  principals:\n    - regex: "User:{self.principal}-.*"\n'
            "  delete:\n    topic: true\n"
            f"  maxDeletes: {self.topics}\n"  # the benchmark deletes 10% of the topics on purpose
        )
        kept = [i for i in range(self.topics) if i not in skipped]
        per_file = 500
        for start in range(0, len(kept), per_file):
            docs = [
                "apiVersion: kafka-reconciler/v1\nkind: Topic\n"
                f"metadata:\n  name: {self.name(i)}\nspec:\n  partitions: {self.partitions(i) + 2 * (i in more)}\n"
                f"  replicationFactor: 1\n  configs:\n    retention.ms: {changed.get(i, 1 + i % 7)}d\n"
                "    segment.bytes: 256MiB\n    max.message.bytes: 2MiB\n"
                for i in kept[start : start + per_file]
            ]
            (out / f"topics-{start // per_file:03d}.yaml").write_text("---\n".join(docs))
        docs = []
        for first in range(0, self.acls, 20):
            bindings = "".join(self._binding(i) for i in range(first, min(self.acls, first + 20)))
            docs.append(f"apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata:\n  name: acl-{first:06d}\n")
            docs[-1] += f"spec:\n  bindings:\n{bindings}"
        acl_docs = 1_000  # per file, 20 bindings each: well under the 500,000 YAML nodes a file may hold
        for start in range(0, len(docs), acl_docs):
            suffix = "" if start == 0 else f"-{start // acl_docs:03d}"
            (out / f"acls{suffix}.yaml").write_text("---\n".join(docs[start : start + acl_docs]))
        return [self.name(i) for i in kept]

    def binding(self, i: int) -> tuple[str, str, int]:
        """Binding ``i`` as (principal, operation, topic index): topic ``i mod topics``; operation and principal
        from the quotient (so all distinct)."""
        topic, rest = i % self.topics, i // self.topics
        principal = (rest // len(OPERATIONS)) * PRINCIPALS + topic % PRINCIPALS
        return f"User:{self.principal}-{principal:03d}", OPERATIONS[rest % len(OPERATIONS)], topic

    def _binding(self, i: int) -> str:
        principal, operation, topic = self.binding(i)
        return (
            f"    - principal: {principal}\n      operation: {operation}\n"
            f"      resourceType: TOPIC\n      resourceName: {self.name(topic)}\n"
        )


def topicctl_files(out: Path, *, bootstrap: str, names: list[str], first_index: int, retention_days: int = 0) -> None:
    """topicctl's cluster config and one topic config per name (same partitions and configs as the shape)."""
    out.mkdir(parents=True, exist_ok=True)
    meta = "  cluster: bench\n  environment: bench\n  region: local\n"
    # One list item per broker: kafka-go panics on a comma-joined list in one item (index out of range).
    addresses = "".join(f"    - {a}\n" for a in bootstrap.split(","))
    (out / "cluster.yaml").write_text(
        f"meta:\n  name: bench\n  environment: bench\n  region: local\nspec:\n  bootstrapAddrs:\n{addresses}"
    )
    for offset, name in enumerate(names):
        i = first_index + offset
        days = retention_days or 1 + i % 7
        (out / f"{name}.yaml").write_text(
            f"meta:\n  name: {name}\n{meta}spec:\n  partitions: {partitions(i)}\n  replicationFactor: 1\n"
            f"  retentionMinutes: {days * 24 * 60}\n  placement:\n    strategy: any\n  settings:\n"
            "    segment.bytes: 268435456\n    max.message.bytes: 2097152\n"
        )
