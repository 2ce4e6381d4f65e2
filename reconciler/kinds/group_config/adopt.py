"""Import of group configs (``add_group_configs``, the kind's ``adopt`` part): ``groups.yaml``, one ``GroupConfig``
document per group whose configs this version can declare, each key with a readable value (``50s``) that the loader
reads back to exactly the live config. A key this version's catalogue does not know, or a value it refuses, is left
out with a note. The groups imported are the Ownership document's ``groups``.
"""

from __future__ import annotations

from reconciler.adopt import entities as adopt_entities
from reconciler.adopt import values
from reconciler.adopt.entities import Note
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document
from reconciler.model import catalogue, configs, entities
from reconciler.model.kinds import Kind, Manifest


def group_documents(section: entities.Section, note: Note) -> list[Document]:
    """One ``GroupConfig`` per group with configs this version can declare."""
    docs = []
    for group in sorted(section):
        address = Kind.GROUP_CONFIG.address(group)
        kept: dict[str, object] = {}
        for key, text in sorted(section[group].items()):
            spec = catalogue.GROUP_CONFIGS.get(key)
            problem = "not in this version's catalogue" if spec is None else None
            if spec is not None and text is not None:
                problem = "; ".join(configs.validate_config(spec, text)) or None
            if text is None or problem:
                note(address, f"{key}={text} left out: {problem or 'no value'}")
                continue
            kept[key] = values.config_value(key, text)
        if kept:
            docs.append(Document(Manifest.GROUP_CONFIG, group, {"configs": kept}))
    return docs


def add_group_configs(job: Job) -> None:
    """``groups.yaml``: the ``GroupConfig`` documents (``group_documents``)."""
    adopt_entities.add_documents(job, Kind.GROUP_CONFIG, group_documents, path="groups.yaml", rules="groups")
