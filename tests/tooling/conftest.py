"""Tests that drive real external tools: pre-commit, actionlint (built with the Go toolchain), pip and a wheel
install, Spark (a JVM), bash running the shipped GitHub action, pexpect on a pseudo-terminal, and the CLI in a
fresh interpreter for its start-up imports. Every test here is marked ``tooling`` so ``pytest -m 'not tooling'``
leaves them out; tests/unit holds only pure tests (plain data in, plain data out).
"""

from __future__ import annotations

import pytest

from tests.support.fleet import fleet_dir  # noqa: F401  (the shared fleet fixture)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/tooling/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.tooling)
