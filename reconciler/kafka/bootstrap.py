"""Names why connecting to a cluster failed, and stops kafka-python's bootstrap as soon as the cause is known.

kafka-python 3 retries every bootstrap failure until ``bootstrap_timeout_ms`` and then reports only "Unable to
bootstrap". The cause (connection refused, DNS lookup failed, TLS handshake failed, SASL refused) appears only in
the warning its connection manager logs for each attempt, with the exception as an argument. ``BootstrapWatch``
is a logging handler that reads those warnings, classifies each failure per address, and closes the connection
manager (which ends the bootstrap loop at once) when retrying cannot help (it reads them through ``tap``, ahead
of the filter that redacts secrets):

- a SASL authentication error, at once;
- a listener that does not speak what the client speaks (a SASL client on a PLAINTEXT or SSL listener, a TLS
  client on a plaintext listener, a plaintext client on a TLS listener, which answers with a TLS alert record that
  kafka-python reads as an invalid frame length), at once;
- refused connections and unknown hosts, once every bootstrap address has failed at least once and there were
  ``ATTEMPTS`` such failures per address in all (so a broker that is restarting gets a second chance);
- ``MAX_DROPS`` connections that the broker accepted and then closed during the handshake (wrong credentials,
  mechanism or security protocol: the broker closes without saying why);
- ``ATTEMPTS`` connections closed at the first request after ApiVersions (a client without SASL on a SASL
  listener: the broker answers the greeting, then drops the unauthenticated Metadata request);
- never for a connection that was accepted and then got no answer (no TLS handshake answer, no answer to
  ApiVersions) within its setup bound: that is named as the last error when the bootstrap's time is up (also when
  the bound ran out before the IO thread logged it: ``note_unanswered`` reads the connections' state).

The logger is shared by every client in the process (a fleet reads several clusters at once), so a watch
takes only the records of its own client's IO thread, and closes its manager from that thread: a watch that
took another client's refusals once reported "connection refused" for a listening broker and closed the other
client's manager from a foreign thread, whose IO loop then slept through the wake-up until its next timer.

``failure_message`` turns what was seen into one sentence naming the addresses tried; ``failure_sentence``
words the whole failure, falling back to the timeout.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
import threading
from collections.abc import Iterator
from typing import Any

import kafka.errors as kafka_errors

from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import budgets, tls
from reconciler.kafka.bounded import SILENT_TLS

_AFTER_HELLO = re.compile(r"Bootstrap attempt to (\S+) failed: (.*)")
AUTH_ERRORS = (kafka_errors.SaslAuthenticationFailedError, kafka_errors.UnsupportedSaslMechanismError)


UNANSWERED = (
    "accepted the connection but did not answer the first request (ApiVersions) in time (a hung broker, a "
    "black-holed address, or not Kafka?)"
)


@dataclasses.dataclass(frozen=True, slots=True)
class Failure:
    """One failed attempt at one bootstrap address, classified."""

    address: str
    kind: str  # refused, unknown-host, tls, mismatch, auth, dropped, unauthenticated, silent, other
    detail: str


def classify(address: str, exc: BaseException) -> Failure:
    """What one exception from a bootstrap attempt means, in the user's terms."""
    text = " ".join(str(exc).split())
    if isinstance(exc, AUTH_ERRORS):
        return Failure(address, "auth", text)
    if isinstance(exc, kafka_errors.IllegalSaslStateError):
        # The broker answered SaslHandshake with ILLEGAL_SASL_STATE: this listener does not do SASL.
        return Failure(
            address,
            "mismatch",
            "protocol mismatch: the listener does not accept SASL (a PLAINTEXT or SSL listener?); "
            "check security.protocol",
        )
    if "ECONNREFUSED" in text or "Connection refused" in text:
        return Failure(address, "refused", "connection refused (is a broker listening on that port?)")
    if "DNS Resolution failure" in text or "Name or service not known" in text:
        host = address.rsplit(":", 1)[0]
        return Failure(address, "unknown-host", f"unknown host {host!r} (DNS lookup failed)")
    if SILENT_TLS in text:
        seconds = text.rsplit(" ", 1)[-1]
        return Failure(
            address,
            "silent",
            f"accepted the connection but sent no TLS handshake answer within {seconds} (a black-holed address, "
            "a load balancer without a live broker behind it, or not a TLS listener?)",
        )
    if "Request timed out" in text:
        return Failure(address, "silent", UNANSWERED)
    if "Handshake failed" in text or "SSL" in text:
        reason = text.split("Handshake failed:", 1)[-1].strip()
        if "EOF" in reason or "reset" in reason.lower():
            return Failure(
                address,
                "mismatch",
                "protocol mismatch: the broker closed the connection during the TLS handshake "
                "(a PLAINTEXT or SASL_PLAINTEXT listener?); check security.protocol",
            )
        return Failure(address, "tls", f"TLS handshake failed: {tls_failure(reason) or reason}")
    if "socket disconnected" in text:
        return Failure(address, "dropped", text)
    if _tls_record(text):
        return Failure(
            address,
            "mismatch",
            "protocol mismatch: the port speaks TLS (it answered the plaintext greeting with a TLS record); set "
            "security.protocol to SSL or SASL_SSL, or use the broker's plaintext port",
        )
    return Failure(address, "other", text)


_FRAME_LENGTH = re.compile(r"Invalid frame length: (-?\d+)")


def _tls_record(text: str) -> bool:
    """Whether kafka-python refused a response whose "frame length" is the head of a TLS record: a TLS listener
    answers a plaintext request with an alert (content type 21) or handshake (22) record of version 3.x, whose first
    four bytes read as a length of 0x1503xxxx (352518912 and up)."""
    match = _FRAME_LENGTH.search(text)
    if match is None:
        return False
    head = int(match.group(1)).to_bytes(4, "big", signed=True)
    return head[0] in (21, 22) and head[1] == 3


_TLS_FAILURES = (
    ("Hostname mismatch", "the broker's certificate does not name the host connected to ({detail}); connect with a "
     "name the certificate lists, or turn host-name checks off (ssl.endpoint.identification.algorithm= empty, "
     "KAFKA_SSL_CHECK_HOSTNAME=false, tls.endpointIdentification: false) if that is intended"),
    ("IP address mismatch", "the broker's certificate does not name the address connected to ({detail}); connect "
     "with a name or address the certificate lists, or turn host-name checks off "
     "(ssl.endpoint.identification.algorithm= empty, KAFKA_SSL_CHECK_HOSTNAME=false) if that is intended"),
    ("certificate has expired", "the broker's certificate has expired; the broker needs a renewed certificate in its "
     "key store (the client's trust store is not the problem)"),
    ("certificate is not yet valid", "the broker's certificate is not valid yet; check the clocks of the broker and "
     "of this machine"),
    ("CERTIFICATE_VERIFY_FAILED", "the broker's certificate is not trusted: {detail}; check the trust store "
     "(ssl.truststore.location / ssl_cafile) holds the CA that signed it"),
    ("UNKNOWN_CA", "the broker does not trust the client certificate (its CA is unknown to the broker); check the "
     "key store (ssl.keystore.location / ssl_certfile)"),
    ("CERTIFICATE_UNKNOWN", "the broker does not trust the client certificate (not signed by a CA in the broker's "
     "trust store, or no longer valid); check the key store (ssl.keystore.location / ssl_certfile)"),
    ("CERTIFICATE_REQUIRED", "the broker requires a client certificate and none was sent; set ssl.keystore.location "
     "(or ssl_certfile and ssl_keyfile)"),
    ("BAD_CERTIFICATE", "the broker refused the client certificate, or needs one and none was sent; check the key "
     "store (ssl.keystore.location / ssl_certfile)"),
    ("CERTIFICATE_EXPIRED", "a certificate has expired: {detail}"),
    # Kafka 2.8 on a TLS 1.3 JVM refuses a client certificate by closing the session without the alert: the
    # client reads a broken record. Nothing else in a handshake that got that far gives this error.
    ("DECRYPTION_FAILED_OR_BAD_RECORD_MAC", "the broker broke off the handshake after the client certificate was "
     "sent (bad record MAC), as older brokers do when they refuse it; check the key store (ssl.keystore.location / "
     "ssl_certfile) holds a certificate signed by a CA the broker trusts"),
    ("WRONG_VERSION_NUMBER", "the port does not speak TLS; check the security protocol and the port"),
)  # fmt: skip


def tls_failure(text: str) -> str | None:
    """A plain sentence for an OpenSSL handshake error in ``text``, or ``None`` when it is not one."""
    for marker, sentence in _TLS_FAILURES:
        if marker in text:
            match = re.search(r"certificate verify failed: ([^(\])]+)", text)
            detail = match.group(1).strip() if match else marker.lower().replace("_", " ")
            return sentence.format(detail=detail)
    return None


class BootstrapWatch(logging.Handler):
    """Attach to the ``kafka.net.manager`` logger while a client bootstraps; see the module docstring."""

    ATTEMPTS = 2
    MAX_DROPS = 3
    _AT_ONCE = ("auth", "mismatch", "tls")
    _DEFINITE = ("refused", "unknown-host")

    def __init__(self, addresses: tuple[str, ...], *, budget: budgets.Budget | None = None, had_ms: int = 0) -> None:
        super().__init__(level=logging.WARNING)
        self.addresses = addresses
        self.budget, self.had_ms = budget, had_ms  # the command's budget of which this connect had ``had_ms``
        self.failures: list[Failure] = []
        self.auth_error: BaseException | None = None
        self.managers: list[Any] = []
        self.gave_up = False

    def emit(self, record: logging.LogRecord) -> None:
        """Nothing: the records are read by ``tap`` (the watch is also a handler so that, while the application
        has the manager's warnings silenced, a record made for the watch alone counts as handled)."""

    def tap(self) -> logging.Filter:
        """A filter to put first on the manager's logger: it shows the watch each record before any other filter
        (such as the secret redaction, which flattens a record whose text holds a secret and so drops the
        exception the watch classifies) has changed it."""
        watch = self

        class Tap(logging.Filter):
            def filter(self, record: logging.LogRecord) -> bool:
                if record.levelno >= logging.WARNING:
                    watch.observe(record)
                return True

        return Tap()

    def observe(self, record: logging.LogRecord) -> None:
        """Classify one warning of the connection manager; stop the bootstrap when retrying cannot help."""
        if self.gave_up or not self._ours(record):
            return
        message = record.getMessage()
        if message.startswith("Bootstrap connection to"):
            args = record.args if isinstance(record.args, tuple) else ()
            exc = next((a for a in args if isinstance(a, BaseException)), None)
            if exc is None:
                return
            failure = classify(self._address_of(str(args[0])), exc)
        elif (after := _AFTER_HELLO.match(message)) is not None and "socket disconnected" in after.group(2):
            # The broker answered ApiVersions, then closed the connection at the first real request (Metadata):
            # what a SASL listener does to a client that did not authenticate.
            failure = Failure(
                self._address_of(after.group(1)),
                "unauthenticated",
                "protocol mismatch: the broker closed the connection at the first request after the greeting "
                "(a SASL listener? set security.protocol and the SASL settings)",
            )
        else:
            return
        self.failures.append(failure)
        if failure.kind == "auth":
            self.auth_error = exc
        if self._should_stop():
            self.gave_up = True
            for manager in self.managers:
                manager.close()

    def _ours(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` was logged by the IO thread of one of this watch's own clients."""
        for manager in self.managers:
            thread = manager._net._io_thread
            if thread is not None and thread.ident == record.thread:
                return True
        return False

    def _should_stop(self) -> bool:
        kinds = [f.kind for f in self.failures]
        if any(k in self._AT_ONCE for k in kinds):
            return True
        if kinds.count("dropped") >= self.MAX_DROPS or kinds.count("unauthenticated") >= self.ATTEMPTS:
            return True
        definite = [f for f in self.failures if f.kind in self._DEFINITE]
        failed = {f.address for f in definite}
        return failed >= set(self.addresses) and len(definite) >= self.ATTEMPTS * len(self.addresses)

    def note_unanswered(self) -> None:
        """When the bound ran out before the IO thread named a failure (a starved thread on a loaded machine names its
        own a moment later): each bootstrap connection still waiting for its first answer, its TCP connection (and
        TLS handshake) done, is recorded as unanswered. Read before the clients are stopped, which closes them."""
        if self.failures:
            return
        for manager in self.managers:
            for node, conn in list(getattr(manager, "_conns", {}).items()):
                if getattr(conn, "initializing", False) and getattr(conn, "transport", None) is not None:
                    self.failures.append(Failure(self._address_of(str(node)), "silent", UNANSWERED))

    def _address_of(self, node: str) -> str:
        """``host:port`` of kafka-python's synthetic bootstrap node id (``bootstrap-0``)."""
        for manager in self.managers:
            for broker in manager.cluster.bootstrap_brokers():
                if str(broker.node_id) == node:
                    return f"{broker.host}:{broker.port}"
        return node

    def failure_message(self, where: str, *, client_problem: str | None = None) -> str | None:
        """One sentence for the failure that ended the bootstrap, or ``None`` when nothing definite was seen.

        ``client_problem``: what is wrong with the client certificate as the client itself sees it (expired, not
        yet valid); it names the cause when the broker refused the certificate without saying why.
        """
        if not self.gave_up:
            return None
        decisive = next((f for f in reversed(self.failures) if f.kind in (*self._AT_ONCE, "unauthenticated")), None)
        if decisive is not None and decisive.kind == "tls" and client_problem and "client cert" in decisive.detail:
            return (
                f"cannot connect to Kafka at {where}: {decisive.address}: TLS handshake failed: the broker refused "
                f"the client certificate: {client_problem}"
            )
        if decisive is not None and decisive.kind != "auth":  # auth: the caller words it, with the broker's reason
            return f"cannot connect to Kafka at {where}: {decisive.address}: {decisive.detail}"
        if decisive is not None:
            return None
        if sum(f.kind == "dropped" for f in self.failures) >= self.MAX_DROPS:
            return None  # the caller words it: it depends on the SASL settings
        latest = {f.address: f for f in self.failures if f.kind in self._DEFINITE}
        causes = "; ".join(f"{address}: {latest[address].detail}" for address in self.addresses if address in latest)
        return f"cannot connect to Kafka at {where}: {causes}"


_level_lock = threading.Lock()
_watching = 0
_saved: tuple[int, bool] = (logging.NOTSET, True)


@contextlib.contextmanager
def watching(watch: BootstrapWatch) -> Iterator[None]:
    """Attach ``watch`` to kafka-python's manager logger while a client connects.

    When the application silenced the logger (a level above WARNING), its warnings are let through for the
    watches alone while any client connects, without passing them on; the first watch in saves the settings and
    the last one out restores them (clients connect on several threads at once in a fleet).
    """
    global _watching, _saved
    manager_log = logging.getLogger("kafka.net.manager")
    with _level_lock:
        if _watching == 0:
            _saved = (manager_log.level, manager_log.propagate)
            if not manager_log.isEnabledFor(logging.WARNING):
                manager_log.setLevel(logging.WARNING)
                manager_log.propagate = False
        _watching += 1
        manager_log.addHandler(watch)
        manager_log.filters.insert(0, tap := watch.tap())  # ahead of the secret redaction
    try:
        yield
    finally:
        with _level_lock:
            manager_log.removeHandler(watch)
            manager_log.removeFilter(tap)
            _watching -= 1
            if _watching == 0:
                manager_log.setLevel(_saved[0])
                manager_log.propagate = _saved[1]


def auth_hint(settings: ConnectionSettings) -> str:
    """What to check after the broker refused this client's credentials."""
    if settings.sasl_mechanism == "OAUTHBEARER":
        return (
            "the broker rejected the OAuth token; check that its issuer, audience and signing key match the "
            "broker's sasl.oauthbearer.* settings"
        )
    if settings.sasl_mechanism == "AWS_MSK_IAM":
        return "check the AWS credentials and that their IAM policy allows kafka-cluster:Connect"
    return "check the username, the password and the SASL mechanism"


def failure_sentence(watch: BootstrapWatch, settings: ConnectionSettings, *, seconds: float) -> str:
    """The sentence for a bootstrap that ended without a client: the cause seen, else the ``seconds`` bound.

    When the connect had what an earlier step left of the command's --timeout (``watch.budget``) and that was too
    little for a fair chance, the sentence says the budget was spent, naming the --timeout and what used it, before
    any other cause; otherwise it names both in place of the bare bound.
    """
    where = settings.target()  # names the Cluster profile the settings came from, if any
    last = watch.failures[-1] if watch.failures else None
    seen = f"; last error: {last.address}: {last.detail}" if last is not None else ""
    budget, had_s = watch.budget, watch.had_ms / 1000
    if budget is not None and had_s < budget.SHORT_S and watch.auth_error is None:
        return budget.sentence(where, had_s=had_s, seen=seen)
    if watch.auth_error is not None:
        return f"authentication failed at {where}: {broker_message(watch.auth_error)}; {auth_hint(settings)}"
    drops = sum(f.kind == "dropped" for f in watch.failures)
    if watch.gave_up and drops >= watch.MAX_DROPS and settings.uses_sasl:
        hint = "check the username, password, SASL mechanism and security protocol"
        if settings.sasl_mechanism == "OAUTHBEARER":  # its token was fetched: the broker refuses it
            hint = auth_hint(settings)
        return (
            f"authentication failed at {where}: the broker closed the connection during the handshake "
            f"{drops} times; {hint}"
        )
    if watch.gave_up and drops >= watch.MAX_DROPS:
        return (
            f"cannot connect to Kafka at {where}: the other end closed the connection before answering, "
            f"{drops} times (a SASL or TLS listener, or not Kafka at all?); check the port and security.protocol"
        )
    named = watch.failure_message(where, client_problem=tls.client_certificate_problem(settings))
    if named is not None:
        return named
    if budget is not None:
        return budget.sentence(where, had_s=had_s, seen=seen)
    return (
        f"cannot reach Kafka at {where}: no broker answered within {budgets.seconds(seconds)}s "
        f"(check the address, the port and the security protocol){seen}"
    )


def broker_message(exc: BaseException) -> str:
    """``Authentication failed: Invalid username or password`` from kafka-python's wrapped error text."""
    text = plain(exc)
    return text.rsplit(": ", 2)[-2] + ": " + text.rsplit(": ", 1)[-1] if text.count(": ") >= 2 else text


def plain(exc: BaseException) -> str:
    """An exception's text on one line."""
    return " ".join(str(exc).split())
