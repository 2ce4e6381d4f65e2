"""Client quotas on every entity kind can be removed by the tool, on a real broker, through the command line.

Quotas are set out of band on the default user, a client-id, the default client-id, an ip, the default ip and
user/client-id combinations. Ownership ``quotaEntities`` rules cover some of them (deleted with deletion enabled);
others are declared with ``values: {}`` (every quota removed). What the broker holds afterwards is read with a
second adapter (kafka-python has no DescribeClientQuotas).
"""

from __future__ import annotations

import secrets
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model.kinds import Kind
from reconciler.model.state import QuotaEntity
from tests.kafka.cluster import KafkaCluster
from tests.support.polling import eventually

# On every Kafka version: client quota entities each release supports.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]
runner = CliRunner()
# High enough never to throttle another test while they are in place.
BYTES = 1e12
CONNECTIONS = 1e6


def live_quotas(cluster: KafkaCluster) -> dict[QuotaEntity, dict[str, float]]:
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        found = adapter.read_state(kinds=frozenset({Kind.QUOTA})).quotas or {}
    return {e: dict(v) for e, v in found.items()}


def test_quotas_of_every_entity_kind_are_removed_by_ownership_or_by_empty_values(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    ip = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.7"
    client, user = f"{topic_prefix}batch", f"{topic_prefix}svc"
    by_rule = {
        QuotaEntity.of(user=None): {"producer_byte_rate": BYTES},
        QuotaEntity.of(client_id=client): {"consumer_byte_rate": BYTES},
        QuotaEntity.of(client_id=None): {"producer_byte_rate": BYTES},
        QuotaEntity.of(ip=ip): {"connection_creation_rate": CONNECTIONS},
        QuotaEntity.of(user=None, client_id=None): {"request_percentage": 10_000.0},
    }
    by_empty_values = {
        QuotaEntity.of(ip=None): {"connection_creation_rate": CONNECTIONS},
        QuotaEntity.of(user=user, client_id=client): {"producer_byte_rate": BYTES, "consumer_byte_rate": BYTES},
    }
    kept = {QuotaEntity.of(client_id=f"{topic_prefix}other"): {"producer_byte_rate": BYTES}}
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        results = adapter.alter_client_quotas({**by_rule, **by_empty_values, **kept})
    assert all(r.ok for r in results), results
    eventually(lambda: all(e in live_quotas(kafka_single) for e in by_rule), what="the quotas set out of band")

    manifests = tmp_path / "m"
    manifests.mkdir()
    (manifests / "quotas.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: quotas}}
            spec:
              quotaEntities:
                - {{name: "user=<default>"}}
                - {{name: "client-id={client}"}}
                - {{name: "client-id=<default>"}}
                - {{name: "ip={ip}"}}
                - {{name: "client-id=<default>,user=<default>"}}
              delete: {{quota: true}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: ClientQuota
            metadata: {{name: ip-default}}
            spec: {{entity: {{ip: default}}, values: {{}}}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: ClientQuota
            metadata: {{name: combo}}
            spec: {{entity: {{user: {user}, clientId: {client}}}, values: {{}}}}
            """
        )
    )
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    planned = runner.invoke(app, ["plan", str(manifests), *conn])
    assert planned.exit_code == 0, planned.output
    for entity in [*by_rule, *by_empty_values]:
        assert f"- {entity.address}" in planned.stdout
    assert "Plan: 0 to create, 0 to update, 7 to delete." in planned.stdout

    applied = runner.invoke(app, ["apply", str(manifests), *conn, "--auto-approve"])
    assert applied.exit_code == 0, applied.output
    remaining = live_quotas(kafka_single)
    assert [e.address for e in [*by_rule, *by_empty_values] if e in remaining] == []
    assert remaining[QuotaEntity.of(client_id=f"{topic_prefix}other")] == {"producer_byte_rate": BYTES}
    again = runner.invoke(app, ["plan", str(manifests), *conn])
    assert "No changes." in again.stdout

    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        adapter.alter_client_quotas({e: dict.fromkeys(v) for e, v in kept.items()})


def test_a_client_id_holding_the_address_separators_lands_on_that_client_id_alone(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Regression: ``clientId: "a,user=b"`` was written to the entity ``user=b, client-id=a`` (the entity was parsed
    back out of the change's address), reported applied and converged. Planned, saved, applied from the plan file;
    what the broker then describes is the one client-id entity."""
    odd = f"{topic_prefix}a,user={topic_prefix}b"
    wanted = QuotaEntity.of(client_id=odd)
    misread = QuotaEntity.of(client_id=f"{topic_prefix}a", user=f"{topic_prefix}b")
    manifests = tmp_path / "m"
    manifests.mkdir()
    (manifests / "quota.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: ClientQuota\nmetadata: {name: odd}\n"
        f'spec: {{entity: {{clientId: "{odd}"}}, values: {{producer_byte_rate: {BYTES:.0f}}}}}\n'
    )
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    saved = tmp_path / "plan.json"
    planned = runner.invoke(app, ["plan", str(manifests), *conn, "--out", str(saved)])
    assert planned.exit_code == 0, planned.output
    assert f"+ quota/client-id={topic_prefix}a%2Cuser={topic_prefix}b" in planned.stdout
    applied = runner.invoke(app, ["apply", "--plan", str(saved), *conn])
    assert applied.exit_code == 0, applied.output
    try:
        held = live_quotas(kafka_single)
        assert held.get(wanted) == {"producer_byte_rate": BYTES}
        assert misread not in held
        assert "No changes." in runner.invoke(app, ["plan", str(manifests), *conn]).stdout
    finally:
        with KafkaAdapter(kafka_single.connection_settings()) as adapter:
            adapter.alter_client_quotas({wanted: {"producer_byte_rate": None}, misread: {"producer_byte_rate": None}})
