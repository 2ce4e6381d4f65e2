"""Spark's log for the fleet's Spark engine: the log4j2 settings the JVM starts with, and why a start failed.

The JVM's stderr (spark-submit's own messages and log4j's console) goes to ``LOG_NAME`` in the session's temporary
folder rather than to the console (``spark.session``); when Spark cannot start, ``start_failure`` reads the cause
from that log, so that the error is one line naming the cause and the log, not the JVM's stack traces.
"""

from __future__ import annotations

import re
from pathlib import Path

LOG_NAME = "spark.log"

# WARN at start-up (at ERROR, PySpark prints a notice about the shell's log level), ERROR once running.
LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
# A start-up notice that says nothing about the run (no native Hadoop library); the loopback warning is kept.
logger.hadoop.name = org.apache.hadoop.util.NativeCodeLoader
logger.hadoop.level = error
"""


def text(path: Path) -> str:
    """The log's text so far (empty when there is none)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def start_failure(log: str) -> str | None:
    """Why Spark did not start, from its log (the JVM's stderr): the exception that ended the JVM, else the last
    error Spark logged, with the root cause of the last stack trace (``Caused by: ...``); ``None``: nothing found."""
    ended = re.findall(r'^Exception in thread "main" (?:[\w.$]+: )?(.*)$', log, flags=re.M)
    if ended:
        return str(ended[-1]).strip()
    logged = re.findall(r"^\S+ ERROR [\w.$]+: (.*)$", log, flags=re.M)
    if not logged:
        return None
    causes = re.findall(r"^Caused by: (.*)$", log, flags=re.M)
    return str(logged[-1]).strip() + (f" ({str(causes[-1]).strip()})" if causes else "")
