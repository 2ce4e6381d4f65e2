"""The read-back waits for evidence that a connector's tasks run the config just written (fake clock, reads)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reconciler.base import errors
from reconciler.kinds.connector import restart
from reconciler.model import state


def running(config_file: str = "/new") -> state.ConnectorState:
    task = state.ConnectorTask(id=0, state="RUNNING")
    return state.ConnectorState(name="c", config={"file": config_file}, state="RUNNING", tasks=(task,))


def converged(c: state.ConnectorState | None) -> tuple[bool, str | None]:
    return (c is not None and c.state == "RUNNING", None)


def failing(c: state.ConnectorState | None) -> tuple[bool, str | None]:
    return True, "task 0 FAILED after the write: boom"


class Reads:
    """Task configs answered in turn (an exception is raised), the requests counted."""

    def __init__(self, *answers: Sequence[Mapping[str, str]] | Exception) -> None:
        self.answers, self.count = list(answers), 0

    def __call__(self) -> Sequence[Mapping[str, str]]:
        self.count += 1
        answer = self.answers[min(self.count, len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer


def checked(reads: Reads, now: list[float], *, left: float = 100.0, check: restart.Check = converged) -> restart.Check:
    return restart.after_restart(
        check,
        changed={"file": "/new"},
        task_configs=reads,
        written_at=0.0,
        clock=lambda: now[0],
        remaining=lambda: left - now[0],
        last_round_s=4.0,
    )


def test_touched_keys_are_those_set_to_a_new_value_without_secrets_or_the_name() -> None:
    sent = {"file": "/new", "topics": "t", "batch.size": "7", "password": "x", "name": "c"}
    before = {"file": "/old", "topics": "t", "gone": "1", "password": "digest"}
    assert restart.touched(sent, before, ["password"]) == {"file": "/new", "batch.size": "7"}


def test_task_configs_tell_old_new_or_nothing() -> None:
    changed = {"file": "/new", "batch.size": "7"}
    assert restart.runs_new([{"file": "/old"}], changed) is False
    assert restart.runs_new([{"file": "/new", "batch.size": "7"}, {"file": "/new"}], changed) is True
    assert restart.runs_new([{"file": "/new"}, {"file": "/old"}], changed) is False
    assert restart.runs_new([{"task.class": "X"}], changed) is None
    assert restart.runs_new([], changed) is None


def test_the_old_tasks_running_state_is_not_believed_until_the_new_configs_and_the_window() -> None:
    now = [0.2]
    reads = Reads([{"file": "/old"}], [{"file": "/new"}])
    check = checked(reads, now)
    assert check(running()) == (False, "waiting for Connect to generate the task configs of the new config")
    now[0] = 0.5
    settled, why = check(running())
    assert not settled and "for the tasks restarted on the new config" in (why or "")
    now[0] = 0.5 + restart.SETTLE_S
    assert check(running()) == (True, None)
    assert reads.count == 2  # no more requests once the new task configs were seen


def test_a_failure_settles_at_once_without_a_task_config_request() -> None:
    reads = Reads([{"file": "/old"}])
    check = checked(reads, [0.1], check=failing)
    assert check(running()) == (True, "task 0 FAILED after the write: boom")
    assert reads.count == 0


def test_a_failed_task_config_read_counts_as_not_seen_yet() -> None:
    now = [0.2]
    check = checked(Reads(errors.ReconcilerError("500"), [{"file": "/new"}]), now)
    assert check(running())[0] is False
    now[0] = 1.0
    assert check(running())[0] is False
    now[0] = 1.0 + restart.SETTLE_S
    assert check(running()) == (True, None)


def test_without_evidence_in_the_task_configs_the_window_counts_from_the_write() -> None:
    now = [0.2]
    reads = Reads([{"task.class": "X"}])
    check = checked(reads, now)
    assert check(running())[0] is False
    now[0] = restart.SETTLE_S
    assert check(running()) == (True, None)


def test_the_window_is_cut_short_by_the_deadline_but_old_task_configs_are_not() -> None:
    now = [0.2]
    check = checked(Reads([{"file": "/new"}]), now, left=4.1)
    assert check(running()) == (True, None)
    stale = checked(Reads([{"file": "/old"}]), [0.2], left=4.1)
    assert stale(running())[0] is False


def test_the_quiet_window_is_twice_the_time_connect_took_to_show_the_new_task_configs_within_bounds() -> None:
    assert restart.window(0.1) == restart.MIN_SETTLE_S
    assert restart.window(0.8) == 1.6
    assert restart.window(5.0) == restart.SETTLE_S
    now = [0.2]  # old task configs at the first look, new ones 1.2 s after the write: a window of 2.4 s
    check = checked(Reads([{"file": "/old"}], [{"file": "/new"}]), now)
    assert check(running())[0] is False
    now[0] = 1.2
    assert check(running()) == (False, "waiting 2.4s for the tasks restarted on the new config to report their state")
    now[0] = 1.2 + 2.3
    assert check(running())[0] is False
    now[0] = 1.2 + 2.4
    assert check(running()) == (True, None)


def test_new_task_configs_at_the_first_look_get_the_shortest_window_from_that_look() -> None:
    now = [6.0]  # written at 0, first looked at 6 s (after many other writes): the configs were already new
    check = checked(Reads([{"file": "/new"}]), now)
    assert check(running()) == (False, "waiting 1.0s for the tasks restarted on the new config to report their state")
    now[0] = 6.0 + restart.MIN_SETTLE_S - 0.1
    assert check(running())[0] is False
    now[0] = 6.0 + restart.MIN_SETTLE_S
    assert check(running()) == (True, None)
