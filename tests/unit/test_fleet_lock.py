"""Two runs on one output folder: the second refuses, names the first (pid, host, start time) and writes nothing.

The first run is another Python process holding the folder's lock (``reconciler.fleet.lock.hold``) until its
standard input closes; the second is ``fleet plan`` / ``fleet apply`` in this process, on the snapshot fleet.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.fleet import load_fleet, lock, run_fleet_plan
from reconciler.fleet.applying import run_fleet_apply

HOLDER = (
    "import sys; from pathlib import Path; from reconciler.fleet import lock\n"
    "with lock.hold(Path(sys.argv[1]), command='fleet plan nightly'):\n"
    "    print('held', flush=True); sys.stdin.read()\n"
)


@contextmanager
def other_run(out: Path) -> Iterator[subprocess.Popen[str]]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)


def test_a_second_run_on_the_same_folder_refuses_and_names_the_first(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    with other_run(out) as first:
        with pytest.raises(lock.FolderLocked) as refused:
            run_fleet_plan(fleet, out_dir=out, env={})
        message = str(refused.value)
        assert f"pid {first.pid} on {socket.gethostname()}, started 20" in message
        assert "(fleet plan nightly)" in message and "Nothing was written" in message
        assert sorted(p.name for p in out.iterdir()) == [lock.LOCK_FILE]  # no plan, no summary

        cli = CliRunner().invoke(app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "-q"])
        assert cli.exit_code == 1 and f"pid {first.pid}" in cli.output
    # the first run ended: the folder is free again, and the record it left is not mistaken for a holder
    done = run_fleet_plan(fleet, out_dir=out, env={})
    assert (out / "summary.json").is_file() and done.summary["clusters_planned"] == 2


def test_fleet_apply_refuses_while_a_plan_run_holds_the_folder(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    run_fleet_plan(fleet, out_dir=out, env={})
    before = (out / "summary.json").read_text()
    with other_run(out) as first:
        with pytest.raises(lock.FolderLocked, match=f"pid {first.pid} on "):
            run_fleet_apply(fleet, out_dir=out)
        cli = CliRunner().invoke(
            app, ["fleet", "apply", str(fleet_dir / "fleet.yaml"), "--plans", str(out), "--auto-approve"]
        )
        assert cli.exit_code == 1 and "in use by another fleet run" in cli.output
    assert not (out / "apply-summary.json").exists() and (out / "summary.json").read_text() == before
    record = json.loads((out / lock.LOCK_FILE).read_text() or "{}")
    assert record == {}  # emptied when the holder let go


def test_the_lock_is_reentrant_within_one_process(tmp_path: Path) -> None:
    with lock.hold(tmp_path, command="outer"), lock.hold(tmp_path, command="inner"):
        held = json.loads((tmp_path / lock.LOCK_FILE).read_text())
        assert held["command"] == "outer" and held["pid"] > 0
    with lock.hold(tmp_path, command="again"):  # released by the outer block, free again
        assert json.loads((tmp_path / lock.LOCK_FILE).read_text())["command"] == "again"


def test_a_killed_run_leaves_no_stale_lock(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    with other_run(out) as first:
        first.kill()
        first.wait(timeout=60)
        assert json.loads((out / lock.LOCK_FILE).read_text())["pid"] == first.pid  # its record is still there
        result = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    assert result.summary["clusters_planned"] == 2
