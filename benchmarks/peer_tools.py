"""The peers of ``peers_bench``: Kafka's own CLI and the Terraform provider, each driven the way a user drives it.

* Kafka's CLI: ``kafka-topics``, ``kafka-configs``, ``kafka-acls`` are ``org.apache.kafka.tools.TopicCommand``,
  ``ConfigCommand`` and ``AclCommand`` of the kafka-tools jars (``apply_bench_tools.tools_classpath``), each call a
  fresh JVM with ``-Xmx256M`` as ``kafka-run-class.sh`` starts it; ``cli_*`` build the argument lists of one step.
* Terraform: Mongey/terraform-provider-kafka and a ``terraform`` binary, both built from source by
  ``benchmarks/build_terraform_peer.sh`` into ``.cache/``; the provider is used through ``dev_overrides`` in a
  CLI configuration file (``TF_CLI_CONFIG_FILE``), so no ``terraform init`` and no registry. ``write_tf`` writes
  the shape as ``kafka_topic`` and ``kafka_acl`` resources.

Neither is part of this repository; without them their column is skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.apply_bench_tools import REPO
from benchmarks.apply_shape import Shape

PROVIDER_VERSION = "0.13.1"
PROVIDER_DIR = REPO / ".cache" / "terraform-provider-kafka" / f"v{PROVIDER_VERSION}"
TERRAFORM_DEFAULT = REPO / ".cache" / "terraform" / "terraform"
DAY_MS = 24 * 3600 * 1000
SEGMENT, MAX_MESSAGE = "268435456", "2097152"  # 256MiB, 2MiB as the shape's manifests say
TIMEOUT_S = 3600.0  # one command; peers_bench --peer-timeout sets it
TF_OPERATIONS = {"READ": "Read", "WRITE": "Write", "DESCRIBE": "Describe", "DESCRIBE_CONFIGS": "DescribeConfigs"}


def run(argv: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> dict[str, Any]:
    """Wall seconds and exit of one command (killed after ``TIMEOUT_S``: exit -1); its output's end on failure."""
    started = time.perf_counter()
    try:
        done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"seconds": time.perf_counter() - started, "exit": -1, "error": f"killed after {TIMEOUT_S:.0f} s"}
    figure: dict[str, Any] = {"seconds": time.perf_counter() - started, "exit": done.returncode}
    if done.returncode not in (0, 2):
        figure["error"] = (done.stderr or done.stdout)[-600:]
    return figure


def run_all(commands: Iterable[list[str]]) -> dict[str, Any]:
    """Run commands one after another (as a shell script of them would); total seconds, worst exit, count."""
    started = time.perf_counter()
    figures = [run(argv) for argv in commands]
    worst = max((f["exit"] for f in figures), default=0)
    out: dict[str, Any] = {"seconds": time.perf_counter() - started, "exit": worst, "processes": len(figures)}
    if worst:
        out["error"] = next(f.get("error", "") for f in figures if f["exit"] == worst)
    return out


# ---------------------------------------------------------------------------------------------- Kafka's CLI
def java(classpath: str, main: str, bootstrap: str, *args: str) -> list[str]:
    return ["java", "-Xmx256M", "-cp", classpath, f"org.apache.kafka.tools.{main}", "--bootstrap-server", bootstrap,
            *args]  # fmt: skip


def retention(days: int) -> str:
    return str(days * DAY_MS)


def cli_create(classpath: str, bootstrap: str, *, shape: Shape, indices: list[int]) -> list[list[str]]:
    """One ``kafka-topics --create`` per topic, then one ``kafka-acls --add`` per (principal, topic) with all
    of that pair's operations."""
    topics = [
        java(
            classpath,
            "TopicCommand",
            bootstrap,
            "--create",
            "--topic",
            shape.name(i),
            "--partitions",
            str(shape.partitions(i)),
            "--replication-factor",
            "1",
            "--config",
            f"retention.ms={retention(1 + i % 7)}",
            "--config",
            f"segment.bytes={SEGMENT}",
            "--config",
            f"max.message.bytes={MAX_MESSAGE}",
        )
        for i in indices
    ]
    wanted = set(indices)
    pairs: dict[tuple[str, int], list[str]] = defaultdict(list)
    for b in range(shape.acls):
        principal, operation, topic = shape.binding(b)
        if topic in wanted:
            pairs[(principal, topic)].append(operation)
    acls = [
        java(
            classpath,
            "AclCommand",
            bootstrap,
            "--add",
            "--allow-principal",
            principal,
            "--topic",
            shape.name(topic),
            *(a for op in ops for a in ("--operation", TF_OPERATIONS[op])),
        )
        for (principal, topic), ops in pairs.items()
    ]
    return topics + acls


def cli_read(classpath: str, bootstrap: str, *, shape: Shape) -> list[list[str]]:
    """What a user runs to see the state (the CLI has no plan): topics of the shape, every topic's configs, ACLs."""
    return [
        java(classpath, "TopicCommand", bootstrap, "--describe", "--topic", f"{shape.prefix}\\..*"),
        java(classpath, "ConfigCommand", bootstrap, "--describe", "--entity-type", "topics"),
        java(classpath, "AclCommand", bootstrap, "--list"),
    ]


def cli_configs(classpath: str, bootstrap: str, *, shape: Shape, days: dict[int, int]) -> list[list[str]]:
    return [
        java(
            classpath,
            "ConfigCommand",
            bootstrap,
            "--alter",
            "--entity-type",
            "topics",
            "--entity-name",
            shape.name(i),
            "--add-config",
            f"retention.ms={retention(d)}",
        )
        for i, d in days.items()
    ]


def cli_grow(classpath: str, bootstrap: str, *, shape: Shape, indices: Iterable[int]) -> list[list[str]]:
    return [
        java(
            classpath,
            "TopicCommand",
            bootstrap,
            "--alter",
            "--topic",
            shape.name(i),
            "--partitions",
            str(shape.partitions(i) + 2),
        )
        for i in indices
    ]


def cli_delete(classpath: str, bootstrap: str, *, shape: Shape, indices: Iterable[int]) -> list[list[str]]:
    return [java(classpath, "TopicCommand", bootstrap, "--delete", "--topic", shape.name(i)) for i in indices]


# ------------------------------------------------------------------------------------------------ Terraform
def terraform_binaries() -> tuple[tuple[Path, Path] | None, str]:
    """(terraform, provider directory) and their versions, or None and why not."""
    provider = PROVIDER_DIR / "terraform-provider-kafka"
    if not provider.is_file():
        return None, f"no provider at {provider} (benchmarks/build_terraform_peer.sh builds it)"
    given = os.environ.get("TERRAFORM") or (str(TERRAFORM_DEFAULT) if TERRAFORM_DEFAULT.is_file() else None)
    terraform = given or shutil.which("terraform")
    if terraform is None:
        return None, "no terraform binary (benchmarks/build_terraform_peer.sh builds one; or set TERRAFORM)"
    version = subprocess.run([terraform, "version"], capture_output=True, text=True, check=False).stdout
    return (Path(terraform), PROVIDER_DIR), f"{version.splitlines()[0]} ({terraform}), provider v{PROVIDER_VERSION}"


def terraform_env(workdir: Path, provider_dir: Path) -> dict[str, str]:
    """The environment of every terraform command: the dev_overrides configuration, no checkpoint calls."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "terraformrc"
    config.write_text(
        "provider_installation {\n  dev_overrides {\n"
        f'    "Mongey/kafka" = "{provider_dir}"\n  }}\n  direct {{}}\n}}\n'
    )
    return {**os.environ, "TF_CLI_CONFIG_FILE": str(config), "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1",
            "TF_DATA_DIR": str(workdir / ".terraform")}  # fmt: skip


def write_tf(out: Path, *, shape: Shape, bootstrap: str, days: dict[int, int], grown: set[int], gone: set[int]) -> None:
    """The shape as Terraform resources: one ``kafka_topic`` per topic and one ``kafka_acl`` per binding."""
    servers = ", ".join(f'"{a}"' for a in bootstrap.split(","))
    parts = [
        'terraform {\n  required_providers {\n    kafka = { source = "Mongey/kafka" }\n  }\n}\n'
        f'provider "kafka" {{\n  bootstrap_servers = [{servers}]\n  tls_enabled = false\n}}\n'
    ]
    for i in range(shape.topics):
        if i in gone:
            continue
        parts.append(
            f'resource "kafka_topic" "t{i}" {{\n  name = "{shape.name(i)}"\n  replication_factor = 1\n'
            f"  partitions = {shape.partitions(i) + 2 * (i in grown)}\n  config = {{\n"
            f'    "retention.ms" = "{retention(days.get(i, 1 + i % 7))}"\n    "segment.bytes" = "{SEGMENT}"\n'
            f'    "max.message.bytes" = "{MAX_MESSAGE}"\n  }}\n}}\n'
        )
    for b in range(shape.acls):
        principal, operation, topic = shape.binding(b)
        parts.append(
            f'resource "kafka_acl" "a{b}" {{\n  resource_name = "{shape.name(topic)}"\n  resource_type = "Topic"\n'
            f'  resource_pattern_type_filter = "Literal"\n  acl_principal = "{principal}"\n  acl_host = "*"\n'
            f'  acl_operation = "{TF_OPERATIONS[operation]}"\n  acl_permission_type = "Allow"\n}}\n'
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / "main.tf").write_text("".join(parts))


def terraform(binary: Path, workdir: Path, env: dict[str, str], *, plan_only: bool = False) -> dict[str, Any]:
    """``terraform apply -auto-approve`` (or ``plan -detailed-exitcode``) in ``workdir``, refresh included."""
    verb = ["plan", "-detailed-exitcode"] if plan_only else ["apply", "-auto-approve"]
    return run([str(binary), *verb, "-input=false", "-no-color"], env=env, cwd=workdir)
