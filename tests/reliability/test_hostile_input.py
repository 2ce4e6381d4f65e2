"""Hostile and broken input in CI: fuzzed manifests (a sample of benchmarks/fuzz_campaign.py), invalid manifests
applied to a real broker, broken or tampered plan files, and broker answers the tool does not expect.

Every case ends in a plain message and exit status 1, never a traceback, and the cluster is checked to be
unchanged. ``tests/fuzz/`` covers the loader with its own strategies; this adds textual mutations of the examples,
the "every error has a file and a line" rule, and the cluster-side checks.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

from reconciler.apply import outcomes
from reconciler.apply.batch import Result
from reconciler.cli import app
from reconciler.kafka import codes, wire
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import plans, state
from reconciler.model.kinds import Kind
from reconciler.snapshot import files
from tests.kafka.cluster import KafkaCluster
from tests.support.fuzz_edges import ALL_STRATEGIES, check_edge_case
from tests.support.fuzzing import Case, check_case
from tests.support.live import cli, topics_state
from tests.support.live import settings as connection
from tests.support.manifest_texts import topic_documents

SAMPLE = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture
def runner() -> Iterator[CliRunner]:
    yield CliRunner()
    logging.getLogger().handlers.clear()  # the command's log handler points at the runner's closed stream


# ------------------------------------------------------------------------------------------- fuzzing
@pytest.mark.parametrize("strategy", sorted(ALL_STRATEGIES))
def test_fuzzed_manifests_are_valid_or_rejected_with_located_errors(strategy: str) -> None:
    """Deep nesting, huge numbers and wire limits included: valid means every number fits its wire type."""

    @SAMPLE
    @given(ALL_STRATEGIES[strategy])
    def one(case: Case) -> None:
        verdict, detail = check_edge_case(case)
        assert verdict in ("valid", "rejected"), detail

    one()


def test_nul_bytes_and_control_characters_are_located() -> None:
    """Regression: these two errors used to carry the file name only."""
    assert check_case({"m.yaml": b"kind: Topic\nspec: {a: 1}\x00"}) == ("rejected", None)
    assert check_case({"m.yaml": b"kind: Topic\n  name: \x07x\n"}) == ("rejected", None)


INVALID: dict[str, str | bytes] = {
    "negative partitions": topic_documents({"PREFIXbad": (-1, 1, {})}),
    "unknown config": topic_documents({"PREFIXbad": (1, 1, {"retention.msec": "1"})}),
    "bad value": topic_documents({"PREFIXbad": (1, 1, {"retention.ms": "soon"})}),
    "duplicate topic": topic_documents({"PREFIXdup": (1, 1, {})})
    + "---\n"
    + topic_documents({"PREFIXdup": (2, 1, {})}),
    "unknown kind": "apiVersion: kafka-reconciler/v1\nkind: Topics\nmetadata: {name: x}\nspec: {}\n",
    "tab indentation": "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata:\n\tname: PREFIXtab\n",
    "bad ACL operation": (
        "apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: a}\nspec:\n  bindings:\n"
        "    - {principal: 'User:PREFIXapp', operation: READS, resourceType: TOPIC, resourceName: PREFIXx}\n"
    ),
    "missing env reference": (
        "apiVersion: kafka-reconciler/v1\nkind: ScramUser\nmetadata: {name: PREFIXu}\n"
        "spec: {mechanism: SCRAM-SHA-256, passwordFrom: {env: ${NOT_SET_ANYWHERE}}}\n"
    ),
    "binary": b"\x00\x01 PREFIX",
    "truncated": topic_documents({"PREFIXcut": (3, 1, {"retention.ms": "1"})})[:-25],
}


def sasl_state(cluster: KafkaCluster) -> dict[str, Any]:
    with KafkaAdapter(connection(cluster)) as adapter:
        doc = files.to_json_dict(adapter.read_state(kinds=frozenset(Kind)))
    return {k: doc.get(k) for k in ("topics", "acls", "quotas", "scram_users", "broker_configs")}


def admin_properties(cluster: KafkaCluster, path: Path) -> Path:
    assert cluster.admin is not None
    path.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="{cluster.admin.username}" password="{cluster.admin.password}";\n'
    )
    return path


def test_invalid_manifests_never_reach_the_cluster(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path, runner: CliRunner
) -> None:
    props = admin_properties(kafka_sasl, tmp_path / "admin.properties")
    before = sasl_state(kafka_sasl)
    for index, (what, content) in enumerate(INVALID.items()):
        root = tmp_path / f"case{index}"
        root.mkdir()
        if isinstance(content, bytes):
            (root / "m.yaml").write_bytes(content.replace(b"PREFIX", topic_prefix.encode()))
        else:
            (root / "m.yaml").write_text(content.replace("PREFIX", topic_prefix))
        args = ["apply", str(root), "--auto-approve", "--bootstrap-server", kafka_sasl.bootstrap]
        result = runner.invoke(app, [*args, "--command-config", str(props)])
        assert result.exit_code == 1, (what, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (what, result.exception)
        assert f"{root / 'm.yaml'}:" in result.stderr, (what, result.stderr)  # located
        assert "nothing was sent to any cluster" in result.stderr, (what, result.stderr)
        assert "Traceback" not in result.output
    assert sasl_state(kafka_sasl) == before


# ----------------------------------------------------------------------------------------- plan files
@pytest.fixture
def saved_plan(kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    (tmp_path / "m.yaml").write_text(topic_documents({f"{topic_prefix}p{i}": (1, 1, {}) for i in range(3)}))
    out = tmp_path / "plan.json"
    made = cli(["plan", str(tmp_path), "--out", str(out), "--bootstrap-server", kafka_single.bootstrap])
    assert made.returncode == 0, made.stderr
    return out, json.loads(out.read_text())


def reseal(doc: dict[str, Any]) -> dict[str, Any]:
    """Recompute the checksum, as someone who edits a plan on purpose would."""
    doc["checksum"] = state.fingerprint({k: v for k, v in doc.items() if k not in ("summary", "checksum")})
    return doc


def broken_plans(doc: dict[str, Any], raw: str) -> dict[str, tuple[str, str]]:
    """name -> (file text, what the refusal must say)."""
    edited = json.loads(raw)
    edited["changes"][0]["after"]["partitions"] = 50
    wrong_version = {**json.loads(raw), "format_version": 99}
    other_cluster = json.loads(raw)
    other_cluster["cluster"]["cluster_id"] = "AAAAAAAAAAAAAAAAAAAAAA"
    stale = json.loads(raw)
    stale["changes"][0]["fingerprint"] = "0" * 16
    return {
        "truncated": (raw[: len(raw) // 2], "plan file is not valid JSON (truncated?)"),
        "empty": ("", "plan file is not valid JSON"),
        "not a plan": (json.dumps({"hello": 1}), "not a kafka-reconciler plan"),
        "change edited by hand": (json.dumps(edited), "checksum mismatch"),
        "wrong version": (json.dumps(reseal(wrong_version)), "plan format version 99 is not supported"),
        "another cluster's plan": (json.dumps(reseal(other_cluster)), "the plan was made for cluster AAAA"),
        "fingerprint edited, checksum recomputed": (json.dumps(reseal(stale)), "the cluster changed since the plan"),
    }


def test_broken_or_tampered_plan_files_are_refused_and_write_nothing(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, saved_plan: tuple[Path, dict[str, Any]]
) -> None:
    path, doc = saved_plan
    raw = path.read_text()
    assert doc["changes"], "the plan should create topics"
    for what, (text, says) in broken_plans(doc, raw).items():
        bad = tmp_path / f"{what.replace(' ', '-')}.json"
        bad.write_text(text)
        for args in (["show", str(bad)], ["apply", "--plan", str(bad), "--auto-approve"]):
            result = cli([*args, "--bootstrap-server", kafka_single.bootstrap] if args[0] == "apply" else args)
            if args[0] == "show" and what in ("another cluster's plan", "fingerprint edited, checksum recomputed"):
                assert result.returncode == 0, (what, result.stderr)  # a well-formed plan; only apply can tell
                continue
            assert result.returncode == 1, (what, args, result.stdout, result.stderr)
            assert says in result.stderr, (what, result.stderr)
            assert "Traceback" not in result.stderr
    assert topics_state(kafka_single, topic_prefix) == {}


# ------------------------------------------------------------------------------- unexpected answers
def test_acls_declared_on_a_cluster_without_an_authorizer(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    (tmp_path / "m.yaml").write_text(
        topic_documents({f"{topic_prefix}t": (1, 1, {})})
        + "---\napiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: a}\nspec:\n  bindings:\n"
        + f"    - {{principal: 'User:{topic_prefix}app', operation: READ, resourceType: TOPIC, "
        + f"resourceName: {topic_prefix}t}}\n"
    )
    target = ["--bootstrap-server", kafka_single.bootstrap]
    planned = cli(["plan", str(tmp_path), "--detailed-exitcode", *target])
    assert planned.returncode == 1 and "SECURITY_DISABLED" in planned.stdout, planned.stdout
    for extra in (["--auto-approve"], ["--dry-run"]):
        applied = cli(["apply", str(tmp_path), *extra, *target])
        assert applied.returncode == 1, applied.stderr
        assert "the cluster has no authorizer configured (SECURITY_DISABLED)" in applied.stderr
        assert "Traceback" not in applied.stderr
    assert topics_state(kafka_single, topic_prefix) == {}


def test_a_kind_whose_api_is_missing_is_blocked_with_the_kafka_version_it_needs(
    kafka_single: KafkaCluster, tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, topic_prefix: str
) -> None:
    """As against a broker older than 2.6: the real broker's ApiVersions answer, without the quota APIs. The quota
    is blocked with the reason, the topic beside it is planned and created; neither command fails or crashes."""
    real = wire.Wire.capabilities

    def without_quotas(self: wire.Wire) -> dict[str, int]:
        return {k: v for k, v in real(self).items() if "ClientQuotas" not in k}

    monkeypatch.setattr(wire.Wire, "capabilities", without_quotas)
    (tmp_path / "m.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: ClientQuota\nmetadata: {name: q}\n"
        "spec: {entity: {user: reliability-q}, values: {producer_byte_rate: 1024}}\n---\n"
        + topic_documents({f"{topic_prefix}kept": (1, 1, {})})
    )
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    reason = "it lacks DescribeClientQuotas, AlterClientQuotas (Kafka 2.6+)"
    result = runner.invoke(app, ["plan", str(tmp_path), *conn, "--no-color"])
    assert result.exit_code == 0, result.output
    assert f"client quotas are not supported by this cluster (version): {reason}" in result.stdout
    assert "Plan: 1 to create, 0 to update, 0 to delete, 1 blocked." in result.stdout
    assert "Traceback" not in result.output

    applied = runner.invoke(app, ["apply", str(tmp_path), *conn, "--auto-approve"])
    assert applied.exit_code == 3, applied.output  # blocked: partial, as docs/apply.md says
    assert "Traceback" not in applied.output
    assert topics_state(kafka_single, topic_prefix) == {f"{topic_prefix}kept": 1}
    monkeypatch.undo()  # the real capabilities again, to read what the broker holds
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        quotas = adapter.read_state(kinds=frozenset({Kind.QUOTA})).quotas or {}
    assert state.QuotaEntity.of(user="reliability-q") not in quotas


def test_unknown_error_codes_get_a_plain_explanation() -> None:
    """Regression: an error code kafka-python does not know was reported as a bare "UNKNOWN"."""
    assert codes.error_name(999) == "ERROR_999"
    assert codes.error_name(-1) == "UNKNOWN_SERVER_ERROR"
    change = plans.Change(
        address="topic/x",
        kind=Kind.TOPIC,
        name="x",
        action=plans.Action.CREATE,
        phase=plans.Phase.TOPIC_CREATE,
    )
    item = outcomes.from_result(
        change, Result(ok=False, error_code=999, error_name=codes.error_name(999), message=None), dry_run=False
    )
    assert item.error_name == "ERROR_999"
    assert "error code 999, which this client does not know" in (item.message or "")
