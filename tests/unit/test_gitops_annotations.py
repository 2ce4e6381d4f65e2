"""Diagnostics rendered as GitHub workflow commands and GitLab code-quality entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.base.errors import Diagnostic, Severity
from reconciler.gitops import annotations as ann


def test_error_with_position_becomes_an_error_command() -> None:
    d = Diagnostic(
        "unknown field 'partitons'", file="topics/orders.yaml", line=7, column=5, hint="did you mean 'partitions'?"
    )
    line = ann.workflow_command(d)
    assert line == (
        "::error file=topics/orders.yaml,line=7,col=5,title=kafka-reconciler::"
        "unknown field 'partitons'%0Ahint: did you mean 'partitions'?"
    )


def test_warning_without_position() -> None:
    d = Diagnostic("no topics declared", file="empty.yaml", severity=Severity.WARNING)
    assert ann.workflow_command(d) == "::warning file=empty.yaml,title=kafka-reconciler::no topics declared"


def test_diagnostic_without_file_has_no_file_property() -> None:
    assert ann.workflow_command(Diagnostic("bad")) == "::error title=kafka-reconciler::bad"


def test_message_escaping() -> None:
    d = Diagnostic("retention 100% of\r\nthe disk: bad, really", file="a.yaml", line=1, path="spec.configs")
    line = ann.workflow_command(d)
    message = line.split("::", 2)[2]
    assert message == "retention 100%25 of%0D%0Athe disk: bad, really (at spec.configs)"
    assert "\n" not in line and "\r" not in line


def test_property_escaping_of_file_names() -> None:
    d = Diagnostic("x", file="dir,one/a:b%.yaml", line=2)
    line = ann.workflow_command(d)
    assert line.startswith("::error file=dir%2Cone/a%3Ab%25.yaml,line=2,")
    props = line.split("::")[1].split(" ", 1)[1]
    assert props.split(",") == ["file=dir%2Cone/a%3Ab%25.yaml", "line=2", "title=kafka-reconciler"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a%b", "a%25b"), ("a\nb", "a%0Ab"), ("a\rb", "a%0Db"), ("a:b,c", "a%3Ab%2Cc"), ("%0A", "%250A")],
)
def test_escape_property(text: str, expected: str) -> None:
    assert ann.escape_property(text) == expected


def test_escape_data_keeps_colons_and_commas() -> None:
    assert ann.escape_data("a:b,c%\n") == "a:b,c%25%0A"


def test_paths_are_made_relative_to_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    sub = workspace / "kafka"
    d = Diagnostic("bad", file="topics.yaml", line=3)
    assert ann.github_annotations([d], workspace=workspace, cwd=sub) == [
        "::error file=kafka/topics.yaml,line=3,title=kafka-reconciler::bad"
    ]
    absolute = Diagnostic("bad", file=str(sub / "acls.yaml"), line=1)
    assert "file=kafka/acls.yaml," in ann.workflow_command(absolute, workspace=workspace)
    outside = Diagnostic("bad", file="/etc/other.yaml", line=1)
    assert "file=/etc/other.yaml," in ann.workflow_command(outside, workspace=workspace)


def test_gitlab_code_quality_report() -> None:
    diags = [
        Diagnostic("unknown field", file="topics.yaml", line=4, column=3),
        Diagnostic("deprecated key", file="topics.yaml", severity=Severity.WARNING),
        Diagnostic("unknown field", file="topics.yaml", line=9, column=3),
    ]
    report = ann.gitlab_code_quality(diags)
    json.dumps(report)  # the artifact is JSON
    assert [e["severity"] for e in report] == ["critical", "minor", "critical"]
    assert report[0]["location"] == {"path": "topics.yaml", "lines": {"begin": 4}}
    assert report[1]["location"]["lines"]["begin"] == 1
    assert len({e["fingerprint"] for e in report}) == 3
    assert all(set(e) == {"description", "check_name", "fingerprint", "severity", "location"} for e in report)


def test_a_finding_repeated_at_many_places_is_annotated_at_the_first_few_then_once_for_the_rest() -> None:
    """GitHub shows only the first few annotations per step: 666 copies of one mistake are 4 annotations, and a
    different finding after them is still shown."""
    same = [Diagnostic("unknown field 'partitons'", file=f"t{i}.yaml", line=3, column=1) for i in range(666)]
    other = Diagnostic("replicationFactor must be at least 1", file="x.yaml", line=9)
    few = [Diagnostic("dup", file="d.yaml", line=i) for i in range(1, 5)]  # 4 < GROUP_AT: each annotated
    lines = ann.github_annotations([*same, other, *few])
    assert len(lines) == 3 + 1 + 1 + 4
    assert [line.split(",")[0] for line in lines[:3]] == [
        "::error file=t0.yaml",
        "::error file=t1.yaml",
        "::error file=t2.yaml",
    ]
    rest = lines[3]
    assert rest.startswith("::error file=t3.yaml,line=3,col=1,title=kafka-reconciler::... and 663 more places")
    assert "(t3.yaml:3:1, t4.yaml:3:1, t5.yaml:3:1, t6.yaml:3:1, t7.yaml:3:1, ... and 658 more;" in rest
    assert rest.endswith(": unknown field 'partitons'")
    assert lines[4].startswith("::error file=x.yaml,line=9,") and len([x for x in lines if "::dup" in x]) == 4
    assert len(ann.gitlab_code_quality([*same, other])) == 667  # the JSON report keeps every one
