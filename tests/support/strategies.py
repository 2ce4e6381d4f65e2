"""Hypothesis strategies for hostile manifests, shared by tests/fuzz and the reliability fuzz campaign.

YAML values of every kind (huge integers, NaN, environment references that resolve and one that does not),
random manifest documents, random YAML text and bytes, and one mutation of a parsed document at a drawn place.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st
from ruamel.yaml import YAML

yaml_scalars: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(
        ["7d", "1GiB", "-1", "${X}", "${MISSING}", "$${X}", "User:*", "*", "default", "compact,delete", "", "0.5"]
    ),
)
yaml_values: st.SearchStrategy[Any] = st.recursive(
    yaml_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
manifest_documents: st.SearchStrategy[list[dict[str, Any]]] = st.lists(
    st.dictionaries(st.sampled_from(["apiVersion", "kind", "metadata", "spec"]), yaml_values), max_size=3
)
"""Up to three documents with any of the four top-level keys, holding any YAML values."""

TOKENS = [*"ab:-[]{}&*!|>'\"#%@`, \n\t?$", "---", "\n  ", "<<", "kind: Topic", "apiVersion: kafka-reconciler/v1"]
manifest_text: st.SearchStrategy[str] = st.lists(st.sampled_from(TOKENS), max_size=80).map("".join)
"""YAML-ish text: up to 80 tokens of YAML syntax and manifest keys."""
manifest_bytes: st.SearchStrategy[bytes] = st.binary(max_size=200)


def dump_yaml(documents: list[Any]) -> str:
    """``documents`` as one multi-document YAML text."""
    out = io.StringIO()
    YAML(typ="safe", pure=True).dump_all(documents, out)
    return out.getvalue()


def copy_tree(value: Any) -> Any:
    """A deep copy of plain YAML data (dicts, lists, scalars)."""
    if isinstance(value, dict):
        return {k: copy_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_tree(v) for v in value]
    return value


def tree_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path (keys and indexes) of every node of ``value``, the root's ``()`` first."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from tree_paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from tree_paths(v, (*prefix, i))


def mutate_once(draw: st.DrawFn, data: Any, replacements: st.SearchStrategy[Any]) -> Any:
    """Replace, delete or insert one value at a drawn place in ``data``; returns the root (new if it was replaced)."""
    path = draw(st.sampled_from(list(tree_paths(data))))
    if not path:
        return draw(replacements)
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    key = path[-1]
    action = draw(st.sampled_from(["replace", "delete", "insert"]))
    if action == "replace":
        parent[key] = draw(replacements)
    elif action == "delete":
        del parent[key]
    elif isinstance(parent, dict):
        parent[draw(st.text(max_size=16))] = draw(replacements)
    else:
        parent.insert(int(key), draw(replacements))
    return data
