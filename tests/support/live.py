"""What the reliability tests share: the CLI in a subprocess, cluster state as plain kafka-python sees it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kafka.admin import ConfigResource

from reconciler import planner
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired, plans
from tests.kafka.cluster import KafkaCluster

REPO = Path(__file__).resolve().parents[2]


def settings(cluster: KafkaCluster, user: str | None = None, **overrides: Any) -> ConnectionSettings:
    """Connection settings for ``cluster`` (as ``user`` on a SASL cluster; the super user by default)."""
    kwargs = cluster.client_kwargs(user)
    fields: dict[str, Any] = {"bootstrap_servers": cluster.bootstrap, "request_timeout_ms": 15_000}
    if kwargs["security_protocol"] != "PLAINTEXT":
        fields.update(
            security_protocol=kwargs["security_protocol"],
            sasl_mechanism=kwargs["sasl_mechanism"],
            username=kwargs["sasl_plain_username"],
            password=Secret(kwargs["sasl_plain_password"]),
        )
    fields.update(overrides)
    return ConnectionSettings(**fields)


def plan_now(adapter: KafkaAdapter, wanted: desired.DesiredState) -> plans.Plan:
    """The plan for ``wanted`` against what the adapter reads now."""
    kinds = planner.planned_kinds(wanted)
    names = set(wanted.topics)
    live = adapter.read_state(kinds=kinds, topic_filter=lambda n: n in names or wanted.ownership.owns_topic(n))
    return planner.plan(wanted, live)


def topics_state(cluster: KafkaCluster, prefix: str) -> dict[str, int]:
    """Topic name -> partition count for every topic starting with ``prefix`` (plain kafka-python)."""
    with cluster.admin_session() as admin:
        described = admin.describe_topics([t for t in admin.list_topics() if t.startswith(prefix)] or None)
    return {t["name"]: len(t["partitions"]) for t in described if str(t["name"]).startswith(prefix)}


def topic_configs(cluster: KafkaCluster, names: Iterable[str]) -> dict[str, dict[str, str]]:
    """Dynamic topic configs (``DYNAMIC_TOPIC_CONFIG``) of each topic (plain kafka-python)."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    with cluster.admin_session() as admin:
        found = admin.describe_configs([ConfigResource("TOPIC", n) for n in wanted])["topic"]
    return {
        name: {k: v["value"] for k, v in found.get(name, {}).items() if v["config_source"] == "DYNAMIC_TOPIC_CONFIG"}
        for name in wanted
    }


def cli(
    args: list[str], *, env: Mapping[str, str] | None = None, cwd: Path | None = None, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """Run ``kafka-reconciler ARGS`` in a fresh process, as an operator would; stdin is not a TTY."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KAFKA_") or k == "KAFKA_VERSION"}
    environ.update(env or {})
    environ.setdefault("NO_COLOR", "1")
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        env=environ,
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )
