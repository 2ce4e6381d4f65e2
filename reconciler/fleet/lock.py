"""One run at a time per fleet output folder: ``fleet plan`` and ``fleet apply`` hold ``<out>/.fleet.lock``.

Two runs writing the same folder (a nightly job still running when the next starts, an apply started during a
plan) would mix their plans, summaries and history. Each run takes an exclusive ``flock`` on ``.fleet.lock``
in the folder for as long as it writes, and records in it who holds it (process id, host, UTC start time,
the command). A second run does not wait: it stops with ``FolderLocked`` naming the first, before writing
anything. The operating system releases the lock when the holding process ends, however it ends, so a run
that was killed leaves no stale lock (the file stays; its record is only read while the lock is held).

``flock`` is advisory and local to one host on most network file systems: a folder shared between hosts
over NFS is not protected (the message names the host to make such a case visible). Within one process the
lock is re-entrant (``fleet apply`` holds it while it shows the plans and asks, then while it applies).
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from reconciler.base import errors

LOCK_FILE = ".fleet.lock"

_held: dict[str, int] = {}  # resolved folder -> nesting depth, for this process
_guard = threading.Lock()


class FolderLocked(errors.ConfigError):
    """Another run holds the output folder."""


def _holder(handle: int) -> str:
    """Who holds the lock, from the record in the lock file."""
    try:
        os.lseek(handle, 0, os.SEEK_SET)
        record = json.loads(os.read(handle, 4096).decode("utf-8"))
        return f"pid {record['pid']} on {record['host']}, started {record['started_at']} ({record.get('command', '?')})"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not written its record yet"


def _record(handle: int, command: str) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started_at": now, "command": command})
    os.ftruncate(handle, 0)
    os.lseek(handle, 0, os.SEEK_SET)
    os.write(handle, text.encode("utf-8") + b"\n")


@contextlib.contextmanager
def hold(out_dir: Path, *, command: str, create: bool = True) -> Iterator[None]:
    """Hold ``out_dir``'s lock for the block; ``FolderLocked`` when another run holds it.

    The folder is created, unless ``create`` is false: then a missing folder is not locked (there is
    nothing in it to protect; the caller reports it missing)."""
    if not create and not out_dir.is_dir():
        yield
        return
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise errors.ConfigError(f"cannot create {out_dir}: {exc.strerror}") from None
    key = str(out_dir.resolve())
    with _guard:
        if key in _held:
            _held[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _guard:
                _held[key] -= 1
        return
    path = out_dir / LOCK_FILE
    try:
        handle = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        raise errors.ConfigError(f"cannot open the lock file {path}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FolderLocked(
                f"{out_dir} is in use by another fleet run: {_holder(handle)}; wait for it to finish "
                f"(or use another --out folder). Nothing was written."
            ) from None
        _record(handle, command)
        with _guard:
            _held[key] = 1
        try:
            yield
        finally:
            with _guard:
                del _held[key]
            with contextlib.suppress(OSError):
                os.ftruncate(handle, 0)
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


def command_line() -> str:
    """This process's command, for the lock's record (the program name and its first arguments)."""
    words = [Path(sys.argv[0]).name, *sys.argv[1:3]] if sys.argv and sys.argv[0] else ["python"]
    return " ".join(words)
