"""Hostile manifests for the fuzz campaign and its CI sample: generators and the one check every case must pass.

A case is a set of files (name -> text or bytes). ``check_case`` loads it the way every command does and
classifies the result: valid, rejected with every error located (file and line), rejected with an error that
has no position, or a crash (any exception other than ``ValidationFailed``). The generators mix hypothesis
strategies with mutations of the real examples in ``examples/``: structural edits of their parsed documents and
textual edits of their files (lines deleted, duplicated, re-indented, truncated, characters swapped).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from ruamel.yaml import YAML

from reconciler import manifests
from reconciler.apply import ApplyOptions, apply_plan, retry
from reconciler.base import errors
from reconciler.model import plans, state
from tests.support.strategies import (
    copy_tree,
    dump_yaml,
    manifest_bytes,
    manifest_documents,
    manifest_text,
    mutate_once,
    tree_paths,
    yaml_values,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
EXAMPLE_FILES: dict[str, str] = {
    str(p.relative_to(EXAMPLES)): p.read_text(encoding="utf-8")
    for d in ("platform", "environments/base")
    for p in sorted((EXAMPLES / d).rglob("*.yaml"))
}
SEED_DOCS: list[Any] = [doc for text in EXAMPLE_FILES.values() for doc in YAML(typ="safe").load_all(text)]
ENV = {"PAYMENTS_SCRAM_PASSWORD": "fuzz-password", "X": "x"}

Case = Mapping[str, str | bytes]


@dataclasses.dataclass
class Tally:
    """What a campaign found: counts per class, and a few examples of each problem."""

    cases: int = 0
    classes: Counter[str] = dataclasses.field(default_factory=Counter)
    problems: list[str] = dataclasses.field(default_factory=list)

    def add(self, verdict: str, detail: str | None = None) -> None:
        self.cases += 1
        self.classes[verdict] += 1
        if detail and len(self.problems) < 20:
            self.problems.append(detail)


def check_case(case: Case) -> tuple[str, str | None]:
    """``("valid"|"rejected"|"unlocated"|"crash", detail)`` for one set of manifest files."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, content in case.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8", errors="surrogatepass")
        try:
            manifests.load([root], env=ENV)
        except errors.ValidationFailed as exc:
            bad = [
                d
                for d in errors.errors_only(exc.diagnostics)
                if not d.file or d.line is None or d.line < 1 or not d.message
            ]
            if not errors.errors_only(exc.diagnostics):
                return "unlocated", "ValidationFailed without an error diagnostic"
            if bad:
                return "unlocated", f"{bad[0].format()} <- {_preview(case)}"
            return "rejected", None
        except Exception:
            return "crash", traceback.format_exc(limit=-3) + f"\n<- {_preview(case)}"
        return "valid", None


def _preview(case: Case) -> str:
    text = "\n".join(f"# {k}\n{v!r}"[:300] for k, v in case.items())
    return text[:600]


@st.composite
def structural_mutation(draw: st.DrawFn) -> Case:
    """Two example documents, with up to four values replaced, deleted or inserted."""
    docs = [copy_tree(draw(st.sampled_from(SEED_DOCS))) for _ in range(2)]
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        i = draw(st.integers(0, 1))
        docs[i] = mutate_once(draw, docs[i], yaml_values)
    return {"m.yaml": dump_yaml(docs)}


@st.composite
def textual_mutation(draw: st.DrawFn) -> Case:
    """A real example file with lines deleted, duplicated, re-indented, or cut, or characters swapped."""
    name = draw(st.sampled_from(sorted(EXAMPLE_FILES)))
    lines = EXAMPLE_FILES[name].splitlines(keepends=True)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        edit = draw(st.sampled_from(["delete", "duplicate", "indent", "dedent", "tab", "cut", "swap", "token"]))
        line = lines[i]
        if edit == "delete":
            del lines[i]
        elif edit == "duplicate":
            lines.insert(i, line)
        elif edit == "indent":
            lines[i] = "  " + line
        elif edit == "dedent":
            lines[i] = line.lstrip(" ")
        elif edit == "tab":
            lines[i] = "\t" + line
        elif edit == "cut":
            lines = [*lines[:i], line[: draw(st.integers(0, len(line)))]]
        elif edit == "swap" and len(line) > 1:
            j = draw(st.integers(0, len(line) - 2))
            lines[i] = line[:j] + line[j + 1] + line[j] + line[j + 2 :]
        elif edit == "token":
            token = draw(st.sampled_from([":", "- ", "{", "}", "[", "]", "&a ", "*a ", "!!int ", "'", '"', "#", "%"]))
            j = draw(st.integers(0, len(line)))
            lines[i] = line[:j] + token + line[j:]
    return {name.replace("/", "_"): "".join(lines)}


random_documents = manifest_documents.map(
    lambda docs: {"m.yaml": dump_yaml([{"apiVersion": "kafka-reconciler/v1", **d} for d in docs])}
)
random_text = manifest_text.map(lambda t: {"m.yaml": t})
random_bytes = manifest_bytes.map(lambda b: {"m.yaml": b})

STRATEGIES: dict[str, st.SearchStrategy[Case]] = {
    "structural mutation of the examples": structural_mutation(),
    "textual mutation of the examples": textual_mutation(),
    "random documents": random_documents,
    "random YAML text": random_text,
    "random bytes": random_bytes,
}


# ------------------------------------------------------------------------------- hand-edited plan files
GOLDEN_PLAN: dict[str, Any] = json.loads((REPO / "tests" / "golden" / "example-plan.json").read_text())
# The golden plan without its redacted sensitive broker config and its file password reference: with them,
# every apply stops at a (correct) refusal and the checks and runners behind it are never reached.
APPLICABLE_PLAN: dict[str, Any] = {
    **GOLDEN_PLAN,
    "changes": [
        c for c in GOLDEN_PLAN["changes"] if plans.REDACTED not in json.dumps(c) and "file:" not in json.dumps(c)
    ],
}


class AnyEnv(Mapping[str, str]):
    """An environment in which every variable is set, so SCRAM password references resolve."""

    def __getitem__(self, key: str) -> str:
        return "fuzz-secret"

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def get(self, key: str, default: Any = None) -> Any:
        return "fuzz-secret"


ODD = [None, 0, -1, 1.5, "", "x", [], {}, [1], {"a": 1}, True, "create", "topic", 10**20, {"env": "NOPE"}, "***"]


def reseal(doc: dict[str, Any]) -> dict[str, Any]:
    """Recompute a plan document's checksum, as someone editing it on purpose would."""
    doc["checksum"] = state.fingerprint({k: v for k, v in doc.items() if k not in ("summary", "checksum")})
    return doc


@st.composite
def edited_plans(draw: st.DrawFn) -> dict[str, Any]:
    """The golden example plan with up to three values replaced or deleted, resealed."""
    doc = copy.deepcopy(APPLICABLE_PLAN)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from([p for p in tree_paths(doc) if p]))
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        if draw(st.booleans()):
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(ODD)))  # later edits must not change ODD
        else:
            del parent[path[-1]]
    return reseal(doc)


def seeded_kinds() -> list[str]:
    """Every registered kind, each of which the applicable golden plan holds a change of (else this fails: a kind
    the fuzz cannot seed)."""
    from reconciler.kinds import registry

    held = {c["kind"] for c in APPLICABLE_PLAN["changes"]}
    missing = [k.value for k in registry.KINDS if k.value not in held]
    assert not missing, f"the golden plan has no applicable change of {missing}: the fuzz cannot seed them"
    return [k.value for k in registry.KINDS]


@st.composite
def edited_plans_of_kinds(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A registered kind and the golden plan with up to three values inside that kind's changes replaced or
    deleted, resealed: every kind is seeded, and the verdicts can be counted per kind."""
    kind = draw(st.sampled_from(seeded_kinds()))
    doc = copy.deepcopy(APPLICABLE_PLAN)
    mine = {i for i, c in enumerate(doc["changes"]) if c["kind"] == kind}
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in tree_paths(doc) if len(p) > 2 and p[0] == "changes" and p[1] in mine]
        path = draw(st.sampled_from(paths))
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        if draw(st.booleans()):
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(ODD)))
        else:
            del parent[path[-1]]
    return kind, reseal(doc)


class _FirstWrite(Exception):
    """Raised by ``_StopAtFirstWrite`` when apply is about to send its first write."""


class _StopAtFirstWrite:
    """The unit tests' in-memory adapter for reads; the first write call ends the case (it passed the checks)."""

    WRITES = frozenset(
        {
            "create_topics", "delete_topics", "create_partitions", "incremental_alter_configs", "create_acls",
            "delete_acls", "alter_client_quotas", "alter_scram_credentials", "alter_partition_reassignments",
        }
    )  # fmt: skip

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in self.WRITES:
            raise _FirstWrite(name)
        return getattr(self._inner, name)


def check_plan(doc: dict[str, Any]) -> tuple[str, str | None]:
    """``("refused at load"|"refused before writing"|"passed the checks"|"crash", detail)`` for one plan document:
    loaded, then applied through the unit tests' in-memory adapter until its first write (staleness is not
    checked, so the checks behind it are reached). A refusal must be a ``ReconcilerError``; anything else is a
    crash."""
    try:
        p = plans.Plan.from_json_dict(doc)
    except errors.PlanFileError:
        return "refused at load", None
    except Exception:
        return "crash", traceback.format_exc(limit=-3)
    return check_loaded_plan(p)


def check_loaded_plan(p: plans.Plan) -> tuple[str, str | None]:
    """The second half of ``check_plan``: a loaded plan through apply's checks, up to its first write."""
    from tests.support.recording import RecordingAdapter

    adapter = _StopAtFirstWrite(RecordingAdapter(cluster_id=p.cluster.cluster_id or "cluster-a"))
    options = ApplyOptions(
        check_staleness=False,
        verify=False,
        settle_s=0,
        deadline_s=5,
        pacer=retry.Pacer(sleep=lambda _s: None),
        environ=AnyEnv(),
        allow_self_lockout=True,
    )
    try:
        apply_plan(p, adapter, options=options)
    except errors.ReconcilerError:
        return "refused before writing", None
    except _FirstWrite:
        return "passed the checks", None
    except Exception:
        return "crash", traceback.format_exc(limit=-3)
    return "passed the checks", None
