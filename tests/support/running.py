"""The command line in a process of its own, running while the test acts on it: its stderr lines as they come.

A test that acts on a command while it runs (sends it Ctrl-C once its progress shows writes, starts a second apply
once the first waits for the lock) synchronises on the lines it prints, never on a sleep: ``said(words)`` is the
first stderr line holding ``words`` so far, for ``tests.support.polling.eventually``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from tests.support.live import REPO

OUTER_S = 300.0  # a command still running after this long has not kept its own bounds


class Running:
    """``kafka-reconciler ARGS`` started now, stdin closed, stdout kept for ``finish``, stderr read line by line."""

    def __init__(self, args: list[str]) -> None:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("KAFKA_") or k == "KAFKA_VERSION"}
        environ["NO_COLOR"] = "1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reconciler", *args],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environ,
        )
        self.lines: list[str] = []
        self._out: list[str] = []
        # Both pipes are drained as the process writes, or a long plan on stdout would block it on a full pipe.
        self._readers = [
            threading.Thread(target=self._read_err, daemon=True),
            threading.Thread(target=self._read_out, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        self._out.append(self.proc.stdout.read())

    def said(self, words: str) -> str | None:
        """The first stderr line so far that holds ``words``."""
        return next((line for line in list(self.lines) if words in line), None)

    def finish(self, timeout: float = OUTER_S) -> tuple[int, str, str]:
        """Wait for the end: exit code, stdout, stderr."""
        self.proc.wait(timeout=timeout)
        for reader in self._readers:
            reader.join(timeout=10)
        return self.proc.returncode, "".join(self._out), "\n".join(self.lines)
