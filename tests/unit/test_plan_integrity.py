"""A saved plan names each resource once and says which release wrote it: an edited name or an incompatible
release is refused on load, before anything is shown or written."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import reconciler
from reconciler.base import errors
from reconciler.cli import app
from reconciler.model import planfile, plans
from reconciler.model.kinds import Kind
from tests.support.fuzzing import GOLDEN_PLAN, reseal


def saved(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def test_the_golden_plan_records_the_release_that_wrote_it_and_loads(tmp_path: Path) -> None:
    assert GOLDEN_PLAN["tool_version"] == reconciler.__version__
    loaded = plans.Plan.load(saved(tmp_path, copy.deepcopy(GOLDEN_PLAN)))
    assert loaded.tool_version == reconciler.__version__
    assert all(c.address == c.kind.address(c.name) for c in loaded.changes)


def test_a_config_change_whose_name_was_edited_and_resealed_is_refused(tmp_path: Path) -> None:
    doc = copy.deepcopy(GOLDEN_PLAN)
    change = next(c for c in doc["changes"] if c["phase"] == "TOPIC_CONFIG")
    shown = change["address"]
    change["name"] = "some.other.topic"
    with pytest.raises(errors.PlanFileError) as refused:
        plans.Plan.load(saved(tmp_path, reseal(doc)))
    message = str(refused.value)
    assert shown in message and "some.other.topic" in message and "edited" in message


@pytest.mark.parametrize("kind", ["acl", "quota", "scram_user", "broker_config", "group_config", "client_metrics"])
def test_an_address_edited_away_from_its_name_is_refused_for_every_kind(tmp_path: Path, kind: str) -> None:
    doc = copy.deepcopy(GOLDEN_PLAN)
    change = next(c for c in doc["changes"] if c["kind"] == kind)
    change["address"] = f"{kind}/elsewhere"
    with pytest.raises(errors.PlanFileError, match="elsewhere"):
        plans.Plan.load(saved(tmp_path, reseal(doc)))


def _other(version: str) -> str:
    major, minor, patch = version.split(".")[:3]
    return f"{major}.{minor}.{int(''.join(ch for ch in patch if ch.isdigit()) or 0) + 1}"


@pytest.mark.parametrize("written_by", ["0.0.9", "1.1.0", _other(reconciler.__version__), None, 7])
def test_a_plan_written_by_another_release_is_refused_naming_both(tmp_path: Path, written_by: Any) -> None:
    """Regression (same series): a plan of another patch release of the same series was applied."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    if written_by is None:
        doc.pop("tool_version")
    else:
        doc["tool_version"] = written_by
    with pytest.raises(errors.PlanFileError) as refused:
        plans.Plan.load(saved(tmp_path, reseal(doc)))
    message = str(refused.value)
    assert reconciler.__version__ in message and "re-run plan" in message and "--allow-other-version" in message
    if isinstance(written_by, str):
        assert written_by in message


def test_a_plan_of_another_release_loads_only_with_the_explicit_override(tmp_path: Path) -> None:
    doc = copy.deepcopy(GOLDEN_PLAN)
    doc["tool_version"] = _other(reconciler.__version__)
    path = saved(tmp_path, reseal(doc))
    assert plans.Plan.load(path, other_version=True).tool_version == doc["tool_version"]
    refused = CliRunner().invoke(app, ["show", str(path)])
    assert refused.exit_code == 1 and "--allow-other-version" in refused.output
    shown = CliRunner().invoke(app, ["show", str(path), "--allow-other-version"])
    assert shown.exit_code == 0 and "Plan: " in shown.output
    assert planfile.same_tool_version(reconciler.__version__)


def test_a_change_built_with_a_mismatched_address_is_refused_in_code_too() -> None:
    with pytest.raises(plans.AddressMismatch):
        plans.Change(
            address="topic/payments.ledger",
            kind=Kind.TOPIC,
            name="some.other.topic",
            action=plans.Action.UPDATE,
            phase=plans.Phase.TOPIC_CONFIG,
        )
