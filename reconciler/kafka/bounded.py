"""Every wait the tool makes on kafka-python ends by a bound: connect, TLS handshake, bootstrap, each request.

kafka-python 3 runs its network on an IO thread. A caller blocks in ``NetworkSelector.run`` on a
``threading.Event`` without a timeout, trusting the library to end every step: it bounds the TCP connect,
ApiVersions and the SASL exchange by a connection's setup deadline (``timeout_at``) and every sent request by
its own timer, but not the TLS handshake (``KafkaSSLTransport.handshake`` waits for the server's answer with no
timer: an address that accepts TCP and never answers TLS is waited on forever, and so is bootstrap, which
awaits the connection), and a request buffered behind a connection that never finishes initialising has no
timer of its own. This module closes those gaps:

- ``run`` schedules a coroutine on the IO thread and waits for it at most ``timeout_s``; ``Stalled`` otherwise
  (the work goes on and ends by its own timers; the caller stops waiting for it). The tool calls the library
  through ``run`` only, never through ``NetworkSelector.run``.
- ``BoundedManager`` is kafka-python's connection manager with a bootstrap that waits through ``run`` and a TLS
  handshake bounded by the connection's setup deadline, the one the library gives TCP connect and SASL.
- ``net_client`` is the factory ``KafkaAdminClient`` calls to build its network client around them.
- ``stop`` stops the IO thread, waiting at most a bound for it.
"""

from __future__ import annotations

import ssl
import threading
import time
from typing import Any

import kafka.errors as kafka_errors
from kafka.net.compat import KafkaNetClient
from kafka.net.inet import create_connection
from kafka.net.manager import KafkaConnectionManager
from kafka.net.selector import NetworkSelector
from kafka.net.transport import KafkaSSLTransport

GRACE_S = 1.0  # past a step's own bound, so that the library's own (named) failure wins when it ends in time
STOP_WAIT_S = 5.0
SILENT_TLS = "no TLS handshake answer within"  # the text ``bootstrap.classify`` recognises


class Stalled(kafka_errors.KafkaTimeoutError):  # type: ignore[misc]
    """Nothing came back from the IO thread within the bound; ``seconds`` is that bound."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what}: no answer within {seconds:g}s")
        self.what = what
        self.seconds = seconds


def run(net: NetworkSelector, coro: Any, *args: Any, timeout_s: float, what: str) -> Any:
    """``net.run(coro, *args)``, waiting at most ``timeout_s`` seconds for the result; ``Stalled`` after that.

    Like ``NetworkSelector.run`` the waiter is registered with the selector, so an IO loop that crashes or is
    stopped fails it at once instead of leaving it to the bound.
    """
    if net._io_thread is None:  # no IO thread: never the case for KafkaAdminClient, which starts one
        raise kafka_errors.KafkaConnectionError("the client's network thread is not running")
    if threading.current_thread() is net._io_thread:
        raise RuntimeError("bounded.run called from the IO thread itself")
    event = threading.Event()
    state: dict[str, Any] = {"value": None, "exception": None}

    async def waiter() -> None:
        try:
            state["value"] = await net._invoke(coro, *args)
        except BaseException as exc:  # handed to the caller thread, as NetworkSelector.run does
            if state["exception"] is None:
                state["exception"] = exc
        finally:
            with net._pending_waiters_lock:
                net._pending_waiters.pop(event, None)
            event.set()

    with net._pending_waiters_lock:
        net._pending_waiters[event] = state
    net.call_soon_threadsafe(waiter)
    if not event.wait(max(0.0, timeout_s)):
        with net._pending_waiters_lock:
            net._pending_waiters.pop(event, None)
        raise Stalled(what, timeout_s)
    if state["exception"] is not None:
        raise state["exception"]
    return state["value"]


async def _handshake(net: NetworkSelector, transport: KafkaSSLTransport, timeout_at: float | None) -> None:
    """The TLS handshake of ``transport``, each wait for the server bounded by ``timeout_at``."""
    sock = transport._sock
    while True:
        try:
            sock.do_handshake()
            return
        except ssl.SSLWantReadError:
            await net.wait_read(sock, timeout_at=timeout_at)
        except ssl.SSLWantWriteError:
            await net.wait_write(sock, timeout_at=timeout_at)


class BoundedManager(KafkaConnectionManager):  # type: ignore[misc]
    """kafka-python's connection manager with a bounded bootstrap wait and a bounded TLS handshake."""

    def bootstrap(self, timeout_ms: float | None = None, refresh: bool = True) -> None:
        seconds = (timeout_ms if timeout_ms is not None else self.config["request_timeout_ms"]) / 1000
        run(self._net, self.bootstrap_async, timeout_ms, refresh, timeout_s=seconds + GRACE_S, what="connecting")

    async def _build_transport(self, node: Any, timeout_at: float | None = None) -> Any:
        if not self.ssl_enabled:
            return await super()._build_transport(node, timeout_at=timeout_at)
        sock = await create_connection(
            self._net,
            node.host,
            node.port,
            self.config["socket_options"],
            proxy_url=self.config["proxy_url"],
            timeout_at=timeout_at,
        )
        started = time.monotonic()
        try:
            ssl_configs = {key: value for key, value in self.config.items() if key.startswith("ssl_")}
            transport = KafkaSSLTransport(self._net, sock, host=node.host, **ssl_configs)
        except Exception:
            sock.close()
            raise
        try:
            await _handshake(self._net, transport, timeout_at)
        except kafka_errors.KafkaTimeoutError:
            transport.abort()
            seconds = max(0.0, (timeout_at or started) - started)
            raise kafka_errors.KafkaConnectionError(f"Handshake failed: {SILENT_TLS} {seconds:.3g}s") from None
        except Exception as exc:
            transport.abort()
            raise kafka_errors.KafkaConnectionError(f"Handshake failed: {exc}") from None
        return transport


def net_client(*, connect_timeout_ms: int, **configs: Any) -> KafkaNetClient:
    """A ``KafkaNetClient`` over a ``BoundedManager``; a new connection's setup (TCP, TLS, ApiVersions, SASL)
    is bounded by ``connect_timeout_ms`` (kafka-python's default grows to 30 s on retries)."""
    net = NetworkSelector(**configs)
    setup = {
        "socket_connection_setup_timeout_ms": connect_timeout_ms,
        "socket_connection_setup_timeout_max_ms": connect_timeout_ms,
    }
    manager = BoundedManager(net, **{**configs, **setup})
    return KafkaNetClient(net=net, manager=manager, **configs)


def stop(net: NetworkSelector, *, timeout_s: float = STOP_WAIT_S) -> bool:
    """Stop ``net``'s IO thread, waiting at most ``timeout_s``; whether it ended (so closing it is safe)."""
    thread = net._io_thread
    net.stop(timeout_ms=timeout_s * 1000)
    return thread is None or not thread.is_alive()
