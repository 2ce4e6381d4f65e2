"""Hover in a real editor: yaml-language-server (the server behind VS Code's YAML extension and many others),
driven over stdio LSP with the shipped JSON Schemas, shows each field's description.

The server and the client are ``tests.support.yaml_lsp``'s (installed on first use; skipped, saying why, where
node or npm is missing or the package index is unreachable). A manifest with a
``# yaml-language-server: $schema=...`` modeline is opened (initialize, initialized, didOpen) and hovered: a topic
config key shows its catalogue description, each spec field its own, and nothing repeats per anyOf branch.
Optional fields (an object or a closed list of words, or null in an overlay) show their own key and text, never a
model's class name; completion offers keys, not class names; ClientQuota value keys hover, complete and are checked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.yaml_lsp import SCHEMAS, Client, server


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    lsp = Client(server())
    try:
        lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": None,
                "capabilities": {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}},
            },
        )
        lsp.send({"method": "initialized", "params": {}})
        settings = {"yaml": {"hover": True, "validate": True, "schemaStore": {"enable": False}}}
        lsp.send({"method": "workspace/didChangeConfiguration", "params": {"settings": settings}})
        yield lsp
    finally:
        lsp.close()


def _hover(client: Client, tmp_path: Path, text: str, key: str) -> str:
    """The hover text over ``key`` (the first line that starts with it) in a document opened with ``text``."""
    uri = (tmp_path / f"doc-{client.next_id}.yaml").as_uri()
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        }
    )
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.strip().startswith(key + ":"))
    position = {"line": row, "character": lines[row].index(key) + 2}
    result = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
    assert result is not None, f"no hover over {key}"
    return str(result["contents"]["value"])


TOPIC = """\
# yaml-language-server: $schema={schema}
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {{name: orders}}
spec:
  partitions: 12
  replicationFactor: 3
  configs:
    retention.ms: 7d
    cleanup.policy: delete
"""


@pytest.mark.parametrize(
    ("key", "heading", "text"),
    [
        ("retention.ms", "#### retention.ms\n", "`retention.ms` (long, milliseconds; durations such as 7d or 12h"),
        ("cleanup.policy", "#### cleanup.policy\n", "Allowed: compact, delete."),
        ("partitions", "#### partitions\n", "Partition count, 1..2147483647. Required here or in a TopicDefaults."),
        ("replicationFactor", "#### replicationFactor\n", "Replicas per partition, 1..32767"),
        ("spec", "#### spec\n", "Topic spec. Unset partitions/replicationFactor/configs come from TopicDefaults."),
    ],
)
def test_hover_shows_the_description_once(client: Client, tmp_path: Path, key: str, heading: str, text: str) -> None:
    shown = _hover(client, tmp_path, TOPIC.format(schema=(SCHEMAS / "Topic.json").as_uri()), key)
    assert shown.replace("\\", "").startswith(heading), shown  # markdown escapes: retention\.ms in some releases
    assert text in shown.replace("\\", ""), shown
    assert "||" not in shown and "``" not in shown, shown  # one branch, no reStructuredText


def test_hover_through_the_combined_schema_in_another_kind(client: Client, tmp_path: Path) -> None:
    acl = (
        f"# yaml-language-server: $schema={(SCHEMAS / 'manifest.json').as_uri()}\n"
        "apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: a}\nspec:\n  bindings:\n"
        "    - principal: User:alice\n      resourceType: TOPIC\n      resourceName: orders\n      operation: READ\n"
    )
    shown = _hover(client, tmp_path, acl, "- principal")
    assert "Who the binding is for: User:<name>, or User:* for every user." in shown.replace("\\", ""), shown


CLUSTER = """\
# yaml-language-server: $schema={schema}
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {{name: prod}}
spec:
  bootstrapServers: [kafka-1:9093]
  securityProtocol: SASL_SSL
  saslMechanism: SCRAM-SHA-512
  username: {{env: KAFKA_USER}}
  passwordFrom: {{env: KAFKA_PASSWORD}}
  tls:
    keystore: client.p12
    keystoreType: PKCS12
    keystorePasswordFrom: {{env: KEYSTORE_PASSWORD}}
    keyPasswordFrom: {{env: KEY_PASSWORD}}
    truststore: ca.jks
    truststoreType: JKS
    truststorePasswordFrom: {{file: truststore.pass}}
  oauth:
    tokenEndpointUrl: https://idp.example.com/token
    clientSecretFrom: {{env: CLIENT_SECRET}}
"""
OWNERSHIP = (
    "# yaml-language-server: $schema={schema}\napiVersion: kafka-reconciler/v1\nkind: Ownership\n"
    "metadata: {{name: o}}\nspec:\n  topics: [{{prefix: orders.}}]\n  delete:\n    topic: true\n"
)
PRODUCER = (
    "# yaml-language-server: $schema={schema}\napiVersion: kafka-reconciler/v1\nkind: Producer\n"
    "metadata: {{name: p}}\nspec:\n  principal: User:orders\n  topics: [orders]\n"
    "  transactionalId: {{prefix: orders-}}\n"
)
ACL = (
    "# yaml-language-server: $schema={schema}\napiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {{name: a}}\n"
    "spec:\n  bindings:\n    - principal: User:alice\n      resourceType: TOPIC\n      resourceName: orders\n"
    "      operation: READ\n"
)
QUOTA = (
    "# yaml-language-server: $schema={schema}\napiVersion: kafka-reconciler/v1\nkind: ClientQuota\n"
    "metadata: {{name: q}}\nspec:\n  entity: {{user: alice}}\n  values:\n    {key}: 1048576\n"
)

# Every optional field whose schema was an anyOf of a model (or a closed list of words) and null.
OPTIONAL_FIELDS = [
    (CLUSTER, "Cluster", "saslMechanism", "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM"),
    (CLUSTER, "Cluster", "username", "SASL user name: a string, or {env: VARIABLE} / {file: path}."),
    (CLUSTER, "Cluster", "passwordFrom", "SASL password. Where to read it: {env: VARIABLE} or {file: path}"),
    (CLUSTER, "Cluster", "tls", "Certificates and stores for SSL and SASL_SSL."),
    (CLUSTER, "Cluster", "keystoreType", "Store type: PEM, PKCS12 or JKS"),
    (CLUSTER, "Cluster", "keystorePasswordFrom", "Password of the key store."),
    (CLUSTER, "Cluster", "keyPasswordFrom", "Password of an encrypted keyFile."),
    (CLUSTER, "Cluster", "truststoreType", "Store type: PEM, PKCS12 or JKS"),
    (CLUSTER, "Cluster", "truststorePasswordFrom", "Password of the trust store."),
    (CLUSTER, "Cluster", "oauth", "OAUTHBEARER client credentials"),
    (CLUSTER, "Cluster", "clientSecretFrom", "The OAuth client secret."),
    (OWNERSHIP, "Ownership", "delete", "Per kind, whether undeclared managed resources are deleted"),
    (PRODUCER, "Producer", "transactionalId", "Transactional id (or {prefix: ...}) a transactional producer uses."),
    (ACL, "Acl", "operation", "The operation allowed or denied (READ, WRITE, DESCRIBE, ...)."),
]


@pytest.mark.parametrize("schema_file", ["kind", "manifest.json"])
@pytest.mark.parametrize(("document", "kind", "key", "text"), OPTIONAL_FIELDS, ids=[f[2] for f in OPTIONAL_FIELDS])
def test_hover_on_an_optional_field_shows_its_key_once_and_its_own_text(
    client: Client, tmp_path: Path, document: str, kind: str, key: str, text: str, schema_file: str
) -> None:
    """Regression: hover showed the model's class name ("#### SecretRefSpec") and the model's docstring, or the
    key twice ("#### saslMechanism || saslMechanism")."""
    path = SCHEMAS / (f"{kind}.json" if schema_file == "kind" else schema_file)
    shown = _hover(client, tmp_path, document.format(schema=path.as_uri(), key=""), key).replace("\\", "")
    assert shown.startswith(f"#### {key}\n\n{text}"), shown
    assert "||" not in shown and "Spec" not in shown, shown


def _complete(client: Client, tmp_path: Path, text: str, line: int, character: int) -> list[str]:
    uri = (tmp_path / f"doc-{client.next_id}.yaml").as_uri()
    document = {"uri": uri, "languageId": "yaml", "version": 1, "text": text}
    client.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    position = {"line": line, "character": character}
    result = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": position})
    items = result["items"] if isinstance(result, dict) else result or []
    return [str(item["label"]) for item in items]


def test_completion_offers_keys_never_a_class_name(client: Client, tmp_path: Path) -> None:
    """Regression: completion in an Acl's bindings offered "AclBindingSpec" (pydantic's class title)."""
    text = ACL.format(schema=(SCHEMAS / "Acl.json").as_uri()) + "    - \n"
    labels = _complete(client, tmp_path, text, line=len(text.splitlines()) - 1, character=6)
    assert "principal" in labels and "resourceType" in labels, labels
    assert not [label for label in labels if "Spec" in label], labels
    text = CLUSTER.format(schema=(SCHEMAS / "manifest.json").as_uri()) + "  tls:\n    \n"
    text = text.replace("  tls:\n    keystore:", "  other:\n    keystore:", 1)
    labels = _complete(client, tmp_path, text, line=len(text.splitlines()) - 1, character=4)
    assert "caFile" in labels and not [label for label in labels if "Spec" in label], labels


@pytest.mark.parametrize("schema_file", ["ClientQuota.json", "manifest.json"])
def test_quota_value_keys_hover_complete_and_are_checked(client: Client, tmp_path: Path, schema_file: str) -> None:
    """Regression: the ClientQuota value keys were not in the schema: no hover, no completion, no typo check."""
    schema = (SCHEMAS / schema_file).as_uri()
    shown = _hover(client, tmp_path, QUOTA.format(schema=schema, key="producer_byte_rate"), "producer_byte_rate")
    assert shown.replace("\\", "").startswith("#### producer_byte_rate\n\nBytes per second"), shown

    text = QUOTA.format(schema=schema, key="producer_byte_rate") + "    \n"
    labels = _complete(client, tmp_path, text, line=len(text.splitlines()) - 1, character=4)
    assert {"consumer_byte_rate", "request_percentage", "controller_mutation_rate"} <= set(labels), labels

    uri = (tmp_path / f"typo-{schema_file}.yaml").as_uri()
    typo = QUOTA.format(schema=schema, key="producer_byte_rat")
    document = {"uri": uri, "languageId": "yaml", "version": 1, "text": typo}
    client.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    found = client.diagnostics(uri)
    assert [d for d in found if "producer_byte_rat" in d["message"] or d["range"]["start"]["line"] == 7], found


def _hover_at(client: Client, tmp_path: Path, text: str, line: int, character: int) -> str:
    uri = (tmp_path / f"doc-{client.next_id}.yaml").as_uri()
    document = {"uri": uri, "languageId": "yaml", "version": 1, "text": text}
    client.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    position = {"line": line, "character": character}
    result = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
    assert result is not None, f"no hover at {line}:{character}"
    return str(result["contents"]["value"]).replace("\\", "")


@pytest.mark.parametrize("schema_file", ["Acl.json", "manifest.json"])
@pytest.mark.parametrize(
    ("key", "value", "meaning"),
    [
        ("operation", "describe_configs", "`DESCRIBE_CONFIGS`: Read configs of topics, brokers or groups."),
        ("operation", "READ", "`READ`: Consume from a topic; join a group and commit its offsets."),
        ("permission", "deny", "`DENY`: Refuse the operation; a matching DENY wins over every ALLOW."),
        ("resourceType", "TRANSACTIONAL_ID", "`TRANSACTIONAL_ID`: A transactional id"),
        ("patternType", "prefixed", "`PREFIXED`: Every resource whose name starts with the resource name."),
    ],
)
def test_hover_on_an_acl_word_shows_what_it_means(
    client: Client, tmp_path: Path, schema_file: str, key: str, value: str, meaning: str
) -> None:
    """Each value of the four ACL words carries its meaning in the schema (markdownEnumDescriptions), shown when the
    value itself is hovered, in either spelling, and offered with its meaning in completion."""
    body = {"operation": "READ", "permission": "ALLOW", "resourceType": "TOPIC", "patternType": "LITERAL", key: value}
    text = (
        f"# yaml-language-server: $schema={(SCHEMAS / schema_file).as_uri()}\n"
        "apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: a}\nspec:\n  bindings:\n"
        "    - principal: User:alice\n      resourceName: orders\n"
        + "".join(f"      {k}: {v}\n" for k, v in body.items())
    )
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{key}:"))
    shown = _hover_at(client, tmp_path, text, row, lines[row].index(value) + 1)
    assert meaning in shown, shown
    labels = _complete(client, tmp_path, text.replace(f"{key}: {value}", f"{key}: "), row, len(f"      {key}: "))
    assert value in labels and value.upper() in labels, labels
