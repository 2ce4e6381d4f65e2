"""The full manifest reader: ruamel.yaml's node graph -> plain values, with the position of every key and value.

ruamel.yaml composes the node graph (with its C parser when ``ruamel.yaml.clib`` is installed, which is several
times faster than building round-trip objects); the conversion to plain values is done here rather than by a
ruamel constructor because it also has to record the 1-based line and column of every key and value, reject
duplicate keys, bound alias expansion (a "billion laughs" document must fail fast, not eat the machine) and
substitute ``${VAR}`` from the environment. ``yamlio`` sends here the files its event-stream reader does not take,
and the files whose positions a diagnostic needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML, nodes
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from reconciler.base import errors, secret
from reconciler.manifests import plainyaml
from reconciler.manifests.yamlio import (
    HAVE_C_PARSER,
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    Path_,
    Position,
    RawDocument,
    format_path,
    redacted,
)

if HAVE_C_PARSER:  # pragma: no branch - depends on the installed wheel
    from ruamel.yaml.cyaml import CSafeLoader

_VAR = re.compile(r"\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TAG = "tag:yaml.org,2002:"


class _Abort(Exception):
    """Stop converting this file; the diagnostic is already recorded."""


class _Converter:
    def __init__(self, *, file: str, env: Mapping[str, str], diags: list[errors.Diagnostic], text: str = "") -> None:
        self.file = file
        self.text = text
        self.env = env
        self.diags = diags
        self.positions: dict[Path_, Position] = {}
        self.seen: set[int] = set()
        self.active: set[int] = set()
        self.alias_budget = MAX_ALIAS_NODES
        # Values that could not be read (unset variables): the document is not validated further, since every
        # check of such a value would report a second, misleading error. Other problems (a duplicate key keeps
        # its first value) leave the document readable, so its other errors are still reported.
        self.unreadable = 0
        self.variables: list[tuple[str, Path_, int, int]] = []

    def error(self, node: nodes.Node, message: str, *, path: Path_, hint: str | None = None) -> None:
        mark = node.start_mark
        self.diags.append(
            errors.Diagnostic(
                message=message,
                file=self.file,
                line=mark.line + 1,
                column=mark.column + 1,
                path=format_path(path) or None,
                hint=hint,
            )
        )

    def convert(self, node: nodes.Node, path: Path_, *, aliased: bool = False, depth: int = 0) -> Any:
        ident = id(node)
        if ident in self.active:
            self.error(node, "an alias refers to a node that contains it (recursive alias)", path=path)
            raise _Abort
        if ident in self.seen:
            aliased = True
        self.seen.add(ident)
        if aliased:
            self.alias_budget -= 1
            if self.alias_budget < 0:
                self.error(
                    node,
                    f"alias expansion produces more than {MAX_ALIAS_NODES} values",
                    path=path,
                    hint="anchors and aliases that multiply (a 'billion laughs' document) are refused",
                )
                raise _Abort
        if depth > MAX_DEPTH:  # counts merge keys too: a chain of merges recurses without lengthening the path
            self.error(node, f"nesting deeper than {MAX_DEPTH} levels", path=path)
            raise _Abort
        if isinstance(node, nodes.ScalarNode):
            return self.scalar(node, path)
        self.active.add(ident)
        try:
            if isinstance(node, nodes.SequenceNode):
                items = []
                for index, child in enumerate(node.value):
                    mark = child.start_mark
                    sub = (*path, index)
                    if not aliased:
                        self.positions[sub] = (
                            self.file,
                            mark.line + 1,
                            mark.column + 1,
                            mark.line + 1,
                            mark.column + 1,
                        )
                    items.append(self.convert(child, sub, aliased=aliased, depth=depth + 1))
                return items
            assert isinstance(node, nodes.MappingNode)
            return self.mapping(node, path, aliased=aliased, depth=depth)
        finally:
            self.active.discard(ident)

    def mapping(self, node: nodes.MappingNode, path: Path_, *, aliased: bool, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        where: dict[str, nodes.Node] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                sources = value_node.value if isinstance(value_node, nodes.SequenceNode) else [value_node]
                for source in sources:
                    value = self.convert(source, path, aliased=True, depth=depth + 1)
                    if not isinstance(value, dict):
                        self.error(source, "a merge key (<<) needs a mapping or a list of mappings", path=path)
                        continue
                    for k, v in value.items():
                        merged.setdefault(k, v)
                continue
            if not isinstance(key_node, nodes.ScalarNode):
                self.error(key_node, "mapping keys must be plain scalars, not lists or mappings", path=path)
                continue
            key = key_node.value
            if key_node.tag == _TAG + "bool":
                key = key.lower()
            sub = (*path, key)
            if key in where:
                first = where[key].start_mark
                self.error(
                    key_node,
                    f"duplicate key {key!r} (first defined at line {first.line + 1}, column {first.column + 1})",
                    path=sub,
                )
                continue
            where[key] = key_node
            if not aliased:
                km = key_node.start_mark
                vl, vc = self.value_at(key_node, value_node)
                self.positions[sub] = (self.file, vl, vc, km.line + 1, km.column + 1)
            result[key] = self.convert(value_node, sub, aliased=aliased, depth=depth + 1)
        for k, v in merged.items():
            result.setdefault(k, v)
        return result

    def value_at(self, key_node: nodes.Node, value_node: nodes.Node) -> tuple[int, int]:
        """The 1-based (line, column) of a mapping value. An empty value (``d:``) is placed just after its ``:``,
        as the pure parser marks it; libyaml marks it at the next token, which may be on another line."""
        mark = value_node.start_mark
        empty = isinstance(value_node, nodes.ScalarNode) and value_node.value == "" and not value_node.style
        if empty and self.text:
            colon = self.text.find(":", key_node.end_mark.index)
            if colon >= 0:
                return self.text.count("\n", 0, colon) + 1, colon - (self.text.rfind("\n", 0, colon) + 1) + 2
        return mark.line + 1, mark.column + 1

    def scalar(self, node: nodes.ScalarNode, path: Path_) -> Any:
        tag, text = str(node.tag), str(node.value)
        if tag == _TAG + "str" or not tag.startswith(_TAG):
            if "$" not in text:
                return text
            value = self.substitute(node, text, path)
            if not node.style and value != text:
                # Plain (unquoted): typed exactly as the same text written there would be (the one rule of both
                # readers, ``plainyaml.resolve``): a number, true/false, or null (``~``, ``null``, empty).
                return plainyaml.typed(plainyaml.resolve(value), value)
            return value
        return plainyaml.typed(tag[len(_TAG) :], text)

    def substitute(self, node: nodes.ScalarNode, text: str, path: Path_) -> str:

        def replace(match: re.Match[str]) -> str:
            escaped, name, fallback = match.group(1), match.group(2), match.group(3)
            if escaped:
                return match.group(0)[1:]
            self.variables.append((name, path, node.start_mark.line + 1, node.start_mark.column + 1))
            if secret.is_secret_variable(name) and not redacted(path):
                self.unreadable += 1
                self.error(
                    node,
                    f"environment variable {name!r} holds a secret and cannot be substituted into a manifest",
                    path=path,
                    hint="values in manifests end up in plans, PR comments and logs; "
                    "give a secret by reference (passwordFrom: {env: NAME}) where the manifest accepts one",
                )
                return match.group(0)
            if name in self.env:
                return self.env[name]
            if fallback is not None:
                return fallback
            self.unreadable += 1
            self.error(
                node,
                f"environment variable {name!r} is not set",
                path=path,
                hint=f"export {name}, write ${{{name}:-default}}, or escape a literal as $${{{name}}}",
            )
            return match.group(0)

        return _VAR.sub(replace, text)


def _c_parser() -> bool:
    """Whether to compose with the C parser (``yamlio.HAVE_C_PARSER``, read at call time: tests turn it off)."""
    from reconciler.manifests import yamlio

    return yamlio.HAVE_C_PARSER


def compose_all(text: str, *, pure: bool) -> Iterator[nodes.Node]:
    """The node graph of each document, from the C parser when available (much faster) or the pure one.

    ruamel.yaml.clib's parser (an older libyaml) refuses a ``:`` inside a plain scalar in a flow collection,
    ``[k1:9092]``, which YAML 1.2, the pure parser and the event-stream reader (PyYAML's libyaml) accept. When
    the C parser refuses a text, the pure parser decides: the documents the C parser did not reach come from
    it. A text both refuse fails with the C parser's error, unless the pure parser read past that point (so the
    C parser's complaint was about valid YAML, e.g. "found unexpected ':'") and names the real problem later.
    """
    if pure:
        yield from YAML(typ="safe", pure=True).compose_all(text)
        return
    loader, done = CSafeLoader(text), 0
    try:
        while loader.check_node():
            yield loader.get_node()
            done += 1
    except MarkedYAMLError as refused:
        try:
            rest = list(YAML(typ="safe", pure=True).compose_all(text))[done:]
        except MarkedYAMLError as also:
            raise (also if _at(also) > _at(refused) else refused) from None
        except (YAMLError, RecursionError):
            raise refused from None
        yield from rest
    finally:
        loader.dispose()


_V12 = (
    "remove the directive: in YAML 1.2 only true/false are booleans (yes, no, on, off are text) "
    "and 0o17 is octal (017 is seventeen)"
)


def _other_yaml_version(text: str) -> tuple[str, int, int] | None:
    """The first ``%YAML`` directive naming another version than 1.2, as (version, line, column), else ``None``.

    Both readers type every plain scalar by the YAML 1.2 core schema; a document declaring YAML 1.1 means other
    types (``yes`` a boolean, ``017`` octal), which neither gives it, so such a file is refused rather than read
    one way here and another way there. A text that does not parse is left to the reader to report.
    """
    if "%YAML" not in text:
        return None
    try:
        for event in YAML(typ="safe", pure=True).parse(text):
            version = getattr(event, "version", None)
            if type(event).__name__ == "DocumentStartEvent" and version is not None and tuple(version) != (1, 2):
                at = text.rfind("%YAML", 0, event.start_mark.index + 1)
                line = text.count("\n", 0, at) + 1
                return ".".join(str(v) for v in version), line, at - (text.rfind("\n", 0, at) + 1) + 1
    except (YAMLError, RecursionError, ValueError):
        return None
    return None


def _at(exc: MarkedYAMLError) -> tuple[int, int]:
    mark = exc.problem_mark or exc.context_mark
    return (mark.line, mark.column) if mark is not None else (-1, -1)


def read(
    text: str, display: str, directory: Path, env: Mapping[str, str], diags: list[errors.Diagnostic]
) -> list[RawDocument]:
    """Every non-empty document of ``text`` through ruamel.yaml's node graph, with positions."""

    def fail(message: str, *, line: int | None = None, column: int | None = None, hint: str | None = None) -> None:
        diags.append(errors.Diagnostic(message=message, file=display, line=line, column=column, hint=hint))

    directive = _other_yaml_version(text)
    if directive is not None:
        fail(f"%YAML {directive[0]}: manifests are YAML 1.2", line=directive[1], column=directive[2], hint=_V12)
        return []
    converter = _Converter(file=display, env=env, diags=diags, text=text)
    documents: list[RawDocument] = []
    try:
        for node in compose_all(text, pure=not _c_parser()):
            if node is None or (isinstance(node, nodes.ScalarNode) and node.tag == _TAG + "null"):
                continue
            converter.positions = {}
            converter.unreadable = 0
            converter.variables = []
            converter.seen = set()
            converter.alias_budget = MAX_ALIAS_NODES
            try:
                data = converter.convert(node, ())
            except _Abort:
                return documents
            mark = node.start_mark
            documents.append(
                RawDocument(
                    file=display,
                    directory=directory,
                    line=mark.line + 1,
                    column=mark.column + 1,
                    data=data,
                    found=converter.positions,
                    broken=converter.unreadable > 0,
                    variables=converter.variables,
                )
            )
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        fail(
            f"YAML syntax error: {problem}",
            line=mark.line + 1 if mark is not None else None,
            column=mark.column + 1 if mark is not None else None,
            hint=exc.context if exc.problem and exc.context else None,
        )
    except (YAMLError, RecursionError, ValueError) as exc:
        # A reader error (a control character) carries the offending character's offset, not a mark.
        offset = getattr(exc, "position", None)
        message = f"YAML syntax error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        if isinstance(offset, int) and 0 <= offset <= len(text):
            at = offset - (text.rfind("\n", 0, offset) + 1) + 1
            fail(message, line=text.count("\n", 0, offset) + 1, column=at)
        else:
            fail(message)
    return documents
