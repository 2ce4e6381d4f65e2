"""Fuzz campaign: hostile manifests never crash the tool, every error is located, invalid input writes nothing.

Runs ``--cases`` generated inputs (hypothesis strategies plus mutations of the real examples, see
``tests/support/fuzzing.py``; deep nesting, huge numbers and values at the wire types' limits, see
``tests/support/fuzz_edges.py``) through the manifest loader every command uses, each in a forked child with
a deadline so that a crash of the C parser or a hang is counted rather than ending the run. A manifest found
valid must hold only numbers that fit their wire type. Then hand-edited plan files (resealed, and with deep
nesting or huge numbers spliced in) go through the plan loader and apply's checks, and the CLI ``apply`` runs
on a sample of the rejected manifests against a real Kafka node (SASL with an authorizer, started here on free
ports), comparing the cluster's topics, configs, ACLs, quotas and SCRAM users before and after.

    .venv/bin/python benchmarks/fuzz_campaign.py                 # 10,000 cases, 200 applied
    .venv/bin/python benchmarks/fuzz_campaign.py --cases 1000 --apply-sample 20

Prints a markdown table of the figures (docs/reliability.md records them). Exit status 1 if any case crashed,
left an error without a file and line, or changed the cluster.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, seed, settings
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model.kinds import Kind
from reconciler.snapshot import files
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import sasl_node
from tests.support.fuzz_edges import (
    ALL_STRATEGIES,
    check_edge_case,
    check_plan_text,
    hostile_plan_texts,
    isolated,
)
from tests.support.fuzzing import Case, Tally, check_plan, edited_plans

CASE_DEADLINE_S = 60.0  # a case without a verdict after this long is a hang


def _campaign(strategy: Any, *, tally: Tally, rejected: list[Case], examples: int, rng_seed: int) -> Callable[[], None]:
    @seed(rng_seed)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(case: Case) -> None:
        verdict, detail = isolated(check_edge_case, case, deadline_s=CASE_DEADLINE_S)
        tally.add(verdict, detail)
        if verdict == "rejected":
            rejected.append(dict(case))

    return one  # type: ignore[no-any-return]


def run_plans(total: int, *, rng_seed: int) -> Tally:
    """Hand-edited, resealed plan files through the loader and apply's checks (in-memory adapter)."""
    tally = Tally()

    @seed(rng_seed)
    @settings(max_examples=total, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(edited_plans())
    def one(doc: dict[str, Any]) -> None:
        verdict, detail = isolated(check_plan, doc, deadline_s=CASE_DEADLINE_S)
        tally.add(verdict, detail)

    one()
    return tally


def run_hostile_plans(total: int, *, rng_seed: int) -> Tally:
    """Plan files with deep nesting, huge numbers or wire-limit values, read from disk as ``apply --plan`` does."""
    tally = Tally()

    @seed(rng_seed)
    @settings(max_examples=total, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(hostile_plan_texts())
    def one(text: str) -> None:
        verdict, detail = isolated(check_plan_text, text, deadline_s=CASE_DEADLINE_S)
        tally.add(verdict, detail)

    one()
    return tally


def run_offline(total: int, *, rng_seed: int) -> tuple[dict[str, Tally], list[Case]]:
    """Every strategy gets an equal share of ``total``; returns the tallies and the rejected cases."""
    share = max(1, total // len(ALL_STRATEGIES))
    tallies: dict[str, Tally] = {}
    rejected: list[Case] = []
    for name, strategy in ALL_STRATEGIES.items():
        tally = Tally()
        started = time.monotonic()
        _campaign(strategy, tally=tally, rejected=rejected, examples=share, rng_seed=rng_seed)()
        tallies[name] = tally
        print(f"{name}: {tally.cases} cases in {time.monotonic() - started:.1f}s {dict(tally.classes)}", flush=True)
    return tallies, rejected


def cluster_state(cluster: KafkaCluster) -> dict[str, Any]:
    """Topics (with configs), ACLs, quotas, SCRAM users and broker configs, as JSON-ready data."""
    admin = cluster.admin
    assert admin is not None
    settings_ = ConnectionSettings(
        bootstrap_servers=tuple(cluster.bootstrap.split(",")),
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        username=admin.username,
        password=Secret(admin.password),
    )
    with KafkaAdapter(settings_) as adapter:
        live = adapter.read_state(kinds=frozenset(Kind))
    doc = files.to_json_dict(live)
    return {k: doc.get(k) for k in ("topics", "acls", "quotas", "scram_users", "broker_configs")}


def run_applies(cases: list[Case], *, cluster: KafkaCluster, every: int) -> dict[str, Any]:
    """CLI ``apply --auto-approve`` on each case; the cluster state before, after, and every ``every`` cases."""
    admin = cluster.admin
    assert admin is not None
    runner = CliRunner()
    figures: dict[str, Any] = {"applied_cases": 0, "exit_1": 0, "tracebacks": 0, "state_checks": 0, "changed": 0}
    with tempfile.TemporaryDirectory() as tmp:
        props = Path(tmp) / "admin.properties"
        props.write_text(
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="{admin.username}" password="{admin.password}";\n'
        )
        before = cluster_state(cluster)
        for index, case in enumerate(cases):
            root = Path(tmp) / f"case{index}"
            for name, content in case.items():
                path = root / name
                path.parent.mkdir(parents=True, exist_ok=True)
                if isinstance(content, bytes):
                    path.write_bytes(content)
                else:
                    path.write_text(content, encoding="utf-8", errors="surrogatepass")
            result = runner.invoke(
                app,
                ["apply", str(root), "--auto-approve", "--bootstrap-server", cluster.bootstrap,
                 "--command-config", str(props)],
                env={"PAYMENTS_SCRAM_PASSWORD": "fuzz-password"},
            )  # fmt: skip
            logging.getLogger().handlers.clear()  # the command's log handler wrote to the runner's closed stream
            figures["applied_cases"] += 1
            figures["exit_1"] += result.exit_code == 1
            output = result.output + (result.stderr if result.stderr_bytes is not None else "")
            crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
            if "Traceback" in output or "internal error" in output or crashed:
                figures["tracebacks"] += 1
                print(f"case {index}: exit {result.exit_code}: {output[-400:]}", file=sys.stderr)
            if (index + 1) % every == 0:
                figures["state_checks"] += 1
                figures["changed"] += cluster_state(cluster) != before
        figures["state_checks"] += 1
        figures["changed"] += cluster_state(cluster) != before
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=16_000)
    parser.add_argument("--apply-sample", type=int, default=200, help="rejected cases applied to a real broker")
    parser.add_argument("--plan-cases", type=int, default=5_000, help="hand-edited, resealed plan files")
    parser.add_argument("--hostile-plan-cases", type=int, default=1_000, help="plans with deep nesting, huge numbers")
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()

    started = time.monotonic()
    tallies, rejected = run_offline(args.cases, rng_seed=args.seed)
    offline_s = time.monotonic() - started
    started = time.monotonic()
    plans = run_plans(args.plan_cases, rng_seed=args.seed)
    plans_s = time.monotonic() - started
    print(f"edited plans: {plans.cases} cases in {plans_s:.1f}s {dict(plans.classes)}", flush=True)
    started = time.monotonic()
    hostile = run_hostile_plans(args.hostile_plan_cases, rng_seed=args.seed)
    hostile_s = time.monotonic() - started
    print(f"hostile plan files: {hostile.cases} cases in {hostile_s:.1f}s {dict(hostile.classes)}", flush=True)
    sample = rejected[:: max(1, len(rejected) // max(args.apply_sample, 1))][: args.apply_sample]
    cluster = sasl_node()
    try:
        version = cluster.version
        started = time.monotonic()
        applied = run_applies(sample, cluster=cluster, every=20)
        apply_s = time.monotonic() - started
    finally:
        cluster.close()

    total = sum(t.cases for t in tallies.values())
    crashes = sum(t.classes["crash"] for t in tallies.values())
    hangs = sum(t.classes["hang"] for t in tallies.values())
    unlocated = sum(t.classes["unlocated"] for t in tallies.values())
    out_of_range = sum(t.classes["out of range"] for t in tallies.values())
    print()
    print(f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; Kafka {version}")
    print(f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; seed {args.seed}")
    print()
    print(
        "| input class | cases | valid | rejected, located | error without file:line | valid but out of wire range "
        "| crashes | hangs |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, t in tallies.items():
        c = t.classes
        print(
            f"| {name} | {t.cases:,} | {c['valid']:,} | {c['rejected']:,} | {c['unlocated']} | {c['out of range']} "
            f"| {c['crash']} | {c['hang']} |"
        )
    print(f"| **total** | **{total:,}** | | | **{unlocated}** | **{out_of_range}** | **{crashes}** | **{hangs}** |")
    print()
    print(
        f"Offline: {total:,} cases in {offline_s:.0f}s. CLI apply of {applied['applied_cases']} rejected cases against "
        f"a real broker in {apply_s:.0f}s: exit 1 in {applied['exit_1']}, tracebacks {applied['tracebacks']}, "
        f"cluster state compared {applied['state_checks']} times, changed {applied['changed']} times."
    )
    pc = plans.classes
    print(
        f"Edited and resealed plan files: {plans.cases:,} in {plans_s:.0f}s: "
        f"refused at load {pc['refused at load']:,}, "
        f"refused before writing {pc['refused before writing']:,}, passed the checks {pc['passed the checks']:,}, "
        f"crashes {pc['crash']}, hangs {pc['hang']}."
    )
    hc = hostile.classes
    print(
        f"Plan files with deep nesting, huge numbers or wire-limit values: {hostile.cases:,} in {hostile_s:.0f}s: "
        f"refused at load {hc['refused at load']:,}, refused before writing {hc['refused before writing']:,}, "
        f"passed the checks {hc['passed the checks']:,}, crashes {hc['crash']}, hangs {hc['hang']}."
    )
    for t in [*tallies.values(), plans, hostile]:
        for problem in t.problems[:3]:
            print("\nPROBLEM:", problem[:1200])
    print(
        json.dumps(
            {"cases": total, "crashes": crashes, "hangs": hangs, "unlocated": unlocated, "out_of_range": out_of_range,
             "plans": dict(pc), "hostile_plans": dict(hc), **applied}
        )
    )  # fmt: skip
    bad = crashes or hangs or unlocated or out_of_range or applied["tracebacks"] or applied["changed"]
    bad = bad or any(t.classes["crash"] or t.classes["hang"] for t in (plans, hostile))
    bad = bad or applied["exit_1"] != applied["applied_cases"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
