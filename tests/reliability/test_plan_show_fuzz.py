"""Resealed plan files (edited, checksum recomputed): ``show`` accepts exactly the plans apply decodes, and refuses
the others with apply's own message. Apply runs through the unit tests' in-memory adapter: what is compared is how
each command reads a plan, not the wire protocol."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

from reconciler.apply import ApplyOptions, apply_plan, preflight, retry
from reconciler.base import errors
from reconciler.cli import app
from reconciler.model import plans
from tests.support.fuzzing import AnyEnv, edited_plans
from tests.support.recording import RecordingAdapter


def _apply_refusal(doc: dict[str, Any]) -> str | None:
    """Why apply refuses ``doc`` as a plan it cannot read or decode (``None`` when it reads and decodes it; a plan
    with error-level findings is decoded, and refused for them, which show displays)."""
    try:
        p = plans.Plan.from_json_dict(doc)
    except errors.PlanFileError as exc:
        return str(exc)
    adapter = RecordingAdapter(cluster_id=p.cluster.cluster_id or "cluster-a")
    options = ApplyOptions(
        check_staleness=False,
        verify=False,
        settle_s=0,
        deadline_s=5,
        pacer=retry.Pacer(sleep=lambda _s: None),
        environ=AnyEnv(),
        allow_self_lockout=True,
    )
    try:
        apply_plan(p, adapter, options=options)
    except preflight.ImpossiblePlan as exc:
        assert adapter.writes() == []
        return str(exc)
    except errors.ReconcilerError:
        return None  # decoded, then refused for what the cluster or the environment holds
    return None


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(edited_plans())
def test_show_accepts_exactly_the_resealed_plans_apply_decodes(doc: dict[str, Any]) -> None:
    """Regression: a third of resealed plans were shown with exit 0 and then refused by apply before writing."""
    refusal = _apply_refusal(doc)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        shown = CliRunner().invoke(app, ["show", str(path)])
    out = " ".join(shown.output.split())
    if refusal is None:
        assert shown.exit_code == 0, out
    else:
        assert shown.exit_code == 1 and " ".join(refusal.split()) in out, (refusal, out)
