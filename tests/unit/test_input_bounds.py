"""The bounds manifest loading puts on work: the node-count bound never undercounts, crowded mappings are found.

``depth.node_bound`` decides whether a file's event stream must be read to count its nodes: it must never be
below the real count, whatever the style (block, flow, compact, implicit nulls, anchors, several documents).
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML, events
from ruamel.yaml.error import YAMLError

from reconciler.manifests import depth

NODE_EVENTS = (events.ScalarEvent, events.AliasEvent, events.SequenceStartEvent, events.MappingStartEvent)


def node_count(text: str) -> int:
    return sum(isinstance(e, NODE_EVENTS) for e in YAML(typ="safe", pure=True).parse(text))


EDGES = [
    "",
    "a",
    "a: b",
    "a:",
    "a: [b]",
    "{a, b}",
    "{a, b, c, d}",
    "[{a}, {b}]",
    "[a, b, ]",
    "? a\n? b\n",
    "- \n- \n-",
    "- - - a",
    "- - a: b\n",
    "{[a]: b}",
    "a: &x b\nc: *x\n",
    "--- a\n--- b\n--- {c}\n",
    "a:\n  b:\n    c: d\n",
    "[[[[a]]]]",
    "{a: {b: {c: {}}}}",
    "x: !!str 1\ny: !!int '2'\n",
    "- a\n-\n- [b, {c, d: e}]\n",
]


@pytest.mark.parametrize("text", EDGES)
def test_the_bound_is_never_below_the_count_for_the_edge_cases(text: str) -> None:
    assert depth.node_bound(text) >= node_count(text)


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text("ab-:,? x", max_size=6))
trees = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text("abc", min_size=1, max_size=3), inner, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(tree=trees, flow=st.sampled_from([None, True, False]))
def test_the_bound_is_never_below_the_count_for_dumped_trees(tree: Any, flow: bool | None) -> None:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = flow
    out = io.StringIO()
    yaml.dump(tree, out)
    text = out.getvalue()
    try:
        counted = node_count(text)
    except YAMLError:
        return
    assert depth.node_bound(text) >= counted, text


def test_too_many_nodes_names_the_first_node_past_the_limit() -> None:
    text = "a: 1\nb: 2\nc: 3\n"  # nodes: the mapping, a, 1, b, 2, c, 3
    assert depth.too_many_nodes(text, pure=True, limit=4) == (2, 4)  # the 5th: '2'
    assert depth.too_many_nodes(text, pure=True, limit=6) == (3, 4)  # the 7th: '3'
    assert depth.too_many_nodes(text, pure=True, limit=7) is None


def test_a_crowded_mapping_is_found_with_its_path() -> None:
    data = {"spec": {"configs": {f"k{i}": i for i in range(6)}, "list": [{"a": 1}]}}
    assert depth.crowded_mapping(data, limit=5) == (("spec", "configs"), 6)
    assert depth.crowded_mapping(data, limit=6) is None
    assert depth.crowded_mapping([[{"a": 1, "b": 2}]], limit=1) == ((0, 0), 2)


def test_a_reader_error_is_located() -> None:
    text = "a: 1\nb: x\x7fy\n"
    with pytest.raises(YAMLError) as caught:
        YAML(typ="safe", pure=True).load(text)
    assert depth.reader_error_position(text, caught.value) == (2, 5)
    assert depth.reader_error_position(text, ValueError("no position")) is None
