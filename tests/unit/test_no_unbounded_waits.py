"""No wait without a bound under reconciler/kafka: a static check of the source, so a new wait cannot slip in.

It reads every module's syntax tree and refuses a call that blocks with no bound: ``wait()``/``join()``/
``result()``/``get()``/``acquire()`` without a timeout, ``urlopen`` without one, kafka-python's blocking
``run`` (``manager.run``, ``_net.run``, ``KafkaNetClient``'s ``poll`` without a timeout: only
``bounded.run`` may wait on the IO thread), and a ``KafkaNetClient`` built anywhere but ``bounded``
(its manager would bootstrap with kafka-python's unbounded wait).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

KAFKA_DIR = Path(__file__).resolve().parents[2] / "reconciler" / "kafka"


def _has_bound(call: ast.Call) -> bool:
    """Whether the call passes a timeout: any positional argument, or a ``timeout``-like keyword not ``None``."""
    for keyword in call.keywords:
        if keyword.arg and "timeout" in keyword.arg:
            return not (isinstance(keyword.value, ast.Constant) and keyword.value.value is None)
    return bool(call.args) and not (isinstance(call.args[0], ast.Constant) and call.args[0].value is None)


def unbounded_waits(source: str, *, module: str) -> list[str]:
    """``line: call`` for every call in ``source`` that can block without a bound."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
        ours = module == "bounded.py"
        bounded_wait = name in ("wait", "acquire") or (name == "join" and not node.args)  # not str.join
        checks = (
            bounded_wait and not _has_bound(node),
            name in ("result", "get") and not node.args and not node.keywords and bool(owner),
            name == "urlopen" and not any(k.arg == "timeout" for k in node.keywords) and len(node.args) < 3,
            name == "run" and owner != "bounded" and not ours,
            name == "poll" and not _has_bound(node),
            name == "KafkaNetClient" and not ours,
            name == "bootstrap" and owner.endswith("_manager"),
        )
        if any(checks):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", sorted(KAFKA_DIR.glob("*.py")), ids=lambda p: p.name)
def test_no_unbounded_wait_under_reconciler_kafka(path: Path) -> None:
    assert unbounded_waits(path.read_text(encoding="utf-8"), module=path.name) == []


@pytest.mark.parametrize(
    "line",
    [
        "event.wait()",
        "event.wait(timeout=None)",
        "thread.join()",
        "future.result()",
        "queue.get()",
        "lock.acquire()",
        "urllib.request.urlopen(request)",
        "manager.run(manager.send, request, node, timeout_ms)",
        "client._net.run(coro)",
        "net.poll(future=f)",
        "KafkaNetClient(**configs)",
        "admin._manager.bootstrap(1000)",
    ],
)
def test_the_check_finds_each_kind_of_unbounded_wait(line: str) -> None:
    assert unbounded_waits(line, module="wire.py") == [f"1: {line}"]


@pytest.mark.parametrize(
    "line",
    [
        "event.wait(5)",
        "event.wait(timeout=left)",
        "thread.join(2.0)",
        "', '.join(parts)",
        "mapping.get(key)",
        "urllib.request.urlopen(request, timeout=timeout)",
        "bounded.run(net, coro, timeout_s=5, what='x')",
        "net.poll(timeout_ms=100)",
    ],
)
def test_bounded_calls_pass_the_check(line: str) -> None:
    assert unbounded_waits(line, module="wire.py") == []
