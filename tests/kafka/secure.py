"""The ``secure`` test node: one broker with a client listener per production security set-up.

One JVM serves every TLS-based kind, so the suite pays one start-up for all of them:

- ``TLS``: SSL, server authentication only (clients are ``User:ANONYMOUS``);
- ``MTLS``: SSL with ``ssl.client.auth=required``; the principal comes from the client certificate: the whole
  subject (``User:CN=admin,OU=ops,O=kafka-reconciler tests``) by Kafka's default rule, or just the common name
  for certificates of ``OU=mapped``, through ``ssl.principal.mapping.rules``;
- ``SCRAM``: SASL_SSL with SCRAM-SHA-256 and SCRAM-SHA-512 (users ``admin``, ``alice``, made after start);
- ``OAUTH``: SASL_SSL with OAUTHBEARER; the broker validates RS256 JWTs against the JWKS of a local OIDC server
  (``tests.support.oidc``), checking issuer and audience; the principal is the token's ``sub``. Only on Kafka
  3.1+: older brokers have no JWKS validator (KIP-768), only an unsecured one that accepts unsigned tokens, so
  the listener is left out there (``SecureCluster.has_oauth``);
- ``OAUTHAZP``: as ``OAUTH``, but the listener's ``sasl.oauthbearer.sub.claim.name`` is ``azp``: the principal is
  the token's ``azp`` claim (client ``azp-client`` gets ``azp: svc-azp-orders``).

An ``INTERNAL`` PLAINTEXT listener (``node.port``) serves the harness and the inter-broker traffic; the
StandardAuthorizer (ZooKeeper mode: the AclAuthorizer) enforces ACLs on every listener, with ``User:ANONYMOUS``
(the harness), SCRAM ``admin``, the mTLS ``admin`` certificate and the OAuth client ``admin-client`` as super
users. Certificates, stores and the token signing key are all generated at start (``tests.support.tls``).
"""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path
from typing import Any

from kafka.admin import UserScramCredentialUpsertion

from reconciler.connection.settings import ConnectionSettings, Secret
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import HarnessError, resolve
from tests.kafka.kinds import AUTHORIZER, SCRAM_MECHANISMS, ZK_AUTHORIZER, base_properties, zookeeper_for
from tests.kafka.node import KafkaNode
from tests.support.oidc import OidcServer
from tests.support.tls import ClientFiles, TestPki

LISTENERS = {"TLS": "SSL", "MTLS": "SSL", "SCRAM": "SASL_SSL", "OAUTH": "SASL_SSL", "OAUTHAZP": "SASL_SSL"}
OAUTH_LISTENERS = ("OAUTH", "OAUTHAZP")
MAPPING_RULES = "RULE:^CN=([^,]+),OU=mapped,.*$/$1/,DEFAULT"
OAUTH_VALIDATOR = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
OAUTH_SINCE = (3, 1)  # KIP-768: the broker-side JWKS validator
ALLOWED_URLS_PROPERTY = "org.apache.kafka.sasl.oauthbearer.allowed.urls"


class SecureCluster(KafkaCluster):
    """A ``KafkaCluster`` plus its PKI, OIDC server, SCRAM users and one port per client listener."""

    def __init__(self, *, root: Path, version: str | None) -> None:
        dist = resolve(version)
        node = KafkaNode(dist=dist, node_id=1, workdir=root / "node-1")
        self.has_oauth = dist.at_least(*OAUTH_SINCE)
        super().__init__(
            name="secure",
            dist=dist,
            nodes=[node],
            workdir=root,
            make_properties=secure_properties,
            extra_listeners=tuple(name for name in LISTENERS if self.has_oauth or name not in OAUTH_LISTENERS),
            zookeeper=zookeeper_for(dist, root),
        )
        self.pki = TestPki(root / "pki")
        self.mtls_admin = self.pki.client("admin", unit="ops")
        self.mtls_app = self.pki.client("app", unit="mapped")
        self.mtls_rogue = self.pki.client("intruder", unit="ops", ca=self.pki.rogue_ca)
        self.scram: dict[str, str] = {name: secrets.token_urlsafe(16) for name in ("admin", "alice")}
        self.oidc = OidcServer(audience="kafka").start()
        self.oauth_admin = self.oidc.register("admin-client")
        self.oauth_app = self.oidc.register("app-client")
        self.oauth_expired = self.oidc.register("expired-client", lifetime_s=-120)
        self.oauth_forged = self.oidc.register("forged-client", foreign_key=True)
        self.oauth_azp = self.oidc.register("azp-client", azp="svc-azp-orders")
        node.extra_jvm_args.append(f"-D{ALLOWED_URLS_PROPERTY}={self.oidc.jwks_url},{self.oidc.token_url}")

    def port(self, listener: str) -> int:
        return self.nodes[0].listener_ports[listener]

    def address(self, listener: str) -> str:
        return f"127.0.0.1:{self.port(listener)}"

    @property
    def super_users(self) -> list[str]:
        return ["User:ANONYMOUS", "User:admin", f"User:{self.mtls_admin.subject}", "User:admin-client"]

    def create_scram_users(self) -> None:
        # The broker refuses two changes of one user in a request: one request per mechanism.
        with self.admin_session() as admin:
            for mechanism in SCRAM_MECHANISMS:
                upserts = [UserScramCredentialUpsertion(name, mechanism, pw) for name, pw in self.scram.items()]
                failed = {u: e for u, e in admin.alter_user_scram_credentials(upserts).items() if e is not None}
                if failed:
                    raise HarnessError(f"creating SCRAM users on {self.name} failed: {failed}")

    def settings(self, listener: str, **fields: Any) -> ConnectionSettings:
        """The reconciler's settings for ``listener``, trusting the test CA (PEM) unless ``fields`` say otherwise."""
        base: dict[str, Any] = {
            "bootstrap_servers": (self.address(listener),),
            "security_protocol": LISTENERS[listener],
            "ssl_cafile": str(self.pki.ca_pem),
            "request_timeout_ms": 15_000,
        }
        base.update(fields)
        return ConnectionSettings(**base)

    def mtls_settings(self, client: ClientFiles, **fields: Any) -> ConnectionSettings:
        return self.settings(
            "MTLS",
            ssl_certfile=str(client.cert_pem),
            ssl_keyfile=str(client.key_pem),
            ssl_key_password=Secret(client.key_password),
            **fields,
        )

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.oidc.close()


def secure_properties(cluster: KafkaCluster, node: KafkaNode) -> dict[str, str]:
    assert isinstance(cluster, SecureCluster)
    pki, oidc = cluster.pki, cluster.oidc
    ports = {"INTERNAL": node.port, **node.listener_ports}
    props = base_properties(cluster, node, replication=1)
    listeners = ",".join(f"{name}://127.0.0.1:{port}" for name, port in ports.items())
    protocols = ",".join(f"{name}:{LISTENERS[name]}" for name in node.listener_ports)
    zk = cluster.zookeeper is not None
    props.update(
        {
            "listeners": listeners if zk else f"{listeners},CONTROLLER://127.0.0.1:{node.controller_port}",
            "advertised.listeners": listeners,
            "listener.security.protocol.map": f"INTERNAL:PLAINTEXT,{protocols}"
            + ("" if zk else ",CONTROLLER:PLAINTEXT"),
            "inter.broker.listener.name": "INTERNAL",
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": str(pki.broker_keystore),
            "ssl.keystore.password": pki.store_password,
            "ssl.key.password": pki.store_password,
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.location": str(pki.broker_truststore),
            "ssl.truststore.password": pki.store_password,
            "listener.name.mtls.ssl.client.auth": "required",
            "ssl.principal.mapping.rules": MAPPING_RULES,
            "sasl.enabled.mechanisms": ",".join(SCRAM_MECHANISMS),
            "listener.name.scram.sasl.enabled.mechanisms": ",".join(SCRAM_MECHANISMS),
            "authorizer.class.name": ZK_AUTHORIZER if zk else AUTHORIZER,
            "super.users": ";".join(cluster.super_users),
            "allow.everyone.if.no.acl.found": "false",
        }
    )
    if cluster.has_oauth:
        props.update(
            {
                "sasl.enabled.mechanisms": ",".join((*SCRAM_MECHANISMS, "OAUTHBEARER")),
                "listener.name.oauth.sasl.enabled.mechanisms": "OAUTHBEARER",
                "listener.name.oauth.oauthbearer.sasl.jaas.config": (
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
                ),
                "listener.name.oauth.oauthbearer.sasl.server.callback.handler.class": OAUTH_VALIDATOR,
                # OAUTHAZP names principals by the token's "azp" claim, set for that listener only.
                "listener.name.oauthazp.sasl.enabled.mechanisms": "OAUTHBEARER",
                "listener.name.oauthazp.oauthbearer.sasl.jaas.config": (
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
                ),
                "listener.name.oauthazp.oauthbearer.sasl.server.callback.handler.class": OAUTH_VALIDATOR,
                "listener.name.oauthazp.sasl.oauthbearer.sub.claim.name": "azp",
                "sasl.oauthbearer.jwks.endpoint.url": oidc.jwks_url,
                "sasl.oauthbearer.expected.audience": oidc.audience,
                "sasl.oauthbearer.expected.issuer": oidc.issuer,
            }
        )
    for mechanism in SCRAM_MECHANISMS:
        props[f"listener.name.scram.{mechanism.lower()}.sasl.jaas.config"] = (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        )
    return props


def secure_node(*, version: str | None = None) -> SecureCluster:
    """Start the secure node (see the module docstring) and create its SCRAM users; the caller closes it."""
    cluster = SecureCluster(root=Path(tempfile.mkdtemp(prefix="kafka-test-secure-")), version=version)
    try:
        cluster.start()
        cluster.create_scram_users()
    except BaseException:
        cluster.close()
        raise
    return cluster
