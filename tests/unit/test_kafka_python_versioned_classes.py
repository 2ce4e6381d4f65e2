"""kafka-python's versioned message classes, made on first use, stay the ones that decode their API's answers when
several threads use one first at once (``reconciler.kafka.netfix``).

A response class's per-version class (``ApiVersionsResponse[3]``) is registered, through a weak reference, as the
class that decodes that API's answers. Without the correction two threads using it first at once could keep one
class and register the other; once the unkept one was collected, every ApiVersions answer in the process failed to
decode ("weakly-referenced object no longer exists") and every new connection waited out its timeout (brokers of a
three-node cluster probed in threads at once: every later test of that process failed to reach any broker). Pure:
threads in this process, no socket; the class's state is restored afterwards.
"""

from __future__ import annotations

import sys
import threading
import weakref

from kafka.protocol.api_header import ResponseClassRegistry
from kafka.protocol.metadata.api_versions import ApiVersionsResponse

from reconciler.kafka import netfix

TRIES, THREADS = 300, 4  # unserialized, 53 of 300 tries with four threads ended with a dead registration


def _registered_is_kept() -> bool:
    """Whether the class registered for ApiVersions answers is the version class kept (else it is collected)."""
    registered = ResponseClassRegistry._response_class_registry[ApiVersionsResponse.API_KEY]
    return bool(registered.__mro__[0] is ApiVersionsResponse._VERSIONS[3])


def test_a_versioned_response_class_used_first_by_several_threads_at_once_keeps_decoding() -> None:
    assert netfix.install()
    registry = ResponseClassRegistry._response_class_registry
    saved_versions, saved_entry = dict(ApiVersionsResponse._VERSIONS), registry[ApiVersionsResponse.API_KEY]
    switch = sys.getswitchinterval()
    dead = 0
    try:
        sys.setswitchinterval(1e-6)  # threads switch as often as they can: the race, if there, shows
        for _ in range(TRIES):
            ApiVersionsResponse._VERSIONS.clear()
            registry[ApiVersionsResponse.API_KEY] = weakref.proxy(ApiVersionsResponse)
            start = threading.Barrier(THREADS)

            def first_use(start: threading.Barrier = start) -> None:
                start.wait()
                assert ApiVersionsResponse[3].__name__.endswith("_v3")

            threads = [threading.Thread(target=first_use) for _ in range(THREADS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            dead += not _registered_is_kept()
    finally:
        sys.setswitchinterval(switch)
        ApiVersionsResponse._VERSIONS.clear()
        ApiVersionsResponse._VERSIONS.update(saved_versions)
        registry[ApiVersionsResponse.API_KEY] = saved_entry
    assert dead == 0, f"{dead} of {TRIES} first uses left ApiVersions answers undecodable"
