"""One correction to kafka-python's socket reader: bytes received just before the broker closes are delivered.

kafka-python 3.0's transport reads until the socket would block; when that read ends at the end of the stream it
reports the disconnection and drops the bytes read in the same call. A broker that refuses SASL credentials sends
its SaslAuthenticate error ("Invalid username or password") and then closes the connection, so whether the client
saw the broker's answer or only "socket disconnected" depended on how the two arrived: a wrong password was
reported one way or the other from run to run. ``install`` replaces the transport's read loop with one that hands
the received bytes to the protocol, lets the waiting request act on them, and only then reports the disconnection,
which is what the library means to do. It patches only the reader it was written against (kafka-python 3.0)
and leaves any other version alone.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import kafka
import kafka.errors as kafka_errors
from kafka.net import transport

log = logging.getLogger("kafka.net.transport")
_MARK = "_kafka_reconciler_delivers_before_eof"


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


def install() -> bool:
    """Patch the transport's read loop once; False when this kafka-python has another shape (left as it is)."""
    if not str(getattr(kafka, "__version__", "")).startswith("3.0."):
        return False
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
