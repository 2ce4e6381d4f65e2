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
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType
from reconciler.model.kinds import Kind
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


def _sent(op: Any) -> tuple[Any, dict[str, Any]]:
    """The request ``op`` would send, encoded by the adapter's own encoders, and its content keyed as the plan shows
    it (attribute name -> value)."""
    from reconciler.apply import decoded
    from reconciler.kafka import encoders, results

    r = op.request
    if isinstance(r, decoded.AlterConfigs):
        req = encoders.incremental_alter_configs({(r.resource_type, op.name): r.ops}, [(r.resource_type, op.name)],
                                                 validate_only=False)  # fmt: skip
        return req, {f"configs.{c.key}": c.value for c in r.ops}
    if isinstance(r, decoded.CreateTopic):
        spec = results.TopicSpec(op.name, r.partitions, r.replication_factor, r.assignment, r.configs)
        content: dict[str, Any] = {"partitions": r.partitions, "replication_factor": r.replication_factor}
        content |= {f"configs.{k}": v for k, v in r.configs.items()}
        if r.assignment is not None:
            content["assignment"] = [list(x) for x in r.assignment]
        return encoders.create_topics([spec], timeout_ms=1, validate_only=False), content
    if isinstance(r, decoded.WriteQuota):
        req = encoders.alter_client_quotas({r.entity: r.values}, [r.entity], validate_only=False)
        return req, {"entity": r.entity.address, **dict(r.values)}
    if isinstance(r, decoded.WriteAcl):
        if op.change.action is plans.Action.DELETE:
            req = encoders.delete_acls([r.binding])
            return req, {"binding": _binding_sent(req.filters[0], _FILTER_FIELDS).address}
        req = encoders.create_acls([r.binding])
        return req, {"binding": _binding_sent(req.creations[0], _CREATION_FIELDS).address}
    if isinstance(r, decoded.DeleteTopic):
        req = encoders.delete_topics([op.name], timeout_ms=1)
        return req, {"resource": Kind.TOPIC.address(req.topics[0].name)}
    if isinstance(r, decoded.AddPartitions):
        req = encoders.create_partitions([op.name], {op.name: r.total}, None, timeout_ms=1, validate_only=False)
        return req, {"partitions": r.total}
    if isinstance(r, decoded.WriteScram):
        return _scram_sent(r)
    if isinstance(r, decoded.Reassign):
        moves = {(op.name, p): t for p, t in r.targets.items()}
        req = encoders.alter_partition_reassignments(moves, list(moves), timeout_ms=1)
        return req, {f"assignment.{p}": list(t) for p, t in r.targets.items()}
    return None, {}


# The seven fields of one binding in a CreateAcls creation and a DeleteAcls filter, in AclBinding's field order.
_CREATION_FIELDS = ("resource_type", "resource_pattern_type", "resource_name", "principal", "host", "operation",
                    "permission_type")  # fmt: skip
_FILTER_FIELDS = ("resource_type_filter", "pattern_type_filter", "resource_name_filter", "principal_filter",
                  "host_filter", "operation", "permission_type")  # fmt: skip


def _binding_sent(entry: Any, fields: tuple[str, ...]) -> state.AclBinding:
    """The binding a CreateAcls creation or DeleteAcls filter carries, read back from its wire codes and names."""
    rtype, pattern, name, principal, host, operation, permission = (getattr(entry, f) for f in fields)
    return state.AclBinding(
        AclResourceType.from_code(rtype), AclPatternType.from_code(pattern), name, principal, host,
        AclOperation.from_code(operation), AclPermission.from_code(permission),
    )  # fmt: skip


def _scram_sent(r: Any) -> tuple[Any, dict[str, Any]]:
    """A SCRAM write's first request (every user's first alteration), and every credential it sets or removes."""
    from reconciler.connection.settings import Secret
    from reconciler.kafka import encoders, results

    upserts = [results.ScramUpsert(r.user, m, n, Secret("fuzz-secret")) for m, n in r.upserts.items()]
    per_user = encoders.scram_alterations(upserts, [results.ScramDeletion(r.user, m) for m in r.deletions])
    req = encoders.alter_user_scram_credentials([alts[0] for alts in per_user.values()])
    content: dict[str, Any] = {f"credentials.{m}": {"iterations": n} for m, n in r.upserts.items()}
    content |= {f"credentials.{m}": None for m in r.deletions}
    if r.password is not None:
        content["password"] = r.password
    return req, content


_TARGETS = ("entity", "binding", "resource")  # what a request is for, compared with the change's address


def _differences(c: plans.Change, content: dict[str, Any]) -> list[str]:
    """Where what ``c`` shows is not what its request carries: a shown attribute the request sends otherwise, a key
    the request changes without showing it, or a request for another resource than the change's address."""
    shown = {a.name: a.after for a in c.attributes}
    found = [f"shows {k}={v!r}, sends {content.get(k)!r}" for k, v in shown.items() if k in content and content[k] != v]
    quiet = {k: v for k, v in content.items() if k not in shown and k not in _TARGETS}
    if c.kind == "quota":  # a quota request also re-sends the keys that do not change: those equal the live values
        before = getattr(c.before, "values", {}) or {}
        quiet = {k: v for k, v in quiet.items() if before.get(k) != v}
    if c.kind == "scram_user":  # a credential re-set at its live iterations (a rotation) shows as the password set
        had = getattr(c.before, "credentials", {}) or {}
        quiet = {k: v for k, v in quiet.items() if v != {"iterations": had.get(k.removeprefix("credentials."))}}
    found += [f"sends {k}={v!r} without showing it" for k, v in quiet.items()]
    for key in _TARGETS:
        if key in content and content[key] != c.address:
            found.append(f"shows {c.address}, writes to {content[key]}")
    return found


def check_shown_is_sent(doc: dict[str, Any]) -> tuple[str, str | None]:
    """``("refused"|"same"|"different"|"crash", detail)`` for one plan document: loaded, shown (the text render),
    decoded, and each operation's request built and encoded by the adapter's encoders; "same" when every request
    carries exactly what the plan shows for its change."""
    from reconciler.apply import decoded
    from reconciler.kafka import encoders
    from reconciler.render.text import render_text

    try:
        p = plans.Plan.from_json_dict(doc)
        render_text(p)
        ops = decoded.decode(p)
    except errors.ReconcilerError:
        return "refused", None
    except Exception:
        return "crash", traceback.format_exc(limit=-3)
    problems: list[str] = []
    for op in ops.items:
        try:
            request, content = _sent(op)
            if request is not None:
                encoders.wire_bytes(request)
        except Exception:
            return "crash", f"{op.address}: " + traceback.format_exc(limit=-3)
        problems += [f"{op.address}: {d}" for d in _differences(op.change, content)]
    return ("different", "; ".join(problems)) if problems else ("same", None)
