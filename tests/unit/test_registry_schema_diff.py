"""The unified diff of two schema versions' canonical text that plan renders and PR comments show."""

from __future__ import annotations

import json

from reconciler.registry import schema_diff
from reconciler.registry.schema_diff import SchemaDiff

ORDER_V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [{"name": "id", "type": "long"}]}
ORDER_V2 = {
    **ORDER_V1,
    "fields": [{"name": "id", "type": "long"}, {"name": "note", "type": "string", "default": ""}],
}


def test_a_reformatted_schema_shows_no_difference() -> None:
    reformatted = json.dumps({"fields": ORDER_V1["fields"], "name": "shop.Order", "type": "record"}, indent=4)
    diff = schema_diff.schema_diff(before=json.dumps(ORDER_V1), after=reformatted, schema_type="AVRO", version=1)
    assert diff == SchemaDiff(lines=(), more=0, added=0, removed=0)
    assert not diff.changed and diff.text() == "" and schema_diff.markdown(diff) == ""


def test_a_new_field_is_the_only_lines_added() -> None:
    diff = schema_diff.schema_diff(
        before=json.dumps(ORDER_V1), after=json.dumps(ORDER_V2), schema_type="AVRO", version=3
    )
    assert diff.text() == "\n".join(
        [
            "--- registered version 3",
            "+++ declared",
            "@@ -3,6 +3,11 @@",
            "     {",
            '       "name": "id",',
            '       "type": "long"',
            "+    },",
            "+    {",
            '+      "default": "",',
            '+      "name": "note",',
            '+      "type": "string"',
            "     }",
            "   ],",
            '   "name": "shop.Order",',
        ]
    )
    assert (diff.added, diff.removed, diff.summary()) == (5, 0, "+5 -0")


def test_the_same_inputs_give_the_same_text_whatever_their_key_order() -> None:
    shuffled = json.dumps(dict(reversed(list(ORDER_V2.items()))))
    one = schema_diff.schema_diff(before=json.dumps(ORDER_V1), after=json.dumps(ORDER_V2), schema_type="AVRO")
    two = schema_diff.schema_diff(before=json.dumps(ORDER_V1), after=shuffled, schema_type="AVRO")
    assert one == two


def test_a_new_subject_is_all_added_and_a_deleted_one_all_removed() -> None:
    created = schema_diff.schema_diff(before=None, after='{"type": "string"}', schema_type="JSON")
    assert created.lines == ("--- /dev/null", "+++ declared", "@@ -0,0 +1,3 @@", "+{", '+  "type": "string"', "+}")
    deleted = schema_diff.schema_diff(before='{"type": "string"}', after=None, schema_type="JSON", version=2)
    assert deleted.lines[:2] == ("--- registered version 2", "+++ /dev/null")
    assert (deleted.added, deleted.removed) == (0, 3)


def test_protobuf_is_compared_by_its_lines() -> None:
    before = 'syntax = "proto3";\r\nmessage Order {\r\n  int64 id = 1;   \r\n}\r\n'
    after = 'syntax = "proto3";\nmessage Order {\n  int64 id = 1;\n  string note = 2;\n}\n'
    diff = schema_diff.schema_diff(before=before, after=after, schema_type="PROTOBUF")
    assert [line for line in diff.lines if line.startswith(("+", "-")) and line[:3] not in ("+++", "---")] == [
        "+  string note = 2;"
    ]


def test_a_text_that_does_not_parse_is_shown_as_written() -> None:
    diff = schema_diff.schema_diff(before="{not json", after='{"type": "string"}', schema_type="JSON")
    assert "-{not json" in diff.lines and '+  "type": "string"' in diff.lines


def test_a_long_diff_is_cut_and_says_how_many_lines_are_left_out() -> None:
    wide = {"type": "record", "name": "Wide", "fields": [{"name": f"f{i}", "type": "int"} for i in range(100)]}
    diff = schema_diff.schema_diff(before=None, after=json.dumps(wide), schema_type="AVRO", max_lines=10)
    whole = schema_diff.schema_diff(before=None, after=json.dumps(wide), schema_type="AVRO", max_lines=10_000)
    assert len(diff.lines) == 10 and diff.lines == whole.lines[:10]
    assert diff.more == len(whole.lines) - 10 and whole.more == 0
    assert diff.text().endswith(f"\n... {diff.more} more lines")
    assert (diff.added, diff.removed) == (whole.added, 0)  # counted over the whole diff, not the lines shown


def test_a_long_line_is_clipped() -> None:
    doc = "x" * 1_000
    diff = schema_diff.schema_diff(before=None, after=json.dumps({"type": "string", "doc": doc}), schema_type="JSON")
    assert max(len(line) for line in diff.lines) == schema_diff.LINE_LIMIT
    assert any(line.endswith("...") for line in diff.lines)


def test_markdown_fences_a_schema_holding_backticks() -> None:
    after = json.dumps({"type": "string", "description": "use ```json blocks``` or ````four````"})
    diff = schema_diff.schema_diff(before=None, after=after, schema_type="JSON")
    block = schema_diff.markdown(diff)
    assert block.startswith("`````diff\n") and block.endswith("\n`````")
    assert block[len("`````diff\n") : -len("\n`````")] == diff.text()
    assert schema_diff.fence("no backticks") == "```"


def test_each_side_is_canonical_for_its_own_type() -> None:
    """A subject whose type changes: the registered JSON Schema keeps its object, the declared Avro schema
    ``{"type": "string"}`` is Avro's primitive ``"string"``."""
    diff = schema_diff.schema_diff(
        before='{"type": "string"}', after='{"type": "string"}', schema_type="AVRO", before_type="JSON"
    )
    assert diff.lines[3:] == ("-{", '-  "type": "string"', "-}", '+"string"')
