"""Every value of a plan file is checked like the manifest field it came from, before anything is read or written.

Each case edits one value of the golden plan and reseals it (a consistent checksum, as someone editing it on purpose
would): apply refuses it at decode, naming the change and the field, with no call to the cluster at all.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from reconciler.apply import ApplyOptions, apply_plan
from reconciler.base import errors
from reconciler.model import plans
from tests.support.fuzzing import GOLDEN_PLAN, AnyEnv, reseal
from tests.support.recording import RecordingAdapter

Doc = dict[str, Any]


def _change(doc: Doc, phase: str, kind: str | None = None) -> Doc:
    """The change of ``phase``, its stored attributes dropped: they are derived from its data on load (a file whose
    attributes differ from its data is refused there, before these checks)."""
    c: Doc = next(c for c in doc["changes"] if c["phase"] == phase and (kind is None or c["kind"] == kind))
    c["attributes"] = []
    return c


def _partitions(n: int) -> Callable[[Doc], str]:
    def edit(doc: Doc) -> str:
        c = _change(doc, "TOPIC_CREATE")
        c["after"]["partitions"] = n
        return str(c["address"])

    return edit


def _rf(doc: Doc) -> str:
    c = _change(doc, "TOPIC_CREATE")
    c["after"]["replication_factor"] = 2**63
    return str(c["address"])


def _acl_wildcard(doc: Doc) -> str:
    c = _change(doc, "ACL_DELETE")
    c["before"]["operation"] = "ANY"
    c["address"] = "acl/" + c["name"].replace("/READ/", "/ANY/")
    c["name"] = c["address"].removeprefix("acl/")
    return str(c["address"])


def _scram_iterations(doc: Doc) -> str:
    c = _change(doc, "SCRAM")
    c["after"]["credentials"] = {"SCRAM-SHA-512": {"iterations": 10**12}}
    return str(c["address"])


def _scram_mechanism(doc: Doc) -> str:
    c = _change(doc, "SCRAM")
    c["after"]["credentials"] = {"SCRAM-MD5": {"iterations": 8192}}
    return str(c["address"])


def _quota_value(doc: Doc) -> str:
    c = _change(doc, "QUOTA")
    c["after"]["values"] = {"producer_byte_rate": -1.0}
    return str(c["address"])


def _quota_key(doc: Doc) -> str:
    c = _change(doc, "QUOTA")
    c["after"]["values"] = {"connection_creation_rate": 10.0}  # an ip quota key on a user entity
    return str(c["address"])


def _config_value(doc: Doc) -> str:
    c = _change(doc, "TOPIC_CONFIG")
    c["after"]["config_ops"][0]["value"] = "soon"
    return str(c["address"])


def _broker_id(doc: Doc) -> str:
    c = _change(doc, "BROKER_CONFIG")
    c["name"], c["address"] = "4294967296", "broker_config/4294967296"
    return str(c["address"])


def _topic_name(doc: Doc) -> str:
    c = _change(doc, "TOPIC_DELETE")
    c["name"], c["address"] = "bad name!", "topic/bad name!"
    return str(c["address"])


CASES: dict[str, tuple[Callable[[Doc], str], str]] = {
    "partitions 2**31": (_partitions(2**31), "partitions: 2147483648 is out of range"),
    "partitions 0": (_partitions(0), "partitions: 0 is out of range"),
    "replication factor 2**63": (_rf, "replication_factor: 9223372036854775808 is out of range"),
    "ACL operation ANY": (_acl_wildcard, "operation: 'ANY' is not one of"),
    "SCRAM iterations": (_scram_iterations, "credentials.SCRAM-SHA-512.iterations"),
    "SCRAM mechanism": (_scram_mechanism, "credentials: 'SCRAM-MD5' is not one of"),
    "negative quota": (_quota_value, "values.producer_byte_rate"),
    "quota key of another entity kind": (_quota_key, "values.connection_creation_rate"),
    "topic config value": (_config_value, "config_ops.retention.ms"),
    "broker id beyond INT32": (_broker_id, "name: 4294967296 is out of range"),
    "illegal topic name": (_topic_name, "name: topic name 'bad name!'"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_value_outside_its_manifest_bounds_is_refused_at_decode_naming_the_field(case: str) -> None:
    """Regression: a resealed plan with ``partitions: 2**31`` passed decode, apply created the other topics, then the
    wire encoder crashed ("internal error", no report); ACL and SCRAM values were only checked in dry runs."""
    edit, field = CASES[case]
    doc = copy.deepcopy(GOLDEN_PLAN)
    doc["changes"] = [c for c in doc["changes"] if plans.REDACTED not in str(c)]
    address = edit(doc)
    p = plans.Plan.from_json_dict(reseal(doc))
    adapter = RecordingAdapter(cluster_id=p.cluster.cluster_id or "cluster-a")
    with pytest.raises(errors.PlanFileError) as refused:
        apply_plan(p, adapter, options=ApplyOptions(check_staleness=False, environ=AnyEnv()))
    assert address in str(refused.value) and field in str(refused.value), str(refused.value)
    assert adapter.calls == []  # nothing read, nothing written


SCOPE_EDITS: dict[str, tuple[Callable[[Doc], None], str]] = {
    "fingerprints as a string": (lambda s: s.update(fingerprints="abc"), "scope.fingerprints must be an object"),
    "kinds[0] as false": (lambda s: s["kinds"].__setitem__(0, False), "scope.kinds[0] False is not a resource kind"),
    "an unknown kind of rule": (lambda s: s.update(topics=[["suffix", "x"]]), "scope.topics[0] rule kind 'suffix'"),
    "a count below zero": (lambda s: s["counts"].update(topic=-1), "scope.counts.topic must be a count"),
    "an unknown field": (lambda s: s.update(extra=1), "scope has unexpected field(s) extra"),
}


@pytest.mark.parametrize("case", list(SCOPE_EDITS))
def test_a_scope_of_the_wrong_shape_is_refused_when_the_plan_is_loaded(case: str) -> None:
    """Regression: ``scope.fingerprints`` as a string or ``scope.kinds[0]`` as ``false`` loaded, then crashed apply."""
    edit, message = SCOPE_EDITS[case]
    doc = copy.deepcopy(GOLDEN_PLAN)
    edit(doc["scope"])
    with pytest.raises(errors.PlanFileError, match="malformed plan file") as refused:
        plans.Plan.from_json_dict(reseal(doc))
    assert message in str(refused.value)
