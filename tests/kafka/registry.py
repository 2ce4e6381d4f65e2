"""A real Schema Registry for the integration tests: Apicurio Registry 2.4.2.Final, built from Maven Central.

Confluent's registry is not served by Maven Central; Apicurio Registry is, and answers the Confluent REST API under
``/apis/ccompat/v7`` (``SchemaRegistryServer.api_url``). It is built as a Quarkus application from the small Maven
project in ``tests/kafka/registry-app/`` (its ``pom.xml`` says why each work-around is there), once per machine: the
project is copied to a staging folder under the cache, ``mvn package`` runs there (bounded by
``REGISTRY_BUILD_TIMEOUT``, 900 s), and the runner jar with its ``lib/`` moves to
``.cache/kafka/registry-<version>/app`` with a ``COMPLETE`` marker written last that holds a digest of the
project's files, so a changed project is rebuilt and a half-done build is never read as a cache. A file lock keeps
two test runs from building at once.

A server keeps its schemas in memory (the app's H2 profile: a clean registry at every start), listens on
127.0.0.1 only, and is ready when ``GET /health/ready`` answers 200 (bounded by ``REGISTRY_START_TIMEOUT``, 90 s).
The JVM flags (a 512 MB heap, the serial collector, C1 only) halve the start on a small machine. Logs go to
``<dir>/registry.log``. Unless asked otherwise the kernel kills the server with the Python process that started it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.kafka.cluster import free_ports
from tests.kafka.dist import CACHE_ROOT, HarnessError, _locked
from tests.kafka.node import spawn
from tests.kafka.process import ServerProcess

REGISTRY_VERSION = "2.4.2.Final"
HERE = Path(__file__).resolve().parent
PROJECT = HERE / "registry-app"
MARKER = "COMPLETE"
RUNNER = "test-schema-registry-1.0.0-runner.jar"  # the app's profile builds a legacy jar: this and lib/
API_PATH = "/apis/ccompat/v7"
JVM_OPTIONS = ("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto")


def project_digest() -> str:
    """A digest of the Maven project's files (the pom and the Java source): the cache holds the build of these."""
    digest = hashlib.sha256()
    for path in sorted(p for p in PROJECT.rglob("*") if p.is_file() and "target" not in p.parts):
        digest.update(path.relative_to(PROJECT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _cached(target: Path, digest: str) -> Path | None:
    marker = target / MARKER
    runner = target / "app" / RUNNER
    if marker.is_file() and marker.read_text().strip() == digest and runner.is_file():
        return runner
    return None


def resolve_registry(*, cache_root: Path = CACHE_ROOT) -> Path:
    """The built server's runner jar, running the Maven build only when it is not cached (one build at a time)."""
    target = cache_root / f"registry-{REGISTRY_VERSION}"
    digest = project_digest()
    runner = _cached(target, digest)
    if runner is not None:
        return runner
    cache_root.mkdir(parents=True, exist_ok=True)
    with _locked(cache_root / f"registry-{REGISTRY_VERSION}.lock"):
        runner = _cached(target, digest)
        if runner is None:
            _build(target=target, cache_root=cache_root, digest=digest)
            runner = _cached(target, digest)
    if runner is None:
        raise HarnessError(f"Maven finished but {target} is incomplete")
    return runner


def _build(*, target: Path, cache_root: Path, digest: str) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise HarnessError("Maven ('mvn') is needed to build the test Schema Registry; install Maven 3.8+ and retry")
    timeout = float(os.environ.get("REGISTRY_BUILD_TIMEOUT", "900"))
    staging = Path(tempfile.mkdtemp(prefix=f".registry-{REGISTRY_VERSION}-", dir=cache_root))
    try:
        project = staging / "project"
        shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("target"))
        command = [mvn, "-q", "-B", "-f", str(project / "pom.xml"), "package", "-DskipTests"]
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            raise HarnessError(f"the Schema Registry build did not finish in {timeout:g}s") from None
        output = project / "target"
        if result.returncode != 0 or not (output / RUNNER).is_file():
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-30:])
            code = result.returncode
            raise HarnessError(f"Maven could not build Apicurio Registry {REGISTRY_VERSION} (exit {code}):\n{tail}")
        built = staging / "built"
        (built / "app").mkdir(parents=True)
        (output / RUNNER).rename(built / "app" / RUNNER)
        (output / "lib").rename(built / "app" / "lib")
        (built / MARKER).write_text(digest + "\n")
        if target.exists():
            shutil.rmtree(target)
        built.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class SchemaRegistryServer(ServerProcess):
    """One Apicurio Registry process; ``api_url`` is its Confluent-compatible API. ``start``/``stop`` may repeat."""

    def __init__(
        self,
        *,
        workdir: Path,
        port: int | None = None,
        die_with_parent: bool = True,
        cache_root: Path = CACHE_ROOT,
    ) -> None:
        self.runner = resolve_registry(cache_root=cache_root)
        self.dir = workdir
        self.port = port or free_ports(1)[0]
        self.die_with_parent = die_with_parent
        self.log_path = workdir / "registry.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.start_timeout = float(os.environ.get("REGISTRY_START_TIMEOUT", "90"))
        self.start_seconds: float | None = None
        workdir.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return self.url + API_PATH

    def command(self) -> list[str]:
        host = ["-Dquarkus.http.host=127.0.0.1", f"-Dquarkus.http.port={self.port}"]
        return ["java", *JVM_OPTIONS, *host, "-jar", str(self.runner)]

    def start(self) -> None:
        """Start the JVM and wait (bounded by ``REGISTRY_START_TIMEOUT``) until ``GET /health/ready`` is 200."""
        if self.running:
            return
        began = time.monotonic()
        with self.log_path.open("ab") as log:
            log.write(f"--- harness: starting registry at {time.strftime('%H:%M:%S')} ---\n".encode())
            log.flush()
            self.process = spawn(self.command(), cwd=self.dir, log=log, die_with_parent=self.die_with_parent)
        deadline = began + self.start_timeout
        while not self.ready():
            if self.process.poll() is not None:
                code = self.process.returncode
                raise HarnessError(f"the Schema Registry exited with code {code}; last lines:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.kill()
                raise HarnessError(f"the Schema Registry at {self.url} was not ready in time:\n{self.log_tail()}")
            time.sleep(0.25)
        self.start_seconds = time.monotonic() - began

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/health/ready", timeout=2) as response:
                return bool(response.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def rss_kib(self) -> int | None:
        """The server's resident memory (KiB), from /proc."""
        if self.process is None:
            return None
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            return None
        return None
