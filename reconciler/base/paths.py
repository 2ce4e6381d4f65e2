"""REST paths read back into their templates: which operation a path calls and the names in it.

A REST port's request builders write paths from templates (``/connectors/{name}/config``), each name one encoded
segment; ``Routes`` reads a path back (the template, the decoded names, the query), so a port counts its requests by
operation and the in-memory fakes of the tests route by the same templates the builders use.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Sequence


class Routes:
    """The path templates of one REST API, each with the names its ``{placeholders}`` stand for, in order."""

    def __init__(self, patterns: Sequence[tuple[str, tuple[str, ...]]]) -> None:
        self._matchers = tuple(
            (template, re.compile("^" + re.sub(r"\{[a-z]+\}", "([^/]+)", template) + "$"), names)
            for template, names in patterns
        )

    def route(self, path: str) -> tuple[str, dict[str, str], list[tuple[str, str]]]:
        """The template ``path`` matches, its decoded names and its query pairs (``("?", {}, [...])``: unknown)."""
        parts = urllib.parse.urlsplit(path)
        query = urllib.parse.parse_qsl(parts.query)
        for template, matcher, names in self._matchers:
            found = matcher.match(parts.path)
            if found:
                values = {n: urllib.parse.unquote(v) for n, v in zip(names, found.groups(), strict=True)}
                return template, values, query
        return "?", {}, query

    def endpoint(self, method: str, path: str) -> str:
        """``PUT /connectors/{name}/config``: what a request calls, without names (for counts)."""
        template, _, _ = self.route(path)
        return f"{method} {template if template != '?' else urllib.parse.urlsplit(path).path}"
