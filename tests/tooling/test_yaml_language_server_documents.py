"""Every document of a multi-document manifest file gets its schema in a real editor (yaml-language-server 1.25 over
stdio LSP, ``tests.support.yaml_lsp``): validation and hover in documents 2..n, not only in the first.

yaml-language-server binds a ``# yaml-language-server: $schema=...`` modeline to the YAML document it is in, so a
file with one modeline at the top leaves documents 2..n without a schema. The files the project writes (the
examples, ``examples/generate.py``'s output, ``import``'s output) carry the modeline in every document; the
editor setting that maps schemas by file pattern (``yaml.schemas``, docs/manifests.md) covers every document of
every matching file without any modeline.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.adopt import from_live
from tests.support.fleet import EXAMPLES, live_from
from tests.support.yaml_lsp import ROOT, Client, server

CONNECT = ROOT / "examples" / "connect" / "pipeline.yaml"


def _start(lsp: Client, root: Path | None) -> Client:
    capabilities = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}
    lsp.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": root.as_uri() if root else None, "capabilities": capabilities},
    )
    lsp.send({"method": "initialized", "params": {}})
    lsp.send({"method": "workspace/didChangeConfiguration", "params": {"settings": {"yaml": lsp.yaml_settings}}})
    return lsp


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    lsp = Client(server(), yaml_settings={"hover": True, "validate": True, "schemaStore": {"enable": False}})
    try:
        yield _start(lsp, None)
    finally:
        lsp.close()


def _open(lsp: Client, path: Path, text: str) -> list[dict[str, Any]]:
    """Open ``text`` as the file at ``path`` (relative modelines resolve from there); the diagnostics published."""
    document = {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}
    lsp.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    return lsp.diagnostics(path.as_uri())


def _spec_lines(text: str) -> list[int]:
    """The line of each document's ``spec:`` key."""
    return [i for i, line in enumerate(text.splitlines()) if line.startswith("spec:")]


def _without_hover(lsp: Client, path: Path, text: str) -> list[int]:
    """Of each document's ``spec:`` line, those where the server has no hover (no schema bound to the document)."""
    assert _open(lsp, path, text) == [], f"{path} is not valid against its schemas"
    missing = []
    for line in _spec_lines(text):
        position = {"line": line, "character": 1}
        shown = lsp.request("textDocument/hover", {"textDocument": {"uri": path.as_uri()}, "position": position})
        if not shown or "spec" not in str(shown["contents"]["value"]):
            missing.append(line)
    return missing


def _with_unknown_key_in_last_document(text: str) -> tuple[str, int]:
    """``text`` with an unknown key in the last document's spec, and that key's line."""
    lines = text.splitlines(keepends=True)
    last = _spec_lines(text)[-1]
    lines.insert(last + 1, "  notAField: 1\n")
    return "".join(lines), last + 1


def _connect_example(tmp_path: Path) -> Path:
    return CONNECT


def _generated(tmp_path: Path) -> Path:
    spec = importlib.util.spec_from_file_location("examples_generate", ROOT / "examples" / "generate.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    out = tmp_path / "generated"
    generator.generate(out, topics=24, acls=6, files=4, schemas=os.path.relpath(ROOT / "schemas", out))
    return out / "orders" / "topics-0000.yaml"


def _imported(tmp_path: Path) -> Path:
    live = live_from(EXAMPLES, drop="orders.shipped", extra_topic="orders.old", retention="1000")
    from_live.adopt_cluster(live, out_dir=tmp_path / "imported", force=False)
    files = sorted((tmp_path / "imported").rglob("*.yaml"))
    return max(files, key=lambda p: len(_spec_lines(p.read_text(encoding="utf-8"))))


WRITTEN: dict[str, Callable[[Path], Path]] = {
    "examples/connect": _connect_example,
    "examples/generate.py": _generated,
    "import": _imported,
}


@pytest.mark.parametrize("source", sorted(WRITTEN))
def test_every_document_of_a_written_file_is_validated_and_hovered(client: Client, tmp_path: Path, source: str) -> None:
    """Regression: examples/connect (7 documents) and examples/generate.py's files had one modeline at the top, so
    documents 2..n got neither validation nor hover."""
    path = WRITTEN[source](tmp_path)
    text = path.read_text(encoding="utf-8")
    assert len(_spec_lines(text)) >= 3, f"{path} is not a multi-document file"
    assert _without_hover(client, path, text) == []
    broken, line = _with_unknown_key_in_last_document(text)
    found = _open(client, path.with_name(f"broken-{path.name}"), broken)
    assert [d for d in found if d["range"]["start"]["line"] == line and "notAField" in d["message"]], found


def test_the_yaml_schemas_setting_covers_every_document_without_modelines(tmp_path: Path) -> None:
    """The recommended set-up (docs/manifests.md): ``yaml.schemas`` maps manifest.json to the manifests' file
    pattern, relative to the workspace; every document of a matching file is validated and hovered."""
    (tmp_path / "kafka" / "prod").mkdir(parents=True)
    written = subprocess.run(
        [sys.executable, "-m", "reconciler", "schema", "--out", ".schemas"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert written.returncode == 0 and (tmp_path / ".schemas" / "manifest.json").is_file(), written.stderr
    text = re.sub(r"^# yaml-language-server:.*\n", "", CONNECT.read_text(encoding="utf-8"), flags=re.M)
    settings = {
        "hover": True,
        "validate": True,
        "schemaStore": {"enable": False},
        "schemas": {"./.schemas/manifest.json": ["kafka/**/*.yaml", "kafka/**/*.yml"]},  # as docs/manifests.md
    }
    lsp = _start(Client(server(), yaml_settings=settings), tmp_path)
    try:
        assert _without_hover(lsp, tmp_path / "kafka" / "prod" / "pipeline.yaml", text) == []
        broken, line = _with_unknown_key_in_last_document(text)
        found = _open(lsp, tmp_path / "kafka" / "prod" / "broken.yaml", broken)
        assert [d for d in found if d["range"]["start"]["line"] == line and "notAField" in d["message"]], found
    finally:
        lsp.close()
