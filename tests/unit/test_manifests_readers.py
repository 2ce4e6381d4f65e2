"""The manifest readers agree: the event-stream reader (plainyaml), the full reader with ruamel.yaml's C parser and
the full reader with its pure-Python parser give the same values, the same positions and the same diagnostics at
the same places, over tricky inputs (anchors, merge keys, tags, booleans, octal, floats, timestamps, nulls, multi-
document files, directives); and a value substituted from ``${VAR}`` is typed as the same text written inline.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.base import errors
from reconciler.manifests import plainyaml, yamlio

_SYNTAX = "YAML syntax error"
Outcome = tuple[list[tuple[str, int, int, dict[Any, Any]]], list[tuple[str, int | None, int | None]]]
WAYS = ("fast", "full-c", "full-pure")


def _read(text: str, way: str, env: Mapping[str, str], patch: pytest.MonkeyPatch) -> Outcome:
    """Documents as (repr of the value, root line, root column, positions), and diagnostics as (message, line,
    column), read one way. ``repr`` keeps 1, 1.0, True and '1' apart and makes NaN equal to itself."""
    with patch.context() as scoped, tempfile.TemporaryDirectory() as folder:
        scoped.setattr(yamlio, "HAVE_C_PARSER", way != "full-pure")
        if way != "fast":
            scoped.setattr(plainyaml, "documents", lambda text, *, max_depth: None)
        path = Path(folder) / "m.yaml"
        path.write_text(text, encoding="utf-8")
        diags: list[errors.Diagnostic] = []
        docs = yamlio.read_documents(path, display="m.yaml", env=env, diags=diags)
        found = [(repr(d.data), d.line, d.column, dict(d.positions)) for d in docs]
    # A syntax error is worded by the parser that met it (libyaml or ruamel.yaml's own); its place is what counts.
    return found, [(_SYNTAX if d.message.startswith(_SYNTAX) else d.message, d.line, d.column) for d in diags]


def _agree(text: str, patch: pytest.MonkeyPatch, env: Mapping[str, str] | None = None) -> Outcome:
    outcomes = {way: _read(text, way, env or {}, patch) for way in WAYS}
    assert outcomes["fast"] == outcomes["full-c"], f"fast and full (C) readers disagree on {text!r}"
    assert outcomes["full-pure"] == outcomes["full-c"], f"full reader: pure and C parsers disagree on {text!r}"
    return outcomes["fast"]


TRICKY = {
    "bools-1.2": "a: true\nb: False\nc: TRUE\nd: yes\ne: no\nf: on\ng: off\nh: y\ni: tRue\n",
    "octal-hex-binary": "a: 010\nb: 0o17\nc: 0x1F\nd: 0b101\ne: 1_000\nf: -0o7\ng: 0xZZ\n",
    "floats": "a: 1.5\nb: 1.\nc: .5\nd: 1e3\ne: -.inf\nf: .NaN\ng: 1.0e+3\nh: 1e\ni: 6.02e23\n",
    "timestamps": "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: 2001-12-14 21:59:43.10 -5\nd: 12:30\n",
    "nulls": "a: ~\nb: null\nc: NULL\nd:\ne: nil\nf: ''\n",
    "bool-keys": "True: 1\nfalse: 2\n1: 3\n~: 4\n",
    "anchors": "a: &x {k: 1, l: [2, 3]}\nb: *x\nc: &y 7\nd: [*y, *y]\n",
    "merge-keys": "base: &b {k: 1, m: 2}\nother: &o {n: 3}\nthis:\n  <<: [*b, *o]\n  k: 9\n",
    "tags": "a: !!str 5\nb: !!int '7'\nc: !!float 1\nd: !!bool yes\ne: !!null ''\nf: !custom x\ng: !!str true\n",
    "multi-doc": "a: 1\n---\nb: [x, y]\n--- ~\n---\n...\n---\nc: {d: e}\n...\n",
    "block-scalars": "a: |\n  one\n  two\nb: >-\n  folded\n  text\nc: 'it''s'\nd: \"tab\\tx\"\n",
    "flow": "a: {b: [1, {c: d}], e: 'f: g'}\nh: [k1:9092, k2:9092]\n",
    "directive-1.2": "%YAML 1.2\n---\na: yes\nb: 010\n",
    "comments-and-schema": "# yaml-language-server: $schema=../schemas/Topic.json\na: 1 # one\n",
    "deep-lists": "a:\n- - - 1\n    - 2\n  - 3\n- 4\n",
}

BROKEN = {
    "directive-1.1": "%YAML 1.1\n---\na: yes\n",
    "directive-1.1-second-document": "a: 1\n...\n%YAML 1.1\n---\nb: on\n",
    "duplicate-key": "a: 1\nb:\n  c: 2\n  c: 3\n",
    "unclosed-flow": "a: [1, 2\nb: 3\n",
    "bad-indentation": "a:\n  b: 1\n c: 2\n",
    "tab-indentation": "a:\n\tb: 1\n",
    "unknown-alias": "a: *nowhere\n",
    "recursive-alias": "a: &x [1, *x]\n",
    "merge-of-a-scalar": "a: &x 1\nb:\n  <<: *x\n",
    "unset-variable": "a: ${UNSET_FOR_TEST}\nb: 1\n",
    "collection-key": "? [a]\n: 1\n",
}


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_every_reader_gives_the_same_values_and_positions(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    found, diags = _agree(text, monkeypatch)
    assert found and diags == []


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_every_reader_reports_a_problem_at_the_same_place(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _found, diags = _agree(text, monkeypatch)
    assert diags and all(line is not None for _message, line, _column in diags)


def test_yaml_1_2_typing_holds_on_every_path(monkeypatch: pytest.MonkeyPatch) -> None:
    [(value, *_rest)], _ = _agree(TRICKY["bools-1.2"], monkeypatch)
    assert value == repr(
        {"a": True, "b": False, "c": True, "d": "yes", "e": "no", "f": "on", "g": "off", "h": "y", "i": "tRue"}
    )
    [(tagged, *_rest)], _ = _agree(TRICKY["tags"], monkeypatch)
    assert tagged == repr({"a": "5", "b": 7, "c": 1.0, "d": "yes", "e": None, "f": "x", "g": "true"})


def test_a_yaml_1_1_directive_is_refused_at_its_line_on_every_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``%YAML 1.1`` would make ``yes`` a boolean; no reader gives it that type, so the file is refused, not read
    as ``false`` by one parser and as the text ``yes`` by the other."""
    found, diags = _agree(BROKEN["directive-1.1-second-document"], monkeypatch)
    assert found == [] and [(line, column) for _m, line, column in diags] == [(3, 1)]
    assert diags[0][0] == "%YAML 1.1: manifests are YAML 1.2"


# ------------------------------------------------------------------------------------------ substitution
# Plain scalars that read the same in a block mapping and in a flow sequence, each with its YAML 1.2 type.
SCALARS = [
    *("1", "-1", "+7", "0", "007", "0o17", "0x1F", "0b101", "1_000", "0xZZ"),
    *("1.5", "1.", ".5", "1e3", "-.inf", ".nan", "1e"),
    *("true", "False", "yes", "no", "on", "off", "y"),
    *("~", "null", "Null", "", "nil", "2001-12-14", "7d", "256MiB", "User:app-001", "orders.events", "0.0.0.0"),
]


@pytest.mark.parametrize("scalar", SCALARS)
def test_a_substituted_value_is_typed_as_the_same_text_written_inline(
    scalar: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    [(inline, *_)], _ = _agree(f"a: {scalar}\nb:\n- {scalar}\n", monkeypatch)
    env = {"VALUE": scalar}
    [(substituted, *_)], _ = _agree("a: ${VALUE}\nb:\n- ${VALUE}\n", monkeypatch, env)
    default = f"${{UNSET_FOR_TEST:-{scalar}}}"
    [(fallback, *_)], _ = _agree(f"a: {default}\nb:\n- {default}\n", monkeypatch)
    assert substituted == fallback == inline
    [(quoted, *_)], _ = _agree('a: "${VALUE}"\n', monkeypatch, env)
    assert quoted == repr({"a": scalar})  # quoted: always text


# ------------------------------------------------------------------------------------------ generated files
_KEYS = st.sampled_from(["a", "b", "name", "true", "1", "on", "retention.ms", "x-y"])
_LEAF = st.sampled_from([*SCALARS[:-6], "'quoted'", '"dq"', "!!str 5", "!!int '3'"])


def _value(depth: int) -> st.SearchStrategy[str]:
    """A YAML value written in flow style (nested mappings and sequences of tricky scalars)."""
    if depth == 0:
        return _LEAF
    inner = _value(depth - 1)
    return st.one_of(
        _LEAF,
        st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.dictionaries(_KEYS, inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
        ),
    )


def _document(draw: st.DrawFn) -> str:
    entries = draw(st.dictionaries(_KEYS, _value(2), min_size=1, max_size=4))
    lines = [f"{k}: {v}" for k, v in entries.items()]
    if draw(st.booleans()):  # an anchor on the first value, aliased and merged further down
        first = next(iter(entries))
        lines[0] = f"{first}: &shared {entries[first]}"
        lines.append("again: *shared")
        if entries[first].startswith("{"):
            lines.append("merged: {<<: *shared, extra: 1}")
    return "\n".join(lines) + "\n"


@st.composite
def _files(draw: st.DrawFn) -> str:
    documents = [_document(draw) for _ in range(draw(st.integers(1, 3)))]
    head = "%YAML 1.2\n---\n" if draw(st.booleans()) else ""
    return head + "---\n".join(documents)


@settings(max_examples=150, deadline=None)
@given(_files())
def test_generated_files_read_the_same_every_way(text: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        _agree(text, patch)
