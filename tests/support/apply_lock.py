"""The cluster's apply lock seen from a test: its group's members, and a process that holds the lock until killed.

``members(cluster)`` reads the lock's group with plain kafka-python (FindCoordinator, DescribeGroups), as an
operator's tool would: the holder records (``reconciler.kafka.lock_holder.Holder``) of its members, empty when the
lock is free. ``python -m tests.support.apply_lock BOOTSTRAP`` holds the lock through the tool's own code and prints
``held PID`` once it does; it releases the lock when its stdin closes, and a SIGKILL leaves the group to expire.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from kafka.protocol.admin.groups import DescribeGroupsRequest

from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import lock
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.lock_holder import Holder
from tests.kafka.cluster import KafkaCluster
from tests.support.live import REPO


def members(cluster: KafkaCluster) -> list[Holder | None]:
    """The holder record of each member of the lock's group (``None`` for a member whose record is not shown yet)."""
    with cluster.admin_session() as admin:

        async def describe() -> Any:
            coordinators = await admin._find_coordinator_ids([lock.GROUP_ID])
            request = DescribeGroupsRequest(groups=[lock.GROUP_ID], include_authorized_operations=False)
            return await admin._manager.send(request, node_id=coordinators[lock.GROUP_ID])

        response = admin._manager.run(describe)
    group = response.groups[0]
    return [Holder.from_bytes(m.member_metadata) for m in group.members]


def start_holder(bootstrap: str) -> subprocess.Popen[str]:
    """A process holding the lock of the cluster at ``bootstrap``, once it has printed ``held PID``."""
    holder = subprocess.Popen(
        [sys.executable, "-m", "tests.support.apply_lock", bootstrap],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    line = holder.stdout.readline()  # bounded: the lock's own waits end by its deadline, then the process exits
    assert line.strip() == f"held {holder.pid}", (line, holder.stderr.read() if holder.stderr else "")
    return holder


def _main(bootstrap: str) -> None:
    with KafkaAdapter(ConnectionSettings(bootstrap_servers=(bootstrap,))) as adapter:
        held = adapter.apply_lock(plan="a test that holds the lock", wait_s=0, deadline_s=120)
        try:
            print(f"held {held.holder.pid}", flush=True)
            sys.stdin.read()  # until the test closes stdin (or kills this process)
        finally:
            held.release()


if __name__ == "__main__":
    _main(sys.argv[1])
