"""Fixtures shared by the unit test modules (pure: plain data in, plain data out)."""

from __future__ import annotations

import pytest

from tests.support.fleet import fleet_dir  # noqa: F401  (a fleet of three snapshot clusters on the examples)
from tests.support.sources import Sources


@pytest.fixture(scope="session")
def repo_sources() -> Sources:
    """The repository's source files, read and parsed once for the whole session (the meta-tests share them)."""
    return Sources()
