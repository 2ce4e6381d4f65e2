"""Reading manifest files: bytes -> plain Python values, and where each value was written.

The common file is read straight from libyaml's event stream (``plainyaml``): plain values, no node graph, no
positions. A file that needs more (anchors, aliases, merge keys, tags, ``${VAR}``, a duplicate key, a syntax
error) goes through ruamel.yaml, which composes the node graph (with its C parser when ``ruamel.yaml.clib`` is
installed); the conversion to plain values is done here rather than by a ruamel constructor because it also has
to record the 1-based line and column of every key and value, reject duplicate keys, bound alias expansion (a
"billion laughs" document must fail fast, not eat the machine) and substitute ``${VAR}`` from the environment.
Positions are only needed for a diagnostic: a document read the fast way computes them with the full reader the
first time one is asked for (``RawDocument.positions``), so both ways report the same file, line and column.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from reconciler.base import errors
from reconciler.manifests import plainyaml
from reconciler.manifests.depth import too_deep, too_many_nodes
from reconciler.model import configs

# ruamel.yaml's C parser (ruamel.yaml.clib), looked up without importing ruamel.yaml: the full reader, which
# imports it, is only needed for a file the event-stream reader does not take, or for positions.
HAVE_C_PARSER = importlib.util.find_spec("_ruamel_yaml") is not None

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_ALIAS_NODES = 100_000  # values produced by alias expansion, per file
MAX_DEPTH = 64
MAX_NODES = 500_000  # scalars, aliases and collections per file (10,000 topics with a few configs: ~260,000)

Path_ = tuple[str | int, ...]
# file, value line, value column, key line, key column (1-based; for list items key == value)
Position = tuple[str, int, int, int, int]


class _Located:
    """A file read without positions: its text, read again with the full reader when a position is first needed."""

    def __init__(self, text: str, *, display: str, env: Mapping[str, str]) -> None:
        self.text, self.display, self.env = text, display, env
        self.found: list[dict[Path_, Position]] | None = None

    def positions(self, index: int) -> dict[Path_, Position]:
        if self.found is None:
            from reconciler.manifests import fullyaml

            self.found = [doc.positions for doc in fullyaml.read(self.text, self.display, Path(), self.env, [])]
            self.text = ""
        return self.found[index] if index < len(self.found) else {}


@dataclasses.dataclass(slots=True)
class RawDocument:
    """One YAML document as plain values, with where each part of it was written."""

    file: str
    directory: Path
    line: int
    column: int
    data: Any
    found: dict[Path_, Position] | None  # positions, or None until ``positions`` computes them from ``source``
    broken: bool = False  # a value could not be read (an unset variable): not validated further
    variables: list[tuple[str, Path_, int, int]] = dataclasses.field(default_factory=list)  # ${NAME}, path, line, col
    source: tuple[_Located, int] | None = None  # the file and this document's index in it

    @property
    def positions(self) -> dict[Path_, Position]:
        """Path -> (file, value line, value column, key line, key column) of every key and item."""
        if self.found is None:
            self.found = self.source[0].positions(self.source[1]) if self.source is not None else {}
        return self.found

    def position(self, path: Path_, *, key: bool = False) -> tuple[str, int, int]:
        """The (file, line, column) of ``path``, or of its nearest recorded ancestor."""
        probe = tuple(path)
        while probe:
            found = self.positions.get(probe)
            if found is not None:
                return (found[0], found[3], found[4]) if key else (found[0], found[1], found[2])
            probe = probe[:-1]
        return (self.file, self.line, self.column)

    def diagnostic(
        self,
        path: Path_,
        message: str,
        *,
        hint: str | None = None,
        key: bool = False,
        severity: errors.Severity = errors.Severity.ERROR,
    ) -> errors.Diagnostic:
        """A diagnostic positioned at ``path`` inside this document."""
        file, line, column = self.position(path, key=key)
        return errors.Diagnostic(
            message=message,
            file=file,
            line=line,
            column=column,
            path=format_path(path) or None,
            hint=hint,
            severity=severity,
        )


def format_path(path: Path_) -> str:
    """``spec.configs.retention.ms`` / ``spec.bindings[2].operation``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def redacted(path: Path_) -> bool:
    """Whether the value at ``path`` is a sensitive config value, which plans, comments and logs never show."""
    return len(path) == 3 and path[:2] == ("spec", "configs") and configs.is_sensitive(str(path[2]))


def _read_text(path: Path, *, fail: Callable[..., None]) -> str | None:
    """The file's text, or ``None`` after ``fail`` says why not: too large, unreadable, binary or not UTF-8."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            fail(
                f"file is {size / 1024 / 1024:.1f} MiB, over the {MAX_FILE_BYTES // 1024 // 1024} MiB limit",
                hint="split it into several files",
            )
            return None
        blob = path.read_bytes()
    except OSError as exc:
        fail(f"cannot read file: {exc.strerror or exc}")
        return None
    if b"\x00" in blob:
        nul = blob.index(b"\x00")
        line, column = blob.count(b"\n", 0, nul) + 1, nul - (blob.rfind(b"\n", 0, nul) + 1) + 1
        fail("binary file (contains NUL bytes), not YAML text", line=line, column=column)
        return None
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = blob.count(b"\n", 0, exc.start) + 1
        column = exc.start - (blob.rfind(b"\n", 0, exc.start) + 1) + 1
        fail(f"not UTF-8 text (byte 0x{blob[exc.start]:02x} cannot be decoded)", line=line, column=column)
        return None
    return text


def read_documents(
    path: Path, *, display: str, env: Mapping[str, str], diags: list[errors.Diagnostic]
) -> list[RawDocument]:
    """Every non-empty YAML document of one file; problems are appended to ``diags``."""

    def fail(message: str, *, line: int | None = None, column: int | None = None, hint: str | None = None) -> None:
        diags.append(errors.Diagnostic(message=message, file=display, line=line, column=column, hint=hint))

    text = _read_text(path, fail=fail)
    if text is None:
        return []
    deep = too_deep(text, pure=not HAVE_C_PARSER, limit=MAX_DEPTH)
    if deep is not None:
        fail(
            f"nesting deeper than {MAX_DEPTH} levels",
            line=deep[0],
            column=deep[1],
            hint="manifests need a few levels; this file is refused before it is parsed",
        )
        return []
    crowded = too_many_nodes(text, pure=not HAVE_C_PARSER, limit=MAX_NODES)
    if crowded is not None:
        fail(
            f"more than {MAX_NODES:,} YAML nodes (keys, values and collections) in one file",
            line=crowded[0],
            column=crowded[1],
            hint="split it into several files; this file is refused before it is read",
        )
        return []
    fast = plainyaml.documents(text, max_depth=MAX_DEPTH) if HAVE_C_PARSER else None
    if fast is None:
        from reconciler.manifests import fullyaml

        documents = fullyaml.read(text, display, path.parent, env, diags)
    else:
        located, directory = _Located(text, display=display, env=env), path.parent  # one Path: hashed once
        documents = [
            RawDocument(display, directory, line, column, data, None, source=(located, index))
            for index, (data, line, column) in enumerate(fast)
        ]
    if not documents and not any(d.file == display for d in diags):
        diags.append(
            errors.Diagnostic(message="file has no YAML documents", file=display, severity=errors.Severity.WARNING)
        )
    return documents
