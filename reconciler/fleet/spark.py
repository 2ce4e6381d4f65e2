"""The Apache Spark fleet engine (PySpark): reads in executor tasks, a DataFrame full outer join, plans per group.

Pipeline: one Spark task per cluster turns it into rows where it runs (live state read over the
wire or from a snapshot, and the desired state broadcast from the driver), ``mapInArrow`` hands
those rows to the JVM as Arrow batches; desired and live rows are joined with a full outer join on
``(cluster, kind, name, attribute)``; ``groupBy(cluster).applyInPandas`` gives each cluster's joined
rows to ``planning.plan_joined``, the same function the local engine calls. Only plan texts and
drift records come back to the driver.

Spark's own console output is kept quiet: log level ERROR (a log4j2 file written at start), no
console progress bar, no web UI, py4j's Python logger at ERROR. Needs the ``spark`` extra and Java 17.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler import desired, errors
from reconciler.fleet import planning, rows, sources

ROW_SCHEMA = "cluster string, kind string, name string, attribute string, value string"
OUT_SCHEMA = (
    "cluster string, status string, reason string, plan_json string, drift_json string, rows long, differing long"
)
BATCH_ROWS = 65_536
KEYS = ["cluster", "kind", "name", "attribute"]

# WARN at start-up (at ERROR, PySpark prints a notice about the shell's log level), ERROR once running.
_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
# Start-up notices that say nothing about the run (no native Hadoop library, loopback host name).
logger.hadoop.name = org.apache.hadoop.util.NativeCodeLoader
logger.hadoop.level = error
logger.utils.name = org.apache.spark.util.Utils
logger.utils.level = error
"""


def _require_pyspark() -> Any:
    try:
        import pyspark
        import pyspark.sql
    except ImportError:
        raise errors.ConfigError(
            "the spark engine needs PySpark: pip install 'kafka-reconciler[spark]' (and Java 17)"
        ) from None
    return pyspark


def session(master: str | None = None, *, conf: Mapping[str, str] | None = None) -> Any:
    """A quiet SparkSession on ``master``; raises ``ConfigError`` without PySpark.

    Without ``master`` the session is the one ``spark-submit`` configured, or ``local[*]`` when run
    from a plain Python process (PySpark's default).
    """
    _require_pyspark()
    from pyspark.sql import SparkSession

    if master is None or master.startswith("local"):
        # Python workers of a local master run this interpreter, so they see the same packages.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    logging.getLogger("py4j").setLevel(logging.ERROR)
    log_dir = Path(tempfile.mkdtemp(prefix="kafka-reconciler-spark-"))
    log_file = log_dir / "log4j2.properties"
    log_file.write_text(_LOG4J2, encoding="utf-8")
    builder = (
        SparkSession.builder.appName("kafka-reconciler fleet plan")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_file.as_uri()}")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
    )
    if master is not None:
        builder = builder.master(master)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # the JVM failed to start: no Java, wrong Java, bad master URL
        raise errors.ConfigError(
            f"cannot start Spark on {master or 'the default master'}: {str(exc).splitlines()[0]}"
        ) from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _batches(records: Iterator[tuple[str, rows.Row]]) -> Iterator[Any]:
    import pyarrow as pa

    names = ["cluster", "kind", "name", "attribute", "value"]
    columns: list[list[str | None]] = [[], [], [], [], []]
    count = 0
    for cluster, (kind, name, attribute, value) in records:
        columns[0].append(cluster)
        columns[1].append(kind)
        columns[2].append(name)
        columns[3].append(attribute)
        columns[4].append(value)
        count += 1
        if count == BATCH_ROWS:
            yield pa.RecordBatch.from_arrays([pa.array(c, type=pa.string()) for c in columns], names=names)
            columns = [[], [], [], [], []]
            count = 0
    if count:
        yield pa.RecordBatch.from_arrays([pa.array(c, type=pa.string()) for c in columns], names=names)


def _tasks_of(batches: Iterator[Any]) -> Iterator[sources.ClusterTask]:
    for batch in batches:
        for blob in batch.column(1).to_pylist():
            task = pickle.loads(blob)
            assert isinstance(task, sources.ClusterTask)
            yield task


def _live_side(wanted_by_key: Any) -> Callable[[Iterator[Any]], Iterator[Any]]:
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        # A cluster that is down is reported by its error row; kafka-python's retry log lines would
        # only repeat that on the console of every executor.
        logging.getLogger("kafka").setLevel(logging.CRITICAL)
        table: Mapping[str, desired.DesiredState] = wanted_by_key.value
        for task in _tasks_of(batches):
            yield from _batches((task.name, r) for r in sources.read_live_rows(task, table[task.desired_key]))

    return run


def _desired_side(wanted_by_key: Any) -> Callable[[Iterator[Any]], Iterator[Any]]:
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        table: Mapping[str, desired.DesiredState] = wanted_by_key.value
        for task in _tasks_of(batches):
            yield from _batches((task.name, r) for r in rows.desired_rows(table[task.desired_key]))

    return run


def _column(frame: Any, name: str) -> list[Any]:
    series = frame[name]
    return [None if v is None or v != v else v for v in series.astype(object).tolist()]  # NaN -> None


def _plan_group(frame: Any) -> Any:
    import pandas as pd

    cluster = str(frame["cluster"].iloc[0])
    joined: list[planning.Joined] = list(
        zip(
            _column(frame, "kind"),
            _column(frame, "name"),
            _column(frame, "attribute"),
            [bool(v) for v in _column(frame, "d_has")],
            _column(frame, "d_value"),
            [bool(v) for v in _column(frame, "l_has")],
            _column(frame, "l_value"),
            strict=True,
        )
    )
    record = planning.plan_joined(cluster, joined).to_record()
    return pd.DataFrame([record])


def run_spark(
    tasks: Sequence[sources.ClusterTask],
    desired_sets: Mapping[str, sources.DesiredSet],
    *,
    spark: Any,
    shuffle_partitions: int | None = None,
) -> Iterator[planning.ClusterOutcome]:
    """Plan every task's cluster on ``spark``; yields outcomes as they reach the driver (any order)."""
    if not tasks:
        return
    from pyspark.sql import functions as F

    sc = spark.sparkContext
    parts = shuffle_partitions or max(1, min(len(tasks), 4 * sc.defaultParallelism))
    spark.conf.set("spark.sql.shuffle.partitions", str(parts))
    wanted = sc.broadcast({k: s.desired for k, s in desired_sets.items() if s.desired is not None})
    blobs = [(t.name, pickle.dumps(t)) for t in tasks]
    task_df = sc.parallelize(blobs, numSlices=len(blobs)).toDF("cluster string, task binary")
    want = (
        task_df.mapInArrow(_desired_side(wanted), ROW_SCHEMA)
        .withColumnRenamed("value", "d_value")
        .withColumn("d_has", F.lit(True))
    )
    have = (
        task_df.mapInArrow(_live_side(wanted), ROW_SCHEMA)
        .withColumnRenamed("value", "l_value")
        .withColumn("l_has", F.lit(True))
    )
    joined = want.join(have, on=KEYS, how="full_outer")
    planned = joined.groupBy("cluster").applyInPandas(_plan_group, OUT_SCHEMA)
    try:
        for row in planned.toLocalIterator():
            yield planning.ClusterOutcome.from_record(row.asDict())
    finally:
        wanted.unpersist()
