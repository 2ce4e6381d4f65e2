"""Logging for the command line: records go to the stderr of the moment, at the level ``-v`` asks for.

Kept out of ``cli`` so that commands which never log (``--help``, ``validate``) do not import ``logging``.
"""

from __future__ import annotations

import logging
import sys
from typing import Any


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes each record to ``sys.stderr`` as it is when the record is written, not when logging was set up.

    kafka-python logs from its IO thread, possibly after the command returned; a handler holding the stream of
    the moment (an embedding program's or a test runner's, since closed) would fail on every such record.
    """

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def _is_library(record: logging.LogRecord) -> bool:
    return record.name == "kafka" or record.name.startswith("kafka.")


def setup(verbose: int, *, quiet_kafka: bool = False) -> None:
    """WARNING by default, INFO with -v, DEBUG with -vv; kafka-python at WARNING (CRITICAL when ``quiet_kafka``).

    kafka-python's own records are shown only with -v: without it the tool names connection failures itself,
    with their cause, and the library's retries would only repeat them.
    """
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handler = StderrHandler()
    if verbose == 0:
        handler.addFilter(lambda record: not _is_library(record))
    logging.basicConfig(level=level, handlers=[handler], format="%(levelname)s %(name)s: %(message)s", force=True)
    # kafka-python is chatty and its debug output includes raw protocol data; keep it quiet unless -vvv asks.
    floor = logging.CRITICAL if quiet_kafka else logging.WARNING
    logging.getLogger("kafka").setLevel(logging.DEBUG if verbose >= 3 else floor)
