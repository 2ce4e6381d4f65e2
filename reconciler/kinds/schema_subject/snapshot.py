"""The subjects' section of a snapshot file: the codec is the model's (``reconciler.model.schema_subject_snapshot``,
which the snapshot file reads and writes); the kind names it here."""

from __future__ import annotations

from reconciler.model.schema_subject_snapshot import SECTION as SECTION
from reconciler.model.schema_subject_snapshot import SnapshotError as SnapshotError
from reconciler.model.schema_subject_snapshot import from_dict as from_dict
from reconciler.model.schema_subject_snapshot import resources as resources
from reconciler.model.schema_subject_snapshot import to_dict as to_dict
