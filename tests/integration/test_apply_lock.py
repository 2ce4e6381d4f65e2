"""The cluster's apply lock on real brokers: two applies at once, a holder killed, --no-lock, a principal without
the group's rights.

Each apply is the command line in a process of its own. A holder the test controls (``tests.support.apply_lock``:
the tool's own lock code in another process) makes the timing deterministic: applies started while it holds the
lock must wait or refuse, whatever the machine's load. The cluster is read directly afterwards.
"""

from __future__ import annotations

import functools
import getpass
import json
import secrets
import signal
import socket
import time
from pathlib import Path

import pytest

from reconciler.connection.settings import Secret
from reconciler.kafka import lock
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ScramDeletion, ScramUpsert
from tests.kafka.cluster import KafkaCluster
from tests.support import apply_lock
from tests.support.builders import acl
from tests.support.integration import ownership, write_manifests
from tests.support.live import cli, settings, topics_state
from tests.support.manifest_texts import topic_documents
from tests.support.polling import eventually
from tests.support.running import Running

pytestmark = pytest.mark.kafka


def manifests(directory: Path, prefix: str, side: str) -> Path:
    """30 topics ``<prefix><side>NN`` under an Ownership of the whole prefix that deletes undeclared topics."""
    specs: dict[str, tuple[int, int, dict[str, str]]] = {f"{prefix}{side}{i:02d}": (1, 1, {}) for i in range(30)}
    return write_manifests(directory, ownership(prefix, delete_topics=True) + "\n---\n" + topic_documents(specs))


def planned(directory: Path, cluster: KafkaCluster, out: Path) -> Path:
    made = cli(["plan", str(directory), "--bootstrap-server", cluster.bootstrap, "--out", str(out)])
    assert made.returncode == 0, made.stdout + made.stderr
    return out


@pytest.mark.every_version
def test_an_apply_against_a_locked_cluster_refuses_at_once_naming_the_holder_and_writes_nothing(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    root = manifests(tmp_path / "m", topic_prefix, "a")
    holder = apply_lock.start_holder(kafka_single.bootstrap)
    try:
        refused = cli(["apply", str(root), "--bootstrap-server", kafka_single.bootstrap, "--auto-approve"])
        still = apply_lock.members(kafka_single)
    finally:
        holder.communicate(timeout=60)  # closes its stdin: it releases the lock and exits

    assert refused.returncode == 1, refused.stdout + refused.stderr
    message = refused.stderr
    assert "another apply holds this cluster's apply lock" in message, message
    assert f"pid {holder.pid} on host {socket.gethostname()}, user {getpass.getuser()}, started " in message, message
    assert "Nothing was written" in message and "--lock-timeout" in message, message
    assert topics_state(kafka_single, topic_prefix) == {}
    assert [h.pid for h in still if h is not None] == [holder.pid]  # the refused apply never joined the group
    # Released: the lock is free at once and the same apply goes through.
    assert apply_lock.members(kafka_single) == []
    done = cli(["apply", str(root), "--bootstrap-server", kafka_single.bootstrap, "--auto-approve"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(topics_state(kafka_single, topic_prefix)) == 30
    assert apply_lock.members(kafka_single) == []  # the apply left the group when it ended


def test_two_saved_plans_over_one_prefix_applied_at_once_the_second_waits_and_refuses_its_stale_plan(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """A declares ``.a*``, B ``.b*``, both own the whole prefix and delete what they do not declare. Both plans are
    made on the empty prefix. Applied at once, the second to get the lock must see the first one's writes in its
    stale check and refuse (without a lock both passed the check and both applied: A's next plan then deleted B's
    30 topics)."""
    target = ["--bootstrap-server", kafka_single.bootstrap]
    plan_a = planned(manifests(tmp_path / "a", topic_prefix, "a"), kafka_single, tmp_path / "a.json")
    plan_b = planned(manifests(tmp_path / "b", topic_prefix, "b"), kafka_single, tmp_path / "b.json")
    holder = apply_lock.start_holder(kafka_single.bootstrap)  # both applies start while the lock is held
    try:
        applies = {
            side: Running(["apply", "--plan", str(p), "--lock-timeout", "150", *target])
            for side, p in (("a", plan_a), ("b", plan_b))
        }
        for run in applies.values():
            waiting = eventually(functools.partial(run.said, "for the cluster's apply lock"), what="wait", timeout=120)
            assert f"pid {holder.pid}" in waiting, waiting
    finally:
        holder.communicate(timeout=60)  # releases the lock: the two applies race for it
    results = {side: a.finish() for side, a in applies.items()}

    codes = sorted(code for code, _, _ in results.values())
    assert codes == [0, 1], results
    winner = next(side for side, (code, _, _) in results.items() if code == 0)
    _, loser_out, loser_err = next(r for r in results.values() if r[0] == 1)
    assert "the cluster changed since the plan was made" in loser_err, loser_out + loser_err
    assert set(topics_state(kafka_single, topic_prefix)) == {f"{topic_prefix}{winner}{i:02d}" for i in range(30)}
    again = cli(["plan", str(tmp_path / winner), *target, "--detailed-exitcode"])
    assert again.returncode == 0, again.stdout + again.stderr  # nothing to create, nothing to delete


@pytest.mark.every_version
def test_the_lock_of_a_killed_holder_vanishes_within_the_session_timeout(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    root = manifests(tmp_path / "m", topic_prefix, "a")
    holder = apply_lock.start_holder(kafka_single.bootstrap)
    assert [h.pid for h in apply_lock.members(kafka_single) if h is not None] == [holder.pid]
    holder.send_signal(signal.SIGKILL)  # no LeaveGroup: only the session timeout frees the lock
    holder.wait(timeout=30)
    killed_at = time.monotonic()
    session_s = lock.SESSION_TIMEOUT_MS / 1000
    # The coordinator removes the silent member at its session timeout; slack for a loaded machine's timers.
    eventually(lambda: apply_lock.members(kafka_single) == [], what="the lock's group empty", timeout=session_s + 10)
    freed_after = time.monotonic() - killed_at
    print(f"\nthe killed holder's lock was free {freed_after:.1f}s after SIGKILL (session timeout {session_s:g}s)")
    done = cli(["apply", str(root), "--bootstrap-server", kafka_single.bootstrap, "--auto-approve"])

    assert freed_after <= session_s + 10
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(topics_state(kafka_single, topic_prefix)) == 30


def test_an_apply_right_after_its_holder_was_killed_on_this_host_waits_for_the_lock_instead_of_refusing(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Regression: a rerun right after a killed apply (the usual next step) was refused naming a dead process, and
    the user had to retry by hand once the session timeout had passed."""
    root = manifests(tmp_path / "m", topic_prefix, "a")
    holder = apply_lock.start_holder(kafka_single.bootstrap)
    assert [h.pid for h in apply_lock.members(kafka_single) if h is not None] == [holder.pid]
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    assert [h.pid for h in apply_lock.members(kafka_single) if h is not None] == [holder.pid]  # still a member

    done = cli(["apply", str(root), "--bootstrap-server", kafka_single.bootstrap, "--auto-approve"])

    assert done.returncode == 0, done.stdout + done.stderr
    assert f"pid {holder.pid} on host" in done.stderr and "no longer runs on this host" in done.stderr, done.stderr
    assert len(topics_state(kafka_single, topic_prefix)) == 30


def test_no_lock_applies_while_the_lock_is_held_and_says_so(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    root = manifests(tmp_path / "m", topic_prefix, "a")
    holder = apply_lock.start_holder(kafka_single.bootstrap)
    try:
        done = cli(["apply", str(root), "--bootstrap-server", kafka_single.bootstrap, "--auto-approve", "--no-lock"])
    finally:
        holder.communicate(timeout=60)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "without the cluster's apply lock: --no-lock" in done.stdout, done.stdout
    assert "note: applied without the cluster's apply lock (--no-lock)" in done.stdout, done.stdout
    assert len(topics_state(kafka_single, topic_prefix)) == 30


@pytest.mark.every_version
def test_a_principal_without_the_groups_rights_is_refused_naming_the_grant_and_no_lock(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """On the SASL node with an authorizer: a principal with every right its topics need but none on the lock's group
    is refused before any write, with the grant and --no-lock named; --no-lock applies; the grant, added as named,
    lets a locked apply through."""
    user, password = f"{topic_prefix}apply", secrets.token_urlsafe(12)
    principal = f"User:{user}"
    bindings = [
        acl(principal, op, topic_prefix, pattern="PREFIXED") for op in ("DESCRIBE", "DESCRIBE_CONFIGS", "CREATE")
    ] + [acl(principal, op, "kafka-cluster", resource="CLUSTER") for op in ("DESCRIBE", "DESCRIBE_CONFIGS")]
    group = acl(principal, "READ", lock.GROUP_ID, resource="GROUP")
    config = tmp_path / "apply.properties"
    config.write_text(
        f"bootstrap.servers={kafka_sasl.bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram."
        f'ScramLoginModule required username="{user}" password="{password}";\n'
    )
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        [r] = admin.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, Secret(password))])
        assert r.ok, r.describe()
        assert all(r.ok for r in admin.create_acls(bindings))
    try:
        roots = [
            manifests(tmp_path / "one", f"{topic_prefix}1", "a"),
            manifests(tmp_path / "two", f"{topic_prefix}2", "b"),
        ]
        refused = cli(["apply", str(roots[0]), "--auto-approve", "--command-config", str(config)])
        unlocked = cli(["apply", str(roots[0]), "--auto-approve", "--command-config", str(config), "--no-lock"])
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            assert all(r.ok for r in admin.create_acls([group]))
        locked = eventually(
            lambda: (
                done
                if (done := cli(["apply", str(roots[1]), "--auto-approve", "--command-config", str(config)])).returncode
                == 0
                else None
            ),
            what="a locked apply once READ on the group is granted (ACLs reach the authorizer asynchronously)",
            timeout=60,
        )
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls([*bindings, group])
            admin.alter_scram_credentials(deletions=[ScramDeletion(user, "SCRAM-SHA-256")])
            admin.delete_topics(sorted(topics_state(kafka_sasl, topic_prefix)))

    assert refused.returncode == 1, refused.stdout + refused.stderr
    message = refused.stderr
    assert f"grant READ on GROUP {lock.GROUP_ID} to {principal}" in message, message
    assert "--no-lock" in message and "Nothing was written" in message, message
    assert f"--allow-principal {principal} --operation Read --group {lock.GROUP_ID}" in message, message
    assert unlocked.returncode == 0, unlocked.stdout + unlocked.stderr
    assert "without the cluster's apply lock: --no-lock" in unlocked.stdout, unlocked.stdout
    assert "Applying to" in locked.stdout and "--no-lock" not in locked.stdout, locked.stdout


def test_a_fleet_apply_refuses_a_locked_cluster_naming_the_holder_and_applies_the_others(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    root = manifests(tmp_path / "manifests", topic_prefix, "a")
    fleet_file = tmp_path / "fleet.yaml"
    fleet_file.write_text(
        f"defaults: {{manifests: {root}, requestTimeoutMs: 15000}}\n"
        f"clusters:\n  - {{name: locked, bootstrap: '{kafka_single.bootstrap}'}}\n"
    )
    out = tmp_path / "out"
    planned = cli(["fleet", "plan", str(fleet_file), "--out", str(out), "--quiet"])
    assert planned.returncode in (0, 2), planned.stdout + planned.stderr
    holder = apply_lock.start_holder(kafka_single.bootstrap)
    try:
        refused = cli(["fleet", "apply", str(fleet_file), "--plans", str(out), "--auto-approve"])
        summary = json.loads((out / "apply-summary.json").read_text())
    finally:
        holder.communicate(timeout=60)
    applied = cli(["fleet", "apply", str(fleet_file), "--plans", str(out), "--auto-approve", "--lock-timeout", "30"])

    assert refused.returncode == 3, refused.stdout + refused.stderr
    [cluster] = summary["clusters"]
    assert cluster["status"] == "refused", cluster
    assert "another apply holds this cluster's apply lock" in cluster["reason"], cluster
    assert f"pid {holder.pid}" in cluster["reason"], cluster
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert len(topics_state(kafka_single, topic_prefix)) == 30
