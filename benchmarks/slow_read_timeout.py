"""``apply PATHS --timeout 5`` through 2 s of latency on every read of the broker's answers, against start-up.

Starts one KRaft node of the test harness behind the fault proxy (``tests/support/faultproxy.py``: the node advertises
the proxy's address) and runs, ``--runs`` times, interleaved in each run:

1. the start-up baseline: ``kafka-reconciler validate PATHS`` on the same manifests (interpreter, imports, manifest
   load and validation, no network), wall seconds;
2. ``apply PATHS --auto-approve --timeout 5`` of ``--topics`` new topics (fresh names each run) with every answer
   of the broker held 2 s from the first request on (planning's reads included);
3. the same with the 2 s held from the first CreateTopics on (planning fast, the writes' answers and the read-back
   slow).

For each apply it prints the wall seconds, the wall minus that run's baseline (the figure to hold to the timeout
plus 2 s), the apply part the report states, the exit code and the outcome counts; then the median and maximum of
the wall minus baseline, and the load average before and after. Asserts nothing.

    .venv/bin/python -m benchmarks.slow_read_timeout [--runs 5] [--topics 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.kafka.kinds import proxied_node
from tests.support.faultproxy import CREATE_TOPICS, FaultProxy
from tests.support.integration import ownership, write_manifests
from tests.support.manifest_texts import topic_documents

TIMEOUT_S = 5
LATENCY_S = 2.0


def timed(args: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KAFKA_")}
    environ["NO_COLOR"] = "1"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "reconciler", *args], env=environ, capture_output=True, text=True)
    return time.perf_counter() - started, done


def manifests(root: Path, count: int) -> Path:
    prefix = f"b-{uuid.uuid4().hex[:6]}-"
    specs = {f"{prefix}{i:04d}": (1, 1, {"retention.ms": "3600000"}) for i in range(count)}
    return write_manifests(root / prefix, ownership(prefix) + "\n---\n" + topic_documents(specs))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--topics", type=int, default=20)
    args = parser.parse_args()
    over: dict[str, list[float]] = {"every read": [], "from CreateTopics": []}
    print(f"load before: {os.getloadavg()}")
    with FaultProxy() as proxy, tempfile.TemporaryDirectory() as tmp:
        cluster = proxied_node(proxy)
        try:
            for run in range(args.runs):
                path = manifests(Path(tmp), args.topics)
                baseline, done = timed(["validate", str(path)])
                assert done.returncode == 0, done.stdout + done.stderr
                print(f"run {run + 1}: start-up baseline (validate) {baseline:.1f}s")
                for shape, gate in (("every read", None), ("from CreateTopics", CREATE_TOPICS)):
                    path = manifests(Path(tmp), args.topics)
                    proxy.set(latency_s=LATENCY_S, latency_from_api=gate)
                    apply = ["apply", str(path), "--auto-approve", "--format", "json", "--timeout", str(TIMEOUT_S)]
                    wall, done = timed([*apply, "--bootstrap-server", proxy.address])
                    proxy.set()
                    try:
                        report = json.loads(done.stdout)
                        part, counts = report["duration_s"], {k: v for k, v in report["counts"].items() if v}
                    except ValueError:
                        part, counts = None, {"error": done.stderr.strip()[-160:]}
                    over[shape].append(wall - baseline)
                    print(
                        f"  {shape:<18} exit {done.returncode}, wall {wall:.1f}s, minus baseline "
                        f"{wall - baseline:.1f}s, apply part {part}s: {counts}"
                    )
        finally:
            cluster.close()
    print(f"load after: {os.getloadavg()}")
    for shape, figures in over.items():
        print(
            f"{shape}: wall minus start-up, median {statistics.median(figures):.1f}s, max {max(figures):.1f}s "
            f"(--timeout {TIMEOUT_S}: at most {TIMEOUT_S + 2}s wanted)"
        )


if __name__ == "__main__":
    main()
