"""Random and mutated manifests never crash the loader: the only outcomes are a LoadResult or ValidationFailed."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from reconciler import manifests
from reconciler.base import errors
from tests.support.strategies import (
    copy_tree,
    dump_yaml,
    manifest_bytes,
    manifest_documents,
    manifest_text,
    mutate_once,
    yaml_values,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEEDS: list[Any] = [
    doc
    for d in ("platform", "environments")
    for path in sorted((EXAMPLES / d).rglob("*.yaml"))
    for doc in YAML(typ="safe").load_all(path.read_text())
]
FUZZ = settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


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
        data = mutate_once(draw, data, yaml_values)
    return [data]


@FUZZ
@given(mutated())
def test_mutated_examples(documents: list[Any]) -> None:
    _load_text(dump_yaml(documents))


@FUZZ
@given(manifest_documents)
def test_random_documents(documents: list[Any]) -> None:
    for document in documents:
        document.setdefault("apiVersion", "kafka-reconciler/v1")
    _load_text(dump_yaml(documents))


@FUZZ
@given(manifest_text)
def test_random_yaml_text(text: str) -> None:
    _load_text(text)


@FUZZ
@given(manifest_bytes)
def test_random_bytes(blob: bytes) -> None:
    _load_text(blob)
