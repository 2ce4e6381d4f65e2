"""Shared pieces of the unit tests that run apply on a ``RecordingAdapter``: options on a fake clock, live topics."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.apply import ApplyOptions, retry
from reconciler.model import state
from tests.support.recording import FakeClock


def apply_options(clock: FakeClock | None = None, **kw: Any) -> ApplyOptions:
    """ApplyOptions on ``clock`` (pauses are recorded, not slept); ``kw`` are further ApplyOptions fields."""
    clock = clock or FakeClock()
    return ApplyOptions(
        pacer=retry.Pacer(sleep=clock.sleep, rand=lambda: 0.5),
        clock=clock,
        environ={"ALICE_PW": "s3cret-alice"},
        **kw,
    )


def one_replica_topic(name: str, partitions: int = 1, *, configs: Mapping[str, str] | None = None) -> state.TopicState:
    """A live topic of ``partitions`` partitions, each with one replica on broker 1."""
    return state.TopicState(name=name, assignment=tuple((1,) for _ in range(partitions)), configs=dict(configs or {}))
