"""The two text syntaxes of a Kafka CLI ``--command-config`` file: Java ``.properties`` and JAAS options.

Written by hand because no library in the stack reads them: ``.properties`` with comments, ``=``/``:``/space
separators, line continuations and escapes (``\\uXXXX``), and a JAAS entry such as
``<LoginModule> required username="alice" password="...";``. Error messages name the file and line but never
quote a value, since values hold passwords.
"""

from __future__ import annotations

import re
from pathlib import Path

from reconciler.base import errors, fileio


def read_properties(path: Path) -> dict[str, tuple[str, int]]:
    """Parse a Java ``.properties`` file into ``key -> (value, line)`` (the line where the entry starts)."""
    text = fileio.read_text(path, what="properties file")
    result: dict[str, tuple[str, int]] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        start = index + 1
        logical = lines[index].lstrip()
        index += 1
        if not logical or logical[0] in "#!":
            continue
        while _ends_with_continuation(logical) and index < len(lines):
            logical = logical[:-1] + lines[index].lstrip()
            index += 1
        key, value = _split_property(logical)
        result[_unescape(key)] = (_unescape(value), start)
    return result


def _ends_with_continuation(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split_property(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
            continue
        if char in "=: \t\f":
            key = line[:i]
            rest = line[i:].lstrip(" \t\f")
            if rest[:1] in ("=", ":") and char in " \t\f":
                rest = rest[1:].lstrip(" \t\f")
            elif char in "=:":
                rest = line[i + 1 :].lstrip(" \t\f")
            return key, rest
        i += 1
    return line, ""


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


_JAAS_OPTION = re.compile(r'\s*([A-Za-z_][\w.-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))')


def parse_jaas(text: str, *, where: str, supported: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """Parse ``<LoginModule> required key="value" ...;`` into the module class and its options.

    Messages name ``where`` (``file:line``) and never quote the text, which holds a password.
    """
    body = text.strip()
    match = re.match(r"([\w.$]+)\s+(required|requisite|sufficient|optional)\b", body)
    if match is None:
        raise errors.ConfigError(
            f"{where}: sasl.jaas.config is malformed: expected '<LoginModule class> required key=\"value\" ... ;'"
        )
    module = match.group(1)
    if module not in supported:
        short = module.rsplit(".", 1)[-1]
        raise errors.ConfigError(
            f"{where}: sasl.jaas.config login module {short} is not supported "
            "(supported: PlainLoginModule for PLAIN, ScramLoginModule for SCRAM-SHA-256/512, "
            "OAuthBearerLoginModule for OAUTHBEARER, IAMLoginModule for AWS_MSK_IAM)"
        )
    rest = body[match.end() :]
    options: dict[str, str] = {}
    position = 0
    while True:
        option = _JAAS_OPTION.match(rest, position)
        if option is None:
            break
        quoted, bare = option.group(2), option.group(3)
        options[option.group(1)] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
        position = option.end()
    if rest[position:].strip() != ";":
        raise errors.ConfigError(
            f'{where}: sasl.jaas.config is malformed after the login module: expected key="value" pairs '
            "ending with ';' (check quotes and the final semicolon)"
        )
    return module, options
