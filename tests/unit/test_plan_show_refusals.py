"""``show`` and ``comment --plan`` refuse every saved plan that ``apply --plan`` refuses before connecting, with the
same message and exit code: a reviewer never approves a plan that cannot be applied. Also refused on load: a key
twice in one JSON object, an unknown field in a change, a no-op showing attribute lines; a missing field is named."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from tests.support.fuzzing import GOLDEN_PLAN, reseal

Doc = dict[str, Any]


def _change(doc: Doc, address: str) -> Doc:
    found: Doc = next(c for c in doc["changes"] if c["address"] == address)
    return found


def _negative_quota(doc: Doc) -> str:
    change = _change(doc, "quota/user=payments-api")
    change["after"]["values"]["producer_byte_rate"] = -1.0
    del change["attributes"]  # derived from the data on load
    return reseal_text(doc)


def _quota_of_another_entity(doc: Doc) -> str:
    _change(doc, "quota/user=payments-api")["after"]["entity"] = [{"type": "user", "name": "mallory"}]
    return reseal_text(doc)


def _shadowed_address(doc: Doc) -> str:
    """Two ``address`` keys in one change: ``json`` keeps the last, so a reader of the file sees the first."""
    text = reseal_text(doc)
    real = '"address": "topic/payments.orders"'
    assert text.count(real) == 1
    return text.replace(real, '"address": "topic/payments.innocent",\n      ' + real)


def _unknown_field(doc: Doc) -> str:
    _change(doc, "topic/payments.orders")["approved_by"] = "security"
    return reseal_text(doc)


def _noop_with_lines(doc: Doc) -> str:
    doc["changes"].append(
        {
            "address": "topic/payments.quiet",
            "kind": "topic",
            "name": "payments.quiet",
            "action": "no-op",
            "phase": "TOPIC_CONFIG",
            "attributes": [{"name": "configs.retention.ms", "before": "1", "after": "2"}],
        }
    )
    return reseal_text(doc)


def _missing_phase(doc: Doc) -> str:
    del _change(doc, "topic/payments.orders")["phase"]
    return reseal_text(doc)


def _unknown_phase(doc: Doc) -> str:
    _change(doc, "topic/payments.orders")["phase"] = "TOPIC_RENAME"
    return reseal_text(doc)


def reseal_text(doc: Doc) -> str:
    return json.dumps(reseal(doc), indent=2) + "\n"


# edit -> what the refusal must say
CASES: dict[str, tuple[Callable[[Doc], str], str]] = {
    "a quota value below zero": (
        _negative_quota,
        "the plan cannot be applied as written: quota/user=payments-api: values.producer_byte_rate",
    ),
    "a quota change writing another entity": (
        _quota_of_another_entity,
        "quota/user=payments-api: the change's quota entity is quota/user=mallory, not the change's address",
    ),
    "a key twice in one object": (
        _shadowed_address,
        "refused: the plan file holds the key 'address' twice in one object (changes[5])",
    ),
    "an unknown field in a change": (
        _unknown_field,
        "malformed plan file: changes[5] (topic/payments.orders): unknown field(s) 'approved_by'",
    ),
    "a no-op showing attribute lines": (
        _noop_with_lines,
        "refused: the change at 'topic/payments.quiet' is a no-op but shows 1 attribute line(s)",
    ),
    "a change without its phase": (
        _missing_phase,
        "malformed plan file: changes[5] (topic/payments.orders): the change lacks the field(s) 'phase'",
    ),
    "a phase that does not exist": (
        _unknown_phase,
        "malformed plan file: changes[5] (topic/payments.orders): phase 'TOPIC_RENAME' is not one of ACL_DELETE",
    ),
}


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())  # the console wraps long lines


@pytest.mark.parametrize("case", list(CASES))
def test_show_and_comment_refuse_what_apply_refuses_with_the_same_message(case: str, tmp_path: Path) -> None:
    """Regression: show printed these plans with exit 0 (a quota entity other than its address, a value the manifests
    refuse, a shadowed key, an unknown field, a no-op with attribute lines), and a missing field was reported as
    "malformed plan file: KeyError: 'phase'"."""
    edit, says = CASES[case]
    path = tmp_path / "plan.json"
    path.write_text(edit(copy.deepcopy(GOLDEN_PLAN)), encoding="utf-8")
    # apply refuses before it connects: nothing listens on port 9, and nothing is asked of it
    applied = _run("apply", "--plan", str(path), "--bootstrap-server", "127.0.0.1:9", "--timeout", "5")
    shown = _run("show", str(path))
    commented = _run("comment", "--plan", str(path), "--repo", "acme/kafka", "--pr", "1")
    assert applied[0] == 1 and says in applied[1], applied
    assert shown == applied
    assert commented == applied
    assert "internal error" not in shown[1] and "Traceback" not in shown[1]


def test_the_plan_as_written_is_shown(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(reseal_text(copy.deepcopy(GOLDEN_PLAN)), encoding="utf-8")
    code, out = _run("show", str(path))
    assert code == 0 and "topic/payments.orders" in out and "Plan: " in out


def test_a_plan_with_an_error_level_finding_is_shown_with_it_and_refused_by_apply(tmp_path: Path) -> None:
    """An error-level finding is part of a well-formed plan: show displays it for review (apply refuses the plan)."""
    doc = copy.deepcopy(GOLDEN_PLAN)
    doc["warnings"].append({"message": "topics could not be read", "address": None, "code": "x", "severity": "error"})
    path = tmp_path / "plan.json"
    path.write_text(reseal_text(doc), encoding="utf-8")
    code, out = _run("show", str(path))
    assert code == 0 and "error: [x] topics could not be read" in out
    code, out = _run("apply", "--plan", str(path), "--bootstrap-server", "127.0.0.1:9", "--timeout", "5")
    assert code == 1 and "the plan has error-level findings that block apply" in out
