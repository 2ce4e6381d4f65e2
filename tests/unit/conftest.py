"""Fixtures shared by the unit test modules (pure: plain data in, plain data out)."""

from __future__ import annotations

from tests.support.fleet import fleet_dir  # noqa: F401  (a fleet of three snapshot clusters on the examples)
