"""The apply walk: which of the tool's modules ``reconciler.apply.engine.apply_plan`` enters for a plan with changes
of every kind.

In memory, nothing timed and nothing asserted: the Kafka side is the unit tests' ``RecordingAdapter`` holding
``tests.support.kind_samples.LIVE`` (one resource of every Kafka kind), Kafka Connect is the in-memory worker
(``tests.support.connect_fake``, empty: the connector is created) and the Schema Registry the in-memory registry
(``tests.support.registry_fake``, holding the sample subject's first version: a new one is registered). The plan is
the planner's for ``kind_samples.WANTED`` against what those three hold; it changes each of the nine kinds.

The plan is applied once untraced (so the modules a part imports on first use are imported), then again on fresh
fakes with a profiler (``sys.setprofile`` and ``threading.setprofile``: the connector phase reads back on threads)
that records the module of every function of ``reconciler`` called while ``apply_plan`` runs. Printed: the phases
the plan holds, the modules entered (``--by-phase``: the modules each phase's runner enters besides those entered
before its first phase) and their count. How a phase's runner is reached is what this shows: a runner found
through a kind's declaration, rather than through per-kind tables spread over several dispatch modules, enters
fewer modules.

    .venv/bin/python -m benchmarks.apply_walk [--by-phase]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.connect.port import RestConnectPort
from reconciler.kinds.connector import evidence as connect_evidence
from reconciler.kinds.schema_subject import evidence as registry_evidence
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.model import plans
from reconciler.planner import plan
from reconciler.registry.port import RestRegistryPort
from tests.support import kind_samples
from tests.support.connect_fake import FakeConnectWorker
from tests.support.recording import RecordingAdapter
from tests.support.registry_fake import FakeRegistry

PACKAGE = Path(__file__).resolve().parents[1] / "reconciler"
ENVIRON = {"APP_PASSWORD": "walk-password"}  # the sample SCRAM user's password reference


def _module(filename: str) -> str | None:
    """``reconciler.apply.engine`` for ``.../reconciler/apply/engine.py``; ``None`` outside the package."""
    path = Path(filename)
    if not path.is_relative_to(PACKAGE):
        return None
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _setting() -> tuple[plans.Plan, RecordingAdapter, ApplyOptions]:
    """A fresh cluster, Connect worker and registry, and the plan of ``kind_samples.WANTED`` against them."""
    live = kind_samples.LIVE
    adapter = RecordingAdapter(
        topics=dict(live.topics or {}),
        acls=set(live.acls or ()),
        quotas={e: dict(v) for e, v in (live.quotas or {}).items()},
        scram={u: {c.mechanism: c.iterations for c in creds} for u, creds in (live.scram_users or {}).items()},
        broker_configs={b: dict(c) for b, c in (live.broker_configs or {}).items()},
        group_configs={g: dict(c) for g, c in (live.group_configs or {}).items()},
        client_metrics={m: dict(c) for m, c in (live.client_metrics or {}).items()},
        brokers=live.brokers,
        cluster_id=live.cluster_id or "c-1",
    )
    connect = RestConnectPort(FakeConnectWorker(regenerate_s=0.0, restart_s=0.0))
    registry = RestRegistryPort(FakeRegistry())
    deadline = time.monotonic() + 30
    registry.register("orders-value", kind_samples.ORDER_V1, schema_type="AVRO", deadline=deadline)
    wanted = kind_samples.WANTED
    read = subject_state.with_live_subjects(
        dataclasses.replace(
            adapter.read_state(kinds=wanted.needs()),
            connect=connect_evidence.read_for_plan(connect, wanted, deadline=deadline, environ=ENVIRON),
        ),
        registry_evidence.subjects_for_plan(registry, wanted, deadline=deadline),
    )
    options = ApplyOptions(
        ports={"connect": connect, "registry": registry}, desired=wanted, environ=ENVIRON, settle_s=5.0
    )
    return plan(wanted, read), adapter, options


@dataclasses.dataclass
class _Walk:
    """The modules entered, in the order first entered, and (``by_phase``) the first phase each was entered in."""

    modules: dict[str, str] = dataclasses.field(default_factory=dict)
    phase: str = "(before the phases)"
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        module = _module(frame.f_code.co_filename)
        if module is None:
            return
        if module == "reconciler.apply.stopping" and frame.f_code.co_name == "run_phase":
            self.phase = frame.f_locals["phase"].name  # the phase a runner is started for
        elif module == "reconciler.apply.engine" and frame.f_code.co_name == "_converged":
            self.phase = "(the read-back after the phases)"
        with self.lock:
            self.modules.setdefault(module, self.phase)


def walk() -> tuple[ApplyReport, plans.Plan, _Walk]:
    """Apply the plan once untraced, then on fresh fakes with the profiler on."""
    p, adapter, options = _setting()
    apply_plan(p, adapter, options=options)
    p, adapter, options = _setting()
    seen = _Walk()
    threading.setprofile(seen)
    sys.setprofile(seen)
    try:
        report = apply_plan(p, adapter, options=options)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return report, p, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--by-phase", action="store_true", help="group the modules by the phase first entering them")
    args = parser.parse_args()
    report, p, seen = walk()
    kinds = sorted({c.kind.value for c in p.actionable})
    phases = sorted({c.phase for c in p.actionable})
    print(f"plan: {len(p.actionable)} change(s) of {len(kinds)} kind(s) ({', '.join(kinds)})")
    print(f"phases: {', '.join(ph.name for ph in phases)}")
    outcomes = sorted({i.outcome.value for i in report.items})
    print(f"outcomes: {', '.join(outcomes)}; converged: {report.converged}")
    if args.by_phase:
        groups: dict[str, list[str]] = {}
        for module, phase in seen.modules.items():
            groups.setdefault(phase, []).append(module)
        for phase, modules in groups.items():
            print(f"{phase}: {len(modules)}")
            for module in sorted(modules):
                print(f"  {module}")
    else:
        for module in sorted(seen.modules):
            print(f"  {module}")
    print(f"modules entered from apply_plan: {len(seen.modules)}")


if __name__ == "__main__":
    main()
