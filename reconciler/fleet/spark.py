"""The Apache Spark fleet engine (PySpark): one stage of cluster tasks, run as wide as the executor cores.

Pipeline: the driver loads each distinct manifest set once, builds its desired rows once, and
broadcasts both (one broadcast per set; an executor loads only the sets of the clusters it plans).
The clusters are spread over the executors as an RDD of one to ``TASKS_PER_CORE`` partitions per
executor core (``partitions``; or ``max_parallel``), so that one task plans many clusters: a Spark
task costs far more than planning a cluster does (docs/benchmarks.md). Each task runs the local
engine's loop (``local.run_local``) over its clusters: reads run ahead on ``READS_PER_TASK`` threads
where the task runs (over the wire or from a snapshot), and each cluster's live rows are joined with
its set's desired rows (``planning.hash_join``) and planned (``planning.plan_joined``), so both
engines write the same plans.
One ``collect()`` runs the stage as a single job: every task slot works at once, there is no shuffle,
and the driver receives only each cluster's plan text, drift records and summary numbers.

Before that job a probe (one small task per executor core) checks that every executor's Python can import
this package, each executor's answer taken once; when one cannot, or the job fails in an executor, the error
names the executor (host and work folder), its own exception, the Python it ran and the setting to change
(``spark.pyspark.python``; ``reconciler.fleet.executors``). Executors run the driver's interpreter
(``sys.executable``) unless ``spark.pyspark.python`` or ``PYSPARK_PYTHON`` says otherwise.

A standalone master that does not answer is named before any JVM starts (``reconciler.fleet.master``). A local
master's driver listens on loopback only (``executors.local_settings``); a remote master's must be reachable from
every worker (docs/fleet.md says what to set; Spark's warning about its pick is shown).

The run's deadline covers Spark's own start: starting the session and the probe each end by it (a session not
started then is given up, its JVM ended; a probe waiting for executors is cancelled), with an error saying so.

Spark's own console output is kept off the console: the JVM's stderr goes to a log file
(``kafka-reconciler-spark-*/spark.log`` in the temporary folder), log level WARN while Spark starts, ERROR once it
runs (a log4j2 file, deleted once the JVM has read it), OFF while the probe and the job run and while the session
stops (a failure is explained once, by this module's error), no console progress bar, no web UI, py4j's Python
logger at ERROR. A Spark that cannot start is told in one line: the cause read from its log (the JVM's exception,
or the last error Spark logged, with its root cause) and the log file's path, kept for reading; a session that
stops removes its log. Spark's warning about the address it picked for the driver is repeated on stderr (through
``logging``): a wrong pick leaves remote executors unable to connect. Needs the ``spark`` extra and Java 17.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import re
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.base import errors
from reconciler.fleet import executors, local, planning, rows, sources
from reconciler.fleet import master as master_check
from reconciler.fleet import spark_log as spark_log_file
from reconciler.model import desired

JOB_GROUP_PREFIX = "kafka-reconciler-plan"  # the planning jobs (event logs and benchmarks find them by it)
CHECK_GROUP_PREFIX = "kafka-reconciler-executor-check"  # not a planning job: its task is not counted with them
TASKS_PER_CORE = 4  # at most this many tasks per executor core: balanced when clusters plan unevenly
CLUSTERS_PER_TASK = 16  # and at least this many clusters per task once every core has one (a task costs ~0.1 s)
READS_PER_TASK = local.READ_AHEAD  # clusters a task reads at once (reading is mostly waiting)
CANCEL_GRACE_S = 30.0  # after the run's deadline, how long tasks already reading may take before the job is cancelled
_logs: dict[str, Path] = {}  # Spark application id -> the folder of its log, removed when the session stops
_LOG = logging.getLogger(__name__)


def _require_pyspark() -> Any:
    try:
        import pyspark
        import pyspark.sql
    except ImportError:
        raise errors.ConfigError(
            "the spark engine needs PySpark: pip install 'kafka-reconciler[spark]' (and Java 17)"
        ) from None
    logging.getLogger("py4j").setLevel(logging.ERROR)
    return pyspark


def _builder(builder: Any, *, master: str | None, conf: Mapping[str, str] | None, python: str, log_file: Path) -> Any:
    """The session's settings: no UI or progress bar, the quiet log config, the executors' Python, then ``conf``."""
    builder = (
        builder.appName("kafka-reconciler fleet plan")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_file.as_uri()}")
        .config(executors.PYTHON_SETTING, python)
    )
    if master is not None:
        builder = builder.master(master)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    return builder


def session(
    master: str | None = None, *, conf: Mapping[str, str] | None = None, deadline_at: float | None = None
) -> Any:
    """A quiet SparkSession on ``master``; raises ``ConfigError`` without PySpark or when Spark cannot start.

    Without ``master`` the session is the one ``spark-submit`` configured, or ``local[*]`` when run
    from a plain Python process (PySpark's default). ``conf`` entries are passed to Spark as they are.
    A session not started by ``deadline_at`` (epoch seconds, the run's deadline) is not waited for.
    """
    sessions = _require_pyspark().sql.SparkSession
    master_check.check_reachable(master, conf=conf, deadline_at=deadline_at)  # a minute sooner than Spark says it
    python = executors.executor_python(conf)
    log_dir = Path(tempfile.mkdtemp(prefix="kafka-reconciler-spark-"))
    log_file = log_dir / "log4j2.properties"
    log_file.write_text(spark_log_file.LOG4J2, encoding="utf-8")
    spark_log = log_dir / spark_log_file.LOG_NAME
    loopback = executors.local_settings(master, conf)
    builder = _builder(
        sessions.builder, master=master, conf={**loopback, **(conf or {})}, python=python, log_file=log_file
    )
    # PySpark takes the executors' Python from PYSPARK_PYTHON when the context starts (not from the
    # setting), so it is set for that moment only, as is SPARK_LOCAL_IP for a local master (the JVM picks its
    # own address from it, before any setting is read); the start restores both and removes the log config
    # itself, also when the run's deadline stopped waiting for it.
    saved = executors.start_environment(python, loopback=bool(loopback))
    started: dict[str, Any] = {}
    launched: list[Any] = []

    def start() -> None:
        gateway: Any = importlib.import_module("pyspark.java_gateway")
        popen = gateway.Popen  # recorded, so that a start the deadline gave up on can be ended

        def recorded(*args: Any, **kwargs: Any) -> Any:
            with spark_log.open("ab") as log:  # the JVM's stderr (spark-submit's and log4j's console) to the log
                launched.append(popen(*args, **{**kwargs, "stderr": log}))
            return launched[-1]

        gateway.Popen = recorded
        try:
            started["spark"] = builder.getOrCreate()
        except Exception as exc:  # the JVM failed to start: no Java, wrong Java, bad master URL
            started["error"] = exc
        finally:
            gateway.Popen = popen
            executors.restore_environment(saved)
            log_file.unlink(missing_ok=True)  # read once by the JVM at start

    def give_up() -> None:  # the JVM still starting would hold the console (and its pipes) for many seconds
        for process in launched:
            process.kill()

    where = master or "the default master"
    try:
        _by_deadline(start, deadline_at, doing=f"start Spark on {where}", cancel=give_up)
    except errors.ConfigError:  # the deadline passed: the JVM was ended, its log says nothing more
        shutil.rmtree(log_dir, ignore_errors=True)
        raise
    return _started(started, where=where, log_dir=log_dir)


def _started(started: Mapping[str, Any], *, where: str, log_dir: Path) -> Any:
    """The session ``session`` started, after repeating Spark's warning about the driver's address; when it did not
    start, ``ConfigError`` with the cause read from Spark's log and the log's path (the log is kept)."""
    spark_log = log_dir / spark_log_file.LOG_NAME
    text = spark_log_file.text(spark_log)
    for warning in re.findall(r"^\S+ WARN Utils: (.*)$", text, flags=re.M):
        _LOG.warning("Spark: %s", warning)  # the address Spark picked for the driver (docs/fleet.md)
    if "error" in started:
        cause = spark_log_file.start_failure(text) or str(started["error"]).splitlines()[0]
        raise errors.ConfigError(f"cannot start Spark on {where}: {cause} (Spark's log: {spark_log})")
    spark = started["spark"]
    spark.sparkContext.setLogLevel("ERROR")
    _logs[str(spark.sparkContext.applicationId)] = log_dir
    return spark


# ------------------------------------------------------------------------------ executor environment
_checked: set[str] = set()  # Spark applications whose executors passed the check


def check_executors(spark: Any, *, deadline_at: float | None = None) -> None:
    """Check, once per Spark application, that every executor's Python can run this package: one small task per
    executor core registered (``sc.defaultParallelism``), each answer kept once per executor (host and work
    folder); raise ``ConfigError`` naming an executor that cannot, or when the check has not run by
    ``deadline_at`` (epoch seconds: a cluster without free executors would leave it waiting), then cancelled."""
    sc = spark.sparkContext
    if sc.applicationId in _checked:
        return
    python = str(sc.pythonExec)
    sc.setLogLevel("OFF")  # a failure is explained below, once, instead of Spark's stack traces
    group = f"{CHECK_GROUP_PREFIX}-{uuid.uuid4().hex[:12]}"
    answers: list[executors.Answer] = []
    tasks = max(1, int(sc.defaultParallelism))

    def probe() -> None:
        sc.setJobGroup(group, "kafka-reconciler: executor check", interruptOnCancel=True)
        answers.extend(sc.parallelize(range(tasks), tasks).map(executors.probe()).collect())

    try:
        _by_deadline(probe, deadline_at, doing="run the executor check", cancel=lambda: sc.cancelJobGroup(group))
    except errors.ConfigError:
        raise
    except Exception as exc:  # the level stays OFF: the session is stopped next (``stop``)
        raise errors.ConfigError(
            f"Spark executors cannot start Python {python}: {executors.executor_error(exc)}; {executors.advice(python)}"
        ) from None
    sc.setLogLevel("ERROR")
    checked, bad = executors.problems(answers)
    if bad:
        raise errors.ConfigError(executors.problem_message(bad[0], executors=checked, failing=len(bad)))
    _checked.add(sc.applicationId)


def _by_deadline(
    step: Callable[[], None], deadline_at: float | None, *, doing: str, cancel: Callable[[], None] | None = None
) -> None:
    """Run ``step``, on its own thread when there is a deadline; ``ConfigError`` when it is not done by then.

    ``step``'s exception is re-raised here. A step still running at the deadline is left to end on its own
    (``cancel`` is called first); the process does not wait for it at exit.
    """
    if deadline_at is None:
        step()
        return
    failure: list[BaseException] = []

    def run() -> None:
        try:
            step()
        except BaseException as exc:  # re-raised on the calling thread
            failure.append(exc)

    worker = threading.Thread(target=run, name="fleet-spark-step", daemon=True)
    worker.start()
    worker.join(timeout=max(0.0, deadline_at - time.time()))
    if worker.is_alive():
        if cancel is not None:
            with contextlib.suppress(Exception):
                cancel()
        raise errors.ConfigError(
            f"could not {doing} before the run's deadline (--deadline) passed; no cluster was planned: allow a "
            "longer deadline, or check the Spark master and its free executors"
        )
    if failure:
        raise failure[0]


def stop(spark: Any) -> None:
    """Stop ``spark`` with Spark's own logging off: while an application stops, its executors and the
    master still send it messages, which Spark logs as ERROR with a stack trace (``TransportRequestHandler
    ... Could not find AppClient``) after the run has already said what happened. The session's log (``session``)
    is removed."""
    with contextlib.suppress(Exception):
        spark.sparkContext.setLogLevel("OFF")
    application = str(spark.sparkContext.applicationId)
    spark.stop()
    log_dir = _logs.pop(application, None)
    if log_dir is not None:
        shutil.rmtree(log_dir, ignore_errors=True)


# ------------------------------------------------------------------------------------------- the job
def _plan_partition(
    sets: Mapping[str, Any], deadline_at: float | None
) -> Callable[[Iterator[sources.ClusterTask]], Iterator[planning.ClusterOutcome]]:
    def run(tasks: Iterator[sources.ClusterTask]) -> Iterator[planning.ClusterOutcome]:
        # A cluster that is down is reported by its error row; kafka-python's retry log lines would
        # only repeat that on the console of every executor.
        logging.getLogger("kafka").setLevel(logging.CRITICAL)
        batch = list(tasks)
        values = {key: sets[key].value for key in {t.desired_key for t in batch}}
        yield from local.run_local(
            batch,
            {key: sources.DesiredSet(key, wanted, {}) for key, (wanted, _) in values.items()},
            read_ahead=READS_PER_TASK,
            deadline_at=deadline_at,
            want_rows={key: want for key, (_, want) in values.items()},
        )

    return run


def partitions(clusters: int, *, cores: int, max_parallel: int | None = None) -> int:
    """How many tasks plan ``clusters``: ``max_parallel`` when given; else one per executor core (Spark's
    default parallelism), more (up to ``TASKS_PER_CORE`` per core) only while each still gets
    ``CLUSTERS_PER_TASK`` clusters; never more than one per cluster."""
    if max_parallel is not None:
        return max(1, min(max_parallel, clusters))
    cores = max(1, cores)
    return max(1, min(clusters, max(cores, min(cores * TASKS_PER_CORE, clusters // CLUSTERS_PER_TASK))))


def _finished_tasks(sc: Any, group: str) -> int:
    tracker = sc.statusTracker()
    done = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info else ():
            stage_info = tracker.getStageInfo(stage)
            done += stage_info.numCompletedTasks if stage_info else 0
    return done


def _broadcasts(
    sc: Any, ordered: Sequence[sources.ClusterTask], desired_sets: Mapping[str, sources.DesiredSet]
) -> dict[str, Any]:
    """One broadcast per manifest set the tasks use: its desired state and its desired rows."""
    broadcasts: dict[str, Any] = {}
    for task in ordered:
        if task.desired_key not in broadcasts:
            wanted: desired.DesiredState | None = desired_sets[task.desired_key].desired
            assert wanted is not None  # tasks are only made for manifest sets that loaded
            broadcasts[task.desired_key] = sc.broadcast((wanted, list(rows.desired_rows(wanted))))
    return broadcasts


def _start_and_watch(
    worker: threading.Thread,
    sc: Any,
    *,
    group: str,
    slices: int,
    deadline_at: float | None,
    on_progress: Callable[[int, int], None] | None,
) -> tuple[bool, int]:
    """Start the job's thread and wait for it, reporting finished tasks; cancel the job ``CANCEL_GRACE_S`` past the
    deadline. Whether it was cancelled, and the count of finished tasks last reported (-1: none)."""
    cancelled = False
    reported = -1
    worker.start()
    while worker.is_alive():
        worker.join(timeout=0.5)
        if on_progress is not None:
            done = _finished_tasks(sc, group)
            if done != reported:
                on_progress(done, slices)
                reported = done
        if deadline_at is not None and not cancelled and time.time() > deadline_at + CANCEL_GRACE_S:
            sc.cancelJobGroup(group)
            cancelled = True
    return cancelled, reported


def run_spark(
    tasks: Sequence[sources.ClusterTask],
    desired_sets: Mapping[str, sources.DesiredSet],
    *,
    spark: Any,
    max_parallel: int | None = None,
    deadline_at: float | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[planning.ClusterOutcome]:
    """Plan every task's cluster on ``spark`` in one job; outcomes in task order.

    ``max_parallel`` sets how many tasks share the clusters (``partitions``; by default
    ``TASKS_PER_CORE`` per executor core); each task reads up to ``READS_PER_TASK`` of its clusters
    at once. ``on_progress(done, total)`` reports finished tasks while the job runs. Clusters whose
    read would start after ``deadline_at`` (epoch seconds) come out ``skipped``; if the job is still
    running ``CANCEL_GRACE_S`` later it is cancelled and every cluster comes out ``skipped``.
    """
    if not tasks:
        return []
    check_executors(spark, deadline_at=deadline_at)
    sc = spark.sparkContext
    ordered = sorted(tasks, key=lambda t: t.desired_key)  # a partition's clusters share manifest sets
    broadcasts = _broadcasts(sc, ordered, desired_sets)
    slices = partitions(len(ordered), cores=sc.defaultParallelism, max_parallel=max_parallel)
    group = f"{JOB_GROUP_PREFIX}-{uuid.uuid4().hex[:12]}"
    produced: list[planning.ClusterOutcome] = []
    failure: list[BaseException] = []

    def job() -> None:
        sc.setJobGroup(group, f"kafka-reconciler: plan {len(ordered)} cluster(s)", interruptOnCancel=True)
        # A failed task is explained once by the error below (the executor's own exception), not by
        # Spark's task-failure stack traces on the console.
        sc.setLogLevel("OFF")
        try:
            rdd = sc.parallelize(ordered, numSlices=slices)
            produced.extend(rdd.mapPartitions(_plan_partition(broadcasts, deadline_at)).collect())
            sc.setLogLevel("ERROR")
        except BaseException as exc:  # re-raised on the calling thread
            failure.append(exc)

    worker = threading.Thread(target=job, name="fleet-spark-job", daemon=True)
    try:
        cancelled, reported = _start_and_watch(
            worker, sc, group=group, slices=slices, deadline_at=deadline_at, on_progress=on_progress
        )
    finally:
        for broadcast in broadcasts.values():
            broadcast.unpersist()
    if cancelled:
        return [planning.skipped(t.name) for t in tasks]
    if on_progress is not None and not failure and reported != slices:
        on_progress(slices, slices)
    if failure:
        python = str(sc.pythonExec)
        raise errors.ConfigError(
            f"the Spark job failed in an executor running {python}: {executors.executor_error(failure[0])}; "
            f"if that is an import or version error, {executors.advice(python)}"
        ) from None
    by_name = {o.cluster: o for o in produced}
    return [by_name[t.name] for t in tasks]
