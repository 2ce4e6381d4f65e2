"""How ``make test`` shares the default release's suite among pytest processes, and how the shares' module times
become one baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import suites
from tests.support import durations


def test_every_module_runs_in_exactly_one_share_and_the_shares_are_balanced() -> None:
    modules = [f"suite/integration/test_{i}.py" for i in range(40)]
    seconds = {m: float(i % 7 + 1) * 10 for i, m in enumerate(modules)}
    shares = suites.shard_modules(modules, seconds, 2)
    assert sorted(m for share in shares for m in share) == sorted(modules)
    totals = [sum(seconds[m] for m in share) for share in shares]
    assert max(totals) - min(totals) <= max(seconds.values())
    assert all(share == sorted(share) for share in shares)


def test_a_module_without_a_baseline_still_runs_and_counts_as_the_median() -> None:
    modules = ["suite/test_a.py", "suite/test_b.py", "suite/test_new.py"]
    shares = suites.shard_modules(modules, {"suite/test_a.py": 100.0, "suite/test_b.py": 1.0}, 2)
    assert sorted(m for share in shares for m in share) == modules
    assert ["suite/test_a.py"] in shares  # the long one alone; the new one beside the short one


def test_the_suites_modules_are_found_and_the_real_baseline_shares_them() -> None:
    modules = suites.test_modules()
    assert "tests/unit/test_suites.py" in modules
    assert any(m.startswith("tests/integration/") for m in modules)
    shares = suites.shard_modules(modules, suites.baseline_seconds("4.4.0-kraft"), suites.SHARDS)
    assert len(shares) == suites.SHARDS
    assert sum(len(s) for s in shares) == len(modules)


def test_arguments_naming_paths_keep_the_suite_in_one_run(tmp_path: Path) -> None:
    assert suites.names_paths(["tests/integration/test_apply.py"])
    assert suites.names_paths(["tests/unit/test_suites.py::test_y"])
    assert not suites.names_paths(["-k", "sasl", "-x"])
    assert len(suites.default_runs(["tests/unit"], tmp_path, shards=2)) == 1
    assert len(suites.default_runs(["-x"], tmp_path, shards=2)) == 2
    assert len(suites.default_runs([], None, shards=2)) == 1  # in series: one process


def _run(code: int | None) -> suites.Run:
    run = suites.Run(title="t", args=[], env={})
    run.exit_code = code
    return run


def test_a_share_a_filter_left_empty_passes_only_beside_a_share_that_ran_tests() -> None:
    assert suites.passed([_run(0), _run(suites.NO_TESTS)], [_run(0)])
    assert not suites.passed([_run(suites.NO_TESTS), _run(suites.NO_TESTS)], [_run(0)])
    assert not suites.passed([_run(0), _run(1)], [_run(0)])
    assert not suites.passed([_run(0), _run(0)], [_run(1)])
    assert not suites.passed([_run(suites.NO_TESTS)], [])  # one run that collected nothing fails, as pytest says


def test_the_shares_module_times_merge_into_one_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "v" / durations.CACHE_KEY
    folder.mkdir(parents=True)
    for share, modules in (("1", {"suite/test_a.py": 1.5}), ("2", {"suite/integration/test_b.py": 30.0})):
        entry = folder / f"4.4.0-kraft{durations.SHARE_SEPARATOR}{share}"
        entry.write_text(json.dumps({"modules": modules, "load_average": [1.0, 1.0, 1.0]}), encoding="utf-8")
    target = tmp_path / "baselines"

    monkeypatch.setattr(durations, "BASELINE_DIR", target)
    written = durations.write_baselines(tmp_path, measured="2026-12-02")
    assert [p.name for p in written] == ["4.4.0-kraft.json"]
    body = json.loads(written[0].read_text(encoding="utf-8"))
    assert body["modules"] == {"suite/integration/test_b.py": 30.0, "suite/test_a.py": 1.5}
