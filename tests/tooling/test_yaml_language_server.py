"""Hover in a real editor: yaml-language-server (the server behind VS Code's YAML extension and many others),
driven over stdio LSP with the shipped JSON Schemas, shows each field's description.

The server is installed with npm into ``.cache/yaml-language-server/`` on first use (reused by later runs); the
test is skipped, saying why, where node or npm is missing or the package index is unreachable. A manifest with a
``# yaml-language-server: $schema=...`` modeline is opened (initialize, initialized, didOpen) and hovered: a topic
config key shows its catalogue description, each spec field its own, and nothing repeats per anyOf branch.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERSION = "1.25.0"  # as platform teams run it (VS Code YAML extension 1.18)
CACHE = ROOT / ".cache" / "yaml-language-server" / VERSION
SCHEMAS = ROOT / "reconciler" / "schemas"


def _server() -> Path:
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

    def __init__(self, server: Path) -> None:
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

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        wanted = self.next_id
        self.send({"id": wanted, "method": method, "params": params})
        while True:
            message = self.inbox.get(timeout=60)
            if "method" in message and "id" in message:  # the server asks the client something: answer it
                items = message.get("params", {}).get("items", [])
                result = [{"hover": True, "validate": True, "completion": True}] * len(items) if items else None
                self.send({"id": message["id"], "result": result})
            elif message.get("id") == wanted:
                return message.get("result")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    lsp = Client(_server())
    try:
        lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": None,
                "capabilities": {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}},
            },
        )
        lsp.send({"method": "initialized", "params": {}})
        settings = {"yaml": {"hover": True, "validate": True, "schemaStore": {"enable": False}}}
        lsp.send({"method": "workspace/didChangeConfiguration", "params": {"settings": settings}})
        yield lsp
    finally:
        lsp.close()


def _hover(client: Client, tmp_path: Path, text: str, key: str) -> str:
    """The hover text over ``key`` (the first line that starts with it) in a document opened with ``text``."""
    uri = (tmp_path / f"doc-{client.next_id}.yaml").as_uri()
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        }
    )
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.strip().startswith(key + ":"))
    position = {"line": row, "character": lines[row].index(key) + 2}
    result = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
    assert result is not None, f"no hover over {key}"
    return str(result["contents"]["value"])


TOPIC = """\
# yaml-language-server: $schema={schema}
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {{name: orders}}
spec:
  partitions: 12
  replicationFactor: 3
  configs:
    retention.ms: 7d
    cleanup.policy: delete
"""


@pytest.mark.parametrize(
    ("key", "heading", "text"),
    [
        ("retention.ms", "#### retention.ms\n", "`retention.ms` (long, milliseconds; durations such as 7d or 12h"),
        ("cleanup.policy", "#### cleanup.policy\n", "Allowed: compact, delete."),
        ("partitions", "#### partitions\n", "Partition count, 1..2147483647. Required here or in a TopicDefaults."),
        ("replicationFactor", "#### replicationFactor\n", "Replicas per partition, 1..32767"),
        ("spec", "#### spec\n", "Topic spec. Unset partitions/replicationFactor/configs come from TopicDefaults."),
    ],
)
def test_hover_shows_the_description_once(client: Client, tmp_path: Path, key: str, heading: str, text: str) -> None:
    shown = _hover(client, tmp_path, TOPIC.format(schema=(SCHEMAS / "Topic.json").as_uri()), key)
    assert shown.replace("\\", "").startswith(heading), shown  # markdown escapes: retention\.ms in some releases
    assert text in shown.replace("\\", ""), shown
    assert "||" not in shown and "``" not in shown, shown  # one branch, no reStructuredText


def test_hover_through_the_combined_schema_in_another_kind(client: Client, tmp_path: Path) -> None:
    acl = (
        f"# yaml-language-server: $schema={(SCHEMAS / 'manifest.json').as_uri()}\n"
        "apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: a}\nspec:\n  bindings:\n"
        "    - principal: User:alice\n      resourceType: TOPIC\n      resourceName: orders\n      operation: READ\n"
    )
    shown = _hover(client, tmp_path, acl, "- principal")
    assert "Who the binding is for: User:<name>, or User:* for every user." in shown.replace("\\", ""), shown
