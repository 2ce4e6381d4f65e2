"""Two corrections to kafka-python 3.0: bytes received just before the broker closes are delivered, and a
response's versioned class is made by one thread at a time.

kafka-python 3.0's transport reads until the socket would block; when that read ends at the end of the stream it
reports the disconnection and drops the bytes read in the same call. A broker that refuses SASL credentials sends
its SaslAuthenticate error ("Invalid username or password") and then closes the connection, so whether the client
saw the broker's answer or only "socket disconnected" depended on how the two arrived: a wrong password was
reported one way or the other from run to run. ``install`` replaces the transport's read loop with one that hands
the received bytes to the protocol, lets the waiting request act on them, and only then reports the disconnection,
which is what the library means to do. It patches only the reader it was written against (kafka-python 3.0)
and leaves any other version alone.

And one correction to its message classes: a response class's per-version class (``ApiVersionsResponse[3]``) is made
on first use and registered, through a weak reference, as the class that decodes that API's answers. Two threads
using it first at once each made one; the one kept and the one registered could differ, and once the unkept one was
collected every answer of that API failed to decode in that process ("weakly-referenced object no longer exists")
and each request waited out its timeout: 53 of 300 tries with four threads. ``install`` makes that first use one
thread at a time (``_serialized``), so the class registered is the class kept.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import kafka
import kafka.errors as kafka_errors
from kafka.net import transport
from kafka.protocol import api_message

log = logging.getLogger("kafka.net.transport")
_MARK = "_kafka_reconciler_delivers_before_eof"
_SERIALIZED = "_kafka_reconciler_one_thread_at_a_time"


async def _read_from_sock(self: Any) -> None:
    while self._read and not self._closed:
        await self._net.wait_read(self._sock)
        received, error = self._sock_recv()
        if received:
            self.last_read = time.monotonic()
            if self._protocol and self._protocol._sensors:
                self._protocol._sensors.bytes_received.record(len(received))
            try:
                self._protocol.data_received(received)
            except kafka_errors.KafkaProtocolError as exc:
                return self.abort(error=exc)  # type: ignore[no-any-return]
        if error:
            if received:
                await self._net.sleep(0)  # the protocol acts on that last answer (a refused login) first
            return self.abort(error=error)  # type: ignore[no-any-return]
    return None


_VERSIONS_LOCK = threading.RLock()  # re-entered: a versioned class's lookup asks its primary class's


def _serialized(getitem: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def __getitem__(cls: Any, version: Any) -> Any:
        with _VERSIONS_LOCK:
            return getitem(cls, version)

    setattr(__getitem__, _SERIALIZED, True)
    return __getitem__


def _serialize_versioned_classes() -> None:
    meta = getattr(api_message, "VersionSubscriptable", None)
    current = getattr(meta, "__getitem__", None)
    if meta is not None and current is not None and not getattr(current, _SERIALIZED, False):
        meta.__getitem__ = _serialized(current)


def install() -> bool:
    """Patch the transport's read loop and the versioned classes' first use once; False when this kafka-python has
    another shape (left as it is)."""
    if not str(getattr(kafka, "__version__", "")).startswith("3.0."):
        return False
    _serialize_versioned_classes()
    cls = getattr(transport, "KafkaTCPTransport", None)
    current = getattr(cls, "_read_from_sock", None)
    if cls is None or current is None:
        return False
    if getattr(current, _MARK, False):
        return True
    if not all(hasattr(cls, name) for name in ("_sock_recv", "abort")):
        return False
    setattr(_read_from_sock, _MARK, True)
    cls._read_from_sock = _read_from_sock
    return True
