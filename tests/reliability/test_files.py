"""Files the tool writes (plans, snapshots, imported manifests) are user-only and never written through a symlink."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.kafka.cluster import KafkaCluster
from tests.support.live import cli
from tests.support.manifest_texts import topic_documents


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def snapshot(kafka_single: KafkaCluster, tmp_path: Path) -> Path:
    out = tmp_path / "snap.json"
    result = cli(["snapshot", "--out", str(out), "--bootstrap-server", kafka_single.bootstrap])
    assert result.returncode == 0, result.stderr
    return out


def writers(kafka_single: KafkaCluster, tmp_path: Path, snapshot: Path) -> dict[str, list[str]]:
    manifests = tmp_path / "m"
    manifests.mkdir(exist_ok=True)
    (manifests / "m.yaml").write_text(topic_documents({"files-topic": (1, 1, {})}))
    return {
        "plan --out": ["plan", str(manifests), "--live-state", str(snapshot), "--out"],
        "snapshot --out": ["snapshot", "--bootstrap-server", kafka_single.bootstrap, "--out"],
    }


@pytest.mark.parametrize("command", ["plan --out", "snapshot --out"])
def test_written_files_are_user_only_even_over_an_existing_file(
    kafka_single: KafkaCluster, tmp_path: Path, snapshot: Path, command: str
) -> None:
    args = writers(kafka_single, tmp_path, snapshot)[command]
    fresh = tmp_path / "fresh.json"
    old = os.umask(0o022)
    try:
        assert cli([*args, str(fresh)]).returncode == 0
        assert mode(fresh) == 0o600
        shared = tmp_path / "shared.json"
        shared.write_text("old")
        shared.chmod(0o644)
        assert cli([*args, str(shared)]).returncode == 0
        assert mode(shared) == 0o600 and shared.read_text() != "old"
    finally:
        os.umask(old)


@pytest.mark.parametrize("command", ["plan --out", "snapshot --out"])
def test_a_symlink_at_the_output_path_is_refused(
    kafka_single: KafkaCluster, tmp_path: Path, snapshot: Path, command: str
) -> None:
    args = writers(kafka_single, tmp_path, snapshot)[command]
    victim = tmp_path / "elsewhere" / "authorized_keys"
    victim.parent.mkdir()
    victim.write_text("precious\n")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    result = cli([*args, str(link)])
    assert result.returncode == 1, result.stderr
    assert "symlink" in result.stderr or "symbolic link" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert victim.read_text() == "precious\n"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "elsewhere" / "new-file")
    assert cli([*args, str(dangling)]).returncode == 1
    assert not (tmp_path / "elsewhere" / "new-file").exists()


def test_import_writes_user_only_files_and_not_through_symlinks(kafka_single: KafkaCluster, tmp_path: Path) -> None:
    target = ["--bootstrap-server", kafka_single.bootstrap]
    out = tmp_path / "imported"
    result = cli(["import", "--out", str(out), *target])
    assert result.returncode == 0, result.stderr
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written and all(mode(p) == 0o600 for p in written), {p.name: oct(mode(p)) for p in written}

    # --force over a directory holding a symlink: refused, the link's target untouched
    victim = tmp_path / "victim.yaml"
    victim.write_text("precious\n")
    name = written[0].relative_to(out)
    written[0].unlink()
    (out / name).symlink_to(victim)
    forced = cli(["import", "--out", str(out), "--force", *target])
    assert forced.returncode == 1, forced.stdout + forced.stderr
    assert "symlink" in forced.stderr and "Traceback" not in forced.stderr
    assert victim.read_text() == "precious\n"

    # --out itself a symlink to a directory elsewhere: refused
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = tmp_path / "linked-out"
    linked.symlink_to(elsewhere)
    via_link = cli(["import", "--out", str(linked), *target])
    assert via_link.returncode == 1, via_link.stdout + via_link.stderr
    assert list(elsewhere.iterdir()) == []
