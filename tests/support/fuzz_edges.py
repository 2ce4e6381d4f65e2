"""Fuzz generators for the edges of the input: deep nesting, huge numbers and values at the wire types' limits,
in manifests and in plan files, and a runner that survives what it is looking for (a crash or a hang).

``check_case`` and ``check_plan`` run in the test process, where a parser that overflows the C stack would kill
the whole run. ``isolated`` runs one check in a forked child with a deadline and reports a child killed by a
signal as ``crash`` and one past the deadline as ``hang``.
"""

from __future__ import annotations

import copy
import json
import math
import os
import pickle
import select
import signal
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from reconciler import manifests
from reconciler.base import errors
from reconciler.model import plans
from tests.support.fuzzing import (
    APPLICABLE_PLAN,
    ENV,
    STRATEGIES,
    Case,
    check_case,
    check_loaded_plan,
    reseal,
)
from tests.support.strategies import tree_paths

H = "apiVersion: kafka-reconciler/v1\n"
TOPIC = H + "kind: Topic\nmetadata: {name: orders}\nspec:\n  partitions: 3\n  replicationFactor: 1\n"

# --------------------------------------------------------------------------------------------- nesting
DEPTHS = [60, 63, 64, 65, 66, 100, 999, 1_000, 1_001, 5_000, 30_000, 100_000]


def _nested(shape: str, depth: int, *, closed: bool) -> str:
    """A YAML value nested ``depth`` levels, written inline after ``key: `` at column 4 (block shapes below it)."""
    if shape == "flow sequences":
        return "[" * depth + ("1" + "]" * depth if closed else "")
    if shape == "flow mappings":
        return "{a: " * depth + ("1" + "}" * depth if closed else "")
    if shape == "mixed flow":
        opened = "".join("[" if i % 2 else "{a: " for i in range(depth))
        return opened + ("1" + "".join("]" if i % 2 else "}" for i in reversed(range(depth))) if closed else "")
    if shape == "compact block sequences":
        return "\n    " + "- " * depth + "1"
    # block mappings: one more space of indentation per level (quadratic size, so capped)
    depth = min(depth, 400)
    return "".join(f"\n{' ' * (4 + i)}k{i}:" for i in range(depth)) + " 1"


SHAPES = ["flow sequences", "flow mappings", "mixed flow", "compact block sequences", "block mappings"]


@st.composite
def deep_nesting(draw: st.DrawFn) -> Case:
    """A Topic whose config value, label or whole document nests up to 100,000 levels, or a chain of merge keys."""
    depth = draw(st.sampled_from(DEPTHS))
    shape = draw(st.sampled_from([*SHAPES, "merge chain"]))
    if shape == "merge chain":
        lines = ["anchors:", "  a0: &a0 {k: v}"] + [f"  a{i}: &a{i}\n    <<: *a{i - 1}" for i in range(1, depth)]
        return {"m.yaml": "\n".join(lines[: 2 + min(depth, 5_000)]) + "\n---\n" + TOPIC}
    value = _nested(shape, depth, closed=draw(st.booleans()))
    where = draw(st.sampled_from(["config", "label", "spec", "document"]))
    if where == "config":
        text = TOPIC + "  configs:\n    retention.ms: " + value + "\n"
    elif where == "label":
        text = TOPIC.replace("metadata: {name: orders}", "metadata:\n  name: orders\n  labels:\n    x: " + value)
    elif where == "spec":
        text = TOPIC + "  replicaAssignment: " + value + "\n"
    else:
        text = "x: " + value + "\n"
    return {"m.yaml": text + draw(st.sampled_from(["", "---\n" + TOPIC.replace("orders", "other")]))}


# ------------------------------------------------------------------------------------- numbers and edges
INT16_MAX, INT32_MAX, INT64_MAX = 2**15 - 1, 2**31 - 1, 2**63 - 1
WIRE_EDGES = [
    *(str(v) for b in (INT16_MAX, INT32_MAX, INT64_MAX) for v in (b - 1, b, b + 1, -b - 1, -b - 2)),
    "0", "1", "-1", str(2**64), "true", "false", "null", '"3"', "3.0", "2.5", "0x7fffffff", "0x80000000",
    "0o17777777777", "2_147_483_648", "1e3", ".inf", "-.inf", ".nan", "~",
]  # fmt: skip
huge_numbers_text = st.one_of(
    st.integers(19, 5_000).map(lambda n: "9" * n),
    st.integers(19, 5_000).map(lambda n: "-1" + "0" * n),
    st.integers(1, 400).map(lambda n: f"1e{n}"),
    st.integers(300, 5_000).map(lambda n: "1" + "0" * n + ".5"),
    st.integers(19, 400).map(lambda n: "0x" + "f" * n),
    st.integers(19, 2_000).map(lambda n: "1" + "_000" * n),
)
# Every numeric field a manifest has, as a template with @v@ for the value written as YAML text.
NUMERIC_FIELDS = [
    TOPIC.replace("partitions: 3", "partitions: @v@"),
    TOPIC.replace("replicationFactor: 1", "replicationFactor: @v@"),
    TOPIC.replace("partitions: 3", "partitions: 1") + "  replicaAssignment: [[@v@]]\n",
    TOPIC + "  configs: {segment.bytes: @v@}\n",
    TOPIC + "  configs: {retention.ms: @v@}\n",
    TOPIC + "  configs: {min.cleanable.dirty.ratio: @v@}\n",
    TOPIC + "  configs: {min.insync.replicas: @v@}\n",
    TOPIC + "  configs: {compression.zstd.level: @v@}\n",
    TOPIC + "  configs: {segment.ms: '@v@d'}\n",
    H + "kind: TopicDefaults\nmetadata: {name: d}\nspec: {partitions: @v@, replicationFactor: @v@}\n",
    H + "kind: ClientQuota\nmetadata: {name: q}\nspec:\n  entity: {user: a}\n  values: {producer_byte_rate: @v@}\n",
    H + "kind: ClientQuota\nmetadata: {name: q}\nspec:\n  entity: {user: a}\n  values: {request_percentage: @v@}\n",
    H + "kind: ClientQuota\nmetadata: {name: q}\nspec:\n  entity: {ip: 10.0.0.1}\n"
    "  values: {connection_creation_rate: @v@}\n",
    H + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  broker: @v@\n  configs: {log.cleaner.threads: 2}\n",
    H + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  configs: {log.cleaner.threads: @v@}\n",
    H + "kind: ScramUser\nmetadata: {name: u}\nspec:\n  iterations: @v@\n  passwordFrom: {env: X}\n",
    H + "kind: Cluster\nmetadata: {name: c}\nspec:\n  bootstrapServers: ['localhost:@v@']\n",
    H + "kind: Producer\nmetadata: {name: p}\nspec:\n  principal: User:p\n  topics: [orders]\n  idempotent: @v@\n",
]


@st.composite
def huge_numbers(draw: st.DrawFn) -> Case:
    """Numbers of up to 5,000 digits (and 1e400, hex, underscores) in every numeric field."""
    return {"m.yaml": draw(st.sampled_from(NUMERIC_FIELDS)).replace("@v@", draw(huge_numbers_text))}


@st.composite
def wire_edges(draw: st.DrawFn) -> Case:
    """Each numeric field at and around the INT16, INT32 and INT64 limits, and in the wrong type."""
    return {"m.yaml": draw(st.sampled_from(NUMERIC_FIELDS)).replace("@v@", draw(st.sampled_from(WIRE_EDGES)))}


def check_edge_case(case: Case) -> tuple[str, str | None]:
    """``check_case``, and for a case found valid: every number of the desired state fits its wire type
    (``"out of range"`` otherwise: the encoder would fail at apply, after validate and plan said yes)."""
    verdict, detail = check_case(case)
    if verdict != "valid":
        return verdict, detail
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in case.items():
            path = Path(tmp) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8", errors="surrogatepass")
        state = manifests.load([Path(tmp)], env=ENV).desired
    bad = [
        f"topic {t.name}: {t.partitions} partitions, replication factor {t.replication_factor}, {t.assignment}"
        for t in state.topics.values()
        if not (0 < t.partitions <= INT32_MAX and 0 < t.replication_factor <= INT16_MAX)
        or any(not 0 <= b <= INT32_MAX for row in t.assignment or () for b in row)
    ]
    bad += [
        f"quota {q.entity}: {q.values}" for q in state.quotas.values() if not all(map(math.isfinite, q.values.values()))
    ]
    return ("out of range", f"{bad[0]} <- {case}") if bad else ("valid", None)


EDGE_STRATEGIES: dict[str, st.SearchStrategy[Case]] = {
    "deep nesting": deep_nesting(),
    "huge numbers": huge_numbers(),
    "values at the wire types' limits": wire_edges(),
}
ALL_STRATEGIES = {**STRATEGIES, **EDGE_STRATEGIES}


# ------------------------------------------------------------------------------------------ plan files
_SENTINEL = "@@hostile@@"


@st.composite
def hostile_plan_texts(draw: st.DrawFn) -> str:
    """The applicable golden plan with one value replaced by deep nesting, a huge number or a wire-limit value.

    Values Python can hold are resealed (the checksum matches, so apply's checks see them); deeper nesting and
    numbers past Python's 4,300-digit conversion limit are spliced into the text, so the checksum cannot match
    and the file must be refused at load, by name."""
    doc = copy.deepcopy(APPLICABLE_PLAN)
    path = draw(st.sampled_from([p for p in tree_paths(doc) if p]))
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    kind = draw(st.sampled_from(["nesting", "digits", "edge"]))
    if kind == "nesting":
        depth = draw(st.sampled_from([30, 31, 32, 33, 900, 5_000, 100_000]))
        raw = "[" * depth + "]" * depth
        held: Any = None if depth > 100 else json.loads(raw)
    elif kind == "digits":
        digits = draw(st.integers(19, 5_000))
        raw = "9" * digits
        held = int(raw) if digits <= 4_000 else None
    else:
        raw = draw(st.sampled_from([w for w in WIRE_EDGES if w.lstrip("-").isdigit()] + ["1e400", "-1e400", "NaN"]))
        held = json.loads(raw) if raw not in ("1e400", "-1e400") else float(raw)
    if held is not None:
        parent[path[-1]] = held
        return json.dumps(reseal(doc))
    parent[path[-1]] = _SENTINEL
    return json.dumps(reseal(doc)).replace(f'"{_SENTINEL}"', raw, 1)


def check_plan_text(text: str) -> tuple[str, str | None]:
    """A plan file's text through ``Plan.load`` (as ``apply --plan`` and ``show`` read it), then apply's checks."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plans.json"
        path.write_text(text, encoding="utf-8")
        try:
            p = plans.Plan.load(path)
        except errors.PlanFileError:
            return "refused at load", None
        except Exception:
            return "crash", traceback.format_exc(limit=-3)
    return check_loaded_plan(p)


# --------------------------------------------------------------------------------------------- isolation
def isolated(check: Callable[[Any], tuple[str, str | None]], case: Any, *, deadline_s: float) -> tuple[str, str | None]:
    """``check(case)`` in a forked child: ``("crash", ...)`` if a signal kills it, ``("hang", ...)`` if it is late."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(reader)
        try:
            result = check(case)
        except BaseException:
            result = ("crash", traceback.format_exc(limit=-3))
        with os.fdopen(writer, "wb") as out:
            out.write(pickle.dumps(result))
        os._exit(0)
    os.close(writer)
    chunks: list[bytes] = []
    started = time.monotonic()
    try:
        while True:
            remaining = deadline_s - (time.monotonic() - started)
            if remaining <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "hang", f"no verdict after {deadline_s:.0f} s <- {str(case)[:300]}"
            ready, _, _ = select.select([reader], [], [], remaining)
            if ready:
                chunk = os.read(reader, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(reader)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return "crash", f"killed by signal {os.WTERMSIG(status)} <- {str(case)[:300]}"
    verdict: tuple[str, str | None] = pickle.loads(b"".join(chunks))
    return verdict
