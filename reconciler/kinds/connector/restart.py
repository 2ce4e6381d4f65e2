"""The read-back's wait, after a config written to an existing connector, for evidence that its tasks run it.

Connect's status carries no generation: right after a config PUT, ``GET /connectors?expand=status`` still shows the
tasks of the earlier config (RUNNING) until Connect has restarted the connector, generated and stored the new task
configs, stopped the old tasks, started new ones and published their status. Believing that first read reported a
change that makes a task fail at its start (a FileStream sink's ``file`` in a missing directory) as applied.

So a connector whose config was written is converged only when, besides its declared state:

* its task configs (``GET /connectors/{name}/tasks``, one request a poll round until seen, none afterwards) carry
  the new value of every key the write changed that they hold: Connect has reconfigured it. Connectors whose task
  configs hold none of those keys give no such evidence; the wait then counts from the write;
* and a quiet window has passed since, every status read in between free of FAILED: the window in which Connect
  restarts the tasks on the new configs. A task that fails later than that is shown by the next plan.

The window is ``window(lag)``: twice the time Connect took from the write's answer to the new task configs seen
(``lag``), at least ``MIN_SETTLE_S`` and at most ``SETTLE_S``. Restarting the tasks on the new configs is one more
pass through the same herder and status topic as generating them was, so it is slow when that was: measured on a
4.3.1 worker, a FileStream task that fails at its start reported FAILED 0.3 s after its new task configs showed,
which had taken 0.3-0.5 s after the write (docs/apply.md). The lag is known only when a look found the old task
configs first; new ones at the first look (a connector written early among many, looked at once every write was
answered) had them for an unknown time before it, and the window, counted from that look, is ``MIN_SETTLE_S``.
Connectors whose task configs give no evidence wait ``SETTLE_S`` from the write.

The window is cut short when the apply's deadline comes first (then the state read last is believed); task configs
not seen by then leave the connector not converged. Secret keys
are left out of the comparison (task configs would hold them in clear); values are never shown.

A restart of what FAILED (``after_failed_restart``) gives no evidence at all: measured on a 4.3.1 worker, a
FileStream task that fails at its start is restarted and FAILED again about 0.2 s after the restart's answer, and a
status poll every 50 ms never saw it in between. So FAILED right after the restart is not believed until
``SETTLE_S`` has passed since its answer; a part still (or again) FAILED then is reported failed again after its
restart.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence

from reconciler.base import errors
from reconciler.model import state

SETTLE_S = 3.0  # the longest quiet window, and the one after a restart of what FAILED
MIN_SETTLE_S = 1.0  # the shortest quiet window after new task configs are seen
# (settled, problem) of one connector, as watch.Check.
Check = Callable[[state.ConnectorState | None], tuple[bool, str | None]]


def touched(sent: Mapping[str, str], before: Mapping[str, str], secrets: Iterable[str]) -> dict[str, str]:
    """The keys the write set to a new value (added or changed; removed keys and secrets give no evidence)."""
    hidden = set(secrets) | {"name"}
    return {k: v for k, v in sent.items() if k not in hidden and before.get(k) != v}


def runs_new(task_configs: Sequence[Mapping[str, str]], changed: Mapping[str, str]) -> bool | None:
    """Whether the task configs are those of the new config: ``True`` when every task config holding a changed key
    holds its new value (and one does), ``False`` when one holds another value, ``None`` when none holds any (no
    evidence either way)."""
    held = [(k, t[k]) for t in task_configs for k in changed if k in t]
    if not held:
        return None
    return all(changed[k] == v for k, v in held)


def window(lag_s: float) -> float:
    """The quiet window after new task configs are seen ``lag_s`` after the write (see the module docstring)."""
    return min(SETTLE_S, max(MIN_SETTLE_S, 2.0 * lag_s))


@dataclasses.dataclass
class _Since:
    """When the evidence was seen (``None``: not yet), and the quiet window that follows it."""

    at: float | None = None
    window: float = SETTLE_S


def after_restart(
    check: Check,
    *,
    changed: Mapping[str, str],
    task_configs: Callable[[], Sequence[Mapping[str, str]]],
    written_at: float,
    clock: Callable[[], float],
    remaining: Callable[[], float],
    last_round_s: float,
) -> Check:
    """``check`` of a connector whose config was written: failed at once as ``check`` says, converged only once its
    tasks run the new config (see the module's docstring). ``task_configs`` reads them (one request); a failed
    read counts as not seen yet. Within ``last_round_s`` of the deadline the window is cut short."""
    since, looks = _Since(), [0]

    def restarted(c: state.ConnectorState | None) -> tuple[bool, str | None]:
        settled, why = check(c)
        if c is None or (settled and why is not None):
            return settled, why
        now = clock()
        if since.at is None:
            try:
                seen = runs_new(task_configs(), changed)
            except errors.ReconcilerError:
                seen = False
            looks[0] += 1
            if seen:  # the lag is known only if an earlier look found the old task configs
                since.at, since.window = now, window(now - written_at if looks[0] > 1 else 0.0)
            elif seen is None and now >= written_at + SETTLE_S:
                since.at = written_at
            else:
                return False, "waiting for Connect to generate the task configs of the new config"
        if since.at is not None and now < since.at + since.window and remaining() > last_round_s:
            wait = f"{since.window:.1f}s"
            return False, f"waiting {wait} for the tasks restarted on the new config to report their state"
        return settled, why

    return restarted


def after_failed_restart(
    check: Check,
    *,
    restarted_at: float,
    clock: Callable[[], float],
    remaining: Callable[[], float],
    last_round_s: float,
) -> Check:
    """``check`` of a connector whose FAILED parts were restarted: nothing settles until ``SETTLE_S`` after the
    restart's answer (a FAILED read before then may be the status from before the restart); a part FAILED after
    that failed again. Within ``last_round_s`` of the deadline the window is cut short."""

    def settled_after(c: state.ConnectorState | None) -> tuple[bool, str | None]:
        settled, why = check(c)
        if clock() < restarted_at + SETTLE_S and remaining() > last_round_s:
            return False, f"waiting {SETTLE_S:.0f}s for what was restarted to report its state"
        if settled and why is not None:
            return True, why.replace("FAILED after the write", "FAILED again after its restart")
        return settled, why

    return settled_after
