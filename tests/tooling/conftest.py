"""Tests that drive real external tools: pre-commit, actionlint (built with the Go toolchain), pip and a wheel
install, Spark (a JVM), bash running the shipped GitHub action, pexpect on a pseudo-terminal, and the CLI in a
fresh interpreter for its start-up imports. Every test here is marked ``tooling`` so ``pytest -m 'not tooling'``
leaves them out; tests/unit holds only pure tests (plain data in, plain data out).
"""

from __future__ import annotations

import pytest

from tests.support.fleet import fleet_dir  # noqa: F401  (the shared fleet fixture)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Tests marked ``peers`` build a peer tool from source (minutes of Go compilation on a cold cache): they run only
    # when a -m expression names them (``make test-peers``), so ``make test`` stays within its time budget.
    peers_selected = "peers" in (config.getoption("markexpr") or "")
    for item in items:
        if "tests/tooling/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.tooling)
        if item.get_closest_marker("peers") and not peers_selected:
            item.add_marker(
                pytest.mark.skip(reason="builds the Terraform provider from source; run it with make test-peers")
            )
