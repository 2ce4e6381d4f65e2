"""File I/O shared by the commands: text files read with their errors mapped, private writes, bounded JSON.

``read_text`` reads a UTF-8 file and turns every failure (missing, unreadable, not UTF-8) into the caller's
``ReconcilerError`` with one wording; ``write_private_file`` writes with user-only permissions and never
follows a symlink (plans, snapshots, manifests); ``write_file`` replaces a file with one of the umask's
permissions (reports, summaries); ``parse_json`` refuses plan and snapshot files beyond what this tool ever
writes (and, when asked, an object holding one key twice, which ``json`` would read as the last value without a
word).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reconciler.base import errors

MAX_JSON_DEPTH = 32  # plans and snapshots nest about 6 levels
MAX_JSON_DIGITS = 30  # the longest integer they hold is a 64-bit offset or timestamp (19 digits)


def read_text(
    path: Path, *, what: str, error: type[errors.ReconcilerError] = errors.ConfigError, encoding: str = "utf-8"
) -> str:
    """The text of ``path``; ``error("cannot read <what> <path>: <reason>")`` or ``"<what> <path> is not UTF-8 text"``.

    ``what`` names the file for the user (``"plan"``, ``"properties file"``); ``encoding`` may be ``utf-8-sig``
    for inputs that other tools write with a byte-order mark.
    """
    try:
        return path.read_text(encoding=encoding)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{what} {path} is not UTF-8 text") from None


def write_private_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with user-only permissions, refusing to follow a symlink at ``path``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP and path.is_symlink():
            raise errors.ConfigError(
                f"cannot write {path}: it is a symlink, which is never followed (remove it or choose another path)"
            ) from None
        raise errors.ConfigError(f"cannot write {path}: {exc.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(text)


def write_file(path: Path, content: str | bytes) -> None:
    """Replace ``path`` with ``content``, with the permissions the umask gives (a report or summary: nothing secret
    in it), also where an earlier file had others; written to a new file next to it, then renamed over it (never
    half-written); a symlink at ``path`` is refused, never followed or replaced."""
    if path.is_symlink():
        raise errors.ConfigError(
            f"cannot write {path}: it is a symlink, which is never followed (remove it or choose another path)"
        )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise errors.ConfigError(f"cannot write {path}: {exc.strerror}") from None


class JsonLimitError(ValueError):
    """A plan or snapshot file beyond what this tool ever writes (nesting, number size): refused before use."""


class JsonDuplicateKey(ValueError):
    """A JSON object holding one key twice: ``json`` keeps the last value, so what a reader sees first is not read."""


def parse_json(
    text: str, *, object_hook: Callable[[dict[str, Any]], Any] | None = None, unique_keys: bool = False
) -> Any:
    """``json.loads`` with limits: nesting at most ``MAX_JSON_DEPTH``, integers at most ``MAX_JSON_DIGITS`` digits.

    ``object_hook`` is ``json.loads``'s (called with each object as it is decoded). ``unique_keys`` refuses an object
    that holds a key twice (``JsonDuplicateKey``, naming the key and where it is: ``changes[2].after``).

    Raises ``json.JSONDecodeError`` for invalid JSON and ``JsonLimitError`` (with the reason) past a limit, so a
    hostile file is a plain refusal rather than a RecursionError or Python's integer-conversion ValueError.
    """
    repeated: list[tuple[Any, str]] = []  # (the object, its repeated key), found while decoding
    pairs_hook = None
    if unique_keys:

        def pairs_hook(pairs: list[tuple[str, Any]]) -> Any:
            obj = dict(pairs)
            out = obj if object_hook is None else object_hook(obj)
            if len(obj) != len(pairs):
                keys = [k for k, _ in pairs]
                repeated.append((out, next(k for i, k in enumerate(keys) if k in keys[:i])))
            return out

    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_JSON_DIGITS:
            raise JsonLimitError(
                f"holds a number of {len(digits.lstrip('-'))} digits (at most {MAX_JSON_DIGITS} are accepted)"
            )
        return int(digits)

    try:
        doc = json.loads(text, parse_int=parse_int, object_hook=object_hook, object_pairs_hook=pairs_hook)
    except RecursionError:
        raise JsonLimitError(f"nests deeper than {MAX_JSON_DEPTH} levels") from None
    if repeated:
        obj, key = repeated[0]
        raise JsonDuplicateKey(f"holds the key {key!r} twice in one object ({_where(doc, obj)})")
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > MAX_JSON_DEPTH:
                    raise JsonLimitError(f"nests deeper than {MAX_JSON_DEPTH} levels")
                stack.append((child, depth + 1))
    return doc


def _where(doc: Any, target: object) -> str:
    """The path of the object ``target`` inside ``doc`` (``changes[2].after``; ``the top level`` for ``doc``)."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, path = stack.pop()
        if value is target:
            return path or "the top level"
        if isinstance(value, dict):
            stack += [(child, f"{path}.{key}" if path else str(key)) for key, child in value.items()]
        elif isinstance(value, list):
            stack += [(child, f"{path}[{i}]") for i, child in enumerate(value)]
    return "an object"
