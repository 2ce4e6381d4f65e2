"""The Spark executors' Python: which one they run, the probe task that checks it, and their errors explained.

``executor_python`` is the Python the executors will run (``spark.pyspark.python``, else ``PYSPARK_PYTHON``,
else the driver's); ``probe`` is the task ``spark.check_executors`` ships to them before the job; when the job or
the probe fails in an executor, ``executor_error`` picks the executor's own exception out of Spark's text and
``advice`` names the setting to change.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping

import reconciler

PYTHON_SETTING = "spark.pyspark.python"


def executor_python(conf: Mapping[str, str] | None = None) -> str:
    """The Python the executors will run: ``spark.pyspark.python``, else ``PYSPARK_PYTHON``, else this one."""
    return (conf or {}).get(PYTHON_SETTING) or os.environ.get("PYSPARK_PYTHON") or sys.executable


_PYTHON_ERROR = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit)): (.*)$")
_JVM_PREFIXES = ("org.", "java.", "scala.", "py4j.", "Caused by", "\tat ")


def executor_error(exc: BaseException) -> str:
    """The executor's own error in a failed Spark job: the last Python exception line of its traceback,
    else the JVM's innermost cause (e.g. ``Cannot run program "python9"``), else the first line."""
    text = str(exc)
    python = [m.group(0) for line in text.splitlines() if (m := _PYTHON_ERROR.match(line.strip()))]
    python = [p for p in python if not p.startswith(_JVM_PREFIXES)]
    if python:
        return python[-1]
    program = re.search(r"Cannot run program [^\n]*", text)
    if program:
        return program.group(0)
    causes = [line.strip().removeprefix("Caused by: ") for line in text.splitlines() if "Caused by: " in line]
    if causes:
        return causes[-1]
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def advice(python: str) -> str:
    """What to change when the executors cannot run this package: the setting, and the driver's Python."""
    return (
        f"set {PYTHON_SETTING} (--conf {PYTHON_SETTING}=/path/to/python, or PYSPARK_PYTHON) to a Python that has "
        f"kafka-reconciler {reconciler.__version__} installed on every Spark worker (this driver runs {sys.executable})"
    )


def probe() -> Callable[[int], tuple[str, str, str, str]]:
    """The one-task probe: the executor's host, Python, its version, and whether it imports this package.

    Defined inside a function so that cloudpickle ships it by value: it runs even where this package cannot
    be imported, and says so."""

    def probe(_: int) -> tuple[str, str, str, str]:
        import socket
        import sys

        try:
            import reconciler as found
            import reconciler.fleet.planning  # and with it pydantic, kafka-python, pyarrow

            outcome = f"ok {found.__version__}"
        except Exception as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        return socket.gethostname(), sys.executable, sys.version.split()[0], outcome

    return probe
