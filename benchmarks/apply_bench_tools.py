"""The outside contenders and meters of ``apply_bench``: start-up timing, Kafka's TopicCommand, topicctl, bytes read.

* ``startup``: wall time of fresh processes (``python -c pass``, ``kafka-reconciler --help`` ...), interleaved;
* ``TopicCommand``: Kafka's own ``kafka-topics`` (org.apache.kafka.tools.TopicCommand) from the kafka-tools jars,
  resolved by Maven through ``benchmarks/kafka-tools-pom.xml`` into ``.cache/kafka-tools/<version>/libs``;
* ``topicctl``: segmentio's topicctl, a binary the user builds (see docs/benchmarks.md); its path comes from
  ``$TOPICCTL`` or ``.cache/topicctl/topicctl-2.0.2``; without it that column is skipped, saying why;
* ``ByteMeter``: bytes of every broker response this process receives (kafka-python's connections).
"""

from __future__ import annotations

import collections
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TOOLS_VERSION = "4.4.0"
TOOLS_POM = REPO / "benchmarks" / "kafka-tools-pom.xml"
TOOLS_LIBS = REPO / ".cache" / "kafka-tools" / TOOLS_VERSION / "libs"
TOPICCTL_DEFAULT = REPO / ".cache" / "topicctl" / "topicctl-2.0.2"
BIN = Path(sys.executable).parent


# ------------------------------------------------------------------------------------------ bytes read
class ByteMeter:
    """Counts the bytes of broker responses received by kafka-python in this process.

    ``by_api`` attributes them to the adapter's request being answered at the time (what arrives while no
    request of the adapter is waiting, e.g. kafka-python's own metadata refreshes, is under ``other``).
    """

    total = 0
    by_api: collections.Counter[str] = collections.Counter()

    @classmethod
    def reset(cls) -> None:
        cls.total = 0
        cls.by_api.clear()

    @classmethod
    def install(cls) -> None:
        from kafka.net import connection

        from reconciler.kafka import codes, wire

        plain_received = connection.KafkaConnection.data_received
        plain_send = wire.Wire._send

        def received(self: Any, data: bytes) -> Any:
            cls.total += len(data)
            return plain_received(self, data)

        def send(self: Any, request: Any, **kwargs: Any) -> Any:
            before = cls.total
            try:
                return plain_send(self, request, **kwargs)
            finally:
                cls.by_api[codes.api_name(request)] += cls.total - before

        connection.KafkaConnection.data_received = received
        wire.Wire._send = send  # type: ignore[method-assign]

    @classmethod
    def split(cls) -> dict[str, int]:
        """Bytes per API, and ``other`` for what arrived outside the adapter's requests."""
        return {**cls.by_api, "other": cls.total - sum(cls.by_api.values())}


# -------------------------------------------------------------------------------------------- start-up
def startup_env() -> dict[str, str]:
    """The environment a user's shell has: byte-code caches written and used (this machine disables them)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_commands(commands: dict[str, list[str]], *, repeat: int) -> dict[str, list[float]]:
    """Wall seconds of each command, ``repeat`` times, interleaved (one warm-up each first, not counted)."""
    env = startup_env()
    for argv in commands.values():
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            started = time.perf_counter()
            done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
            times[name].append(time.perf_counter() - started)
            if done.returncode not in (0, 2):  # plan --detailed-exitcode: 2 would mean changes (checked apart)
                raise SystemExit(f"{name} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)


# ------------------------------------------------------------------------------------------ TopicCommand
def tools_classpath() -> str:
    """Kafka's tools jars (resolved once with Maven into .cache/kafka-tools)."""
    if not TOOLS_LIBS.is_dir() or not any(TOOLS_LIBS.glob("kafka-tools-*.jar")):
        subprocess.run(
            ["mvn", "-q", "-f", str(TOOLS_POM), "dependency:copy-dependencies", f"-Dkafka.tools.libs={TOOLS_LIBS}"],
            check=True,
        )
    return os.pathsep.join(str(p) for p in sorted(TOOLS_LIBS.glob("*.jar")))


def topic_command(classpath: str, bootstrap: str, *args: str) -> list[str]:
    """``kafka-topics.sh`` as Kafka's script runs it (default JVM options of kafka-run-class: -Xmx256M)."""
    return ["java", "-Xmx256M", "-cp", classpath, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server",
            bootstrap, *args]  # fmt: skip


# ------------------------------------------------------------------------------------------------ topicctl
def topicctl_binary() -> tuple[Path | None, str]:
    """The topicctl binary and where it came from, or None and why not."""
    given = os.environ.get("TOPICCTL")
    path = Path(given) if given else TOPICCTL_DEFAULT
    if not path.is_file() or not os.access(path, os.X_OK):
        return None, f"no topicctl binary at {path} (set TOPICCTL=/path/to/topicctl; docs/benchmarks.md: building it)"
    version = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=False).stdout.strip()
    return path, version or str(path)


def run_topicctl(binary: Path, args: list[str], *, stdin: str = "") -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(binary), "--no-spinner", *args], input=stdin, capture_output=True, text=True, check=False, timeout=3600
    )
    seconds = time.perf_counter() - started
    figure: dict[str, Any] = {"seconds": seconds, "exit": done.returncode}
    if done.returncode != 0:
        figure["error"] = (done.stderr or done.stdout)[-400:]
    return figure
