"""Text that names code stays true: every repository path the package, the docs or the tests name exists, and every
public function and class of the package is used somewhere (package, tests, benchmarks or scripts), so dead code
and docstrings about it do not linger. Reads source files only, each parsed once per session (the ``repo_sources``
fixture).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.support.sources import Sources

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "reconciler"

# A path into this repository with a file name, not part of a longer word, URL or format name.
PATH = re.compile(
    r"(?<![\w./-])(?:tests|docs|benchmarks|scripts|examples|schemas|reconciler)/[\w./-]*\.(?:py|md|json|ya?ml|txt|toml|sh)\b"
)

# A kind's part (``reconciler.kinds.spec.Part``): the attribute it names is used.
PART = re.compile(r"reconciler(?:\.\w+)+:\w+")

# Public members called by a framework rather than by this code base, with who calls them.
CALLED_BY_FRAMEWORKS = {
    "display_type_rich": "typer's help rendering (commands/plain_help.py overrides it)",
    "protocol_type": "kafka-python's BaseCoordinator, joining the apply lock's group (kafka/lock.py overrides it)",
    "group_protocols": "kafka-python's BaseCoordinator, joining the apply lock's group (kafka/lock.py overrides it)",
}


def _texts(repo_sources: Sources) -> list[Path]:
    python = [
        *repo_sources.python_files("reconciler"),
        *repo_sources.python_files("tests"),
        *repo_sources.python_files("benchmarks"),
    ]
    return [*python, *sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]


def test_every_repository_path_named_in_code_or_docs_exists(repo_sources: Sources) -> None:
    missing = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in _texts(repo_sources)
        for name in set(PATH.findall(repo_sources.text(path)))
        if not (ROOT / name.rstrip(".")).exists()
    )
    assert missing == [], f"these files name paths that do not exist: {missing}"


@pytest.fixture(scope="module")
def definitions(repo_sources: Sources) -> dict[str, str]:
    """Public module-level functions and classes, and public methods, of the package: name -> where."""
    found: dict[str, str] = {}
    for path in repo_sources.python_files("reconciler"):
        where = path.relative_to(ROOT).as_posix()
        for node in repo_sources.tree(path).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                found.setdefault(node.name, f"{where}:{node.lineno}")
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    if isinstance(member, ast.FunctionDef) and not member.name.startswith("_"):
                        found.setdefault(member.name, f"{where}:{member.lineno}")
    return found


@pytest.fixture(scope="module")
def uses(repo_sources: Sources) -> Counter[str]:
    """Every name read anywhere (as a name, an attribute, an import, or a string naming it) outside definitions."""
    used: Counter[str] = Counter()
    folders = ("reconciler", "tests", "benchmarks", "scripts", "examples")
    for path in (p for folder in folders for p in repo_sources.python_files(folder)):
        for node in ast.walk(repo_sources.tree(path)):
            if isinstance(node, ast.Name):
                used[node.id] += 1
            elif isinstance(node, ast.Attribute):
                used[node.attr] += 1
            elif isinstance(node, ast.alias):
                used[node.name.rsplit(".", 1)[-1]] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                used[node.value] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and PART.fullmatch(node.value):
                used[node.value.rsplit(":", 1)[-1]] += 1  # a kind's part, named "module:attribute"
    return used


def test_every_public_function_and_class_of_the_package_is_used(
    definitions: dict[str, str], uses: Counter[str]
) -> None:
    unused = sorted(
        f"{where}: {name}"
        for name, where in definitions.items()
        if uses[name] == 0 and name not in CALLED_BY_FRAMEWORKS
    )
    assert unused == [], f"nothing calls these: remove them (or say in CALLED_BY_FRAMEWORKS who does): {unused}"


def test_the_framework_list_names_only_members_that_exist(definitions: dict[str, str]) -> None:
    assert sorted(set(CALLED_BY_FRAMEWORKS) - set(definitions)) == []
