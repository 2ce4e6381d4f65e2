"""Zero-diff import over the kinds registry: ``import`` of a cluster holding one resource of each registered kind
(``tests/support/kind_samples.py``) writes manifests that declare every one of them, and the plan of those manifests
against the same cluster changes nothing. A registered kind that import leaves out, or writes so that it plans a
change, fails here."""

from __future__ import annotations

from pathlib import Path

from reconciler import manifests, planner
from reconciler.adopt import from_live
from reconciler.adopt.job import Job
from reconciler.kinds import registry, spec
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.model.kinds import Kind
from tests.support.fleet import offline
from tests.support.kind_samples import LIVE


def test_an_imported_cluster_plans_no_change_for_any_kind(tmp_path: Path) -> None:
    from_live.adopt_cluster(LIVE, out_dir=tmp_path / "out", force=False)
    loaded = manifests.load([tmp_path / "out"], env={})
    assert loaded.diagnostics == []
    for kind, declared in registry.KINDS.items():
        live_names = {name for _address, name, _source in declared.declared(loaded.desired)}
        assert live_names, f"import wrote no {kind}"
    p = planner.plan(loaded.desired, offline(loaded.desired, LIVE))
    assert [c.address for c in p.actionable] == []
    assert [u.address for u in p.unmanaged] == []


def test_a_kind_writes_its_documents_through_what_the_import_job_offers_every_kind() -> None:
    """A kind's own package sees the import as ``spec.ImportJob`` (typed here: mypy checks that ``Job`` offers it);
    what it writes there lands in the import's files and report like any stage module's documents."""
    job = Job(LIVE, include_tool_topics=False)
    seen: spec.ImportJob = job
    registry.spec(Kind.SCHEMA_SUBJECT).adopt.get()(seen)
    held = subject_state.live_subjects(LIVE)
    assert held is not None
    subjects = [s for s, found in held.subjects.items() if found.latest is not None]
    (written,) = job.files
    assert [d.spec["subject"] for d in written.documents] == sorted(subjects)
    assert sorted(job.report.texts) == sorted(d.spec["schemaFile"] for d in written.documents)
    assert job.report.counts == {"schema subjects": len(subjects)}
