"""Where the Spark engine runs: which masters are local (their driver stays on loopback), and how the executor
check's answers are kept once per executor and judged; which addresses a standalone master is checked at."""

from __future__ import annotations

import pytest

import reconciler
from reconciler.fleet import executors, master


def test_local_masters_keep_the_driver_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    loopback = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
    assert executors.local_settings("local[*]", None) == loopback
    assert executors.local_settings(None, None) == loopback  # PySpark's default master is local[*]
    assert executors.local_settings(None, {"spark.master": "local[2]"}) == loopback
    assert executors.local_settings("local[2]", {"spark.driver.host": "10.0.0.5"}) == {
        "spark.driver.bindAddress": "127.0.0.1"
    }  # what the user set stays
    assert executors.local_settings("spark://master:7077", None) == {}
    assert executors.local_settings("yarn", None) == {}
    monkeypatch.setenv("PYSPARK_GATEWAY_PORT", "41000")  # under spark-submit: its master, not ours to guess
    assert executors.local_settings(None, None) == {}


def test_each_executor_is_judged_once() -> None:
    ok = f"ok {reconciler.__version__}"
    answers = [
        ("w1", "/work/app/0", "/opt/py", "3.11.2", ok),
        ("w1", "/work/app/0", "/opt/py", "3.11.2", ok),  # a second task on the same executor
        ("w1", "/work/app/1", "/opt/py", "3.11.2", "ModuleNotFoundError: No module named 'reconciler'"),
        ("w2", "/work/app/2", "/opt/py", "3.11.2", "ok 0.0.1"),
    ]
    checked, bad = executors.problems(answers)
    assert checked == 3 and [b[1] for b in bad] == ["/work/app/1", "/work/app/2"]
    message = executors.problem_message(bad[1], executors=checked, failing=len(bad))
    assert message.startswith("the Spark executor on w2 (working in /work/app/2) ran /opt/py (Python 3.11.2)")
    assert "found kafka-reconciler 0.0.1 (not the driver's) (2 of 3 executor(s) checked fail)" in message
    assert executors.problems(answers[:2]) == (1, [])


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("spark://spark-master:7077", [("spark-master", 7077)]),
        ("spark://m1:7077,m2:7078", [("m1", 7077), ("m2", 7078)]),  # a master with a standby
        ("spark://[::1]:7077", [("::1", 7077)]),
        ("spark://spark-master", []),  # no port: Spark rejects the URL itself, and says so
        ("spark://m1:port", []),
        ("local[2]", []),
        ("yarn", []),
        ("k8s://https://10.0.0.1:6443", []),
    ],
)
def test_the_addresses_a_standalone_master_is_checked_at_before_spark_starts(
    url: str, found: list[tuple[str, int]]
) -> None:
    assert master.addresses(url) == found
