"""The peer benchmarks' builds work from a fresh clone, as docs/benchmarks.md documents them.

The repository's ``benchmarks/`` folder is copied into an empty directory (a checkout has no ``.cache/``); then
Maven resolves Kafka's tools through ``benchmarks/kafka-tools-pom.xml`` and ``benchmarks/build_terraform_peer.sh``
builds the Terraform provider from source with the Go toolchain. The test suite's own reader of Kafka's tools
(``tests/support/kafka_tools.py``) fetches the same jars into an empty cache. Each test is skipped, saying why, where
its tool (mvn, go) is not installed. Maven reads its local repository (``~/.m2``) and Go its module proxy and caches.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import kafka_tools

ROOT = Path(__file__).resolve().parents[2]
TOOLS_VERSION = "4.4.0"
pytestmark = pytest.mark.slow


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A fresh checkout's view of ``benchmarks/``: the files, no ``.cache/`` anywhere."""
    root = tmp_path / "clone"
    shutil.copytree(ROOT / "benchmarks", root / "benchmarks", ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    return root


@pytest.mark.parametrize("output", [[f"-DoutputDirectory=.cache/kafka-tools/{TOOLS_VERSION}/libs"], []])
def test_kafka_tools_land_in_the_repository_cache_from_any_directory(clone: Path, output: list[str]) -> None:
    """Regression: a relative -DoutputDirectory put the jars under benchmarks/.cache/ (Maven reads it against the
    POM's folder), where the benchmarks do not look."""
    mvn = shutil.which("mvn")
    if mvn is None:
        pytest.skip("mvn is not installed")
    command = [mvn, "-q", "-f", "benchmarks/kafka-tools-pom.xml", "dependency:copy-dependencies", *output]
    done = subprocess.run(command, cwd=clone, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    libs = clone / ".cache" / "kafka-tools" / TOOLS_VERSION / "libs"
    assert (libs / f"kafka-tools-{TOOLS_VERSION}.jar").is_file(), sorted(p.name for p in clone.rglob("*.jar"))[:5]
    assert not (clone / "benchmarks" / ".cache").exists()


def test_the_suites_kafka_tools_reader_fetches_the_jars_into_an_empty_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: tests/support/kafka_tools.py asked Maven for the jars with -DoutputDirectory=<staging>, which the
    POM's fixed outputDirectory overrides, so a fresh clone found no jars there ("Maven could not resolve
    kafka-tools") and every test reading back with Kafka's own tools failed."""
    if shutil.which("mvn") is None:
        pytest.skip("mvn is not installed")
    cache = tmp_path / "kafka-tools"
    monkeypatch.setattr(kafka_tools, "CACHE", cache)
    jars = kafka_tools.classpath(TOOLS_VERSION).split(":")
    assert (cache / TOOLS_VERSION / kafka_tools.MARKER).is_file()
    assert str(cache / TOOLS_VERSION / "libs" / f"kafka-tools-{TOOLS_VERSION}.jar") in jars


# Opt-in (marker ``peers``, ``make test-peers``): on a fresh machine (CI's clean clone) the Go toolchain downloads the
# provider's whole module tree and compiles it with cold caches, minutes of a 2-core machine that make test, already
# near its 30-minute budget, cannot spare; with warm Go caches it takes seconds.
@pytest.mark.peers
def test_the_terraform_provider_builds_in_a_fresh_clone(clone: Path) -> None:
    """Regression: the script copied the module's source into .cache/terraform-provider-kafka/, which a fresh clone
    does not have ("cp: cannot create directory")."""
    if shutil.which("go") is None:
        pytest.skip("the Go toolchain is not installed")
    env = {**os.environ, "TERRAFORM": shutil.which("terraform") or "terraform"}  # build the provider only
    done = subprocess.run(
        ["bash", "benchmarks/build_terraform_peer.sh"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=3600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    provider = clone / ".cache" / "terraform-provider-kafka" / "v0.13.1" / "terraform-provider-kafka"
    assert provider.is_file() and os.access(provider, os.X_OK)
    assert f"provider: {provider}" in done.stdout
