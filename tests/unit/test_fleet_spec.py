"""fleet.yaml: defaults, relative paths, and every problem reported with its file, line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.base import errors
from reconciler.fleet import load_fleet


def _problems(path: Path) -> list[str]:
    with pytest.raises(errors.ValidationFailed) as caught:
        load_fleet(path, env={})
    return [d.format().replace(str(path), "fleet.yaml") for d in caught.value.diagnostics]


def test_defaults_and_relative_paths_are_applied(tmp_path: Path) -> None:
    (tmp_path / "fleet.yaml").write_text(
        "defaults:\n"
        "  manifests: [./manifests, ./shared]\n"
        "  environment: prod\n"
        "  requestTimeoutMs: 5000\n"
        "clusters:\n"
        "  - name: eu-1\n"
        "    profile: eu-1\n"
        "  - name: us-1\n"
        "    bootstrap: 10.0.0.1:9092\n"
        "    commandConfig: secrets/us-1.properties\n"
        "    environment: staging\n"
        "  - name: lab\n"
        "    manifests: /abs/lab\n"
        "    snapshot: snapshots/lab.parquet\n"
    )
    fleet = load_fleet(tmp_path / "fleet.yaml", env={})
    eu, us, lab = fleet.clusters
    assert eu.manifests == (tmp_path / "manifests", tmp_path / "shared")
    assert (eu.profile, eu.environment, eu.request_timeout_ms) == ("eu-1", "prod", 5000)
    assert us.command_config == tmp_path / "secrets/us-1.properties"
    assert (us.bootstrap, us.environment) == ("10.0.0.1:9092", "staging")
    assert lab.manifests == (Path("/abs/lab"),)
    assert lab.snapshot == tmp_path / "snapshots/lab.parquet"
    assert lab.source == f"snapshot {tmp_path / 'snapshots/lab.parquet'}"


def test_every_problem_is_named_with_its_position(tmp_path: Path) -> None:
    path = tmp_path / "fleet.yaml"
    path.write_text(
        "clusters:\n"
        "  - name: eu-1\n"
        "    manifests: m\n"
        "    snapshots: eu.json\n"
        "  - name: us-1\n"
        "    manifests: m\n"
        "    bootstrap: 127.0.0.1:1\n"
        "    snapshot: x.json\n"
        "  - name: bad name\n"
        "    manifests: m\n"
        "    requestTimeoutMs: 0\n"
    )
    assert _problems(path) == [
        "fleet.yaml:4:5: error: unknown field 'snapshots' (at clusters[0].snapshots)",
        "fleet.yaml:5:5: error: give either snapshot or a connection (profile, bootstrap, commandConfig), "
        "not both (at clusters[1])",
        "fleet.yaml:9:11: error: name 'bad name' must be letters, digits, '.', '_' or '-' (it names a directory) "
        "(at clusters[2].name)",
        "fleet.yaml:11:23: error: requestTimeoutMs: Input should be greater than 0 (at clusters[2].requestTimeoutMs)",
    ]


def test_duplicate_names_and_missing_manifests(tmp_path: Path) -> None:
    path = tmp_path / "fleet.yaml"
    path.write_text("clusters:\n  - name: a\n    manifests: m\n  - name: a\n    snapshot: s.json\n")
    assert _problems(path) == [
        "fleet.yaml:4:11: error: cluster 'a' is listed twice (first at line 2) (at clusters[1].name)",
        "fleet.yaml:4:5: error: cluster 'a' has no manifests (at clusters[1]); "
        "hint: set manifests on the cluster or under defaults",
    ]


def test_a_cluster_may_not_be_named_like_a_summary_file(tmp_path: Path) -> None:
    path = tmp_path / "fleet.yaml"
    path.write_text("clusters:\n  - {name: report.md, manifests: m}\n")
    assert _problems(path) == [
        "fleet.yaml:2:12: error: 'report.md' is the name of a summary file; rename the cluster (at clusters[0].name)"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "clusters: []\n",
            "fleet.yaml:1:11: error: clusters: List should have at least 1 item after validation, not 0",
        ),
        ("version: 2\nclusters: []\n", "fleet.yaml:1:10: error: version: Input should be 1"),
        ("- a\n", "fleet.yaml:1:1: error: fleet.yaml must be a mapping with a 'clusters' list"),
        ("clusters: [\n", "fleet.yaml:2:1: error: YAML syntax error"),
    ],
)
def test_malformed_files(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "fleet.yaml"
    path.write_text(text)
    assert _problems(path)[0].startswith(expected)
