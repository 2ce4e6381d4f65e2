"""Dependencies between the packages of ``reconciler`` point one way: no two packages import each other, directly or
through others, counting every import in a module (inside functions and under ``TYPE_CHECKING`` too, where a cycle
would otherwise hide). A top-level module (``cli.py``, ``operations.py``) counts as a package of its own."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from reconciler.base import secret
from reconciler.connection import settings

PACKAGE = Path(__file__).resolve().parents[2] / "reconciler"


# The kinds' framework: the registry, the kinds' places and the shape of a declaration. Every other module or package
# under ``reconciler/kinds/`` is one kind's own place and counts as a package of its own (``kinds.<kind>``).
KINDS_FRAMEWORK = ("__init__", "places", "registry", "spec")


def _node(parts: list[str]) -> str:
    """The package a module path (``["kinds", "topic"]``, ``["planner", "common"]``) counts in."""
    if parts[0] == "kinds" and len(parts) > 1 and parts[1] not in KINDS_FRAMEWORK:
        return f"kinds.{parts[1]}"
    return parts[0]


def _package(path: Path, root: Path) -> str:
    return _node([p.removesuffix(".py") for p in path.relative_to(root).parts])


def import_edges(root: Path = PACKAGE) -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> where (``file:line``), for every import of another package."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        here = _package(path, root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                parent = node.module in ("reconciler", "reconciler.kinds")
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names if parent]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "reconciler" and len(parts) > 1 and (there := _node(parts[1:])) != here:
                    edges[(here, there)].append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return edges


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_two_packages_import_each_other() -> None:
    edges = import_edges()
    found = cycles(edges)
    where = {
        " <-> ".join(group): {f"{a} -> {b}": edges[(a, b)][:3] for a in group for b in group if (a, b) in edges}
        for group in found
    }
    assert found == [], f"package import cycles: {where}"


# Stage packages that still import a kind's own module instead of reaching it through the registry (none now: a
# kind's code the stages run is a ``Part`` of its declaration). The test below fails for any such import, and for
# an entry here that no longer imports the kind.
STILL_REACHING_INTO_A_KIND: set[tuple[str, str]] = set()


def test_stages_reach_a_kind_only_through_the_registry() -> None:
    """A stage imports ``reconciler.kinds.registry`` (and the declaration's shape), never a kind's own module: what
    it runs for a kind is a part the declaration names, so a new kind is reached by every stage that iterates the
    registry, and its own code may use the stage frameworks without a loop."""
    edges = import_edges()
    reaching = {(a, b) for a, b in edges if b.startswith("kinds.") and not a.startswith("kinds")}
    assert {e: edges[e][:3] for e in reaching - STILL_REACHING_INTO_A_KIND} == {}
    assert STILL_REACHING_INTO_A_KIND - reaching == set(), "these reach the kind only through the registry now"


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({("a", "b"): ["x"], ("b", "a"): ["y"]}, [["a", "b"]]),
        ({("a", "b"): ["x"], ("b", "c"): ["y"], ("c", "a"): ["z"], ("c", "d"): ["w"]}, [["a", "b", "c"]]),
        ({("a", "b"): ["x"], ("b", "c"): ["y"]}, []),
    ],
)
def test_the_cycle_finder_finds_loops_through_several_packages(
    edges: dict[tuple[str, str], list[str]], expected: list[list[str]]
) -> None:
    assert cycles(edges) == expected


def test_a_function_level_import_counts(tmp_path: Path) -> None:
    for pkg, other in (("a", "b"), ("b", "a")):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "m.py").write_text(f"def f() -> None:\n    from reconciler.{other} import m\n")
    assert cycles(import_edges(tmp_path)) == [["a", "b"]]


def test_the_connection_layers_secret_variables_are_secret_by_name() -> None:
    assert all(secret.is_secret_variable(name) for name in settings.SECRET_ENV_VARS)


def test_the_schema_registry_data_package_imports_only_base() -> None:
    """The kinds read the registry's requests, port and canonical form; the manifest stage reads the kinds. So
    ``reconciler.registry`` must not reach the manifests or the Connect client (``reconciler.registry_access`` does)."""
    reached = {b: where for (a, b), where in import_edges().items() if a == "registry"}
    assert set(reached) <= {"base"}, reached
    # and the manifest stage may reach the kinds without a cycle
    edges = import_edges()
    edges[("manifests", "kinds")].append("(hypothetical)")
    assert cycles(edges) == []
