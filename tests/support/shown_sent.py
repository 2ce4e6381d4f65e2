"""Shown = sent for a plan file: each operation's request built and encoded by the adapter's own encoders, and its
content compared with what the change shows (``check_shown_is_sent``), for every kind: a config write's keys and
values, a topic's partitions, replicas and configs, a quota entity's values, an ACL binding, SCRAM credentials, a
reassignment's replicas, a connector's whole config and state, and the resource a deletion removes."""

from __future__ import annotations

import json
import traceback
from typing import Any

from reconciler.base import errors
from reconciler.kinds.schema_subject.payload import SubjectPayload
from reconciler.model import payloads, plans, state
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType
from reconciler.model.kinds import Kind


def _sent(op: Any) -> tuple[Any, dict[str, Any]]:
    """The request ``op`` would send, encoded by the adapter's own encoders, and its content keyed as the plan shows
    it (attribute name -> value)."""
    from reconciler.apply import decoded
    from reconciler.kafka import encoders, results
    from reconciler.kinds.connector import writes as connector_writes
    from reconciler.kinds.schema_subject import apply as subject_apply
    from reconciler.kinds.topic import apply as topic_apply

    r = op.request
    if isinstance(r, decoded.AlterConfigs):
        req = encoders.incremental_alter_configs({(r.resource_type, op.name): r.ops}, [(r.resource_type, op.name)],
                                                 validate_only=False)  # fmt: skip
        return req, {f"configs.{c.key}": c.value for c in r.ops}
    if isinstance(r, decoded.CreateTopic):
        spec = results.TopicSpec(op.name, r.partitions, r.replication_factor, r.assignment, r.configs)
        content: dict[str, Any] = {"partitions": r.partitions, "replication_factor": r.replication_factor}
        content |= {f"configs.{k}": v for k, v in r.configs.items()}
        if r.assignment is not None:
            content["assignment"] = [list(x) for x in r.assignment]
        return encoders.create_topics([spec], timeout_ms=1, validate_only=False), content
    if isinstance(r, decoded.WriteQuota):
        req = encoders.alter_client_quotas({r.entity: r.values}, [r.entity], validate_only=False)
        return req, {"entity": r.entity.address, **dict(r.values)}
    if isinstance(r, decoded.WriteAcl):
        if op.change.action is plans.Action.DELETE:
            req = encoders.delete_acls([r.binding])
            return req, {"binding": _binding_sent(req.filters[0], _FILTER_FIELDS).address}
        req = encoders.create_acls([r.binding])
        return req, {"binding": _binding_sent(req.creations[0], _CREATION_FIELDS).address}
    if isinstance(r, decoded.DeleteTopic):
        req = encoders.delete_topics([op.name], timeout_ms=1)
        return req, {"resource": Kind.TOPIC.address(req.topics[0].name)}
    if isinstance(r, decoded.AddPartitions):
        req = encoders.create_partitions([op.name], {op.name: r.total}, None, timeout_ms=1, validate_only=False)
        return req, {"partitions": r.total}
    if isinstance(r, decoded.WriteScram):
        return _scram_sent(r)
    if isinstance(r, connector_writes.WriteConnector):
        return _connector_sent(r)
    if isinstance(r, connector_writes.DeleteConnector):
        return None, {"resource": Kind.CONNECTOR.address(r.name)}
    if isinstance(r, subject_apply.WriteSubject):
        return _subject_sent(op.change, r)
    if isinstance(r, topic_apply.Reassign):
        moves = {(op.name, p): t for p, t in r.targets.items()}
        req = encoders.alter_partition_reassignments(moves, list(moves), timeout_ms=1)
        return req, {f"assignment.{p}": list(t) for p, t in r.targets.items()}
    # An operation of a new kind is compared only once it is taught here: until then every case of it is a crash.
    raise TypeError(f"{op.address}: no shown-is-sent comparison for a {type(r).__name__} operation")


# The seven fields of one binding in a CreateAcls creation and a DeleteAcls filter, in AclBinding's field order.
_CREATION_FIELDS = ("resource_type", "resource_pattern_type", "resource_name", "principal", "host", "operation",
                    "permission_type")  # fmt: skip
_FILTER_FIELDS = ("resource_type_filter", "pattern_type_filter", "resource_name_filter", "principal_filter",
                  "host_filter", "operation", "permission_type")  # fmt: skip


def _binding_sent(entry: Any, fields: tuple[str, ...]) -> state.AclBinding:
    """The binding a CreateAcls creation or DeleteAcls filter carries, read back from its wire codes and names."""
    rtype, pattern, name, principal, host, operation, permission = (getattr(entry, f) for f in fields)
    return state.AclBinding(
        AclResourceType.from_code(rtype), AclPatternType.from_code(pattern), name, principal, host,
        AclOperation.from_code(operation), AclPermission.from_code(permission),
    )  # fmt: skip


def _scram_sent(r: Any) -> tuple[Any, dict[str, Any]]:
    """A SCRAM write's first request (every user's first alteration), and every credential it sets or removes."""
    from reconciler.connection.settings import Secret
    from reconciler.kafka import encoders, results

    upserts = [results.ScramUpsert(r.user, m, n, Secret("fuzz-secret")) for m, n in r.upserts.items()]
    per_user = encoders.scram_alterations(upserts, [results.ScramDeletion(r.user, m) for m in r.deletions])
    req = encoders.alter_user_scram_credentials([alts[0] for alts in per_user.values()])
    content: dict[str, Any] = {f"credentials.{m}": {"iterations": n} for m, n in r.upserts.items()}
    content |= {f"credentials.{m}": None for m in r.deletions}
    if r.password is not None:
        content["password"] = r.password
    return req, content


def _connector_sent(r: Any) -> tuple[Any, dict[str, Any]]:
    """No Kafka request (Connect's REST API takes it), and what the connector write sends: the whole config, each
    secret (resolved just before sending, shown only as redacted), and the state."""
    content: dict[str, Any] = {f"config.{k}": v for k, v in r.config.items()}
    content |= {f"config.{k}": plans.REDACTED for k in r.secrets}
    content["state"] = r.state
    return None, content


def _subject_sent(c: plans.Change, r: Any) -> tuple[Any, dict[str, Any]]:
    """No Kafka request (the registry's REST API takes it), and the content of the requests a subject write sends
    (built by the port's own request builders) as the plan shows it: the new version's schema (canonical text), its
    type and references where they change, the level and mode written, how a delete deletes, and the subject each
    request is for."""
    from reconciler.registry import canonical
    from reconciler.registry import requests as rq

    w = r.change
    sent: list[Any] = []
    content: dict[str, Any] = {}
    before = c.before if isinstance(c.before, SubjectPayload) else SubjectPayload()
    if w.level is not None:
        sent.append(rq.put_config(w.level[1], w.subject))
        content["compatibility"] = sent[-1].body["compatibility"]
    if w.mode is not None:
        sent.append(rq.put_mode(w.mode[1], w.subject))
        content["mode"] = sent[-1].body["mode"]
    if w.register is not None:
        d = w.register
        sent.append(rq.register(w.subject, d.schema, schema_type=d.schema_type, references=d.references))
        body = sent[-1].body
        kind = body.get("schemaType", "AVRO")
        try:
            content["schema"] = canonical.normalize(body["schema"], kind)
        except ValueError:
            content["schema"] = body["schema"]
        refs = tuple(rq.Reference(x["name"], x["subject"], x["version"]) for x in body.get("references", []))
        if kind != before.schema_type:
            content["schemaType"] = kind
        if refs != before.references:
            content["references"] = [f"{x.name} = {x.subject} v{x.version}" for x in refs]
    if c.action is plans.Action.DELETE:
        sent.append(rq.delete_subject(w.subject, permanent=w.permanent))
        content["delete"] = "permanent" if "permanent=true" in sent[-1].path else "soft"
    subjects = {rq.route(s.path.partition("?")[0])[1].get("subject") for s in sent}
    if len(subjects) == 1:
        content["resource"] = Kind.SCHEMA_SUBJECT.address(str(subjects.pop()))
    json.dumps([s.body for s in sent])  # what goes on the wire: JSON bodies (no Kafka request)
    return None, content


def _connector_unchanged(c: plans.Change, key: str, value: Any) -> bool:
    """Whether a connector write re-sends ``key`` as the live connector holds it (Connect takes the whole config)."""
    before = c.before
    if not isinstance(before, payloads.ConnectorPayload):
        return False
    if key == "state":
        return bool(value == before.state or (value == "running" and before.state in ("failed", "unassigned")))
    name = key.removeprefix("config.")
    return bool((plans.REDACTED if name in before.secrets else before.config.get(name)) == value)


_TARGETS = ("entity", "binding", "resource")  # what a request is for, compared with the change's address


def _differences(c: plans.Change, content: dict[str, Any]) -> list[str]:
    """Where what ``c`` shows is not what its request carries: a shown attribute the request sends otherwise, a key
    the request changes without showing it, or a request for another resource than the change's address."""
    shown = {a.name: a.after for a in c.attributes}
    found = [f"shows {k}={v!r}, sends {content.get(k)!r}" for k, v in shown.items() if k in content and content[k] != v]
    quiet = {k: v for k, v in content.items() if k not in shown and k not in _TARGETS}
    if c.kind == "quota":  # a quota request also re-sends the keys that do not change: those equal the live values
        before = getattr(c.before, "values", {}) or {}
        quiet = {k: v for k, v in quiet.items() if before.get(k) != v}
    if c.kind == "scram_user":  # a credential re-set at its live iterations (a rotation) shows as the password set
        had = getattr(c.before, "credentials", {}) or {}
        quiet = {k: v for k, v in quiet.items() if v != {"iterations": had.get(k.removeprefix("credentials."))}}
    if c.kind == "connector":  # a connector write re-sends its whole config: the keys that do not change are live
        quiet = {k: v for k, v in quiet.items() if not _connector_unchanged(c, k, v)}
    found += [f"sends {k}={v!r} without showing it" for k, v in quiet.items()]
    for key in _TARGETS:
        if key in content and content[key] != c.address:
            found.append(f"shows {c.address}, writes to {content[key]}")
    return found


def check_shown_is_sent(doc: dict[str, Any]) -> tuple[str, str | None]:
    """``("refused"|"same"|"different"|"crash", detail)`` for one plan document: loaded, shown (the text render),
    decoded, and each operation's request built and encoded by the adapter's encoders; "same" when every request
    carries exactly what the plan shows for its change."""
    from reconciler.apply import decoded
    from reconciler.kafka import encoders
    from reconciler.render.text import render_text

    try:
        p = plans.Plan.from_json_dict(doc)
        render_text(p)
        ops = decoded.decode(p)
    except errors.ReconcilerError:
        return "refused", None
    except Exception:
        return "crash", traceback.format_exc(limit=-3)
    problems: list[str] = []
    for op in ops.items:
        try:
            request, content = _sent(op)
            if request is not None:
                encoders.wire_bytes(request)
        except Exception:
            return "crash", f"{op.address}: " + traceback.format_exc(limit=-3)
        problems += [f"{op.address}: {d}" for d in _differences(op.change, content)]
    return ("different", "; ".join(problems)) if problems else ("same", None)
