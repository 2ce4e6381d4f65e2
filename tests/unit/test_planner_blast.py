"""A plan that deletes more resources than the limit carries one error that apply refuses, in every rendering.

The limit is ``--max-deletes`` for the run, else the Ownership document's ``maxDeletes``, else 10; the
command-line tests plan against a snapshot and show that ``apply --plan`` refuses such a plan before it connects.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.model import plans, state
from reconciler.planner import PlanOptions, blast, plan
from reconciler.snapshot import files
from tests.support.builders import acl, cluster, live_topic, want

runner = CliRunner()


def _errors(result: plans.Plan) -> list[plans.PlanWarning]:
    return [w for w in result.warnings if w.code == blast.CODE]


def _owned_topics(n: int) -> list[state.TopicState]:
    return [live_topic(f"orders.t{i:03d}", partitions=12) for i in range(n)]


@pytest.mark.parametrize(
    ("live_topics", "max_deletes", "ownership_limit", "refused"),
    [
        pytest.param(10, None, None, False, id="default-limit-reached"),
        pytest.param(11, None, None, True, id="default-limit-exceeded"),
        pytest.param(250, 250, None, False, id="raised-for-the-run"),
        pytest.param(250, 249, None, True, id="raised-too-little"),
        pytest.param(3, None, 2, True, id="ownership-lowers-it"),
        pytest.param(40, None, 50, False, id="ownership-raises-it"),
        pytest.param(1, 0, 50, True, id="run-overrides-ownership"),
    ],
)
def test_the_limit_comes_from_the_run_then_ownership_then_default(
    live_topics: int, max_deletes: int | None, ownership_limit: int | None, refused: bool
) -> None:
    wanted = want(own_topics=["orders."], delete=["topic"])
    wanted = dataclasses.replace(wanted, ownership=dataclasses.replace(wanted.ownership, max_deletes=ownership_limit))
    result = plan(wanted, cluster(topics=_owned_topics(live_topics)), options=PlanOptions(max_deletes=max_deletes))
    assert result.summary().delete == live_topics  # the deletes stay in the plan for review
    assert bool(_errors(result)) is refused


def test_the_error_counts_every_kind_names_the_limit_and_how_to_raise_it() -> None:
    bindings = [acl(f"User:old-{i}", "READ", "orders") for i in range(4)]
    wanted = want(own_topics=["orders."], own_principals=["User:old-"], delete=["topic", "acl"])
    result = plan(wanted, cluster(topics=_owned_topics(8), acls=bindings))
    [error] = _errors(result)
    assert error.severity == "error"
    assert error.message.startswith("this plan deletes 12 resources (Topics: 8, ACLs: 4), more than the limit of 10")
    assert "set by the default limit;" in error.message
    assert error.message.endswith(
        "allow them for this run with --max-deletes 12 (plan and apply), or for every run with maxDeletes: 12 in "
        "the Ownership document's spec"
    )


def test_a_blocked_delete_does_not_count() -> None:
    used = {"orders.t000": state.TopicUsage((5,), None, ("billing",), 0)}
    live = dataclasses.replace(cluster(topics=_owned_topics(11)), topic_usage=used)
    result = plan(want(own_topics=["orders."], delete=["topic"]), live)
    assert result.summary().delete == 10 and result.summary().blocked == 1
    assert not _errors(result)


OWNERSHIP = """\
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {name: orders}
spec:
  topics: [{prefix: orders.}]
  delete: {topic: true}
"""


def _setup(tmp_path: Path, *, n: int, ownership: str = OWNERSHIP) -> tuple[Path, Path]:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "ownership.yaml").write_text(ownership, encoding="utf-8")
    live = state.ClusterState(
        cluster_id="c1",
        controller_id=1,
        brokers=(state.Broker(1, "127.0.0.1", 9092, None),),
        topics={t.name: t for t in (live_topic(f"orders.t{i:03d}", 6, 1, broker_ids=1) for i in range(n))},
    )
    snap = tmp_path / "live.json"
    files.write_snapshot(live, snap)
    return manifests, snap


def test_plan_shows_the_refusal_in_text_markdown_and_json_and_apply_refuses_the_saved_plan(tmp_path: Path) -> None:
    manifests, snap = _setup(tmp_path, n=250)
    base = ["plan", str(manifests), "--live-state", str(snap)]
    text = runner.invoke(app, base)
    assert text.exit_code == 1, text.output  # shown, saved if asked, and the exit status says apply would refuse
    assert "error: [too-many-deletes] this plan deletes 250 resources (Topics: 250), more than the limit of 10" in (
        text.stdout
    )
    assert "Plan: 0 to create, 0 to update, 250 to delete." in text.stdout
    markdown = runner.invoke(app, [*base, "--format", "markdown"])
    assert "- **error** [too-many-deletes] this plan deletes 250 resources" in markdown.stdout
    as_json = json.loads(runner.invoke(app, [*base, "--format", "json"]).stdout)
    [finding] = [w for w in as_json["warnings"] if w["code"] == "too-many-deletes"]
    assert finding["severity"] == "error" and "--max-deletes 250" in finding["message"]

    saved = tmp_path / "plan.json"
    assert runner.invoke(app, [*base, "--out", str(saved)]).exit_code == 1
    assert saved.exists()
    # Port 9 (discard) on 127.0.0.1: the refusal comes before any connection attempt.
    refused = runner.invoke(app, ["apply", "--plan", str(saved), "--auto-approve", "--bootstrap-server", "127.0.0.1:9"])
    assert refused.exit_code == 1, refused.output
    assert "error-level findings that block apply" in refused.stderr
    assert "--max-deletes 250" in refused.stderr

    raised = runner.invoke(app, [*base, "--max-deletes", "250", "--format", "json"])
    body = json.loads(raised.stdout)
    assert not [w for w in body["warnings"] if w["code"] == "too-many-deletes"]
    assert body["options"]["max_deletes"] == 250


def test_ownership_max_deletes_is_read_from_the_manifest(tmp_path: Path) -> None:
    manifests, snap = _setup(tmp_path, n=3, ownership=OWNERSHIP + "  maxDeletes: 2\n")
    result = runner.invoke(app, ["plan", str(manifests), "--live-state", str(snap)])
    assert "more than the limit of 2 set by the Ownership document's maxDeletes at " in result.stdout
    assert "ownership.yaml:1:1" in result.stdout
    bad = runner.invoke(app, ["validate", str(manifests / "ownership.yaml")], catch_exceptions=False)
    assert bad.exit_code == 0, bad.output
    (manifests / "ownership.yaml").write_text(OWNERSHIP + "  maxDeletes: -1\n", encoding="utf-8")
    bad = runner.invoke(app, ["validate", str(manifests)])
    assert bad.exit_code == 1 and "maxDeletes" in bad.output
