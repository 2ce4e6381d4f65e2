"""The in-process fleet engine (the default): hash joins per cluster, no JVM, bounded memory.

The Spark engine runs the same loop inside each of its tasks, over the task's share of the clusters.

Clusters are handled one at a time in fleet order, so memory holds one cluster's rows (plus the
reads in flight), not the fleet's. Live reads run ahead on a small thread pool: reading over the
wire is mostly waiting, and a cluster that times out does not hold up the others' planning.
"""

from __future__ import annotations

import collections
import concurrent.futures
from collections.abc import Callable, Iterator, Mapping, Sequence

from reconciler.fleet import planning, rows, sources
from reconciler.model import desired

READ_AHEAD = 8


def _read(task: sources.ClusterTask, wanted: desired.DesiredState, deadline_at: float | None) -> list[rows.Row] | None:
    bounded = sources.within_deadline(task, deadline_at)
    return None if bounded is None else sources.read_live_rows(bounded, wanted)


def run_local(
    tasks: Sequence[sources.ClusterTask],
    desired_sets: Mapping[str, sources.DesiredSet],
    *,
    on_read: Callable[[str, int], None] | None = None,
    read_ahead: int = READ_AHEAD,
    deadline_at: float | None = None,
    want_rows: Mapping[str, list[rows.Row]] | None = None,
) -> Iterator[planning.ClusterOutcome]:
    """Plan each task's cluster; yields outcomes in task order. ``on_read(cluster, rows)`` after each read.

    At most ``read_ahead`` clusters are read at once. A cluster whose read would start after
    ``deadline_at`` (epoch seconds) is not read and comes out ``skipped``. ``want_rows`` holds the
    desired rows of manifest sets already flattened (the Spark engine broadcasts them).
    """
    desired_rows: dict[str, list[rows.Row]] = dict(want_rows or {})
    if not tasks:
        return
    workers = max(1, min(read_ahead, len(tasks)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fleet-read") as pool:
        pending: collections.deque[tuple[sources.ClusterTask, concurrent.futures.Future[list[rows.Row] | None]]]
        pending = collections.deque()
        queue = iter(tasks)

        def submit() -> None:
            task = next(queue, None)
            if task is not None:
                wanted = desired_sets[task.desired_key].desired
                assert wanted is not None  # tasks are only made for manifest sets that loaded
                pending.append((task, pool.submit(_read, task, wanted, deadline_at)))

        for _ in range(workers):
            submit()
        while pending:
            task, future = pending.popleft()
            live = future.result()
            submit()
            if live is None:
                yield planning.skipped(task.name)
                continue
            if on_read is not None:
                on_read(task.name, len(live))
            want = desired_rows.get(task.desired_key)
            if want is None:
                wanted = desired_sets[task.desired_key].desired
                assert wanted is not None
                want = desired_rows[task.desired_key] = list(rows.desired_rows(wanted))
            joined = planning.hash_join(want, live)
            del live
            yield planning.plan_joined(task.name, joined)
