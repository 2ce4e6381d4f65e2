"""Resolves the Apache Kafka broker jars for one version from Maven Central into a project cache.

The jars land in ``.cache/kafka/<version>/libs`` (Maven also keeps them in ``~/.m2``). A ``COMPLETE`` marker
listing every jar is written last; when it is present and all listed jars exist, Maven is not run at all, so
a second run is offline and takes milliseconds.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DEFAULT_KAFKA_VERSION = "4.4.0"
SUPPORTED_MAJORS = (2, 3, 4)
MODES = ("kraft", "zookeeper")

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
CACHE_ROOT = REPO_ROOT / ".cache" / "kafka"
POM = HERE / "pom.xml"
MARKER = "COMPLETE"

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


class HarnessError(RuntimeError):
    """The test Kafka could not be provisioned or started; the message says why."""


@dataclass(frozen=True)
class KafkaDistribution:
    """The jars of one Kafka version, ready to put on a JVM class path."""

    version: str
    libs: Path
    jars: tuple[Path, ...]

    @property
    def major(self) -> int:
        return major_of(self.version)

    def at_least(self, major: int, minor: int) -> bool:
        """Whether this release is ``major.minor`` or newer (for features added in a given release)."""
        return release_of(self.version)[:2] >= (major, minor)

    @property
    def classpath(self) -> str:
        return os.pathsep.join(str(jar) for jar in self.jars)

    def logging_jvm_args(self) -> list[str]:
        """System properties pointing the broker's logging backend at the harness's quiet config."""
        if self.major >= 4:
            return [f"-Dlog4j2.configurationFile={HERE / 'log4j2.properties'}"]
        return [f"-Dlog4j.configuration=file:{HERE / 'log4j.properties'}"]


def selected_version() -> str:
    """The Kafka version chosen by ``KAFKA_VERSION``, or the default."""
    return os.environ.get("KAFKA_VERSION", "").strip() or DEFAULT_KAFKA_VERSION


def selected_mode(version: str | None = None) -> str:
    """``kraft`` or ``zookeeper``, from ``KAFKA_MODE``; Kafka 2.x always runs with ZooKeeper, 4.x never can."""
    mode = os.environ.get("KAFKA_MODE", "").strip().lower() or "kraft"
    if mode not in MODES:
        raise HarnessError(f"KAFKA_MODE={mode!r} is not one of {', '.join(MODES)}")
    major = major_of(version or selected_version())
    if major == 2:
        return "zookeeper"  # KRaft in 2.8 was an early-access preview
    if major >= 4 and mode == "zookeeper":
        raise HarnessError("Kafka 4.x has no ZooKeeper mode; use KAFKA_MODE=kraft or a 3.x/2.8 release")
    return mode


def release_of(version: str) -> tuple[int, int, int]:
    """``(2, 8, 2)`` for ``"2.8.2"`` (a version the harness supports)."""
    major_of(version)
    match = _VERSION_RE.match(version)
    assert match is not None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def selected_release() -> tuple[int, int, int]:
    """The release tuple of ``KAFKA_VERSION`` (or the default), for tests whose expectations differ by release."""
    return release_of(selected_version())


def major_of(version: str) -> int:
    match = _VERSION_RE.match(version)
    if match is None:
        raise HarnessError(f"KAFKA_VERSION={version!r} is not a release version like {DEFAULT_KAFKA_VERSION}")
    major = int(match.group(1))
    if major not in SUPPORTED_MAJORS:
        raise HarnessError(f"Kafka {version} is not supported by the test harness (supported: 2.8.x, 3.9.x and 4.x)")
    return major


def resolve(version: str | None = None, *, cache_root: Path = CACHE_ROOT) -> KafkaDistribution:
    """Return the jars for ``version`` (default: ``KAFKA_VERSION`` or 4.4.0), running Maven only if not cached."""
    version = version or selected_version()
    major = major_of(version)
    target = cache_root / version
    cached = _read_cache(target)
    if cached is not None:
        return cached
    cache_root.mkdir(parents=True, exist_ok=True)
    with _locked(cache_root / f"{version}.lock"):
        cached = _read_cache(target)
        if cached is not None:
            return cached
        _download(version=version, major=major, target=target, cache_root=cache_root)
    resolved = _read_cache(target)
    if resolved is None:
        raise HarnessError(f"Maven finished but {target} is incomplete")
    return resolved


def _read_cache(target: Path) -> KafkaDistribution | None:
    marker = target / MARKER
    if not marker.is_file():
        return None
    libs = target / "libs"
    names = [line.strip() for line in marker.read_text().splitlines() if line.strip()]
    jars = tuple(libs / name for name in names)
    if not jars or not all(jar.is_file() for jar in jars):
        return None
    return KafkaDistribution(version=target.name, libs=libs, jars=jars)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _download(*, version: str, major: int, target: Path, cache_root: Path) -> None:
    fetch_into(
        target,
        cache_root=cache_root,
        pom=POM,
        properties=[f"-Dkafka.version={version}", f"-Dkafka.major={major}"],
        expect_prefix="kafka_2.13-",
        what=f"Kafka {version}",
        staging_prefix=f".{version}-",
        jars_for="the Kafka broker jars",
    )


def fetch_into(
    target: Path,
    *,
    cache_root: Path,
    pom: Path,
    properties: list[str],
    expect_prefix: str,
    what: str,
    staging_prefix: str,
    jars_for: str,
) -> None:
    """Resolve ``pom``'s runtime jars with Maven into a staging folder under ``cache_root``, check that a jar named
    ``expect_prefix...`` is among them, write the ``COMPLETE`` marker, then move the folder to ``target`` (so a
    half-done download is never read as a cache). Used for the broker jars and the Kafka Connect worker's."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise HarnessError(f"Maven ('mvn') is needed to fetch {jars_for}; install Maven 3.8+ and retry")
    staging = Path(tempfile.mkdtemp(prefix=staging_prefix, dir=cache_root))
    try:
        libs = staging / "libs"
        command = [mvn, "-q", "-B", "-f", str(pom), *properties]
        command += ["dependency:copy-dependencies", f"-DoutputDirectory={libs}", "-DincludeScope=runtime"]
        result = subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
        jars = sorted(p.name for p in libs.glob("*.jar")) if libs.is_dir() else []
        if result.returncode != 0 or not any(name.startswith(expect_prefix) for name in jars):
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-30:])
            raise HarnessError(f"Maven could not resolve {what} (exit {result.returncode}):\n{tail}")
        (staging / MARKER).write_text("\n".join(jars) + "\n")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
