"""Where Spark runs for a fleet plan: the driver's address, the executors' Python, the probe task that checks
every executor, and their errors explained.

``local_settings`` keeps a local master's driver on loopback (``is_local``); ``executor_python`` is the Python
the executors will run (``spark.pyspark.python``, else ``PYSPARK_PYTHON``, else the driver's); ``probe`` is the
task ``spark.check_executors`` ships to every executor core before the job, ``problems`` keeps one answer per
executor; when the job or the probe fails in an executor, ``executor_error`` picks the executor's own exception
out of Spark's text and ``advice`` names the setting to change.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping

import reconciler

PYTHON_SETTING = "spark.pyspark.python"
LOOPBACK = "127.0.0.1"
# A local master's driver (and its block manager) listen here: nothing outside this host needs to reach them.
LOCAL_DRIVER = {"spark.driver.host": LOOPBACK, "spark.driver.bindAddress": LOOPBACK}


def is_local(master: str | None, conf: Mapping[str, str] | None = None) -> bool:
    """Whether the session runs in this process's JVM only: a ``local`` master, or no master at all outside
    ``spark-submit`` (PySpark's default is then ``local[*]``)."""
    chosen = master or (conf or {}).get("spark.master")
    if chosen is None:
        return "PYSPARK_GATEWAY_PORT" not in os.environ  # under spark-submit the session's master is its own
    return chosen.startswith("local")


def local_settings(master: str | None, conf: Mapping[str, str] | None) -> dict[str, str]:
    """The settings a local session adds to ``conf``: the driver on loopback (unless ``conf`` says otherwise)."""
    if not is_local(master, conf):
        return {}
    return {k: v for k, v in LOCAL_DRIVER.items() if k not in (conf or {})}


def start_environment(python: str, *, loopback: bool) -> dict[str, str | None]:
    """Set what the JVM's start reads from the environment: ``PYSPARK_PYTHON``, and ``SPARK_LOCAL_IP`` for a local
    master (unless set); returns the values to restore."""
    saved = {name: os.environ.get(name) for name in ("PYSPARK_PYTHON", "SPARK_LOCAL_IP")}
    os.environ["PYSPARK_PYTHON"] = python
    if loopback and saved["SPARK_LOCAL_IP"] is None:
        os.environ["SPARK_LOCAL_IP"] = LOOPBACK
    return saved


def restore_environment(saved: Mapping[str, str | None]) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


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


Answer = tuple[str, str, str, str, str]  # host, work folder, Python, its version, outcome ("ok <version>" or the error)


def probe() -> Callable[[int], Answer]:
    """The probe task: the executor's host and work folder (which tell executors apart, also several on one host),
    its Python, that Python's version, and whether it imports this package.

    Defined inside a function so that cloudpickle ships it by value: it runs even where this package cannot
    be imported, and says so."""

    def probe(_: int) -> Answer:
        import os
        import socket
        import sys

        try:
            import reconciler as found
            import reconciler.fleet.planning  # and with it pydantic, kafka-python, pyarrow

            outcome = f"ok {found.__version__}"
        except Exception as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        return socket.gethostname(), os.getcwd(), sys.executable, sys.version.split()[0], outcome

    return probe


def problems(answers: list[Answer]) -> tuple[int, list[Answer]]:
    """How many executors answered (one answer kept per host and work folder), and those whose Python cannot
    run this package (outcome other than ``ok <this version>``)."""
    per_executor: dict[tuple[str, str], Answer] = {}
    for answer in answers:
        per_executor.setdefault((answer[0], answer[1]), answer)
    wanted = f"ok {reconciler.__version__}"
    return len(per_executor), [a for a in per_executor.values() if a[4] != wanted]


def problem_message(bad: Answer, *, executors: int, failing: int) -> str:
    """What one executor that cannot run this package found, and how many of the executors checked failed."""
    host, where, ran, version, outcome = bad
    found = outcome if not outcome.startswith("ok ") else f"kafka-reconciler {outcome[3:]} (not the driver's)"
    others = f" ({failing} of {executors} executor(s) checked fail)" if executors > 1 else ""
    return (
        f"the Spark executor on {host} (working in {where}) ran {ran} (Python {version}) and found {found}{others}; "
        f"{advice(ran)}"
    )
