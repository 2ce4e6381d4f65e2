"""Bounded pre-checks of YAML nesting depth and node count, run before a manifest file is read into values.

libyaml's composer recurses in C once per nesting level: 30,000 levels overflow the stack and kill the process
(SIGSEGV, no message), and the pure-Python composer hits the recursion limit. The parsers themselves keep an
explicit stack, so their event stream can be read to any depth; this module reads it, in linear time, only when a
cheap bound on the text says the composer might be in danger.

Bytes alone do not bound the work: a 47 MB file of 413,000 config keys is under the size cap and took minutes
and hundreds of MB to read and validate. ``too_many_nodes`` counts the file's nodes (scalars, aliases and
collections) on the event stream, again only when a cheap bound on the text allows more than the limit, and
stops at the first node past it, so such a file is refused in seconds with the position where the limit ran out.
``crowded_mapping`` finds a mapping with more keys than any manifest needs (validating each unknown config key
costs about a millisecond), so a document holding one is refused before it is validated.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

# Nesting the composers survive with room to spare, keyed by "pure parser".
_COMPOSE_SAFE_DEPTH = {False: 1000, True: 200}
_DOCUMENT_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.MULTILINE)


def too_deep(text: str, *, pure: bool, limit: int) -> tuple[int, int] | None:
    """The 1-based (line, column) of the first collection nested deeper than ``limit`` levels, or None.

    Runs before composing, in time linear in the text. A cheap bound comes first: a document cannot nest
    deeper than its count of ``[`` and ``{`` (flow levels) plus twice its longest line (block levels: a
    nested block collection starts to the right of its parent, or at its column for a sequence under a
    mapping key). Only when that bound is above what the composer survives is the event stream read
    (libyaml's parser keeps a stack, it does not recurse), stopping at the first level too deep.
    """
    safe = _COMPOSE_SAFE_DEPTH[pure]
    if text.count("[") + text.count("{") + 2 * (max(map(len, text.split("\n"))) + 1) <= safe:
        return None  # the bound of the whole text is at least each document's
    starts = [0, *(m.start() for m in _DOCUMENT_MARKER.finditer(text)), len(text)]
    for begin, end in itertools.pairwise(starts):
        chunk = text[begin:end]
        longest = max(map(len, chunk.split("\n")))
        if chunk.count("[") + chunk.count("{") + 2 * (longest + 1) > safe:
            break
    else:
        return None
    from ruamel.yaml import events  # imported only for a text the cheap bound does not clear
    from ruamel.yaml.error import YAMLError

    opened = (events.SequenceStartEvent, events.MappingStartEvent)
    closed = (events.SequenceEndEvent, events.MappingEndEvent)
    depth = 0
    try:
        for event in _events(text, pure=pure):
            if isinstance(event, opened):
                depth += 1
                if depth > limit:
                    mark = event.start_mark
                    return mark.line + 1, mark.column + 1
            elif isinstance(event, closed):
                depth -= 1
    except (YAMLError, ValueError):
        return None  # a syntax error before any level too deep: composing reports it at its place
    return None


def node_bound(text: str) -> int:
    """An upper bound on the YAML nodes in ``text``, in time linear in it without parsing.

    A scalar or alias needs a separator from the next node (a line break, ``:``, ``-``, ``[``, or ``,``, ``{``,
    ``?``); a collection opens at ``[`` or ``{`` or shares the separator before its first entry; an implicit null
    hangs on the ``:`` or ``-`` before it, or is the second node of a ``,``, ``{`` or ``?`` entry in a flow mapping
    (``{a, b}``): at most one node per separator, two for those three, plus two for the ends of the text.
    """
    single = text.count("\n") + text.count(":") + text.count("-") + text.count("[")
    return single + 2 * (text.count(",") + text.count("{") + text.count("?")) + 2


def too_many_nodes(text: str, *, pure: bool, limit: int) -> tuple[int, int] | None:
    """The 1-based (line, column) of the first node past ``limit`` nodes in the whole file, or None.

    The event stream is read only when ``node_bound`` is above ``limit``, and only up to that node.
    """
    if 2 * len(text) + 2 <= limit or node_bound(text) <= limit:  # the bound is at most two per character
        return None
    from ruamel.yaml import events  # imported only for a text the cheap bound does not clear
    from ruamel.yaml.error import YAMLError

    counted = (events.ScalarEvent, events.AliasEvent, events.SequenceStartEvent, events.MappingStartEvent)
    count = 0
    try:
        for event in _events(text, pure=pure):
            if isinstance(event, counted):
                count += 1
                if count > limit:
                    mark = event.start_mark
                    return mark.line + 1, mark.column + 1
    except (YAMLError, ValueError):
        return None  # a syntax error before the limit: reading the file reports it at its place
    return None


def crowded_mapping(data: Any, *, limit: int) -> tuple[tuple[Any, ...], int] | None:
    """The path and key count of the first mapping in ``data`` with more than ``limit`` keys, or None.

    An explicit stack of values (no recursion, no path kept): the path is worked out only for a mapping found.
    """
    stack = [data]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict:
            if len(value) > limit:
                return _path_to(data, value), len(value)
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
    return None


def _path_to(data: Any, target: Any) -> tuple[Any, ...]:
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if value is target:
            return path
        if type(value) is dict:
            stack.extend(((*path, k), v) for k, v in value.items())
        elif type(value) is list:
            stack.extend(((*path, i), v) for i, v in enumerate(value))
    return ()


def reader_error_position(text: str, exc: BaseException) -> tuple[int, int] | None:
    """The 1-based (line, column) of a YAML reader error (a control character such as #x7f), or None.

    The reader reports the offending character's offset in the text (``position``), not a mark.
    """
    offset = getattr(exc, "position", None)
    if not isinstance(offset, int) or not 0 <= offset <= len(text):
        return None
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _events(text: str, *, pure: bool) -> Iterator[Any]:
    if pure:
        from ruamel.yaml import YAML

        yield from YAML(typ="safe", pure=True).parse(text)
        return
    from ruamel.yaml.cyaml import CSafeLoader  # without ruamel.yaml.clib, callers pass pure=True

    loader = CSafeLoader(text)
    try:
        while loader.check_event():
            yield loader.get_event()
    finally:
        loader.dispose()
