"""How the Spark engine spreads clusters over tasks: one task per executor core, more only for large fleets."""

from __future__ import annotations

from reconciler.fleet import spark as spark_engine


def test_small_fleets_get_one_task_per_core_and_large_ones_up_to_four() -> None:
    layout = spark_engine.partitions
    assert layout(40, cores=2) == 2  # 20 clusters per task: the task's fixed cost is paid twice, not 40 times
    assert layout(500, cores=2) == 8  # four per core: a slow cluster holds back a quarter of a core's share
    assert layout(100, cores=2) == 6  # at least 16 clusters per task once every core has one
    assert layout(500, cores=200) == 200  # every core works
    assert layout(3, cores=8) == 3  # never more tasks than clusters
    assert layout(1, cores=0) == 1


def test_read_concurrency_sets_the_number_of_tasks() -> None:
    assert spark_engine.partitions(40, cores=2, max_parallel=40) == 40
    assert spark_engine.partitions(40, cores=2, max_parallel=100) == 40
    assert spark_engine.partitions(40, cores=2, max_parallel=1) == 1
