"""``share.auto.offset.reset`` values are judged as Kafka 4.4's own validator judges them, at validate time.

The expected answers were taken from ``ShareGroupAutoOffsetResetStrategy.Validator.ensureValid`` of Kafka 4.4.0 run
on each value: ``earliest`` and ``latest`` exactly as written, or ``by_duration:`` and a non-negative
``java.time.Duration`` (its letters in either case).
"""

from __future__ import annotations

import pytest

from reconciler.model import catalogue, configs

SPEC = catalogue.GROUP_CONFIGS["share.auto.offset.reset"]
KAFKA_ACCEPTS = ("latest", "earliest", "by_duration:PT1H", "by_duration:P1DT2H30M", "by_duration:PT0.5S",
                 "by_duration:P2D", "by_duration:+PT1H", "by_duration:pt1h")  # fmt: skip
KAFKA_REFUSES = ("EARLIEST", "sometimes", "by_duration:", "by_duration:P", "by_duration:PT", "by_duration:-PT1H",
                 "by_duration:1h", "by_duration:PT1H2H")  # fmt: skip


@pytest.mark.parametrize("value", KAFKA_ACCEPTS)
def test_a_value_kafka_accepts_is_accepted(value: str) -> None:
    assert configs.validate_config(SPEC, value) == []


@pytest.mark.parametrize("value", KAFKA_REFUSES)
def test_a_value_kafka_refuses_is_refused_naming_what_is_allowed(value: str) -> None:
    assert configs.validate_config(SPEC, value) == [
        f"share.auto.offset.reset: {value!r} is not latest, earliest or by_duration:<ISO-8601>"
    ]
