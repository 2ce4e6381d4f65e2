"""Broker jars come from the project cache when it is complete, so repeat runs need neither Maven nor a network."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kafka.dist import MARKER, HarnessError, resolve, selected_version


def fake_cache(root: Path, version: str, *, listed: list[str], present: list[str]) -> None:
    libs = root / version / "libs"
    libs.mkdir(parents=True)
    for name in present:
        (libs / name).write_bytes(b"jar")
    (root / version / MARKER).write_text("\n".join(listed) + "\n")


@pytest.fixture
def no_maven(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_complete_cache_is_used_without_running_maven(tmp_path: Path, no_maven: None) -> None:
    names = ["kafka_2.13-4.4.0.jar", "kafka-clients-4.4.0.jar"]
    fake_cache(tmp_path, "4.4.0", listed=names, present=names)

    dist = resolve("4.4.0", cache_root=tmp_path)

    assert [jar.name for jar in dist.jars] == names
    assert dist.classpath.split(":") == [str(tmp_path / "4.4.0" / "libs" / name) for name in names]


def test_cache_missing_a_listed_jar_is_not_trusted(tmp_path: Path, no_maven: None) -> None:
    fake_cache(tmp_path, "4.4.0", listed=["kafka_2.13-4.4.0.jar", "gone.jar"], present=["kafka_2.13-4.4.0.jar"])

    with pytest.raises(HarnessError, match="Maven"):
        resolve("4.4.0", cache_root=tmp_path)


def test_without_cache_or_maven_the_error_says_what_to_install(tmp_path: Path, no_maven: None) -> None:
    with pytest.raises(HarnessError, match=r"install Maven"):
        resolve("3.9.2", cache_root=tmp_path)


@pytest.mark.kafka
@pytest.mark.every_version  # the harness's jars for each release
def test_real_cache_resolves_offline_once_filled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    filled = resolve()
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))

    again = resolve()

    assert again == filled
    assert again.version == selected_version()
    assert any(jar.name == f"kafka_2.13-{again.version}.jar" for jar in again.jars)
