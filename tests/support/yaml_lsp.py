"""A yaml-language-server client for the editor tests: the server (installed with npm into
``.cache/yaml-language-server/`` on first use, reused by later runs; the test is skipped, saying why, where node or
npm is missing or the package index is unreachable) and a minimal LSP client over its stdio.

The client answers the server's ``workspace/configuration`` requests with its ``yaml`` settings, so a test can give
the server the settings an editor would (``yaml.schemas`` mapping schemas to file patterns).
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERSION = "1.25.0"  # as platform teams run it (VS Code YAML extension 1.18)
CACHE = ROOT / ".cache" / "yaml-language-server" / VERSION
SCHEMAS = ROOT / "reconciler" / "schemas"


def server() -> Path:
    script = CACHE / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    if script.exists():
        return script
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("yaml-language-server runs on Node.js, and node or npm is not installed")
    CACHE.mkdir(parents=True, exist_ok=True)
    installed = subprocess.run(
        [npm, "install", "--prefix", str(CACHE), "--no-audit", "--no-fund", f"yaml-language-server@{VERSION}"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if installed.returncode != 0 or not script.exists():
        pytest.skip(
            f"yaml-language-server {VERSION} could not be installed (npm registry unreachable?): "
            f"{installed.stderr[-500:]}"
        )
    return script


class Client:
    """A minimal LSP client: Content-Length framed JSON-RPC over the server's stdin and stdout."""

    def __init__(self, server: Path, *, yaml_settings: dict[str, Any] | None = None) -> None:
        self.yaml_settings = yaml_settings  # the ``yaml`` section the server pulls (None: every feature on)
        self.proc = subprocess.Popen(
            ["node", str(server), "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            headers: dict[str, str] = {}
            while (line := out.readline().decode().strip()) or not headers:
                if not line and out.closed:
                    return
                if not line:
                    if self.proc.poll() is not None:
                        return
                    continue
                name, value = line.split(":", 1)
                headers[name.lower()] = value.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        """The diagnostics the server publishes for ``uri`` (it validates each opened document on its own)."""
        while True:
            message = self.inbox.get(timeout=60)
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return list(message["params"]["diagnostics"])
            if "method" in message and "id" in message:
                self._answer(message)

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        wanted = self.next_id
        self.send({"id": wanted, "method": method, "params": params})
        while True:
            message = self.inbox.get(timeout=60)
            if "method" in message and "id" in message:  # the server asks the client something: answer it
                self._answer(message)
            elif message.get("id") == wanted:
                return message.get("result")

    def _answer(self, message: dict[str, Any]) -> None:
        """Answer a request of the server: the settings it pulls (``workspace/configuration``), else nothing."""
        items = message.get("params", {}).get("items", [])
        on: dict[str, Any] = {"hover": True, "validate": True, "completion": True}
        result: list[dict[str, Any] | None] | None
        if self.yaml_settings is None:
            result = [on] * len(items) if items else None
        else:
            result = [self.yaml_settings if i.get("section") == "yaml" else None for i in items] if items else None
        self.send({"id": message["id"], "result": result})

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)
