"""The package as a user installs it: build the wheel, install it into a clean virtualenv, use what it ships.

Marked slow: the build fetches setuptools>=77 into pip's isolated build environment and the install resolves the
runtime dependencies from the package index (both come from pip's cache after the first run).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import reconciler

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, check=False, cwd=cwd)
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the sources (the build leaves nothing in the repository)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "reconciler", src / "reconciler", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q", "-w", dist, src)
    [built] = dist.glob("kafka_reconciler-*.whl")
    return built


def test_wheel_carries_license_metadata_and_schemas(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        dist_info = f"kafka_reconciler-{reconciler.__version__}.dist-info"
        metadata = zf.read(f"{dist_info}/METADATA").decode()
        license_text = zf.read(f"{dist_info}/licenses/LICENSE").decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert "Classifier: Programming Language :: Python :: 3.11" in metadata
    assert "Keywords: kafka" in metadata
    spark = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and 'extra == "spark"' in line]
    assert [line.split()[1] for line in spark] == ["pyspark>=3.5;", "pyarrow>=14;"], spark
    # The Spark engine runs without them (tests/tooling/test_fleet_spark.py): no 124 MB of pandas and numpy.
    assert not [line for line in metadata.splitlines() if "pandas" in line or "numpy" in line]
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text
    shipped = {n.removeprefix("reconciler/schemas/") for n in names if n.startswith("reconciler/schemas/")}
    assert shipped == {p.name for p in (ROOT / "reconciler" / "schemas").glob("*.json")}
    assert "manifest.json" in shipped and "Topic.json" in shipped


def test_installed_wheel_writes_its_schemas(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    bin_dir = venv / "bin"
    _run(bin_dir / "python", "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel)
    out = tmp_path / "schemas"
    result = _run(bin_dir / "kafka-reconciler", "schema", "--out", out, cwd=tmp_path)
    # every kind's schema the repository ships (a literal count went stale with each new kind)
    committed = sorted(p.name for p in (ROOT / "reconciler" / "schemas").glob("*.json"))
    assert f"Wrote {len(committed)} schemas" in result.stdout
    assert sorted(p.name for p in out.glob("*.json")) == committed
    topic = json.loads((out / "Topic.json").read_text(encoding="utf-8"))
    assert topic["$id"] == "urn:kafka-reconciler:manifest:v1:Topic"
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["$id"] == "urn:kafka-reconciler:manifest:v1:manifest"
    configs = topic["$defs"]["TopicSpec"]["properties"]["configs"]
    body = next(b for b in configs.get("anyOf", [configs]) if "properties" in b)  # null is allowed in overlays
    retention = body["properties"]["retention.ms"]
    assert "Kafka's default: 604800000 (7d)" in retention["description"]
    # The installed command validates the shipped examples too: the package is complete without the repository.
    check = _run(bin_dir / "kafka-reconciler", "validate", ROOT / "examples" / "platform", cwd=tmp_path)
    assert check.stdout.startswith("valid: 8 topics")
