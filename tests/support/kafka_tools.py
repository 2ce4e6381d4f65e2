"""Kafka's own command-line tools (``kafka-configs.sh``, ``kafka-client-metrics.sh``) as a reference reader.

The tools are ``org.apache.kafka.tools.ConfigCommand`` and ``ClientMetricsCommand`` from the ``kafka-tools`` jars,
resolved once by Maven through ``benchmarks/kafka-tools-pom.xml`` (the same jars the benchmarks run) into
``.cache/kafka-tools/<version>/libs``, with a ``COMPLETE`` marker written last and a file lock around the download,
so parallel runs share one copy. They speak the admin protocol, so one tools release reads any broker that has
the APIs; they are run as Kafka's scripts run them (``kafka-run-class``'s default ``-Xmx256M``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tests.kafka.dist import REPO_ROOT, HarnessError, _locked

TOOLS_VERSION = "4.4.0"
POM = REPO_ROOT / "benchmarks" / "kafka-tools-pom.xml"
CACHE = REPO_ROOT / ".cache" / "kafka-tools"
MARKER = "COMPLETE"


def classpath(version: str = TOOLS_VERSION) -> str:
    """The class path of Kafka's tools jars, fetched with Maven on first use."""
    target = CACHE / version
    if not (target / MARKER).is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        with _locked(CACHE / f"{version}.lock"):
            if not (target / MARKER).is_file():
                _download(version, target)
    return ":".join(str(p) for p in sorted((target / "libs").glob("*.jar")))


def _download(version: str, target: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise HarnessError("Maven ('mvn') is needed to fetch Kafka's tools jars")
    staging = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=CACHE))
    # The POM fixes the plugin's outputDirectory (a -DoutputDirectory is ignored); kafka.tools.libs moves it.
    command = [mvn, "-q", "-B", "-f", str(POM), f"-Dkafka.version={version}", "dependency:copy-dependencies",
               f"-Dkafka.tools.libs={staging / 'libs'}"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    if result.returncode != 0 or not any((staging / "libs").glob("kafka-tools-*.jar")):
        shutil.rmtree(staging, ignore_errors=True)
        raise HarnessError(f"Maven could not resolve kafka-tools {version}: {result.stdout[-2000:]}{result.stderr}")
    (staging / MARKER).write_text("\n".join(p.name for p in (staging / "libs").glob("*.jar")) + "\n")
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)


def run(tool: str, bootstrap: str, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """Run ``org.apache.kafka.tools.<tool>`` against ``bootstrap`` with ``args``."""
    command = ["java", "-Xmx256M", "-cp", classpath(), f"org.apache.kafka.tools.{tool}", "--bootstrap-server",
               bootstrap, *args]  # fmt: skip
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
    )


def group_configs(bootstrap: str, group: str) -> dict[str, str]:
    """``kafka-configs.sh --describe --entity-type groups --entity-name <group>``: the group's dynamic configs."""
    done = run("ConfigCommand", bootstrap, "--describe", "--entity-type", "groups", "--entity-name", group)
    assert done.returncode == 0, done.stdout + done.stderr
    return _pairs(line.split(" sensitive=")[0] for line in done.stdout.splitlines() if line.startswith("  "))


def client_metrics(bootstrap: str, name: str) -> dict[str, str] | None:
    """``kafka-client-metrics.sh --describe --name <name>``: the subscription's settings, ``None`` when absent."""
    done = run("ClientMetricsCommand", bootstrap, "--describe", "--name", name)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    if not any(line.startswith("Client metrics configs for") for line in lines):
        return None
    return _pairs(line for line in lines if line.startswith("  "))


def _pairs(lines: Iterable[str]) -> dict[str, str]:
    out = {}
    for line in lines:
        key, _, value = line.strip().partition("=")
        out[key] = value
    return out
