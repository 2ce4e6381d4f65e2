"""Import of ACLs (``add_acls``, the kind's ``adopt`` part): one ``Acl`` document per principal under ``acls/``, its
bindings grouped (``reconciler.adopt.acl_bindings``).

Every binding is checked against the same rules the loader applies; one the manifest language cannot hold (a Group:
principal, a resource type this version cannot name) is left out with a note. The principals imported are the
Ownership document's.
"""

from __future__ import annotations

from collections import defaultdict

from reconciler.adopt import output
from reconciler.adopt.acl_bindings import acl_entries
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, ManifestFile
from reconciler.manifests import rules
from reconciler.model import state
from reconciler.model.kinds import Kind, Manifest


def add_acls(job: Job) -> None:
    """One file per principal under ``acls/``, its bindings grouped (``acl_entries``)."""
    if job.live.acls is None:
        job.unread(Kind.ACL, "ACLs")
        return
    by_principal: dict[str, list[state.AclBinding]] = defaultdict(list)
    for binding in sorted(job.live.acls):
        problems = rules.principal_problems(binding.principal) + rules.host_problems(binding.host)
        problems += rules.acl_problems(
            resource_type=binding.resource_type,
            pattern_type=binding.pattern_type,
            resource_name=binding.resource_name,
            operation=binding.operation,
        )
        if "UNKNOWN" in (binding.resource_type, binding.pattern_type, binding.operation, binding.permission):
            problems.append("a resource type, pattern, operation or permission this version cannot name")
        if problems:
            job.report.note(binding.address, f"left out: {'; '.join(problems)}")
            continue
        by_principal[binding.principal].append(binding)
    taken: set[str] = set()
    count = 0
    for principal in sorted(by_principal):
        name = output.unique(_principal_label(principal), taken)
        bindings = acl_entries(by_principal[principal])
        count += len(by_principal[principal])
        doc = Document(Manifest.ACL, name, {"bindings": bindings}, comments=[f"ACLs of {principal}"])
        job.files.append(ManifestFile(f"acls/{name}.yaml", [doc]))
        job.principals.add(principal)
    job.report.counts["ACL bindings"] = count
    job.report.counts["ACL principals"] = len(by_principal)


def _principal_label(principal: str) -> str:
    return "all-users" if principal == "User:*" else output.safe_file_name(principal)
