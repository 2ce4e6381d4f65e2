"""The manifests reach a kind's manifest part without the kinds' declarations: ``validate`` (the pre-commit hook, and
every command's manifest loading) does not pay for importing every kind's declaration and the plan, apply and
snapshot code the declarations import, also on a tree of Schema Registry subjects.

Checked on the import graph, statically: every module the manifests' loading and check (what ``validate`` runs) may
import, at module level or inside a function (as a document of some kind needs it), following the imports of each
module it reaches; ``TYPE_CHECKING`` blocks are not run. A kind's own manifest part is imported by name
(``reconciler.kinds.places.manifest``), so its module is a start too.
The modules one command line really imports are listed by ``tests/tooling/test_startup.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from reconciler.kinds import places
from reconciler.manifests import parts
from reconciler.model.kinds import Kind

ROOT = Path(__file__).resolve().parents[2]


def _file(module: str) -> Path | None:
    """The source file of ``module`` of ours (``None``: not a module of ours, or an attribute)."""
    if module != "reconciler" and not module.startswith("reconciler."):
        return None
    base = ROOT.joinpath(*module.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


class _Imports(ast.NodeVisitor):
    """The modules a module's code may import (its ``TYPE_CHECKING`` blocks left out)."""

    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
        if name != "TYPE_CHECKING":
            self.generic_visit(node)
            return
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.update(alias.name for alias in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self.found.add(node.module)
            self.found.update(f"{node.module}.{alias.name}" for alias in node.names)


def reachable(starts: list[str]) -> set[str]:
    """Every module of ours that importing ``starts`` may import, with the packages that hold them."""
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        module = todo.pop()
        path = _file(module)
        if module in seen or path is None:
            continue
        seen.add(module)
        todo.extend(module.rsplit(".", n)[0] for n in range(1, module.count(".") + 1))  # its packages
        visitor = _Imports()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        todo.extend(visitor.found)
    return seen


def _own_manifest_modules() -> list[str]:
    """The module of each manifest part the manifests import by name: the kinds not built by the manifests."""
    return [places.manifest_where(k).partition(":")[0] for k in Kind if k.manifest not in parts.BUILT_IN]


def test_validate_reaches_a_kinds_manifest_part_without_any_declaration() -> None:
    found = reachable(["reconciler.manifests", "reconciler.manifests.check", *_own_manifest_modules()])
    assert "reconciler.kinds.schema_subject.documents" in found  # the subject kind's part is among them
    assert "reconciler.manifests.build" in found
    assert sorted(m for m in found if m.endswith(".declaration") or m == "reconciler.kinds.registry") == []


def test_the_graph_follows_imports_inside_functions_and_leaves_type_checking_out() -> None:
    source = (
        "import a\nfrom b import c\nif TYPE_CHECKING:\n    import d\nelse:\n    import e\n"
        "def f() -> None:\n    from g import h\n"
    )
    visitor = _Imports()
    visitor.visit(ast.parse(source))
    assert visitor.found == {"a", "b", "b.c", "e", "g", "g.h"}
    assert "reconciler.kinds.registry" in reachable(["reconciler.manifests.descriptions"])  # the schema generation's
