"""Fixtures shared by the unit test modules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reconciler.fleet import sources
from reconciler.model import state as s
from tests.support.fleet import EXAMPLES, live_from


@pytest.fixture
def fleet_dir(tmp_path: Path) -> Path:
    """A fleet of three clusters on the example manifests: eu-1 (JSON snapshot), us-1 (Parquet), ap-1 (missing)."""
    shutil.copytree(EXAMPLES, tmp_path / "manifests")
    eu = live_from(tmp_path / "manifests", drop="orders.shipped", extra_topic="orders.legacy", retention="1000")
    us = live_from(tmp_path / "manifests", drop="payments.settled", extra_topic="payments.old", retention="2000")
    s.write_snapshot(eu, tmp_path / "eu.json")
    sources.write_parquet_snapshot(us, tmp_path / "us.parquet")
    (tmp_path / "fleet.yaml").write_text(
        "defaults:\n"
        "  manifests: manifests\n"
        "clusters:\n"
        "  - name: eu-1\n"
        "    snapshot: eu.json\n"
        "  - name: us-1\n"
        "    snapshot: us.parquet\n"
        "  - name: ap-1\n"
        "    snapshot: ap.json\n"
    )
    return tmp_path
