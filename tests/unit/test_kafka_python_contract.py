"""The contract with kafka-python: the private members the adapter (reconciler/kafka) relies on are there, in the
shape it was written against, in the installed kafka-python; and the version pins say which release that is.

kafka-python has no public way to bound a wait on its IO thread, to bound the TLS handshake, or to reach the
connection manager of an admin client, so ``bounded.py``, ``wire.py``, ``bootstrap.py`` and ``netfix.py`` use its
private members. A new release may rename or reshape any of them without notice; this test names the member that
changed instead of letting a command fail on a cluster. Pure: it imports kafka-python and reads its source text, it
creates no client and opens no socket.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
from pathlib import Path
from typing import Any

import kafka
import pytest
from kafka.admin import client as admin_client
from kafka.net import compat, connection, inet, manager, selector, transport
from kafka.protocol import broker_version_data

ROOT = Path(__file__).resolve().parents[2]
CHECKED = (3, 0, 12)  # the release the adapter was written and tested against

# The SHA-256 (first 16 hex digits) of the source text of KafkaTCPTransport._read_from_sock as released in 3.0.12:
# netfix.py replaces that method with a corrected copy, which is only right while the original is this one.
READ_LOOP_SOURCE = "bfe00bf137fbef48"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def _class(module: Any, name: str) -> ast.ClassDef:
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise AssertionError(f"kafka-python's {module.__name__} has no class {name}")


def _self_attributes(module: Any, name: str) -> set[str]:
    """The attributes a class's own methods assign on ``self`` (read from its source, no instance made)."""
    found: set[str] = set()
    for node in ast.walk(_class(module, name)):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == "self":
                    found.add(leaf.attr)
    return found


def _parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_the_installed_kafka_python_is_the_release_the_pins_name() -> None:
    installed = _version(kafka.__version__)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"kafka-python~=3.0.12"' in pyproject, "pyproject.toml pins kafka-python to ~=3.0.12 (3.0.x from 3.0.12)"
    pinned = re.search(r"^kafka-python==(\S+)$", (ROOT / "constraints.txt").read_text(encoding="utf-8"), re.M)
    assert pinned is not None and _version(pinned.group(1)) == CHECKED, "constraints.txt pins kafka-python==3.0.12"
    assert installed[:2] == CHECKED[:2] and installed >= CHECKED, (
        f"kafka-python {kafka.__version__} is installed; the adapter was checked against {CHECKED} (~=3.0.12)"
    )


@pytest.mark.parametrize(
    ("module", "name", "attributes"),
    [
        # bounded.run waits on the IO thread the way NetworkSelector.run does, with a bound.
        (selector, "NetworkSelector", {"_io_thread", "_pending_waiters", "_pending_waiters_lock"}),
        # wire.py and bootstrap.py reach the manager and the selector of an admin client.
        (admin_client, "KafkaAdminClient", {"_manager", "_net"}),
        (compat, "KafkaNetClient", {"_manager", "_net"}),
        (manager, "KafkaConnectionManager", {"_net", "config", "cluster", "broker_version_data"}),
        # wire.py reads the ApiVersions answer kept there: {api key: (lowest, highest)}.
        (broker_version_data, "BrokerVersionData", {"api_versions"}),
        # netfix's read loop and bounded's TLS handshake use the transport's state.
        (transport, "KafkaTCPTransport", {"_net", "_sock", "_closed", "_protocol", "_read", "last_read"}),
        (connection, "KafkaConnection", {"_sensors"}),
    ],
)
def test_the_private_attributes_the_adapter_reads_are_still_set(module: Any, name: str, attributes: set[str]) -> None:
    missing = sorted(attributes - _self_attributes(module, name))
    assert missing == [], f"kafka-python {kafka.__version__}: {name} no longer sets {missing}"


@pytest.mark.parametrize(
    ("owner", "member", "parameters"),
    [
        (selector.NetworkSelector, "_invoke", ["self", "coro", "args"]),
        (selector.NetworkSelector, "call_soon_threadsafe", ["self", "callback"]),
        (selector.NetworkSelector, "wait_read", None),
        (selector.NetworkSelector, "wait_write", None),
        (selector.NetworkSelector, "stop", None),
        # BoundedManager overrides these two and calls bootstrap_async.
        (manager.KafkaConnectionManager, "_build_transport", ["self", "node", "timeout_at"]),
        (manager.KafkaConnectionManager, "bootstrap", ["self", "timeout_ms", "refresh"]),
        (manager.KafkaConnectionManager, "bootstrap_async", ["self", "timeout_ms", "refresh"]),
        (manager.KafkaConnectionManager, "send", None),
        (manager.KafkaConnectionManager, "close", None),
        (manager.KafkaConnectionManager, "ssl_enabled", None),
        (transport.KafkaTCPTransport, "_read_from_sock", ["self"]),
        (transport.KafkaTCPTransport, "_sock_recv", ["self"]),
        (transport.KafkaTCPTransport, "abort", ["self", "error"]),
        (transport.KafkaSSLTransport, "__init__", ["self", "net", "sock", "host", "configs"]),
        (connection.KafkaConnection, "data_received", ["self", "data"]),
    ],
)
def test_the_private_methods_the_adapter_calls_keep_their_shape(
    owner: type, member: str, parameters: list[str] | None
) -> None:
    assert member in vars(owner) or hasattr(owner, member), (
        f"kafka-python {kafka.__version__}: {owner.__name__} lacks {member}"
    )
    if parameters is not None:
        found = _parameters(getattr(owner, member))
        assert found == parameters, f"kafka-python {kafka.__version__}: {owner.__name__}.{member}{tuple(found)} changed"


def test_the_connection_helper_bounded_py_calls_keeps_its_shape() -> None:
    assert _parameters(inet.create_connection) == ["net", "host", "port", "socket_options", "proxy_url", "timeout_at"]


def test_the_read_loop_netfix_replaces_is_the_one_it_was_written_against() -> None:
    """netfix.py swaps KafkaTCPTransport._read_from_sock for a copy that delivers the last bytes before reporting the
    disconnection; a release that changes the original needs that copy reviewed (or dropped, if fixed upstream)."""
    source = inspect.getsource(transport)
    method = next(
        node
        for node in _class(transport, "KafkaTCPTransport").body
        if isinstance(node, ast.AsyncFunctionDef) and node.name == "_read_from_sock"
    )
    text = "\n".join(line.strip() for line in (ast.get_source_segment(source, method) or "").splitlines())
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    assert digest == READ_LOOP_SOURCE, (
        f"kafka-python {kafka.__version__} changed KafkaTCPTransport._read_from_sock: review reconciler/kafka/netfix.py"
    )
