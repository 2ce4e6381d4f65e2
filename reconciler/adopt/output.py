"""Writing generated manifests: documents to deterministic YAML files in a fresh output directory.

Shared by ``import`` and ``convert``. Every document gets the ``yaml-language-server`` modeline of its
kind, pointing at a copy of the kind's JSON Schema written next to the manifests (``schemas/``), so an
editor validates the files wherever the directory ends up. Strings that contain ``${NAME}`` are
escaped (``$${NAME}``) so the loader keeps them literal, unless the generator asked for a variable
reference on purpose. Every file is written with user-only permissions and never through a symlink.
"""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from reconciler.base import errors, fileio
from reconciler.manifests import models, schema

SCHEMA_DIR = "schemas"
_VAR = re.compile(r"\$(\$?\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclasses.dataclass(frozen=True, slots=True)
class Variable:
    """A string value that is written as a ``${NAME}`` reference, not escaped."""

    name: str

    def __str__(self) -> str:
        return f"${{{self.name}}}"


class Flow(list[Any]):
    """A list written in flow style: ``[READ, WRITE]``."""


class FlowMap(dict[str, Any]):
    """A mapping written in flow style: ``{user: alice}``."""


@dataclasses.dataclass(slots=True)
class Document:
    """One manifest document: kind, name, optional labels, the spec as plain data, and comment lines above it."""

    kind: str
    name: str
    spec: Mapping[str, Any]
    labels: Mapping[str, str] = dataclasses.field(default_factory=dict)
    comments: Sequence[str] = ()


@dataclasses.dataclass(slots=True)
class ManifestFile:
    """A file of the output, relative to the output directory, with its documents in order."""

    path: str
    documents: list[Document] = dataclasses.field(default_factory=list)
    header: Sequence[str] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Note:
    """Something the user has to know about the generated manifests, attached to a resource."""

    resource: str
    message: str
    severity: str = "warning"  # "todo" (the user must act), "warning" (differs or left out), "info"

    def line(self) -> str:
        return f"{self.severity.upper()}: {self.resource}: {self.message}"


def safe_file_name(name: str) -> str:
    """A readable file name for ``name`` (``User:CN=app,O=x`` -> ``CN=app_O=x``): no separators, never empty."""
    kind, sep, rest = name.partition(":")
    base = rest if sep and kind == "User" else name
    cleaned = _UNSAFE.sub("_", base.replace("=", "-")).strip("._-")
    return cleaned or "any"


def unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... when taken (case-insensitively); records the result in ``taken``."""
    candidate, n = name, 2
    while candidate.lower() in taken:
        candidate = f"{name}-{n}"
        n += 1
    taken.add(candidate.lower())
    return candidate


def env_name(*parts: str) -> str:
    """An environment variable name built from ``parts``: upper case, non-alphanumerics as ``_``."""
    text = "_".join(re.sub(r"[^A-Za-z0-9]+", "_", p).strip("_").upper() for p in parts if p)
    return text if text and not text[0].isdigit() else f"_{text}"


def escape(text: str) -> str:
    """Keep ``${NAME}`` literal through the loader's variable substitution."""
    return _VAR.sub(lambda m: "$$" + m.group(1), text)


def _plain(value: Any) -> Any:
    if isinstance(value, Variable):
        return str(value)
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, FlowMap):
        flow_map = CommentedMap((k, _plain(v)) for k, v in value.items())
        flow_map.fa.set_flow_style()
        return flow_map
    if isinstance(value, Mapping):
        return CommentedMap((str(k), _plain(v)) for k, v in value.items())
    if isinstance(value, Flow):
        flow = CommentedSeq(_plain(v) for v in value)
        flow.fa.set_flow_style()
        return flow
    if isinstance(value, (list, tuple)):
        return CommentedSeq(_plain(v) for v in value)
    return value


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def modeline(kind: str, file_path: str) -> str:
    depth = len(Path(file_path).parts) - 1
    return f"# yaml-language-server: $schema={'../' * depth}{SCHEMA_DIR}/{kind}.json"


def render_file(file: ManifestFile) -> str:
    """The text of one manifest file: its header comments, then each document with its modeline."""
    yaml = _yaml()
    out: list[str] = [f"# {line}".rstrip() for line in file.header]
    for index, doc in enumerate(file.documents):
        if index:
            out.append("---")
        out.append(modeline(doc.kind, file.path))
        out.extend(f"# {line}".rstrip() for line in doc.comments)
        metadata: dict[str, Any] = {"name": doc.name}
        if doc.labels:
            metadata["labels"] = FlowMap(sorted(doc.labels.items()))
        body = {"apiVersion": models.API_VERSION, "kind": str(doc.kind), "metadata": metadata, "spec": doc.spec}
        buffer = io.StringIO()
        yaml.dump(_plain(body), buffer)
        out.append(buffer.getvalue().rstrip("\n"))
    return "\n".join(out) + "\n"


def prepare_out_dir(out_dir: Path, *, force: bool) -> list[Path]:
    """Create ``out_dir`` if needed; refuse a non-empty one unless ``force``. Returns the files already there."""
    if out_dir.is_symlink():
        raise errors.ConfigError(f"refusing to write through the symlink {out_dir} (give the real directory)")
    if out_dir.exists() and not out_dir.is_dir():
        raise errors.ConfigError(f"{out_dir} exists and is not a directory")
    if not out_dir.exists():
        try:
            out_dir.mkdir(parents=True, mode=0o700)
        except OSError as exc:
            raise errors.ConfigError(f"cannot create {out_dir}: {exc.strerror}") from None
        return []
    existing = sorted(p for p in out_dir.rglob("*") if p.is_file() or p.is_symlink())
    if existing and not force:
        raise errors.ConfigError(
            f"{out_dir} is not empty ({len(existing)} file(s)); choose an empty directory or pass --force to overwrite"
        )
    return existing


def _subdirectory(out_dir: Path, relative: str) -> Path:
    target = out_dir
    for part in Path(relative).parent.parts:
        target = target / part
        if target.is_symlink():
            raise errors.ConfigError(f"refusing to write through the symlink {target}")
        if not target.exists():
            target.mkdir(mode=0o700)
    return out_dir / relative


def write_output(
    out_dir: Path,
    files: Iterable[ManifestFile],
    *,
    extra: Mapping[str, str] | None = None,
    existing: Sequence[Path] = (),
) -> tuple[list[Path], list[Path]]:
    """Write manifest files, the schemas of their kinds and ``extra`` text files (relative path -> text).

    Returns the written paths and the files that were already there and were not overwritten (left over
    from an earlier run: they are still read by ``plan``).
    """
    written: list[Path] = []
    kinds: set[str] = set()
    for file in sorted(files, key=lambda f: f.path):
        if not file.documents:
            continue
        kinds.update(d.kind for d in file.documents)
        path = _subdirectory(out_dir, file.path)
        fileio.write_private_file(path, render_file(file))
        written.append(path)
    for kind in sorted(kinds):
        path = _subdirectory(out_dir, f"{SCHEMA_DIR}/{kind}.json")
        fileio.write_private_file(path, schema.render(schema.kind_schema(kind)))
        written.append(path)
    for relative, text in sorted((extra or {}).items()):
        path = _subdirectory(out_dir, relative)
        fileio.write_private_file(path, text)
        written.append(path)
    done = {p.resolve() for p in written}
    leftovers = [p for p in existing if p.resolve() not in done and p.suffix in (".yaml", ".yml")]
    return written, leftovers
