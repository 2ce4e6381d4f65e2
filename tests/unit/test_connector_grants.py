"""A Connector naming its ConnectWorker grant (``worker``): the ACLs derived for the worker's principal from the
connector's own config, and the errors (with positions) where they cannot be derived."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler import manifests
from reconciler.base import errors
from reconciler.cli import app
from reconciler.model import desired, state
from reconciler.planner import plan

H = "apiVersion: kafka-reconciler/v1\n"
WORKER = (
    H + "kind: ConnectWorker\nmetadata: {name: connect-prod}\nspec:\n  principal: User:connect\n  host: 10.0.0.5\n"
    "  groupId: cg\n  configStorageTopic: cfg\n  offsetStorageTopic: off\n  statusStorageTopic: st\n"
    "  sinkGroupPrefix: sinks-\n"
)
Row = tuple[str, str, str, str]


def connector(name: str, body: str) -> str:
    return H + f"kind: Connector\nmetadata: {{name: {name}}}\nspec:\n" + textwrap.indent(textwrap.dedent(body), "  ")


def load(tmp_path: Path, *docs: str) -> manifests.LoadResult:
    (tmp_path / "m.yaml").write_text("---\n".join([WORKER, *docs]))
    return manifests.load([tmp_path], env={})


def derived(result: manifests.LoadResult, name: str) -> set[Row]:
    """(type, pattern, resource, operation) of the ACLs derived from connector ``name``, all for the worker."""
    found: set[Row] = set()
    for binding, source in result.desired.acls.items():
        if source is not None and source.origin == f"Connector {name} via ConnectWorker connect-prod":
            assert (binding.principal, binding.host, binding.permission) == ("User:connect", "10.0.0.5", "ALLOW")
            found.add(
                (str(binding.resource_type), str(binding.pattern_type), binding.resource_name, str(binding.operation))
            )
    return found


def failures(tmp_path: Path, *docs: str) -> list[tuple[int | None, str | None, str]]:
    with pytest.raises(errors.ValidationFailed) as caught:
        load(tmp_path, *docs)
    return [(d.line, d.path, d.message) for d in caught.value.diagnostics if d.severity is errors.Severity.ERROR]


def test_a_sink_reads_its_config_topics_as_its_own_group(tmp_path: Path) -> None:
    sink = connector(
        "orders-out",
        """
        class: org.apache.kafka.connect.file.FileStreamSinkConnector
        worker: connect-prod
        config: {topics: "orders, payments", file: /data/out.txt}
        """,
    )
    result = load(tmp_path, sink)
    assert derived(result, "orders-out") == {
        ("TOPIC", "LITERAL", "orders", "READ"),
        ("TOPIC", "LITERAL", "orders", "DESCRIBE"),
        ("TOPIC", "LITERAL", "payments", "READ"),
        ("TOPIC", "LITERAL", "payments", "DESCRIBE"),
        ("GROUP", "LITERAL", "sinks-orders-out", "READ"),
    }
    # The connector itself is unchanged: the ACLs are not part of its config.
    assert "worker" not in result.desired.connectors["orders-out"].config
    undeclared = [d for d in result.diagnostics if d.path == "spec.config.topics"]
    assert [d.message for d in undeclared] == [
        "topic 'orders' is not declared and not covered by the ownership rules",
        "topic 'payments' is not declared and not covered by the ownership rules",
    ]


def test_a_source_writes_its_topic_key_and_may_create_it(tmp_path: Path) -> None:
    plain = connector("lines-in", "class: FileStreamSource\nworker: connect-prod\nconfig: {topic: lines, file: /f}\n")
    creating = connector(
        "cdc",
        """
        class: io.debezium.connector.postgresql.PostgresConnector
        type: source
        worker: connect-prod
        aclTopics: [{prefix: "pg."}, pg-heartbeat]
        config: {topic.prefix: pg, topic.creation.default.replication.factor: 3}
        """,
    )
    result = load(tmp_path, plain, creating)
    assert derived(result, "lines-in") == {
        ("TOPIC", "LITERAL", "lines", "WRITE"),
        ("TOPIC", "LITERAL", "lines", "DESCRIBE"),
    }
    assert derived(result, "cdc") == {
        (kind, name, pattern, op)
        for kind, name, pattern in (("TOPIC", "PREFIXED", "pg."), ("TOPIC", "LITERAL", "pg-heartbeat"))
        for op in ("WRITE", "DESCRIBE", "CREATE")
    }


def test_a_topics_regex_sink_takes_its_listed_topics(tmp_path: Path) -> None:
    sink = connector(
        "audit",
        """
        class: com.example.AuditSink
        worker: connect-prod
        aclTopics: [{prefix: audit.}]
        config: {topics.regex: "audit\\\\..*"}
        """,
    )
    assert derived(load(tmp_path, sink), "audit") == {
        ("TOPIC", "PREFIXED", "audit.", "READ"),
        ("TOPIC", "PREFIXED", "audit.", "DESCRIBE"),
        ("GROUP", "LITERAL", "sinks-audit", "READ"),
    }


def test_without_worker_nothing_is_derived(tmp_path: Path) -> None:
    result = load(tmp_path, connector("plain", "class: FileStreamSink\nconfig: {topics: orders}\n"))
    assert {source.origin for source in result.desired.acls.values() if source is not None} == {
        "ConnectWorker connect-prod"
    }


@pytest.mark.parametrize(
    ("body", "line", "path", "message"),
    [
        (
            "class: FileStreamSink\nworker: connect-prod\nconfig:\n  topics.regex: a.*\n",
            8,
            "spec.config.topics.regex",
            "the topics a topics.regex sink reads are not named in its config, so the ACLs of its worker cannot be "
            "derived (Kafka's ACLs match names and prefixes, not regular expressions)",
        ),
        (
            "class: com.example.JdbcSourceConnector\nworker: connect-prod\nconfig: {topic.prefix: x}\n",
            6,
            "spec.worker",
            "the topics source connector 'c' writes are not named by a config key Connect defines, so the ACLs of "
            "its worker cannot be derived",
        ),
        (
            "class: com.example.Replicator\nworker: connect-prod\nconfig: {topic: x}\n",
            5,
            "spec.class",
            "cannot tell whether com.example.Replicator is a source or a sink connector from its name",
        ),
        (
            "class: FileStreamSink\nworker: conect-prod\nconfig: {topics: orders}\n",
            6,
            "spec.worker",
            "no ConnectWorker grant is named 'conect-prod'",
        ),
        (
            "class: FileStreamSink\nworker: connect-prod\naclTopics: [x]\nconfig: {topics: orders}\n",
            7,
            "spec.aclTopics",
            "a sink's topics come from config.topics; aclTopics is for sources and topics.regex sinks",
        ),
        (
            "class: FileStreamSink\naclTopics: [x]\nconfig: {topics: orders}\n",
            6,
            "spec.aclTopics",
            "aclTopics is only used with worker (the ConnectWorker grant to give the connector's ACLs to)",
        ),
        (
            "class: FileStreamSink\nworker: connect-prod\nconfig: {topics: ' , '}\n",
            7,
            "spec.config.topics",
            "config.topics names no topic",
        ),
    ],
)
def test_what_cannot_be_derived_is_an_error_at_its_line(
    tmp_path: Path, body: str, line: int, path: str, message: str
) -> None:
    """``line`` counts from the connector document's first line (``apiVersion``)."""
    found = failures(tmp_path, connector("c", body))
    first = WORKER.count("\n") + 2
    assert found == [(first + line - 1, path, message)]


def test_the_did_you_mean_names_the_grant(tmp_path: Path) -> None:
    with pytest.raises(errors.ValidationFailed) as caught:
        load(tmp_path, connector("typo", "class: FileStreamSink\nworker: conect-prod\nconfig: {topics: o}\n"))
    (diag,) = [d for d in caught.value.diagnostics if d.severity is errors.Severity.ERROR]
    assert diag.hint == "did you mean connect-prod?"
    assert diag.file is not None and diag.file.endswith("m.yaml")


def test_a_grant_that_fails_its_model_gets_its_own_errors_only(tmp_path: Path) -> None:
    broken = WORKER.replace("  groupId: cg\n", "")
    (tmp_path / "m.yaml").write_text(
        broken + "---\n" + connector("out", "class: FileStreamSink\nworker: connect-prod\nconfig: {topics: orders}\n")
    )
    with pytest.raises(errors.ValidationFailed) as caught:
        manifests.load([tmp_path], env={})
    found = [(d.path, d.message) for d in caught.value.diagnostics if d.severity is errors.Severity.ERROR]
    assert found == [("spec", "missing required field 'groupId'")]


def test_validate_names_the_file_and_line_and_exits_1(tmp_path: Path) -> None:
    sink = connector("audit", "class: FileStreamSink\nworker: connect-prod\nconfig:\n  topics.regex: audit.*\n")
    (tmp_path / "m.yaml").write_text(WORKER + "---\n" + sink)
    result = CliRunner().invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    line = (WORKER + "---\n" + sink).splitlines().index("    topics.regex: audit.*") + 1
    assert f"{tmp_path / 'm.yaml'}:{line}:" in result.output
    assert "a topics.regex sink reads are not named in its config" in result.output
    assert "aclTopics" in result.output and "Traceback" not in result.output


SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
CONFIG = {"connector.class": SINK, "tasks.max": "1", "topics": "orders"}
AT = desired.Source(file="c.yaml", line=5, column=10)


def acl_type_warnings(acl_type: str | None, live_type: str | None) -> list[tuple[str, str | None, str]]:
    wanted = desired.DesiredConnector("out", CONFIG, acl_type=acl_type, positions={"connector.class": AT})
    connector = state.ConnectorState("out", CONFIG, "RUNNING", (state.ConnectorTask(0, "RUNNING"),), type=live_type)
    connect = state.ConnectState(url="http://c:8083", connectors={"out": connector}, plugins=(SINK,))
    live = state.ClusterState(cluster_id="c", controller_id=1, brokers=(), connect=connect)
    p = plan(desired.DesiredState(connectors={"out": wanted}), live)
    return [(w.code, w.address, w.message) for w in p.warnings if w.code == "connector-acl-type"]


def test_the_plan_says_when_connect_runs_it_as_the_other_kind() -> None:
    assert acl_type_warnings("source", "sink") == [
        (
            "connector-acl-type",
            "connector/out",
            "c.yaml:5:10: connector out is a sink connector on the Kafka Connect cluster, but the ACLs of its worker "
            "are derived for a source; set type: sink",
        )
    ]
    assert acl_type_warnings("sink", "sink") == []
    assert acl_type_warnings(None, "source") == []  # no worker named: nothing was derived
    assert acl_type_warnings("sink", None) == []  # Connect did not say


def test_the_derived_kind_is_kept_on_the_connector(tmp_path: Path) -> None:
    docs = [
        connector("a", "class: FileStreamSink\nworker: connect-prod\nconfig: {topics: o}\n"),
        connector("b", "class: com.example.Thing\ntype: source\nworker: connect-prod\naclTopics: [o]\n"),
        connector("c", "class: FileStreamSink\nconfig: {topics: o}\n"),
    ]
    found = load(tmp_path, *docs).desired.connectors
    assert {name: c.acl_type for name, c in found.items()} == {"a": "sink", "b": "source", "c": None}
