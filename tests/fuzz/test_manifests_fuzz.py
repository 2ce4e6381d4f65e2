"""Random and mutated manifests never crash the loader: the only outcomes are a LoadResult or ValidationFailed."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from reconciler import errors, manifests
from tests.reliability.fuzzing import TOKENS, copy_tree, dump_yaml, mutate_once

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEEDS: list[Any] = [
    doc
    for d in ("platform", "environments")
    for path in sorted((EXAMPLES / d).rglob("*.yaml"))
    for doc in YAML(typ="safe").load_all(path.read_text())
]
FUZZ = settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["7d", "1GiB", "-1", "${X}", "$${X}", "User:*", "*", "default", "compact,delete", "", "0.5"]),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)


def _load_text(text: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.yaml"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            result = manifests.load([path], env={"X": "x"})
        except errors.ValidationFailed as exc:
            assert exc.diagnostics, "ValidationFailed without diagnostics"
            for diag in exc.diagnostics:
                assert diag.message
                assert diag.line is None or diag.line >= 1
                assert diag.column is None or diag.column >= 1
        else:
            assert isinstance(result, manifests.LoadResult)


@st.composite
def mutated(draw: st.DrawFn) -> list[Any]:
    document = draw(st.sampled_from(SEEDS))
    data = copy_tree(document)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        data = mutate_once(draw, data, values)
    return [data]


@FUZZ
@given(mutated())
def test_mutated_examples(documents: list[Any]) -> None:
    _load_text(dump_yaml(documents))


@FUZZ
@given(st.lists(st.dictionaries(st.sampled_from(["apiVersion", "kind", "metadata", "spec"]), values), max_size=3))
def test_random_documents(documents: list[Any]) -> None:
    for document in documents:
        document.setdefault("apiVersion", "kafka-reconciler/v1")
    _load_text(dump_yaml(documents))


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=80).map("".join))
def test_random_yaml_text(text: str) -> None:
    _load_text(text)


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes(blob: bytes) -> None:
    _load_text(blob)
