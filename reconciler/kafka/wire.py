"""The single channel to the cluster: connects lazily, routes, counts and sends every admin request.

kafka-python's ``KafkaAdminClient`` provides the connection pool, SASL/SSL and API-version negotiation; the
adapter sends protocol requests through its connection manager rather than through its admin methods,
because those methods hide what the adapter must report (per-entity error messages, ``throttle_time_ms``)
or send extra requests behind the caller's back (a Metadata lookup for the controller, a DescribeConfigs
before every AlterConfigs), which would make the request count meaningless. Every request goes through
``Wire.send``, which counts it.

No wait is unbounded (``reconciler.kafka.bounded``): connecting is bounded by the connect timeout, each request
by its timeout plus a connection's setup, and everything by the wire's deadline (``deadline_s`` from its
creation; ``DEFAULT_DEADLINE_S`` when the command sets none), so a black-holed address ends with its cause.
"""

from __future__ import annotations

import collections
import importlib.util
import time
from collections.abc import Callable
from typing import Any

import kafka.errors as kafka_errors
from kafka.admin import KafkaAdminClient
from kafka.net.compat import KafkaNetClient
from kafka.protocol.api_key import ApiKey
from kafka.protocol.metadata import MetadataRequest

from reconciler.base import errors, scrubbing
from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import bootstrap, bounded, budgets, identity, netfix, oauth, redact, rights, tls
from reconciler.kafka.codes import api_name, error_name, is_retriable, throttle_of
from reconciler.kafka.results import ConnectionLost, RequestFailed
from reconciler.model.capabilities import explain_unsupported

netfix.install()  # a refused SASL login is reported by the broker's own words, every time

DEFAULT_DEADLINE_S = 900.0  # the whole-command bound on talking to a cluster when the command sets none
_CONNECTION_ERRORS = (
    kafka_errors.KafkaConnectionError,
    kafka_errors.NodeNotReadyError,
    kafka_errors.KafkaTimeoutError,
    kafka_errors.RequestTimedOutError,
    kafka_errors.UnknownBrokerIdError,  # a broker this client has not seen in its own metadata yet
)
# Requests that only read: resending one elsewhere is safe, and a lost answer leaves nothing in doubt.
_READ_APIS = ("Describe", "List", "Metadata", "ApiVersions")
_AUTH_ERRORS = (
    kafka_errors.SaslAuthenticationFailedError,
    kafka_errors.UnsupportedSaslMechanismError,
    kafka_errors.IllegalSaslStateError,
)


class Wire:
    """Owns the kafka-python client for one cluster; ``send`` is the only way a request leaves the process."""

    READ_DETOURS = 3  # other brokers a free-to-route read tries after its first broker failed

    def __init__(
        self, settings: ConnectionSettings, *, connect_timeout_s: float | None = None, deadline_s: float | None = None
    ) -> None:
        self.settings = settings
        # Bound on everything this wire waits for, from its creation: no command talks to a cluster for longer.
        self.deadline_s = DEFAULT_DEADLINE_S if deadline_s is None else deadline_s
        self.deadline_at = time.monotonic() + self.deadline_s
        self.writes_until = self.deadline_at  # writes end here: the rest is kept for reading back (``limit``)
        # Bound on connecting (bootstrap), at most the request timeout; e.g. apply's --timeout.
        self.connect_timeout_ms = settings.request_timeout_ms
        if connect_timeout_s is not None:
            self.connect_timeout_ms = max(1, min(self.connect_timeout_ms, int(connect_timeout_s * 1000)))
        self.request_counts: collections.Counter[str] = collections.Counter()
        self.controller_id: int | None = None
        # The broker that answers every request that may go anywhere, so that reads and waits see one
        # broker's metadata cache (brokers catch up with the controller at different moments).
        self.home: int | None = None
        self.last_metadata: Any = None  # the last Metadata answer noted (a plan's read, reused by kafka/evidence.py)
        self.broker_rules: identity.BrokerRules | bool | None = None  # False: could not be read
        # Brokers whose last request failed on the connection; reads route around them first.
        self.unreachable: set[int] = set()
        self._client: KafkaAdminClient | None = None
        self.budget: budgets.Budget | None = None  # what a command left of its --timeout (KafkaAdapter.name_budget)
        self.token_provider: oauth.ClientCredentialsTokenProvider | None = None
        if settings.sasl_mechanism == "OAUTHBEARER":
            self.token_provider = oauth.ClientCredentialsTokenProvider(settings)
        redact.quiet_library_logs()
        redact.redact_library_logs(*settings.secrets())

    # ------------------------------------------------------------------------------ connection
    def _client_kwargs(self) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "bootstrap_servers": list(s.bootstrap_servers),
            "client_id": s.client_id,
            "security_protocol": s.security_protocol,
            "request_timeout_ms": s.request_timeout_ms,
            "bootstrap_timeout_ms": self.connect_timeout_ms,
            "reconnect_backoff_max_ms": 2_000,
        }
        if s.uses_sasl:
            kwargs["sasl_mechanism"] = s.sasl_mechanism
            if s.sasl_mechanism == "OAUTHBEARER":
                kwargs["sasl_oauth_token_provider"] = self.token_provider
            elif s.sasl_mechanism != "AWS_MSK_IAM":
                kwargs["sasl_plain_username"] = s.username
                kwargs["sasl_plain_password"] = s.password.reveal() if s.password is not None else None
        if s.uses_ssl:
            kwargs["ssl_context"] = tls.ssl_context(s)
        return kwargs

    def scrub(self, text: str) -> str:
        """``text`` with any configured secret (and the OAuth token) replaced by ``***`` (defence in depth)."""
        token = self.token_provider._token if self.token_provider is not None else None
        return scrubbing.scrub(text, [*(s.reveal() for s in self.settings.secrets()), token or ""])

    @property
    def principal(self) -> str | None:
        """The principal the brokers see for this connection, when it can be known from the client side.

        SASL PLAIN/SCRAM: ``User:<username>``; PLAINTEXT: ``User:ANONYMOUS``; AWS IAM (not governed by Kafka ACLs):
        ``None``. OAUTHBEARER and TLS: by the brokers' own rules (``identity``), read once with DescribeConfigs.
        """
        s = self.settings
        if s.uses_sasl and s.sasl_mechanism != "OAUTHBEARER":
            return f"User:{s.username}" if s.username and s.sasl_mechanism != "AWS_MSK_IAM" else None
        if not s.uses_ssl and not s.uses_sasl:
            return "User:ANONYMOUS"
        if self.broker_rules is None:
            self.broker_rules = identity.broker_rules(self, mechanism=s.sasl_mechanism) or False
        rules = self.broker_rules if isinstance(self.broker_rules, identity.BrokerRules) else None
        claims = self.token_provider.claims if self.token_provider is not None else {}
        certificate = None if s.uses_sasl else tls.client_certificate(s)
        return identity.principal(s, rules, claims=claims, certificate=certificate)

    def client(self) -> KafkaAdminClient:
        """The connected client, connecting on first use; ``ConnectionFailed`` with a plain message otherwise.

        Connecting (OAuth token fetch, TCP, TLS, SASL, bootstrap metadata) is bounded by the connect timeout,
        and by what is left of the deadline.
        """
        if self._client is not None:
            return self._client
        where = self.settings.target()  # names the Cluster profile the settings came from, if any
        connect_ms = self._bound_ms(self.connect_timeout_ms, doing=f"connecting to {where}")
        # A wait cut short by the deadline is named by the limit given (3s), not by what is left of it (2.9s).
        named_s = self.deadline_s if connect_ms < self.connect_timeout_ms else connect_ms / 1000
        created: list[KafkaNetClient] = []
        watch = bootstrap.BootstrapWatch(self.settings.bootstrap_servers, budget=self.budget, had_ms=connect_ms)

        def factory(**configs: Any) -> KafkaNetClient:
            net_client = bounded.net_client(connect_timeout_ms=connect_ms, **configs)
            created.append(net_client)
            watch.managers.append(net_client._manager)
            return net_client

        kwargs = {**self._client_kwargs(), "bootstrap_timeout_ms": connect_ms}
        if self.settings.sasl_mechanism == "AWS_MSK_IAM":
            _require_botocore()
        if self.token_provider is not None:
            self.token_provider.deadline_at = time.monotonic() + connect_ms / 1000
            self.token_provider.deadline_s = named_s
            try:
                self.token_provider.token()  # fetched before connecting, so its own failures are named plainly
            except oauth.OAuthTokenError as exc:
                raise errors.AuthenticationFailed(f"cannot authenticate to Kafka at {where}: {exc}") from None
            finally:  # a refresh later in a long run is bounded by the endpoint's own timeout, not this connect's
                self.token_provider.deadline_at = self.token_provider.deadline_s = None
        with bootstrap.watching(watch):
            try:
                self._client = KafkaAdminClient(kafka_client=factory, **kwargs)
            except _AUTH_ERRORS as exc:
                self._discard(created)
                raise errors.AuthenticationFailed(
                    f"authentication failed at {where}: {self.scrub(bootstrap.plain(exc))}; "
                    f"{bootstrap.auth_hint(self.settings)}"
                ) from None
            except kafka_errors.KafkaTimeoutError:
                watch.note_unanswered()  # before the clients are stopped, which closes their connections
                self._discard(created)
                sentence = bootstrap.failure_sentence(watch, self.settings, seconds=named_s)
                raise errors.ConnectionFailed(self.scrub(sentence)) from None
            except Exception as exc:  # kafka-python raises assorted types for SSL and configuration problems
                self._discard(created)
                raise errors.ConnectionFailed(
                    f"cannot connect to Kafka at {where}: {type(exc).__name__}: {self.scrub(bootstrap.plain(exc))}"
                ) from None
        return self._client

    def limit(self, seconds: float, *, named_s: float | None = None, reserve_s: float = 0.0) -> None:
        """Nothing waits on the cluster past ``seconds`` from now (an apply's deadline; never lengthened), no write in
        its last ``reserve_s`` (kept for reading back what was sent). Messages name ``named_s`` (the --timeout)."""
        at = time.monotonic() + max(0.0, seconds)
        if at < self.deadline_at:
            shown = seconds if named_s is None else named_s
            self.deadline_at, self.deadline_s = at, round(shown, 1) if shown >= 1 else shown
        self.writes_until = self.deadline_at - max(0.0, reserve_s)

    def _bound_ms(self, step_ms: float, *, doing: str, write: bool = False) -> int:
        """``step_ms`` cut to what is left of the deadline (for a write, until ``writes_until``); ``DeadlineReached``
        when nothing is left: the request is not sent."""
        left_ms = ((self.writes_until if write else self.deadline_at) - time.monotonic()) * 1000
        if left_ms <= 0:
            kept = write and self.deadline_at > time.monotonic()
            why = "is nearly spent: the rest is kept for reading back what was sent" if kept else "is spent"
            raise errors.DeadlineReached(
                f"gave up {doing}: the time limit of {self.deadline_s:g}s for talking to the cluster {why}"
            )
        return max(1, int(min(step_ms, left_ms)))

    @staticmethod
    def _discard(created: list[KafkaNetClient]) -> None:
        for net_client in created:
            if bounded.stop(net_client._net):  # a stuck IO thread is left to die with the process (a daemon)
                net_client.close()

    def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            if bounded.stop(client._net):
                client.close()

    # ---------------------------------------------------------------------------- capabilities
    def capabilities(self) -> dict[str, int]:
        """Admin API name -> highest version the (bootstrap) broker supports, from its ApiVersions answer."""
        data = self.client()._manager.broker_version_data
        result: dict[str, int] = {}
        for key, (_low, high) in data.api_versions.items():
            try:
                result[ApiKey(key).name] = int(high)
            except ValueError:
                continue
        return result

    def unsupported(self, api: str) -> str | None:
        """A plain sentence when the cluster lacks ``api``, else ``None``."""
        return explain_unsupported(api, self.capabilities())

    def require(self, api: str) -> None:
        reason = self.unsupported(api)
        if reason is not None:
            raise errors.UnsupportedByCluster(reason)

    def broker_ids(self) -> list[int]:
        return sorted(int(b.node_id) for b in self.client()._manager.cluster.brokers())

    # ------------------------------------------------------------------------------------ send
    def send(self, request: Any, *, node: int | None = None, timeout_ms: int | None = None) -> Any:
        """Send one request to ``node``, else to the home broker, and return the decoded response.

        When the broker a free-to-route request went to stops answering, it is dropped as home; a read
        (Describe*, List*, Metadata) is then sent to other brokers in turn, those not seen failing first,
        up to ``READ_DETOURS`` of them. A write is not resent (its outcome is unknown: ``ConnectionLost``).
        """
        if node is not None:
            return self._send(request, node=node, timeout_ms=timeout_ms)
        first = self.home
        try:
            return self._send(request, node=first, timeout_ms=timeout_ms)
        except ConnectionLost as lost:
            self.home = None
            if not api_name(request).startswith(_READ_APIS):
                raise
            failure = lost
        for other in self._detours(exclude=first):
            try:
                response = self._send(request, node=other, timeout_ms=timeout_ms)
            except ConnectionLost as lost:
                failure = lost
                continue
            self.home = other
            return response
        raise failure

    def _detours(self, *, exclude: int | None) -> list[int]:
        """Brokers to try a read on after a failure: known-good ones first, at most ``READ_DETOURS``."""
        try:
            known = [b for b in self.broker_ids() if b != exclude]
        except Exception:  # no metadata at all: nothing to route around with
            return []
        known.sort(key=lambda b: (b in self.unreachable, b))
        return known[: self.READ_DETOURS]

    def _send(self, request: Any, *, node: int | None, timeout_ms: int | None) -> Any:
        client = self.client()
        api = api_name(request)
        target = f"broker {node}" if node is not None else "the cluster"
        wait_ms = timeout_ms if timeout_ms is not None else self.settings.request_timeout_ms
        # The broker may first need a connection (its setup bound), then the request has its own timeout; both
        # end at the deadline, where the library's own timer cancels the request (``library_ms``).
        step_ms = wait_ms + self.connect_timeout_ms + bounded.GRACE_S * 1000
        write = not api.startswith(_READ_APIS)
        bound_ms = self._bound_ms(step_ms, doing=f"before sending {api} to {target}", write=write)
        library_ms = min(wait_ms, bound_ms)
        cut = bound_ms < step_ms
        self.request_counts[api] += 1
        manager = client._manager
        unknown = "" if api.startswith(_READ_APIS) else "; the request may or may not have been applied"
        kept = write and self.writes_until < self.deadline_at
        end = "is nearly spent: the rest is kept for reading back" if kept else "ran out"
        spent = f" (the time limit of {self.deadline_s:g}s for talking to the cluster {end})"
        try:
            response = bounded.run(
                manager._net, manager.send, request, node, library_ms, timeout_s=bound_ms / 1000, what=api
            )
        except bounded.Stalled as exc:
            if node is not None:
                self.unreachable.add(node)
            why = f"no answer within {exc.seconds:g}s{spent if cut else ''}{unknown}"
            where = f"{api} to {target} at {self.settings.describe()}"
            raise ConnectionLost(f"{where} failed: {why}", api=api, node=node, timed_out=True, deadline=cut) from None
        except (kafka_errors.IncompatibleBrokerVersion, kafka_errors.UnsupportedVersionError):
            reason = self.unsupported(api) or f"cluster does not support the {api} versions kafka-python speaks"
            raise errors.UnsupportedByCluster(reason) from None
        except _AUTH_ERRORS as exc:
            raise errors.AuthenticationFailed(
                f"authentication failed at {self.settings.describe()}: {self.scrub(_plain(exc))}"
            ) from None
        except _CONNECTION_ERRORS as exc:
            why = self.scrub(_plain(exc)) or type(exc).__name__
            timed_out = isinstance(exc, (kafka_errors.KafkaTimeoutError, kafka_errors.RequestTimedOutError))
            ran_out = timed_out and cut and library_ms < wait_ms
            if timed_out:
                why = f"no answer within the request timeout ({wait_ms:g} ms)"
            if ran_out:
                why = f"no answer within {library_ms:g} ms{spent}"
            if node is not None:
                self.unreachable.add(node)
            raise ConnectionLost(
                f"{api} to {target} failed: {why}{unknown}", api=api, node=node, timed_out=timed_out, deadline=ran_out
            ) from None
        except kafka_errors.KafkaError as exc:
            code = int(getattr(exc, "errno", None) or -1)
            raise RequestFailed(
                f"{api} failed: {self.scrub(_plain(exc)) or type(exc).__name__}",
                api=api,
                error_code=code,
                error_name=error_name(code),
                retriable=bool(exc.retriable),
            ) from None
        if node is not None:
            self.unreachable.discard(node)
        return response

    def refresh_controller(self) -> int:
        """Ask for the controller id (one Metadata request without topics)."""
        response = self.send(MetadataRequest(topics=[], allow_auto_topic_creation=False))
        self.note_metadata(response)
        if self.controller_id is None:
            raise RequestFailed(
                "the cluster reports no controller", api="Metadata", error_code=-1, error_name=None, retriable=True
            )
        return self.controller_id

    def note_metadata(self, response: Any) -> None:
        controller, self.last_metadata = getattr(response, "controller_id", -1), response
        self.controller_id = int(controller) if controller is not None and controller >= 0 else None
        if self.home is None:
            self.home = self.controller_id

    def send_to_controller(
        self, request: Any, *, not_controller: Callable[[Any], bool], timeout_ms: int | None = None
    ) -> Any:
        """Send to the controller; on ``NOT_CONTROLLER`` refresh the controller id and resend once."""
        if self.controller_id is None:
            self.refresh_controller()
        try:
            response = self.send(request, node=self.controller_id, timeout_ms=timeout_ms)
        except ConnectionLost:
            # The broker died or is unreachable: ask the cluster again before the next request goes there.
            self.controller_id = None
            raise
        if not_controller(response):
            self.refresh_controller()
            response = self.send(request, node=self.controller_id, timeout_ms=timeout_ms)
        return response

    def check_top_level(self, response: Any, *, api: str) -> None:
        """Raise ``RequestFailed`` when a response carries a top-level error code."""
        code = int(getattr(response, "error_code", 0) or 0)
        if code:
            message = f"{api} failed: {error_name(code)}: {getattr(response, 'error_message', None) or ''}".rstrip(": ")
            if rights.is_authorization_error(error_name(code)):
                hint = rights.grant_hint(api, settings=self.settings, wire=self)
                message += f"; {hint}" if hint else ""
            raise RequestFailed(
                message,
                api=api,
                error_code=code,
                error_name=error_name(code),
                retriable=is_retriable(code),
                throttle_time_ms=throttle_of(response),
            )


def _require_botocore() -> None:
    if importlib.util.find_spec("botocore") is None:
        raise errors.ConfigError("SASL AWS_MSK_IAM needs the botocore package (pip install 'kafka-reconciler[msk]')")


_plain = bootstrap.plain
