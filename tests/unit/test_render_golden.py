"""Golden-file tests: the three renders of the example plan must match tests/golden/ exactly.

Regenerate after an intended change with ``UPDATE_GOLDEN=1 pytest tests/unit/test_render_golden.py``
and review the diff of tests/golden/ like any other change.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from reconciler import plan as p
from reconciler.render import render_json, render_markdown, render_text
from tests.golden.example import example_plan

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

RENDERS: dict[str, Callable[[p.Plan], str]] = {
    "example-plan.txt": lambda plan: render_text(plan, color=False),
    "example-plan-color.txt": lambda plan: render_text(plan, color=True),
    "example-plan.md": lambda plan: render_markdown(plan, title="Kafka plan for prod-eu", marker="prod-eu"),
    "example-plan.json": render_json,
}


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_render_matches_golden_file(name: str) -> None:
    rendered = RENDERS[name](example_plan())
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(rendered, encoding="utf-8")
    assert path.exists(), f"{path} is missing; run with UPDATE_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    assert rendered == expected, f"{name} differs from {path}; if intended, regenerate with UPDATE_GOLDEN=1"


def test_golden_json_is_a_loadable_plan_equal_to_the_example(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text((GOLDEN / "example-plan.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert p.Plan.load(plan_file) == example_plan()
