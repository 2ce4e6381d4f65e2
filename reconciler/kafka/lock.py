"""The apply lock, held in the cluster itself: membership of a group that only an applying process joins.

Two applies at once over one cluster each pass their stale check before the other writes, then both write. The
lock keeps them apart. It lives in the cluster, so every machine and CI runner sees it, and it is Kafka's group
membership, so it vanishes when its holder dies: a member that stops heartbeating (a SIGKILLed process, a lost
host) is removed by the group coordinator after the session timeout (``SESSION_TIMEOUT_MS``), and a member that
ends normally leaves at once (LeaveGroup). There is no stale lock to break by hand.

How it is taken (kafka-python's ``BaseCoordinator``, the group protocol Kafka Connect uses, with a protocol type of
its own so no consumer can join the group by mistake):

1. DescribeGroups on the group's coordinator: a group with members is held. Each member's metadata is its
   ``Holder`` record (host, pid, user, start time, plan), so a waiting apply names the holder. It asks again
   every ``POLL_S`` until ``--lock-timeout`` has passed, then refuses (``LockHeld``, nothing written). A holder
   that ran on this host and whose process is gone (an apply killed a moment ago) is waited for once, up to the
   session timeout and a margin, since its membership is about to end: a rerun after a crash just works.
2. A group without members is joined (JoinGroup, SyncGroup). The coordinator keeps the first member to join as
   the group's leader for as long as it stays, and the leader hands every member the leader's own record as its
   assignment: the member that receives its own record holds the lock. Two applies that found the group empty at
   the same moment both join; the one that is not the leader learns the holder from its assignment, leaves the
   group and waits as in 1.
3. While it applies, the heartbeats run on kafka-python's network thread and a keeper thread of this module
   rejoins when the coordinator asks (another process joining makes the group rebalance; the holder, as leader,
   stays the holder). If the holder ever finds another member leading (its session expired under a long pause),
   ``lost()`` says so and the apply's report notes it.
4. When the apply ends, the holder leaves the group (LeaveGroup).

Every wait is bounded by the apply's deadline (``bounded.run``). The requests go over the adapter's own connection
pool but are not counted among the apply's admin requests. The principal needs READ on the group (which implies
DESCRIBE); without it the apply is refused (``LockRefused``) naming the grant and ``--no-lock``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import kafka.errors as kafka_errors
from kafka.coordinator.base import BaseCoordinator
from kafka.protocol.admin.groups import DescribeGroupsRequest

from reconciler.base import errors, interrupt
from reconciler.kafka import bounded, rights
from reconciler.kafka.lock_holder import Holder, this_process
from reconciler.model import defaults

if TYPE_CHECKING:
    from reconciler.kafka.wire import Wire

GROUP_ID = defaults.APPLY_LOCK_GROUP
PROTOCOL_TYPE = "kafka-reconciler.apply-lock"
PROTOCOL = "holder-v1"
DEAD_HOLDER_MARGIN_S = 5.0  # past the session timeout: the coordinator's expiry check runs on its own timer
SESSION_TIMEOUT_MS = 10_000  # the broker's group.min.session.timeout.ms defaults to 6 s; heavy load needs a margin
HEARTBEAT_INTERVAL_MS = 1_000
REBALANCE_TIMEOUT_MS = 20_000  # how long the coordinator waits for the members to rejoin a rebalance
POLL_S = 1.0  # between two looks at a held lock
KEEP_S = 0.5  # between two checks of the keeper thread
_FREE_STATES = ("Empty", "Dead", "")
_GROUP_ID_NOT_FOUND = 69
_RETRY_CODES = (14, 15, 16)  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
_GROUP_AUTHORIZATION_FAILED = 30

log = logging.getLogger(__name__)


class LockHeld(errors.ReconcilerError):
    """Another apply holds the cluster's apply lock (exit 1, nothing written)."""


class LockRefused(errors.GrantMissing):
    """The principal may not join the lock's group (exit 1, nothing written)."""


class Interrupted(errors.ReconcilerError):
    """Ctrl-C while waiting for the lock: nothing was written."""

    exit_code = interrupt.EXIT_INTERRUPTED


class _Member(BaseCoordinator):  # type: ignore[misc]
    """One member of the lock's group; its metadata is its ``Holder`` record, the leader assigns its own record."""

    def __init__(self, client: Any, holder: Holder, **configs: Any) -> None:
        super().__init__(client, **configs)
        self.holder = holder
        self.assigned: Holder | None = None

    def protocol_type(self) -> str:
        return PROTOCOL_TYPE

    def group_protocols(self) -> list[tuple[str, bytes]]:
        return [(PROTOCOL, self.holder.to_bytes())]

    def _perform_assignment(self, leader_id: str, protocol: str, members: Any) -> dict[str, bytes]:
        leader = next((bytes(m.metadata) for m in members if m.member_id == leader_id), self.holder.to_bytes())
        return {m.member_id: leader for m in members}

    async def _on_join_complete_async(
        self, generation: int, member_id: str, protocol: str, member_assignment_bytes: bytes
    ) -> None:
        self.assigned = Holder.from_bytes(member_assignment_bytes)

    def holds(self) -> bool:
        return self.assigned is not None and self.assigned.token == self.holder.token


class ClusterLock:
    """The apply lock of one cluster: ``take`` (waiting up to ``wait_s``), ``lost``, ``release``."""

    def __init__(
        self,
        wire: Wire,
        *,
        holder: Holder,
        wait_s: float,
        deadline_s: float,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self._wire = wire
        self._on_wait = on_wait
        self.holder = holder
        self._wait_s = max(0.0, wait_s)
        self._deadline_at = time.monotonic() + max(0.0, deadline_s)
        self._deadline_s = deadline_s
        self._member: _Member | None = None
        self._keeper: threading.Thread | None = None
        self._stop = threading.Event()
        self._lost: str | None = None
        self._seen: Holder | None = None  # the holder the last DescribeGroups named, when it was the only member

    # ------------------------------------------------------------------------------------- taking it
    def take(self) -> None:
        """Hold the lock, waiting for another holder at most ``wait_s`` (and never past the deadline).

        ``LockHeld`` names the holder; ``LockRefused`` names the right the principal lacks; ``Interrupted`` on
        Ctrl-C while waiting. Nothing is written in any of these cases."""
        admin = self._wire.client()
        net_client = admin._client
        self._member = member = _Member(
            net_client,
            self.holder,
            group_id=GROUP_ID,
            session_timeout_ms=SESSION_TIMEOUT_MS,
            heartbeat_interval_ms=HEARTBEAT_INTERVAL_MS,
            max_poll_interval_ms=REBALANCE_TIMEOUT_MS,
            request_timeout_ms=self._wire.settings.request_timeout_ms,
            retry_backoff_ms=200,
            api_version=net_client._manager.broker_version,
        )
        wait_until = time.monotonic() + min(self._wait_s, self._left())
        told = extended = False
        try:
            while True:
                self._seen = None
                holder = self._current_holder(member)
                if holder is None:
                    if self._join(member):
                        break
                    holder = member.assigned.describe() if member.assigned is not None else "another apply"
                    self._leave(member)
                ending = time.monotonic() + POLL_S > wait_until
                if ending and not extended and self._seen is not None and self._seen.gone():
                    extended = told = True
                    wait_until = self._wait_for_dead_holder(holder)
                if time.monotonic() + POLL_S > wait_until:
                    raise LockHeld(self._held_message(holder))
                if self._on_wait is not None and not told:
                    left = max(0.0, wait_until - time.monotonic())
                    self._on_wait(f"waiting up to {left:.0f}s (--lock-timeout) for the cluster's apply lock: {holder}")
                    told = True
                self._pause(POLL_S)
        except kafka_errors.GroupAuthorizationFailedError:
            self._abandon(member)
            principal = rights.principal_of(self._wire.settings, wire=self._wire)
            grant = f"grant READ on GROUP {GROUP_ID} to {principal}"
            servers = ",".join(self._wire.settings.bootstrap_servers)
            command = (
                f"kafka-acls --bootstrap-server {servers} --command-config <admin.properties> --add "
                f"--allow-principal {principal} --operation Read --group {GROUP_ID}"
            )
            raise LockRefused(self._refused_message(grant, command), grant=grant, command=command) from None
        except BaseException:
            self._abandon(member)
            raise
        self._keeper = threading.Thread(target=self._keep, name="kafka-reconciler-apply-lock", daemon=True)
        self._keeper.start()

    def _wait_for_dead_holder(self, holder: str) -> float:
        """A holder killed on this host: its membership ends within the session timeout. Say so and return the
        new end of the wait (never past the deadline) instead of refusing a lock nobody holds any more."""
        if self._on_wait is not None:
            self._on_wait(
                f"the cluster's apply lock is held by {holder}, which no longer runs on this host; "
                f"waiting up to {SESSION_TIMEOUT_MS // 1000}s for the coordinator to end its membership"
            )
        return time.monotonic() + min(SESSION_TIMEOUT_MS / 1000 + DEAD_HOLDER_MARGIN_S, self._left())

    def _left(self) -> float:
        return self._deadline_at - time.monotonic()

    def _bound_s(self, step_s: float, *, doing: str) -> float:
        left = self._left()
        if left <= 0:
            raise errors.DeadlineReached(
                f"gave up {doing}: the time limit of {self._deadline_s:g}s is spent; nothing was written"
            )
        return min(step_s, left)

    def _pause(self, seconds: float) -> None:
        """Sleep ``seconds`` (cut at the deadline), stopping at once on Ctrl-C."""
        until = time.monotonic() + min(seconds, max(0.0, self._left()))
        while time.monotonic() < until:
            if interrupt.requested():
                raise Interrupted("interrupted while waiting for the apply lock; nothing was written")
            time.sleep(min(0.1, max(0.0, until - time.monotonic())))
        if interrupt.requested():
            raise Interrupted("interrupted while waiting for the apply lock; nothing was written")

    def _net(self, member: _Member) -> Any:
        return member._manager._net

    def _coordinator(self, member: _Member) -> Any:
        """The group's coordinator (its connection id), found with FindCoordinator."""
        request_s = self._wire.settings.request_timeout_ms / 1000
        seconds = self._bound_s(request_s, doing="finding the apply lock's group coordinator")
        found = bounded.run(
            self._net(member),
            member.ensure_coordinator_ready_async,
            int(seconds * 1000),
            timeout_s=seconds + bounded.GRACE_S,
            what="FindCoordinator",
        )
        if not found or member.coordinator_id is None:
            raise errors.ConnectionFailed(
                f"no broker named the coordinator of the apply lock's group {GROUP_ID} within {seconds:g}s; "
                "nothing was written (apply with --no-lock to go without the lock)"
            )
        return member.coordinator_id

    def _current_holder(self, member: _Member) -> str | None:
        """Who holds the lock now, from DescribeGroups; ``None`` when the group has no member."""
        while True:
            node = self._coordinator(member)
            request_s = self._wire.settings.request_timeout_ms / 1000
            seconds = self._bound_s(request_s, doing="reading the apply lock's group")
            request = DescribeGroupsRequest(groups=[GROUP_ID], include_authorized_operations=False)
            response = bounded.run(
                self._net(member),
                member._manager.send,
                request,
                node,
                int(seconds * 1000),
                timeout_s=seconds + bounded.GRACE_S,
                what="DescribeGroups",
            )
            group = response.groups[0]
            if group.error_code == _GROUP_AUTHORIZATION_FAILED:
                raise kafka_errors.GroupAuthorizationFailedError(GROUP_ID)
            if group.error_code in _RETRY_CODES:
                member.coordinator_dead("DescribeGroups: coordinator moved or loading")
                self._pause(0.2)
                continue
            if group.error_code == _GROUP_ID_NOT_FOUND or group.group_state in _FREE_STATES or not group.members:
                return None
            if group.error_code:
                raise errors.ConnectionFailed(
                    f"DescribeGroups of the apply lock's group {GROUP_ID} failed with error code {group.error_code}; "
                    "nothing was written"
                )
            described = [Holder.from_bytes(m.member_metadata) for m in group.members]
            known = [h for h in described if h is not None]
            if known:
                first = min(known, key=lambda h: h.started)
                self._seen = first if len(known) == 1 else None
                others = len(group.members) - 1
                more = f" (and {others} other apply(s) waiting to join)" if others else ""
                return first.describe() + more
            m = group.members[0]
            return f"a member from {m.client_host} (client id {m.client_id}) that is joining the group"

    def _join(self, member: _Member) -> bool:
        """Join the group; whether this process is the holder (the group's leader)."""
        self._coordinator(member)
        seconds = self._bound_s(REBALANCE_TIMEOUT_MS / 1000 + 5, doing="joining the apply lock's group")
        joined = bounded.run(
            self._net(member),
            member.ensure_active_group_async,
            int(seconds * 1000),
            timeout_s=seconds + bounded.GRACE_S,
            what="JoinGroup",
        )
        if not joined:
            raise errors.DeadlineReached(
                f"gave up joining the apply lock's group {GROUP_ID} within {seconds:g}s (the coordinator did not "
                "complete the join); nothing was written"
            )
        return member.holds()

    # ----------------------------------------------------------------------------------- holding it
    def _keep(self) -> None:
        """Rejoin when the coordinator asks (another process joined); note a lost lock."""
        member = self._member
        assert member is not None
        while not self._stop.wait(KEEP_S):
            try:
                member.poll_heartbeat()
                if member.need_rejoin():
                    seconds = max(1.0, min(REBALANCE_TIMEOUT_MS / 1000, self._left()))
                    bounded.run(
                        self._net(member),
                        member.ensure_active_group_async,
                        int(seconds * 1000),
                        timeout_s=seconds + bounded.GRACE_S,
                        what="JoinGroup",
                    )
                    if member.assigned is not None and not member.holds() and self._lost is None:
                        self._lost = (
                            "the apply lock was lost while applying (this process stopped heartbeating for longer "
                            f"than {SESSION_TIMEOUT_MS // 1000}s); another apply may have run at the same time: "
                            f"{member.assigned.describe()}. Run plan to see what the cluster holds"
                        )
            except Exception as exc:  # the keeper never ends the apply; the heartbeats go on without it
                log.debug("apply lock keeper: %s", exc)

    def lost(self) -> str | None:
        """A sentence when the lock was lost while held (for the report's notes), else ``None``."""
        return self._lost

    def release(self) -> None:
        """Leave the group (the lock is free at once); bounded, and never raises."""
        self._stop.set()
        if self._keeper is not None:
            self._keeper.join(timeout=REBALANCE_TIMEOUT_MS / 1000 + 2 * bounded.GRACE_S)
        if self._member is not None:
            self._abandon(self._member)

    def _leave(self, member: _Member) -> None:
        seconds = max(0.5, min(5.0, self._left()))
        try:
            bounded.run(
                self._net(member),
                member.maybe_leave_group_async,
                None,
                int(seconds * 1000),
                timeout_s=seconds + bounded.GRACE_S,
                what="LeaveGroup",
            )
        except Exception as exc:  # the coordinator removes the member at its session timeout anyway
            log.debug("leaving the apply lock's group: %s", exc)
        member.assigned = None

    def _abandon(self, member: _Member) -> None:
        member._close_heartbeat()
        self._leave(member)

    # ------------------------------------------------------------------------------------- messages
    def _held_message(self, holder: str) -> str:
        waited = f"waited {self._wait_s:g}s (--lock-timeout)" if self._wait_s else "--lock-timeout 0: not waiting"
        return (
            f"refusing to apply: another apply holds this cluster's apply lock (group {GROUP_ID}): {holder}; "
            f"{waited}. Nothing was written. Let it finish, then run plan again (its writes may change this plan), or "
            "give --lock-timeout SECONDS to wait for it"
        )

    def _refused_message(self, grant: str, command: str) -> str:
        return (
            "refusing to apply: the connecting principal may not join the apply lock's group "
            f"(GROUP_AUTHORIZATION_FAILED):\n  {grant}\n"
            "Nothing was written. Grant it (docs/security.md lists the ACLs), or apply with --no-lock where the "
            f"principal may not join groups (nothing then keeps two applies apart); as a kafka-acls command:\n"
            f"  {command}"
        )


def take(
    wire: Wire, *, plan: str, wait_s: float, deadline_s: float, on_wait: Callable[[str], None] | None = None
) -> ClusterLock:
    """The cluster's apply lock, held (see ``ClusterLock.take``); ``release()`` it when the apply ends.
    ``on_wait`` is told once, in a sentence naming the holder, when the lock is held and waited for."""
    held = ClusterLock(wire, holder=this_process(plan), wait_s=wait_s, deadline_s=deadline_s, on_wait=on_wait)
    held.take()
    return held
