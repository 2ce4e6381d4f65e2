"""The event-stream reader (plainyaml) gives the same values, positions and diagnostics as the full reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import Resolver

from reconciler import manifests
from reconciler.base import errors
from reconciler.manifests import plainyaml, yamlio
from reconciler.model import configs

SPELLINGS = [
    *("1", "-1", "+1", "0", "007", "0o17", "0x1F", "0b101", "1_000", "0xZZ", "1__0", "12:30"),
    *("1.5", "1.", ".5", "1e3", "1.0e+3", "-.inf", ".Inf", ".nan", ".NaN", "1e", "e3", "."),
    *("true", "True", "TRUE", "tRue", "false", "yes", "no", "on", "off", "y", "n"),
    *("~", "null", "Null", "NULL", "nil", "", "2001-12-14", "2001-12-14 21:59:43.10 -5", "<<", "=", "-", "+"),
    *("7d", "256MiB", "User:app-001", "orders.events", "a b", "-x", "0.0.0.0", "1.2.3"),
]


def _ruamel_kind(text: str) -> str:
    tag = Resolver().resolve(ScalarNode, text, (True, False))
    return str(tag).rsplit(":", 1)[-1]


@pytest.mark.parametrize("text", SPELLINGS)
def test_plain_scalars_are_typed_as_ruamel_types_them(text: str) -> None:
    assert plainyaml.resolve(text) == _ruamel_kind(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789+-._:eExXoObBinfatyNlu~ <=TFZ", max_size=12))
def test_any_plain_scalar_is_typed_as_ruamel_types_it(text: str) -> None:
    assert plainyaml.resolve(text) == _ruamel_kind(text)


MANIFEST = """\
# yaml-language-server: $schema=../schemas/manifest.json
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: orders.events, labels: {team: "orders", tier: '1'}}
spec:
  partitions: 12
  replicationFactor: 3
  configs:
    retention.ms: 7d
    segment.bytes: 1_073_741_824
    min.cleanable.dirty.ratio: 0.5
    preallocate: True
    compression.type:
    cleanup.policy: [compact, delete]
    message.timestamp.type: |
      CreateTime
---
---
apiVersion: kafka-reconciler/v1
kind: Acl
metadata:
  name: orders
spec:
  bindings:
    - principal: "User:orders"
      operation: READ
      resourceType: TOPIC
      resourceName: orders.events
      on: 0x1F
      "true": ~
    - {principal: 'User:x', operation: [WRITE, 2001-12-14], 1: .inf}
...
"""


def _read(path: Path, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[yamlio.RawDocument]:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(plainyaml, "documents", lambda text, *, max_depth: None)
        diags: list[errors.Diagnostic] = []
        docs = yamlio.read_documents(path, display="m.yaml", env={}, diags=diags)
    assert diags == []
    return docs


def test_a_file_reads_the_same_both_ways_positions_included(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    assert plainyaml.documents(MANIFEST, max_depth=yamlio.MAX_DEPTH) is not None  # the fast way reads it
    fast = _read(path, fast=True, monkeypatch=monkeypatch)
    full = _read(path, fast=False, monkeypatch=monkeypatch)
    assert [(d.data, d.line, d.column) for d in fast] == [(d.data, d.line, d.column) for d in full]
    assert [d.found for d in fast] == [None, None]  # not computed until asked for
    assert [d.positions for d in fast] == [d.positions for d in full]
    assert fast[1].position(("spec", "bindings", 1, "operation", 1)) == ("m.yaml", 31, 48)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",
        "base: &b {k: v}\nm:\n  <<: *b\n",
        "a: 1\na: 2\n",
        "a: ${HOME}\n",
        "a: [x, 'cost: $$5']\n",
        "a: !!str 1\n",
        "%YAML 1.1\n---\na: yes\n",
        "? [a]\n: 1\n",
        "a: [1\n",
        "a: " + "[" * 70 + "]" * 70 + "\n",
    ],
    ids=[
        *("alias", "merge", "duplicate", "variable", "escaped-dollar"),
        *("tag", "directive", "complex-key", "syntax", "deep"),
    ],
)
def test_what_the_fast_way_does_not_handle_goes_to_the_full_reader(text: str) -> None:
    assert plainyaml.documents(text, max_depth=yamlio.MAX_DEPTH) is None


def test_a_diagnostic_in_a_document_read_the_fast_way_names_file_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata:\n  name: t\nspec:\n  partitions: 3\n"
        "  replicationFactor: 1\n  configs:\n    retention.ms: 7 weeks\n",
        encoding="utf-8",
    )
    with pytest.raises(errors.ValidationFailed) as info:
        manifests.load([tmp_path], env={})
    assert [(d.file, d.line, d.column) for d in info.value.diagnostics] == [(str(tmp_path / "t.yaml"), 9, 19)]


def test_a_remembered_config_value_keeps_its_type_apart() -> None:
    """canonical() remembers values by type: True is refused for a count even after 1 was read."""
    assert configs.canonical("min.insync.replicas", 1) == "1"
    with pytest.raises(ValueError, match="boolean"):
        configs.canonical("min.insync.replicas", True)
    assert configs.canonical("retention.ms", "7d") == configs.canonical("retention.ms", "7d") == "604800000"


CLUSTER = """\
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: orders}
spec: {partitions: 12, replicationFactor: 3}
---
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {name: prod}
spec:
  bootstrapServers: [k1:9092, k2:9092, "k3:9092"]
  securityProtocol: SASL_SSL
  saslMechanism: SCRAM-SHA-512
  username: reconciler
  passwordFrom: {env: KAFKA_PASSWORD}
"""


def test_a_colon_inside_a_flow_sequence_reads_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """YAML 1.2 reads [k1:9092] as a one-item sequence; the full reader's C parser used to refuse it."""
    path = tmp_path / "m.yaml"
    path.write_text(CLUSTER, encoding="utf-8")
    fast = _read(path, fast=True, monkeypatch=monkeypatch)
    full = _read(path, fast=False, monkeypatch=monkeypatch)
    assert [d.data["spec"]["bootstrapServers"] for d in full[1:]] == [["k1:9092", "k2:9092", "k3:9092"]]
    assert [(d.data, d.line, d.column, d.positions) for d in fast] == [
        (d.data, d.line, d.column, d.positions) for d in full
    ]
    assert full[1].position(("spec", "bootstrapServers", 1)) == ("m.yaml", 10, 31)


def test_a_diagnostic_in_a_cluster_with_a_flow_sequence_names_its_line_and_column(tmp_path: Path) -> None:
    """Regression: every diagnostic of such a file was reported at 1:1."""
    (tmp_path / "c.yaml").write_text(CLUSTER.replace("saslMechanism", "saslMechansim"), encoding="utf-8")
    with pytest.raises(errors.ValidationFailed) as info:
        manifests.load([tmp_path], env={})
    assert [(d.file, d.line, d.column, d.message, d.hint) for d in info.value.diagnostics] == [
        (str(tmp_path / "c.yaml"), 12, 3, "unknown field 'saslMechansim'", "did you mean saslMechanism?")
    ]


FLOW = '[k1:9092, k2:9092, "k3:9092"]'


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        # both parsers stop at the same place: the C parser's words, as before
        ('[k1, k2, "k3"', (11, 3, "YAML syntax error: did not find expected ',' or ']'")),
        # the C parser stops at the valid ':', the pure one where the ']' is missing: that is what is named
        ('[k1:9092, k2:9092, "k3:9092"', (11, 3, "YAML syntax error: expected ',' or ']', but got '<scalar>'")),
    ],
    ids=["same-place", "real-problem-later"],
)
def test_a_text_both_parsers_refuse_names_the_real_problem(
    tmp_path: Path, broken: str, expected: tuple[int, int, str]
) -> None:
    (tmp_path / "c.yaml").write_text(CLUSTER.replace(FLOW, broken), encoding="utf-8")
    with pytest.raises(errors.ValidationFailed) as info:
        manifests.load([tmp_path], env={})
    assert [(d.line, d.column, d.message) for d in info.value.diagnostics] == [expected]
