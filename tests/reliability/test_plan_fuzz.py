"""Plan files edited by hand and resealed (checksum recomputed) so the parser and the checks before writing see
them: never a crash, only a plain refusal or a report. Runs against the in-memory adapter of the unit tests:
what is tested is how apply reads a plan, not the wire protocol."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler import errors, plan, state
from reconciler.apply import ApplyOptions, apply_plan, retry
from tests.reliability.helpers import REPO, cli
from tests.unit.apply_recording import RecordingAdapter

GOLDEN = json.loads((REPO / "tests" / "golden" / "example-plan.json").read_text())
ODD = [None, 0, -1, 1.5, "", "x", [], {}, [1], {"a": 1}, True, "create", "topic", 10**20, {"env": "NOPE"}, "***"]


def reseal(doc: dict[str, Any]) -> dict[str, Any]:
    doc["checksum"] = state.fingerprint({k: v for k, v in doc.items() if k not in ("summary", "checksum")})
    return doc


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Any:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


@st.composite
def edited_plans(draw: st.DrawFn) -> dict[str, Any]:
    doc = copy.deepcopy(GOLDEN)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from([p for p in _paths(doc) if p]))
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        if draw(st.booleans()):
            parent[path[-1]] = draw(st.sampled_from(ODD))
        else:
            del parent[path[-1]]
    return reseal(doc)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(edited_plans())
def test_resealed_plans_are_refused_plainly_or_applied(doc: dict[str, Any]) -> None:
    try:
        p = plan.Plan.from_json_dict(doc)
    except errors.PlanFileError:
        return
    adapter = RecordingAdapter(cluster_id=p.cluster.cluster_id or "cluster-a")
    options = ApplyOptions(
        check_staleness=False, verify=False, settle_s=0, deadline_s=5, pacer=retry.Pacer(sleep=lambda _s: None)
    )
    try:
        apply_plan(p, adapter, options=options)
    except errors.ReconcilerError as exc:
        assert str(exc)
        assert adapter.writes() == []  # a refusal comes before any write


def test_a_section_of_the_wrong_type_is_a_malformed_plan(tmp_path: Path) -> None:
    """Regression: ``"cluster": []`` in a resealed plan ended in "internal error: AttributeError"."""
    doc = reseal({**copy.deepcopy(GOLDEN), "cluster": []})
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    result = cli(["show", str(path)])
    assert result.returncode == 1
    assert "malformed plan file" in result.stderr and "internal error" not in result.stderr


def test_an_acl_change_without_its_binding_is_refused_before_writing() -> None:
    """Regression: an ACL change whose data lacked a field crashed apply with KeyError before its first write."""
    doc = copy.deepcopy(GOLDEN)
    acl = next(c for c in doc["changes"] if c["kind"] == "acl")
    for side in ("before", "after"):
        if isinstance(acl.get(side), dict):
            acl[side].pop("principal", None)
    p = plan.Plan.from_json_dict(reseal(doc))
    adapter = RecordingAdapter(cluster_id=p.cluster.cluster_id or "cluster-a")
    try:
        apply_plan(p, adapter, options=ApplyOptions(check_staleness=False))
    except errors.ReconcilerError as exc:
        assert "the plan cannot be applied as written" in str(exc) and acl["address"] in str(exc)
    else:
        raise AssertionError("the plan was accepted")
    assert adapter.writes() == [] and adapter.calls == []
