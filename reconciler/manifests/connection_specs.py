"""The connection parts of the ``Cluster`` profile model: TLS files and stores, and its Kafka Connect clusters (one,
the single form's ``default``, or several by name)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from reconciler.manifests.fields import ConnectClusterName, Name, SecretRefSpec, StoreType, Strict


class TlsSpec(Strict):
    """TLS files of a ``Cluster`` profile (paths relative to the manifest's directory)."""

    ca_file: Name | None = None
    cert_file: Name | None = None
    key_file: Name | None = None
    key_password_from: SecretRefSpec | None = None
    truststore: Name | None = None
    truststore_type: StoreType | None = None
    truststore_password_from: SecretRefSpec | None = None
    keystore: Name | None = None
    keystore_type: StoreType | None = None
    keystore_password_from: SecretRefSpec | None = None
    endpoint_identification: bool = True
    principal_mapping_rules: Name | None = None


class ConnectClusterSpec(Strict):
    """One Kafka Connect cluster of a ``Cluster`` profile: REST URLs (tried in order), TLS, basic auth."""

    urls: Annotated[list[Name], Field(min_length=1)]
    tls: TlsSpec | None = None
    username: Name | None = None
    password_from: SecretRefSpec | None = None


class ConnectSpec(Strict):
    """The Kafka Connect clusters of a ``Cluster`` profile: one (``urls``, ``tls``, ``username``, ``passwordFrom``
    here: the cluster named ``default``) or several named under ``clusters``, never both."""

    urls: Annotated[list[Name], Field(min_length=1)] | None = None
    tls: TlsSpec | None = None
    username: Name | None = None
    password_from: SecretRefSpec | None = None
    clusters: dict[ConnectClusterName, ConnectClusterSpec] = Field(
        default_factory=dict,
        description="Several Kafka Connect clusters by name (sources and sinks apart, one per team); a Connector "
        "names the one it runs on with connectCluster.",
    )

    @model_validator(mode="after")
    def _one_form(self) -> ConnectSpec:
        single = (self.urls, self.tls, self.username, self.password_from)
        if not self.clusters and self.urls is None:
            raise ValueError("give urls (one Connect cluster) or clusters (several by name)")
        if self.clusters and any(v is not None for v in single):
            raise ValueError("give either urls, tls, username, passwordFrom (one Connect cluster) or clusters")
        return self
