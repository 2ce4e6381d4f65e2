"""Secrets never printed, written once over the kinds registry: for every registered kind with a secret-bearing
field (``tests/support/kind_samples.py``'s ``SECRET_BEARING``), a recognisable secret planted in one resource of it
appears in none of what the tool prints or writes of that resource: the plan as text, JSON and Markdown (the PR
comment), ``show`` of the saved plan, the plan file, the snapshot, the manifests ``import`` writes, the fleet rows,
and every log record at debug level. A registered kind missing from ``SECRET_BEARING`` fails here."""

from __future__ import annotations

import json
import logging
import secrets
from pathlib import Path

import pytest

from reconciler import planner
from reconciler.adopt import from_live
from reconciler.apply import decoded
from reconciler.commands import output
from reconciler.commands.options import PlanFormat
from reconciler.fleet import rows
from reconciler.gitops import publish
from reconciler.kinds import registry
from reconciler.model.kinds import Kind
from reconciler.snapshot import files
from tests.support.fleet import offline
from tests.support.kind_samples import SECRET_BEARING

PLANTED_KINDS = [kind for kind in registry.KINDS if SECRET_BEARING.get(kind) is not None]


def test_every_registered_kind_says_whether_it_bears_a_secret() -> None:
    missing = [str(kind) for kind in registry.KINDS if kind not in SECRET_BEARING]
    assert missing == [], (
        f"say in tests/support/kind_samples.py SECRET_BEARING where these kinds hold a secret: {missing}"
    )
    assert {Kind.SCRAM_USER, Kind.CONNECTOR, Kind.BROKER_CONFIG} <= set(PLANTED_KINDS)


def outputs(
    kind: Kind, secret: str, *, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, str], list[str]]:
    """What the tool prints and writes of the sample with ``secret`` planted in its resource of ``kind``, and the
    names of the resources of that kind it declares."""
    plant = SECRET_BEARING[kind]
    assert plant is not None
    wanted, live, environ = plant(secret)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    p = planner.plan(wanted, offline(wanted, live))
    assert kind in {c.kind for c in p.changes}, f"the sample plans no {kind} change: the secret would cross nothing"
    p.save(tmp_path / "plan.json")
    out_dir = tmp_path / "imported"
    from_live.adopt_cluster(live, out_dir=out_dir, force=False)
    markdown = output.render_plan(p, PlanFormat.markdown, cluster_name="prod")
    names = sorted(registry.spec(kind).desired_section(wanted))
    return {
        "plan text": output.render_plan(p, PlanFormat.text),
        "JSON plan": output.render_plan(p, PlanFormat.json),
        "plan file": (tmp_path / "plan.json").read_text(encoding="utf-8"),
        "show": output.render_plan(decoded.load(tmp_path / "plan.json"), PlanFormat.text),
        "PR comment": publish.plan_comment_body(markdown, cluster="prod"),
        "snapshot": json.dumps(files.to_json_dict(live)),
        "import output": "\n".join(f.read_text(encoding="utf-8") for f in sorted(out_dir.rglob("*")) if f.is_file()),
        "fleet rows": repr([*rows.desired_rows(wanted), *rows.live_rows(live)]),
    }, names


@pytest.mark.parametrize("kind", PLANTED_KINDS, ids=str)
def test_a_planted_secret_appears_in_no_output_or_log(
    kind: Kind, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    secret = f"Planted{kind.name.title().replace('_', '')}{secrets.token_hex(8)}"
    caplog.set_level(logging.DEBUG)
    seen, names = outputs(kind, secret, tmp_path=tmp_path, monkeypatch=monkeypatch)
    for where, text in seen.items():
        assert secret not in text, f"{kind}: the planted secret is in the {where}"
        assert any(n in text for n in names), f"{kind}: the {where} does not hold the resource at all"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert secret not in logged, f"{kind}: the planted secret is in a log record"
