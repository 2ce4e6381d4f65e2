"""Kafka's error codes and the response fields every reader and writer interprets the same way.

``error_name`` gives Kafka's own name for a code (kafka-python's table, with Kafka's names where they
differ), ``is_retriable`` its retriable flag, ``throttle_of`` a response's throttle time and ``api_name``
a request's API name as the request counts and messages show it.
"""

from __future__ import annotations

from typing import Any

import kafka.errors as kafka_errors


def error_name(code: int) -> str | None:
    """Kafka's name for an error code (``INVALID_CONFIG``), ``None`` for success."""
    if code == 0:
        return None
    if code == -1:
        return "UNKNOWN_SERVER_ERROR"  # Kafka's name; kafka-python calls it UNKNOWN
    if code not in kafka_errors.kafka_errors:
        return f"ERROR_{code}"  # a code newer than this client: keep the number so it can be looked up
    error = kafka_errors.for_code(code)
    return str(error.message) if error.message else f"ERROR_{code}"


def is_retriable(code: int) -> bool:
    return code != 0 and bool(kafka_errors.for_code(code).retriable)


def api_name(request: Any) -> str:
    """``CreateTopics`` for a ``CreateTopicsRequest``."""
    return type(request).__name__.removesuffix("Request")


def throttle_of(response: Any) -> int:
    return int(getattr(response, "throttle_time_ms", 0) or 0)
