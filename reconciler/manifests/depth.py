"""A bounded pre-check of YAML nesting depth, run before a manifest file is composed into a node graph.

libyaml's composer recurses in C once per nesting level: 30,000 levels overflow the stack and kill the process
(SIGSEGV, no message), and the pure-Python composer hits the recursion limit. The parsers themselves keep an
explicit stack, so their event stream can be read to any depth; this module reads it, in linear time, only when a
cheap bound on the text says the composer might be in danger.
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
