"""The two text syntaxes of a Kafka CLI ``--command-config`` file: Java ``.properties`` and JAAS options.

Written by hand because no library in the stack reads them: ``.properties`` with comments, ``=``/``:``/space
separators, line continuations and escapes (``\\uXXXX``), and a JAAS entry such as
``<LoginModule> required username="alice" password='...';`` read by the grammar of Kafka's ``JaasConfig``.
Error messages name the file and line but never quote a value or an option name, since either may hold (part
of) a password.
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


# Kafka's JaasConfig reads sasl.jaas.config with java.io.StreamTokenizer set up so: bytes 0-32 are white space,
# ``;`` and ``=`` are tokens of their own, ``"`` and ``'`` open a quoted string, ``/`` starts a comment (``//`` and
# ``/* */`` too), and everything else (33-128, 160 and above) makes up words.
_QUOTES = "\"'"
_QUOTE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _is_word_char(char: str) -> bool:
    code = ord(char)
    return (32 < code <= 128 or code >= 160) and char not in ";=/\"'"


def _jaas_tokens(text: str) -> list[tuple[str, str | None]]:
    """``(kind, value)`` tokens as StreamTokenizer gives them to JaasConfig: ``word`` and ``quoted`` carry
    their text, ``;``/``=`` and any other single character carry ``None`` (Java's ``sval`` is null)."""
    tokens: list[tuple[str, str | None]] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if ord(char) <= 32:
            i += 1
        elif _is_word_char(char):
            start = i
            while i < n and _is_word_char(text[i]):
                i += 1
            tokens.append(("word", text[start:i]))
        elif char in _QUOTES:
            i, value = _quoted(text, i + 1, quote=char)
            tokens.append(("quoted", value))
        elif char == "/":
            if text.startswith("/*", i):
                end = text.find("*/", i + 2)
                i = n if end < 0 else end + 2
            else:  # "//" and a lone "/" both comment out the rest of the line
                while i < n and text[i] not in "\r\n":
                    i += 1
        else:
            tokens.append((char, None))
            i += 1
    return tokens


def _quoted(text: str, i: int, *, quote: str) -> tuple[int, str]:
    """The quoted string from ``i`` up to the closing ``quote`` (or the end of the line), with Java escapes."""
    out: list[str] = []
    n = len(text)
    while i < n and text[i] != quote and text[i] not in "\r\n":
        char = text[i]
        i += 1
        if char != "\\" or i >= n:
            out.append(char)
            continue
        nxt = text[i]
        i += 1
        if nxt in "01234567":
            digits = nxt
            limit = 3 if nxt <= "3" else 2
            while len(digits) < limit and i < n and text[i] in "01234567":
                digits += text[i]
                i += 1
            out.append(chr(int(digits, 8)))
        else:
            out.append(_QUOTE_ESCAPES.get(nxt, nxt))
    return (i + 1 if i < n and text[i] == quote else i), "".join(out)


def parse_jaas(text: str, *, where: str, supported: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """Parse ``<LoginModule> <flag> key=value ...;`` into the module class and its options, by Kafka's grammar.

    Values may be bare words or quoted with double or single quotes (Confluent Cloud writes
    ``username='KEY' password='SECRET';``); backslash escapes work inside quotes, ``/* */`` and ``//`` are
    comments, and exactly one login module is allowed, as in Kafka's own client. Messages name ``where``
    (``file:line``) and never quote the text, which holds a password.
    """
    malformed = f"{where}: sasl.jaas.config is malformed"
    tokens = _jaas_tokens(text)
    if len(tokens) < 2 or tokens[0][1] is None or tokens[1][1] is None:
        raise errors.ConfigError(f"{malformed}: expected '<LoginModule class> required key=\"value\" ... ;'")
    module, flag = tokens[0][1], tokens[1][1]
    if flag.lower() not in ("required", "requisite", "sufficient", "optional"):
        raise errors.ConfigError(
            f"{malformed}: the login module must be followed by required, requisite, sufficient or optional"
        )
    if module not in supported:
        short = module.rsplit(".", 1)[-1]
        raise errors.ConfigError(
            f"{where}: sasl.jaas.config login module {short} is not supported "
            "(supported: PlainLoginModule for PLAIN, ScramLoginModule for SCRAM-SHA-256/512, "
            "OAuthBearerLoginModule for OAUTHBEARER, IAMLoginModule for AWS_MSK_IAM)"
        )
    options: dict[str, str] = {}
    position = 2
    while position < len(tokens) and tokens[position][0] != ";":
        key = tokens[position][1]
        value = tokens[position + 2][1] if position + 2 < len(tokens) else None
        equals = tokens[position + 1][0] if position + 1 < len(tokens) else None
        if key is None or equals != "=" or value is None:
            raise errors.ConfigError(
                f'{malformed}: an option has no value; options are written key=value or key="value" '
                "(check quotes and the final semicolon)"
            )
        options[key] = value
        position += 3
    if position >= len(tokens):
        raise errors.ConfigError(f"{malformed}: the entry does not end with ';' (check quotes and the final semicolon)")
    if position + 1 < len(tokens):
        raise errors.ConfigError(
            f"{malformed}: it holds more than one login module; Kafka's client accepts exactly one"
        )
    return module, options
