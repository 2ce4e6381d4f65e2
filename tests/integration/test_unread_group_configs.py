"""A principal that may not describe one group's configs still snapshots and imports the cluster (SASL node, ACLs).

``carol`` gets what a tool principal gets in the tests (ALL on the cluster and on the test's topic prefix) and
DESCRIBE_CONFIGS on the groups starting with ``<prefix>ok``, not on ``<prefix>hidden``. The whole-cluster snapshot
is written, the readable group in it, the hidden one recorded as unread with the grant to ask for; an offline plan
from that snapshot and a live plan block the hidden group rather than proposing to set or delete its configs; the
import writes the readable group and names the one it skipped.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.kafka.adapter import KafkaAdapter
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import selected_release
from tests.support.builders import acl, all_rights
from tests.support.live import settings

pytestmark = [
    pytest.mark.kafka,
    pytest.mark.skipif(selected_release() < (4, 1, 0), reason="group configs need Kafka 4.1+ (ListConfigResources v1)"),
]
runner = CliRunner()


def write(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "m.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    return directory


def groups(prefix: str, timeout: str, *, delete: bool) -> str:
    return f"""\
        apiVersion: kafka-reconciler/v1
        kind: Ownership
        metadata: {{name: own}}
        spec:
          topics: [{{prefix: "{prefix}"}}]
          groups: [{{prefix: "{prefix}"}}]
          delete: {{groupConfig: {str(delete).lower()}}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: GroupConfig
        metadata: {{name: {prefix}ok-orders}}
        spec: {{configs: {{consumer.session.timeout.ms: {timeout}}}}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: GroupConfig
        metadata: {{name: {prefix}hidden}}
        spec: {{configs: {{consumer.session.timeout.ms: {timeout}}}}}
        """


@pytest.fixture
def carol(kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path) -> Iterator[list[str]]:
    """Both groups set by the admin; carol's connection options (her rights granted, removed afterwards)."""
    admin = ["--bootstrap-server", kafka_sasl.bootstrap, "--command-config",
             str(kafka_sasl.write_command_config(tmp_path / "admin.properties"))]  # fmt: skip
    made = runner.invoke(app, ["apply", str(write(tmp_path / "setup", groups(topic_prefix, "45s", delete=True))),
                               *admin, "--auto-approve"])  # fmt: skip
    assert made.exit_code == 0, made.output
    rights = [
        *all_rights("User:carol", topic_prefix),
        acl("User:carol", "DESCRIBE_CONFIGS", f"{topic_prefix}ok", resource="GROUP", pattern="PREFIXED"),
    ]
    with KafkaAdapter(settings(kafka_sasl)) as adapter:
        assert all(r.ok for r in adapter.create_acls(rights))
    try:
        yield ["--bootstrap-server", kafka_sasl.bootstrap, "--command-config",
               str(kafka_sasl.write_command_config(tmp_path / "carol.properties", "carol"))]  # fmt: skip
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as adapter:
            adapter.delete_acls(rights)
        # the owned groups, now undeclared, are deleted: nothing is left on the shared broker
        ownership_only = groups(topic_prefix, "45s", delete=True).split("---")[0]
        gone = runner.invoke(app, ["apply", str(write(tmp_path / "cleanup", ownership_only)), *admin, "--auto-approve"])
        assert gone.exit_code == 0, gone.output


def test_the_snapshot_records_the_group_it_may_not_read_and_a_plan_from_it_blocks_that_group(
    carol: list[str], topic_prefix: str, tmp_path: Path
) -> None:
    hidden, readable = f"{topic_prefix}hidden", f"{topic_prefix}ok-orders"
    grant = f"grant DESCRIBE_CONFIGS on GROUP {hidden} to User:carol"
    snap = tmp_path / "snap.json"
    result = runner.invoke(app, ["snapshot", "--out", str(snap), *carol])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    # one line names the unread groups (other tests' groups on this shared broker may be among them) and a grant
    assert "recorded as unread" in result.output and "grant DESCRIBE_CONFIGS on GROUP" in result.output
    doc = json.loads(snap.read_text())
    assert doc["group_configs"][readable] == {"consumer.session.timeout.ms": "45000"}
    assert hidden not in doc["group_configs"]
    assert grant in doc["unread_entities"]["group_config"][hidden]

    manifests = str(write(tmp_path / "m", groups(topic_prefix, "50s", delete=True)))
    offline = runner.invoke(app, ["plan", manifests, "--live-state", str(snap)])
    live = runner.invoke(app, ["plan", manifests, *carol])
    for planned in (offline, live):
        # the readable group is planned; the hidden one is blocked with the grant, never created or deleted
        assert planned.exit_code == 1, planned.output
        assert f"~ group_config/{readable}" in planned.output
        assert f"! group_config/{hidden}" in planned.output
        assert f"+ group_config/{hidden}" not in planned.output and f"- group_config/{hidden}" not in planned.output
        assert grant in planned.output


def test_the_import_writes_the_readable_group_and_names_the_one_it_skipped(
    carol: list[str], topic_prefix: str, tmp_path: Path
) -> None:
    hidden, readable = f"{topic_prefix}hidden", f"{topic_prefix}ok-orders"
    out = tmp_path / "imported"
    result = runner.invoke(app, ["import", "--out", str(out), *carol])
    assert result.exit_code == 0, result.output
    written = (out / "groups.yaml").read_text()
    assert f"name: {readable}" in written and "consumer.session.timeout.ms: 45s" in written
    assert hidden not in written and hidden not in (out / "ownership.yaml").read_text()
    # each skipped group is named with its grant; past five (other tests' groups on this shared broker count too)
    # one note names them
    one = f"not imported, its configs could not be read: cannot describe the configs of group {hidden}: "
    many = re.search(r"not imported, their configs could not be read: (\d+) group\(s\)", result.output)
    if many is None:
        assert one + "GROUP_AUTHORIZATION_FAILED" in result.output, result.output
        assert f"grant DESCRIBE_CONFIGS on GROUP {hidden} to User:carol" in result.output
    else:
        assert int(many.group(1)) > 5 and "grant DESCRIBE_CONFIGS on GROUP" in result.output, result.output
    assert "could not be read" in (out / "IMPORT.md").read_text()
