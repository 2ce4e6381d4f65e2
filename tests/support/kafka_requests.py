"""Kafka requests counted where kafka-python writes every one of them (``KafkaProtocol.send_request``), by API."""

from __future__ import annotations

import collections
from typing import Any

import pytest
from kafka.protocol.parser import KafkaProtocol

from reconciler.kafka.codes import api_name


def count_kafka_requests(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """A counter of the Kafka requests written from now until ``monkeypatch`` is undone, by API name."""
    counts: collections.Counter[str] = collections.Counter()
    encode = KafkaProtocol.send_request

    def counted(self: KafkaProtocol, request: Any, *args: Any, **kwargs: Any) -> Any:
        counts[api_name(request)] += 1
        return encode(self, request, *args, **kwargs)

    monkeypatch.setattr(KafkaProtocol, "send_request", counted)
    return counts
