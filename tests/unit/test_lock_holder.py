"""Whether the apply lock's holder is known dead: only a holder on this host whose process is gone."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from reconciler.kafka.lock_holder import this_process


def test_this_process_is_not_gone() -> None:
    assert not this_process("a plan").gone()


def test_a_pid_that_cannot_exist_on_this_host_is_gone() -> None:
    beyond = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    assert dataclasses.replace(this_process("a plan"), pid=beyond).gone()


def test_a_holder_on_another_host_is_never_taken_for_dead() -> None:
    beyond = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    elsewhere = dataclasses.replace(this_process("a plan"), host="another-host.example", pid=beyond)
    assert not elsewhere.gone()
    assert not dataclasses.replace(this_process("a plan"), host="another-host.example", pid=os.getpid()).gone()
