"""The GitLab example's ``plan`` job script, run by bash with the real ``kafka-reconciler`` against the fake GitLab
API: a plan refused for its deletes (exit 1, with a plan file) is posted as the merge-request note with its
findings, not as "no error output was captured"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from reconciler.model import state
from reconciler.snapshot import files
from tests.support.fake_gitlab import FakeGitLab

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "glpat-planJobTestToken0123456789"
OWNED = """\
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {name: platform}
spec:
  topics:
    - prefix: orders.
  delete: {topic: true}
"""


@pytest.fixture
def gl() -> Iterator[FakeGitLab]:
    with FakeGitLab(token=TOKEN, project="acme/kafka-config", project_id=4242) as server:
        yield server


def _plan_script() -> str:
    pipeline = YAML(typ="safe").load((ROOT / "examples" / "gitlab" / ".gitlab-ci.yml").read_text(encoding="utf-8"))
    return "\n".join(pipeline["plan"]["script"])


def test_a_plan_refused_for_its_deletes_is_the_merge_request_note(gl: FakeGitLab, tmp_path: Path) -> None:
    work = tmp_path / "repo"
    (work / "kafka").mkdir(parents=True)
    (work / "kafka" / "ownership.yaml").write_text(OWNED, encoding="utf-8")
    doomed = {f"orders.t{i:02d}": state.TopicState(f"orders.t{i:02d}", ((1,),)) for i in range(12)}
    live = state.ClusterState("c-1", 1, (state.Broker(1, "127.0.0.1", 9092, None),), topics=doomed)
    files.write_snapshot(live, work / "live.json")
    script = tmp_path / "plan.sh"
    script.write_text(_plan_script(), encoding="utf-8")
    bash = shutil.which("bash")
    assert bash is not None
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "MANIFESTS": "kafka/ --live-state live.json",  # the job splits MANIFESTS into arguments
        "CLUSTER": "prod-eu",
        "KAFKA_PROFILE": "",
        "GITLAB_CI": "true",
        "GITLAB_TOKEN": TOKEN,
        "CI_API_V4_URL": gl.api_url,
        "CI_PROJECT_ID": "4242",
        "CI_PROJECT_URL": "https://gitlab.example/acme/kafka-config",
        "CI_MERGE_REQUEST_IID": "17",
        "CI_PIPELINE_SOURCE": "merge_request_event",
        "NO_COLOR": "1",
        **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
    }
    run = subprocess.run(
        [bash, "--noprofile", "--norc", "-e", str(script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    [note] = gl.notes[17]
    body = note["body"]
    assert "no error output was captured" not in body
    assert body.index("### Kafka plan for prod-eu: refused\n") < body.index("**Refused: apply writes nothing")
    assert "[too-many-deletes] this plan deletes 12 resources (Topics: 12)" in body
    assert "--max-deletes 12" in body and "maxDeletes: 12" in body
    assert (work / "plan.md").read_text(encoding="utf-8").startswith("### Kafka plan for prod-eu: refused\n")
